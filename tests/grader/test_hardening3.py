"""The grader hardened, round 3 (issue 28): bounded judging, a batch that never loses a grade,
files opened once and safely, no path followed blindly, status only from the grader, a private
leaderboard, replay handlers that fail as rule verdicts. One test (or more) per attack class;
test_hardening.py and hostile/ are the model."""

from __future__ import annotations

import copy
import csv
import dataclasses
import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from ascendlab.grader import GradeOptions, Verdict, isolation
from ascendlab.grader import channel as channel_mod
from ascendlab.grader.batch import SerialExecutor, grade_dir, render_summary, write_summary
from ascendlab.grader.challenge import Limits, load_challenge
from ascendlab.grader.channel import Channel, send
from ascendlab.grader.grade import job_file_name, make_jobs
from ascendlab.grader.harness import run_case
from ascendlab.grader.judge import judge_case
from ascendlab.grader.replay import RECORDABLE_OPS, replay
from ascendlab.grader.replay import budget as budget_mod
from ascendlab.grader.report import Report
from ascendlab.grader.submission import (
    SubmissionError,
    load_submission,
    read_file,
    shown_name,
)
from ascendlab.grader.wire import load_run, poisoned
from ascendlab.runtime.trace import OPS

from .conftest import FAST, HOSTILE, MINI, SECRET, compose, grade_mini

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
HONEST = (HOSTILE / "honest.py").read_text()


