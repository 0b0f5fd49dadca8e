"""leaderboard.py: best verified cycles per user/challenge/chip; concurrent writers never
corrupt it; a failure mid-way leaves no partial row."""

from __future__ import annotations

import multiprocessing
import sqlite3
import subprocess
import sys

import pytest

from ascendlab.analysis.cost import MODEL_VERSION
from ascendlab.grader.leaderboard import Leaderboard, default_path
from ascendlab.grader.report import PerfReport, Report, Verdict

from .conftest import compose


def _report(cycles: int, chips=("Ascend910B2",), verdict=Verdict.ACCEPTED, name="a.py"):
    perf = [PerfReport(chip=c, case="hidden-largest", cycles=cycles + k, bound_cycles=1000,
                       ratio=(cycles + k) / 1000, tier="silver", time_us=25.0,
                       kernel_bound="memory") for k, c in enumerate(chips)]
    return Report(challenge="swish", submission=name, verdict=verdict, message="", perf=perf,
                  tier="silver", model_version=MODEL_VERSION)


def test_best_per_user_and_chip(tmp_path):
    lb = Leaderboard(tmp_path / "lb.sqlite3")
    assert lb.best("swish") == []
    assert lb.record(_report(5000), "ana", submitted_at=1.0) == 1
    assert lb.record(_report(4000, name="b.py"), "ana", submitted_at=2.0) == 1
    assert lb.record(_report(4500), "bo", submitted_at=3.0) == 1
    assert lb.record(_report(4000), "bo", submitted_at=4.0) == 1
    assert lb.record(_report(10, verdict=Verdict.WRONG_ANSWER), "eve") == 0
    best = lb.best("swish")
    assert [(e.rank, e.user, e.cycles, e.submission) for e in best] == [
        (1, "ana", 4000, "b.py"), (2, "bo", 4000, "a.py")]  # ties: the earlier submission
    assert "ana" in lb.render("swish") and "eve" not in lb.render("swish")
    assert lb.best("swish", chip="Ascend310P3") == []


def test_rows_of_another_cost_model_are_not_ranked(tmp_path):
    lb = Leaderboard(tmp_path / "lb.sqlite3")
    old = _report(10)
    old.model_version = "0.9"
    lb.record(old, "ana")
    assert lb.best("swish") == [] and lb.best("swish", model_version=None)


def test_a_failure_mid_record_leaves_no_partial_row(tmp_path):
    lb = Leaderboard(tmp_path / "lb.sqlite3")
    lb.record(_report(7000), "ana")

    def fail_on_second(i):
        if i == 1:
            raise RuntimeError("crash between the two chips' rows")

    with pytest.raises(RuntimeError):
        lb.record(_report(100, chips=("Ascend910B2", "Ascend310P3")), "bo",
                  _before_row=fail_on_second)
    assert lb.count() == 1
    assert [e.user for e in lb.best("swish")] == ["ana"]


def _writer(path: str, user: str, n: int) -> None:
    lb = Leaderboard(path)
    for k in range(n):
        lb.record(_report(1000 + k, chips=("Ascend910B2", "Ascend310P3")), user)


def test_concurrent_submits_from_processes(tmp_path):
    path = str(tmp_path / "lb.sqlite3")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, f"user{i}", 15)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    lb = Leaderboard(path)
    assert lb.count() == 4 * 15 * 2
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    per_user = con.execute("SELECT user, COUNT(*) FROM submissions GROUP BY user").fetchall()
    assert sorted(per_user) == [(f"user{i}", 30) for i in range(4)]
    assert len(lb.best("swish")) == 8


def test_default_path(monkeypatch, tmp_path):
    monkeypatch.setenv("ASCENDLAB_LEADERBOARD", str(tmp_path / "x.db"))
    assert default_path() == tmp_path / "x.db"
    monkeypatch.delenv("ASCENDLAB_LEADERBOARD")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert default_path() == tmp_path / "ascendlab" / "leaderboard.sqlite3"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_submit_and_leaderboard_commands(tmp_path):
    db = tmp_path / "lb.sqlite3"
    sub = compose(tmp_path, "honest")
    from .conftest import MINI

    p = subprocess.run([sys.executable, "-m", "ascendlab", "submit", str(MINI), str(sub),
                        "--user", "ana", "--db", str(db)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "recorded on the leaderboard as 'ana'" in p.stdout
    bad = tmp_path / "bad.py"
    bad.write_text("def launch(x, y, z, core_num):\n    z[...] = x + y\n")
    p = subprocess.run([sys.executable, "-m", "ascendlab", "submit", str(MINI), str(bad),
                        "--user", "eve", "--db", str(db)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 1 and "not recorded" in p.stdout
    p = subprocess.run([sys.executable, "-m", "ascendlab", "leaderboard", "mini", "--db",
                        str(db)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "ana" in p.stdout and "eve" not in p.stdout