@pytest.fixture(scope="module")
def honest_record():
    """The mini challenge's first public case, recorded in this process by the honest file."""
    ch = load_challenge(MINI)
    spec = importlib.util.spec_from_file_location("honest_mini3", HOSTILE / "honest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    job = make_jobs(ch, SECRET, public_only=True)[0]
    arrays = dict(job.inputs)
    arrays.update({k: poisoned(s, d) for k, (s, d) in job.outputs.items()})
    rec = run_case(mod.launch, arrays, job.order, job.params, job.chip, ())
    assert judge_case(ch.spec, job, rec, SECRET)[0].verdict == Verdict.ACCEPTED
    return ch, job, rec


def _channel(frames: list[tuple[str, bytes]], **bounds) -> Channel:
    r, w = os.pipe()
    ch = Channel(r, max_record=1 << 24, max_total=1 << 26, max_frames=64, **bounds)
    ch.start()
    for kind, payload in frames:
        send(w, kind, payload)
    os.close(w)
    ch.join()
    return ch


# ---- 1. bounded judging: event budgets and the judge's wall clock ---------------------------
def test_back_references_count_as_the_events_they_expand_to(honest_record):
    ch, job, rec = honest_record
    bomb = copy.deepcopy(rec)
    events = bomb["run"]["events"]
    n_full = len(events)
    events.extend([0] * 5000)  # 8 bytes each on the wire, one replayed event each
    assert len(load_run(bomb["run"])[1]) == n_full + 5000
    data = json.dumps(bomb).encode()
    per_case = _channel([("case", data)], max_events=n_full + 4999)
    got = per_case.record(0)
    assert got["error"]["type"] == "ReplayBudget"
    cr, _ = judge_case(ch.spec, job, got, SECRET)
    assert cr.verdict == Verdict.RULE_VIOLATION, cr
    assert f"recorded {n_full + 5000:,} events" in cr.message
    assert "Limits.max_events" in cr.message
    # within the per-case budget, the same record passes the channel untouched
    assert _channel([("case", data)], max_events=n_full + 5000).record(0) == bomb


def test_the_per_submission_event_budget_adds_up_the_cases(honest_record):
    _ch, _job, rec = honest_record
    n = len(rec["run"]["events"])
    data = json.dumps(rec).encode()
    ch = _channel([("case", data)] * 3, max_events=n, max_events_total=2 * n)
    assert ch.record(0) == rec and ch.record(1) == rec
    third = ch.record(2)
    assert third["error"]["type"] == "ReplayBudget"
    assert f"{3 * n:,} events together" in third["error"]["message"]
    assert "Limits.max_events_total" in third["error"]["message"]
    # judged out of order, the earlier records still count
    ch2 = _channel([("case", data)] * 3, max_events=n, max_events_total=2 * n)
    assert ch2.record(2)["error"]["type"] == "ReplayBudget"


def test_a_replay_bomb_is_a_rule_violation_naming_the_budget(tmp_path):
    """The child sends a small record of 60 k back-references: judged before any replay."""
    limits = dataclasses.replace(FAST, max_events=20_000)
    t0 = time.monotonic()
    r = grade_mini(compose(tmp_path, "replay_bomb"), limits=limits)
    assert r.verdict == Verdict.RULE_VIOLATION, r
    assert "Limits.max_events" in r.message and "20,000 per case" in r.message
    assert time.monotonic() - t0 < 60


def test_the_judges_wall_clock_budget_is_a_time_limit(honest_record, monkeypatch):
    ch, job, rec = honest_record
    monkeypatch.setattr("ascendlab.grader.replay.run.CHECK_EVERY", 1)
    clock = budget_mod.CLOCK
    clock.start(0.0, 0.0)
    try:
        clock.child_ended()
        time.sleep(0.01)
        cr, _ = judge_case(ch.spec, job, rec, SECRET)
    finally:
        clock.clear()
    assert cr.verdict == Verdict.TIME_LIMIT, cr
    assert "Limits.judge_s" in cr.message and "wall-clock budget" in cr.message
    # without a clock started (the replay outside grade()), nothing fires
    assert judge_case(ch.spec, job, rec, SECRET)[0].verdict == Verdict.ACCEPTED


def test_a_timeout_in_the_forked_fresh_input_replay_reaches_the_parent():
    from ascendlab.grader.parallel import CAN_FORK, Forked

    if not CAN_FORK:
        pytest.skip("no fork here")

    def late() -> None:
        raise budget_mod.JudgeTimeout("past Limits.judge_s")

    f = Forked(late)
    with pytest.raises(budget_mod.JudgeTimeout, match="judge_s"):
        f.result()


def test_the_default_budgets_leave_room_for_the_largest_honest_case():
    lim = Limits()
    # day 7's reference: 53,904 events in its largest case, 96,658 in all (Limits' comment)
    assert lim.max_events >= 4 * 53_904 and lim.max_events_total >= 4 * 96_658
    assert lim.judge_s > 0


# ---- 2. files opened once, safely -----------------------------------------------------------
def test_a_huge_sparse_file_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "huge.py"
    with open(big, "wb") as f:
        f.truncate(30 << 30)  # 30 GiB, sparse: reading it would take minutes
    t0 = time.monotonic()
    with pytest.raises(SubmissionError, match="submissions are at most"):
        read_file(big)
    r = grade_mini(big)
    assert r.verdict == Verdict.RULE_VIOLATION and "32,212,254,720 B" in r.message, r
    assert time.monotonic() - t0 < 5


def test_symlinks_fifos_and_oversize_files_are_refused_by_name(tmp_path):
    secret = tmp_path / "private.py"
    secret.write_text("PRIVATE = 'do not read'\n")
    link = tmp_path / "link.py"
    link.symlink_to(secret)
    with pytest.raises(SubmissionError, match="symbolic link"):
        read_file(link)
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    with pytest.raises(SubmissionError, match="not a regular file"):
        read_file(fifo)  # never opened: it would block
    exact = tmp_path / "exact.py"
    exact.write_bytes(b"#" * 10)
    assert read_file(exact, limit=10) == b"#" * 10
    with pytest.raises(SubmissionError, match="at most 9 B"):
        read_file(exact, limit=9)


def test_submit_stores_exactly_the_bytes_it_graded(tmp_path, monkeypatch, capsys):
    """The file is rewritten while it is graded: the leaderboard keeps the graded bytes and
    their hash, not the swapped code."""
    from ascendlab.grader import commands

    grade_mod = importlib.import_module("ascendlab.grader.grade")

    sub = tmp_path / "mine.py"
    sub.write_text(HONEST)
    real = grade_mod.grade

    def swapping(ch, s, opts=None):
        sub.write_text("# swapped after the grade started\n" + HONEST)
        return real(ch, s, GradeOptions(secret=SECRET, limits=FAST, static_rules=False))

    monkeypatch.setattr(grade_mod, "grade", swapping)
    db = tmp_path / "lb" / "lb.sqlite3"
    args = commands.argparse.Namespace(challenge=str(MINI), submission=str(sub), user="ana",
                                       db=str(db), json=True, challenge_dir=False)
    code = commands.cmd_submit(args)
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out["message"]
    import hashlib

    want = hashlib.sha256(HONEST.encode()).hexdigest()
    assert out["leaderboard"]["sha256"] == want
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT source, sha256 FROM submissions").fetchall()
    assert rows and all(src == HONEST and sha == want for src, sha in rows)


# ---- 3. a batch never loses a grade ---------------------------------------------------------
def _hostile_folder(tmp_path: Path) -> Path:
    d = tmp_path / "subs"
    d.mkdir()
    (d / "a_honest.py").write_text(HONEST)
    os.mkfifo(d / "b_fifo.py")
    with open(d / "c_huge.py", "wb") as f:
        f.truncate(30 << 30)
    private = tmp_path / "someone_elses.py"
    private.write_text("SECRET_LINE = 'from another user'\n" + HONEST)
    (d / "d_link.py").symlink_to(private)
    (d / "e_latin1.py").write_bytes(b"# caf\xe9\n" + HONEST.encode())
    os.close(os.open(os.path.join(os.fsencode(d), b"f_\xff\xfe.py"), os.O_CREAT | os.O_WRONLY,
                     0o644))
    (d / "g.py\nzzz.py  ACCEPTED         gold          123  all cases correct.py").write_text(
        "x = 1\n")
    os.link(private, d / "h_hardlink.py")  # protected_hardlinks stops this for other users
    return d


def test_a_hostile_batch_folder_gives_every_file_a_verdict(tmp_path):
    d = _hostile_folder(tmp_path)
    out = tmp_path / "grades.csv"
    reports = grade_dir(MINI, d, SerialExecutor(), GradeOptions(secret=SECRET, limits=FAST),
                        progress=False, out=out)
    by = {r.submission: r for r in reports}
    assert len(reports) == 8
    assert by["a_honest.py"].verdict == Verdict.ACCEPTED, by["a_honest.py"]
    assert "not a regular file" in by["b_fifo.py"].message
    assert "submissions are at most" in by["c_huge.py"].message
    link = by["d_link.py"]
    assert link.verdict == Verdict.RULE_VIOLATION and "symbolic link" in link.message
    assert "SECRET_LINE" not in json.dumps(link.to_dict())
    hard = by["h_hardlink.py"]
    assert hard.verdict == Verdict.RULE_VIOLATION and "2 hard links" in hard.message
    assert "not UTF-8" in by["e_latin1.py"].message
    assert "f_\\xff\\xfe.py" in by  # the undecodable name, escaped
    spoof = next(r for r in reports if r.submission.startswith("g.py"))
    assert "\n" not in spoof.submission and spoof.verdict != Verdict.ACCEPTED
    table = render_summary(reports)
    lines = table.splitlines()
    assert len(lines) == 1 + 8  # one line per submission, whatever the names hold
    col = lines[0].index("verdict")  # every row's verdict sits in the verdict column
    assert [ln[col:].split()[0] for ln in lines[1:]] == [r.verdict.value for r in reports]
    assert not any(ln.startswith("zzz.py") for ln in lines)
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["verdict"] for r in rows] == [r.verdict.value for r in reports]


def test_the_summary_is_written_as_each_grade_completes(tmp_path):
    """An executor that dies after the first grade: the summary on disk already holds it."""
    d = tmp_path / "subs"
    d.mkdir()
    for n in ("a.py", "b.py", "c.py"):
        (d / n).write_text("x = 1\n")  # no launch(): a quick, clean verdict

    class Dying(SerialExecutor):
        def run(self, fn, jobs):
            yield fn(jobs[0])
            raise RuntimeError("the cluster went away")

    out = tmp_path / "grades.json"
    with pytest.raises(RuntimeError, match="went away"):
        grade_dir(MINI, d, Dying(), GradeOptions(secret=SECRET, limits=FAST), progress=False,
                  out=out)
    data = json.loads(out.read_text())
    assert [r["submission"] for r in data["summary"]] == ["a.py"]
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


def test_a_worker_failure_is_that_files_verdict(tmp_path):
    from ascendlab.grader.batch import Job, LocalExecutor, _lost

    job = Job(3, str(MINI), "x.py", b"", GradeOptions())
    index, d = _lost(job, MemoryError("worker killed"))
    r = Report.from_dict(d)
    assert index == 3 and r.verdict == Verdict.INTERNAL_ERROR and "worker killed" in r.message
    assert LocalExecutor(1).workers == 1


def test_summary_writes_replace_a_planted_symlink_instead_of_following_it(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "grades.csv"
    out.symlink_to(victim)
    write_summary([], out)
    assert victim.read_text() == "keep me" and not out.is_symlink()


def test_names_are_shown_escaped():
    assert shown_name("ok.py") == "ok.py"
    assert shown_name("a\nb.py") == "a\\nb.py"
    assert shown_name("\x1b[31mred.py") == "\\x1b[31mred.py"
    assert shown_name(os.fsdecode(b"\xff.py")) == "\\xff.py"
    assert shown_name("\u202eyp.exe") == "\\u202eyp.exe"


# ---- 4. no path followed blindly ------------------------------------------------------------
def test_a_challenge_name_never_runs_a_spec_in_the_working_folder(tmp_path, monkeypatch):
    planted = tmp_path / "vadd"
    planted.mkdir()
    marker = tmp_path / "planted-ran"
    (planted / "spec.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (tmp_path / "challenges" / "vadd").mkdir(parents=True)
    (tmp_path / "challenges" / "vadd" / "spec.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    ch = load_challenge("vadd")
    assert ch.path != planted.resolve() and not marker.exists()
    with pytest.raises(FileNotFoundError, match="no challenge 'nothing-here'"):
        load_challenge("nothing-here")
    # an explicit path (a '/' in it, a Path, or --challenge-dir) is a path
    with pytest.raises(TypeError, match="SPEC"):
        load_challenge("./vadd")
    assert marker.exists()


def test_grade_challenge_dir_flag_takes_the_name_as_a_folder(tmp_path, monkeypatch, capsys):
    from ascendlab.cli import main

    monkeypatch.chdir(MINI.parent)
    sub = tmp_path / "x.py"
    sub.write_text("x = 1\n")
    assert main(["grade", "mini", str(sub)]) == 2  # a name: not an installed challenge
    assert "no challenge 'mini'" in capsys.readouterr().err
    code = main(["grade", "--challenge-dir", "--public-only", "mini", str(sub)])
    assert code == 1 and "must define launch(...)" in capsys.readouterr().out


def test_the_sweep_never_acts_on_a_uid_read_from_a_folder_name(tmp_path):
    """A planted folder named like a dead grader's job, naming a live process's uid: the
    sweep leaves both alone; a registered job of a dead grader is removed."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    base = Path(tempfile.gettempdir())
    planted = base / f"{isolation.JOB_PREFIX}{dead.pid}-{os.getuid()}-x"
    planted.mkdir()
    old = time.time() - 3600
    os.utime(planted, (old, old))
    ours = Path(tempfile.mkdtemp(prefix=f"{isolation.JOB_PREFIX}{dead.pid}-"))
    isolation._register(str(ours), None, dead.pid)
    entry = Path(isolation.registry()) / (ours.name + ".json")
    os.utime(entry, (old, old))
    try:
        removed = isolation.sweep_leftovers()
        assert str(ours) in removed and not ours.exists() and not entry.exists()
        assert planted.exists() and str(planted) not in removed
        assert victim.poll() is None  # not killed
    finally:
        victim.kill()
        victim.wait()
        planted.rmdir()


def test_a_registry_that_is_not_the_graders_own_is_not_trusted(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / f"{isolation.REGISTRY_PREFIX}{os.geteuid()}").symlink_to(tmp_path / "elsewhere")
    assert isolation.registry() is None
    assert isolation.sweep_leftovers(min_age_s=0) == []


def test_job_file_names_are_fixed_unless_plain():
    from ascendlab.grader.submission import Submission

    assert job_file_name(Submission("mine.py", "", "py")) == "mine.py"
    assert job_file_name(Submission("x" * 252 + ".py", "", "py")) == "submission.py"
    assert job_file_name(Submission("a\\nb.py", "", "py")) == "submission.py"
    assert job_file_name(Submission("..py", "", "py")) == "submission.py"
    assert job_file_name(Submission("n" * 249 + ".ipynb", "", "ipynb")) == \
        "submission_notebook.py"


# ---- 5. status only from the grader ---------------------------------------------------------
def test_only_the_first_valid_status_frame_counts():
    ch = _channel([("status", json.dumps({"privileges": "uid 7", "pid": 3}).encode()),
                   ("status", json.dumps({"privileges": "FORGED"}).encode())])
    assert ch.status == {"privileges": "uid 7", "pid": 3} and ch.status_dropped == 1
    big = _channel([("status", json.dumps({"privileges": "x" * 5000}).encode())])
    assert big.status is None
    odd = _channel([("status", json.dumps({"privileges": "ok", "admin": True}).encode()),
                    ("status", json.dumps({"privileges": "uid 1"}).encode())])
    assert odd.status is None  # the first frame was invalid: no later one replaces it
    assert channel_mod.valid_status(["not", "a", "dict"]) is None


def test_a_notebook_kernels_status_counts_only_before_any_case():
    child = json.dumps({"privileges": "kept until the kernel's first cell",
                        "runner": "papermill"}).encode()
    kernel = json.dumps({"privileges": "uid 9", "runner": "papermill"}).encode()
    forged = json.dumps({"privileges": "FORGED", "runner": "papermill"}).encode()
    ch = _channel([("status", child), ("status", kernel), ("status", forged)])
    assert ch.status["privileges"] == "uid 9" and ch.status["kernel"] is True
    assert ch.status_dropped == 1
    late = _channel([("status", child), ("case", b"{}"), ("status", forged)])
    assert late.status["privileges"].startswith("kept") and late.status_dropped == 1
    py = _channel([("status", json.dumps({"privileges": "uid 3"}).encode()),
                   ("status", kernel)])
    assert py.status == {"privileges": "uid 3"}  # a .py run has no second status


def test_a_child_cannot_forge_its_sandbox_status(tmp_path):
    r = grade_mini(compose(tmp_path, "forge_status"))
    assert r.verdict == Verdict.ACCEPTED, r
    priv = r.sandbox["privileges"]
    assert "FORGED" not in priv and "FFFF" not in priv and len(priv) < 200
    assert len(r.to_json()) < 1 << 20


# ---- 6. a private leaderboard ---------------------------------------------------------------
def test_the_leaderboard_is_created_private_and_doctor_warns_when_wider(tmp_path, monkeypatch):
    from ascendlab.cli import doctor
    from ascendlab.grader.leaderboard import Leaderboard, permission_problems

    old = os.umask(0o022)
    try:
        lb = Leaderboard(tmp_path / "share" / "lb.sqlite3")
        lb._connect().close()  # what the first record() or best() does
    finally:
        os.umask(old)
    assert (tmp_path / "share").stat().st_mode & 0o777 == 0o700
    for f in (tmp_path / "share").iterdir():
        assert f.stat().st_mode & 0o077 == 0, f
    assert permission_problems(lb.path) == []
    monkeypatch.setenv("ASCENDLAB_LEADERBOARD", str(lb.path))
    assert doctor._leaderboard().ok
    os.chmod(lb.path, 0o644)
    os.chmod(lb.path.parent, 0o755)
    found = permission_problems(lb.path)
    assert any("mode 0644" in p for p in found) and any("mode 0755" in p for p in found)
    line = doctor._leaderboard()
    assert not line.ok and "chmod 600" in line.fix


# ---- 7. replay handlers fail as rule verdicts -----------------------------------------------
def test_an_operand_less_get_value_is_a_rule_violation(honest_record):
    ch, job, rec = honest_record
    strict = dataclasses.replace(ch.spec, rules=dataclasses.replace(ch.spec.rules,
                                                                    gm_scalar_access=False))
    for op in ("get_value", "set_value"):
        r = copy.deepcopy(rec)
        e = r["run"]["events"][0]
        e[1], e[2], e[3], e[4] = "S", op, [], []
        for spec in (ch.spec, strict):
            cr, _ = judge_case(spec, job, r, SECRET)
            assert cr.verdict == Verdict.RULE_VIOLATION, cr
            assert "IndexError" not in cr.message and "exactly one element" in cr.message


_ARG_NAMES = ("params", "quant", "config", "event", "event_id", "pipe", "value", "mask",
              "repeat", "scalar", "src_dtype", "dtypes", "adv", "slot", "depth", "position")


@pytest.mark.parametrize("mutation", ["no_operands", "no_args", "both", "junk_args",
                                      "swapped"])
def test_fuzz_every_replay_handler_with_malformed_events(honest_record, mutation):
    """Every op the wire admits, as a malformed-but-parseable event (no operands, no
    arguments, arguments of the wrong type, reads and writes swapped) at the start of the
    trace and in the middle: the judge's verdict is a rule verdict, never an exception, under
    the mini rules and under strict ones (no GM scalar access, read-only inputs)."""
    ch, job, rec = honest_record
    strict = dataclasses.replace(ch.spec, rules=dataclasses.replace(
        ch.spec.rules, gm_scalar_access=False, allowed_ops=None))
    events = rec["run"]["events"]
    middle = next(i for i, e in enumerate(events) if isinstance(e, list) and e[2] == "add")
    seen = set()
    for op in sorted(RECORDABLE_OPS):
        for pos in (0, middle):
            r = copy.deepcopy(rec)
            e = r["run"]["events"][pos]
            original = list(e)
            e[2] = op
            info = OPS.get(op)
            if info is not None and info.pipe:
                e[1] = info.pipe
            if mutation in ("no_operands", "both"):
                e[3], e[4] = [], []
            if mutation in ("no_args", "both"):
                e[11] = []
            if mutation == "junk_args":
                e[11] = [[k, "x"] for k in _ARG_NAMES]
            if mutation == "swapped":
                e[3], e[4] = e[4], e[3]
            want = ({Verdict.ACCEPTED} if e == original else  # the mutation changed nothing
                    {Verdict.RULE_VIOLATION, Verdict.SANITIZER_ERROR, Verdict.WRONG_ANSWER})
            for spec in (ch.spec, strict):
                cr, _ = judge_case(spec, job, r, SECRET)
                assert cr.verdict in want, (op, pos, cr)
                seen.add(op)
    assert seen == set(RECORDABLE_OPS)
    # and the replay itself raises only ReplayError (never IndexError, KeyError ...)
    from ascendlab.grader.replay import ReplayError

    meta, evs = load_run(rec["run"])
    broken = list(evs)
    broken[0] = broken[0]._replace(op="get_value", pipe="S", reads=(), writes=())
    with pytest.raises(ReplayError, match="exactly one element"):
        replay(broken, meta.gm, {g.name: __import__("numpy").zeros(g.nbytes, "uint8")
                                 for g in meta.gm}, meta.chip, meta.block_num, meta.core_kind)


# ---- 8. names the file system or the terminal dislike ---------------------------------------
def test_a_notebook_with_a_255_byte_name_gets_a_clean_verdict(tmp_path):
    name = "n" * 249 + ".ipynb"
    assert len(name.encode()) == 255
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "code", "metadata": {"tags": ["solution"]},
                     "source": HONEST, "outputs": [], "execution_count": None}]}
    p = tmp_path / name
    p.write_text(json.dumps(nb))
    r = grade_mini(p, notebook_runner="script")
    assert r.verdict == Verdict.ACCEPTED, r
    assert not any("File name too long" in n for n in r.notes)


def test_a_file_name_with_a_newline_is_one_escaped_line(tmp_path):
    p = tmp_path / "evil.py\nACCEPTED gold.py"
    p.write_text("x = 1\n")
    sub = load_submission(p)
    assert sub.name == "evil.py\\nACCEPTED gold.py"
    r = grade_mini(p)
    assert "\n" not in r.submission and r.verdict != Verdict.ACCEPTED
