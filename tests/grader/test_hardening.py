"""The grader hardened, class by class (issue: jobs isolated from each other, bounded records,
clean verdicts, a submit that never loses a grade). Each test reproduces one class of attack
that the grader before this change did not contain."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ascendlab.grader import GradeOptions, Limits, Verdict, grade, isolation
from ascendlab.grader.challenge import load_challenge
from ascendlab.grader.channel import MAX_VALUES, Channel, send
from ascendlab.grader.commands import EXIT_LEADERBOARD, EXIT_USAGE, cmd_submit
from ascendlab.grader.grade import make_jobs
from ascendlab.grader.harness import run_case
from ascendlab.grader.judge import judge_case
from ascendlab.grader.report import Report
from ascendlab.grader.submission import SubmissionError, load_submission
from ascendlab.grader.text import check_user, clean
from ascendlab.grader.wire import poisoned

from .conftest import FAST, HOSTILE, MINI, SECRET, compose, grade_mini

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="private uids need a root grader")


def _stdout_line(r: Report, tag: str) -> str:
    return next(ln for ln in r.stdout.splitlines() if ln.startswith(tag))


# ---- 1. special files in the record channel ------------------------------------------------
def test_named_pipes_where_records_were_do_not_block_the_grader(tmp_path):
    """Records come through a pipe the grader made: FIFOs planted where the old grader read
    its records (and would block opening them) are never opened."""
    r = grade_mini(compose(tmp_path, "fifo_records"))
    assert r.verdict == Verdict.ACCEPTED, r
    assert "records through a pipe" in r.sandbox["isolation"]


# ---- 2. unbounded parsing ------------------------------------------------------------------
def _channel(frames: list[tuple[str, bytes]], **bounds) -> Channel:
    r, w = os.pipe()
    ch = Channel(r, max_record=bounds.get("max_record", 1 << 20),
                 max_total=bounds.get("max_total", 4 << 20),
                 max_frames=bounds.get("max_frames", 16))
    ch.start()
    for kind, payload in frames:
        send(w, kind, payload)
    os.close(w)
    ch.join()
    return ch


def test_channel_bounds_are_checked_before_parsing():
    ch = _channel([("case", b"[1]"), ("case", b"x" * (2 << 20)), ("case", b"[2]")])
    assert ch.error and "exceeds the limit of 1,048,576 bytes per record" in ch.error
    assert len(ch.cases) == 1 and ch.record(0) == [1]  # nothing after the bad frame is kept
    total = _channel([("case", b"0" * (900 << 10))] * 6, max_total=4 << 20)
    assert "per job" in total.error and len(total.cases) == 4
    frames = _channel([("progress", b"0")] * 20, max_frames=16)
    assert "more than 16 record frames" in frames.error


def test_channel_rejects_a_foreign_header():
    r, w = os.pipe()
    ch = Channel(r, max_record=1 << 20, max_total=1 << 20, max_frames=4)
    ch.start()
    os.write(w, b"GARBAGE-NOT-A-FRAME")
    os.close(w)
    ch.join()
    assert "broken header" in ch.error


def test_crafted_json_within_the_byte_bound_is_not_parsed():
    """A few MiB of tiny nested values would cost the parser gigabytes: the value count is
    checked first, and the record is 'malformed' without being parsed."""
    blob = b"[" + b"[]," * (MAX_VALUES // 2 + 1) + b"[]]"
    ch = _channel([("case", blob)], max_record=len(blob) + 1, max_total=len(blob) + 1)
    assert ch.error is None and ch.record(0) == "malformed"
    deep = b"[" * 100_000 + b"]" * 100_000  # RecursionError in the parser
    ch = _channel([("case", deep)])
    assert ch.record(0) == "malformed"


def test_flooding_the_channel_is_the_submissions_fault(tmp_path):
    limits = Limits(wall_s=20.0, cpu_s=15.0, memory_mb=1536, record_mb=8, records_mb=16)
    r = grade_mini(compose(tmp_path, "flood_channel"), limits=limits)
    assert r.verdict == Verdict.RUNTIME_ERROR, r
    assert "broke the record channel" in r.message and "per record" in r.message


# ---- 3. jobs reaching each other -----------------------------------------------------------
def _fake_neighbour() -> str:
    """Another job's folder as the grader makes it: its own uid (as root), mode 0700."""
    uid = isolation.new_job_uid()
    root = isolation.job_root(uid)
    os.makedirs(os.path.join(root, "job", "inputs"))
    Path(root, "job", "inputs", "public-a-x.npy").write_bytes(b"secret inputs")
    if uid is not None:
        for dirpath, _d, files in os.walk(root):
            os.chown(dirpath, uid, uid)
            for f in files:
                os.chown(os.path.join(dirpath, f), uid, uid)
    return root


@pytest.mark.skipif(os.geteuid() != 0 and not isolation.bwrap(),
                    reason="needs a private uid (root) or bubblewrap's private mounts")
def test_a_job_cannot_read_or_write_another_jobs_folder(tmp_path):
    other = _fake_neighbour()
    try:
        r = grade_mini(compose(tmp_path, "neighbour"))
        assert r.verdict == Verdict.ACCEPTED, r
        assert _stdout_line(r, "NEIGHBOUR") == "NEIGHBOUR []"
        assert not Path(other, "planted").exists()
    finally:
        isolation.remove_job(other, None)


@root_only
def test_each_job_has_its_own_uid(tmp_path):
    probe = tmp_path / "uid.py"
    probe.write_text("import os\nprint('UID', os.getuid(), flush=True)\n"
                     + (HOSTILE / "honest.py").read_text())
    uids = {_stdout_line(grade_mini(probe), "UID") for _ in range(2)}
    assert len(uids) == 2
    assert all(int(u.split()[1]) >= isolation.JOB_UID_BASE for u in uids)


def test_a_child_that_dies_after_its_records_is_not_accepted(tmp_path):
    r = grade_mini(compose(tmp_path, "die_after_records"))
    assert r.verdict == Verdict.RUNTIME_ERROR, r
    assert "after its last case was recorded" in r.message and "signal 9" in r.message


# ---- 4. malformed records and notebooks are the submission's fault --------------------------
@pytest.fixture(scope="module")
def honest_record():
    ch = load_challenge(MINI)
    spec = importlib.util.spec_from_file_location("honest_mini", HOSTILE / "honest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    job = make_jobs(ch, SECRET, public_only=True)[0]
    arrays = dict(job.inputs)
    arrays.update({k: poisoned(s, d) for k, (s, d) in job.outputs.items()})
    rec = run_case(mod.launch, arrays, job.order, job.params, job.chip, ())
    assert judge_case(ch.spec, job, rec, SECRET)[0].verdict == Verdict.ACCEPTED
    return ch, job, rec


@pytest.mark.parametrize("tamper", ["moved_base", "same_base", "no_operands", "huge_base"])
def test_malformed_records_get_the_submissions_verdict(honest_record, tamper):
    ch, job, rec = honest_record
    r = copy.deepcopy(rec)
    gm, events = r["run"]["gm"], r["run"]["events"]
    if tamper == "moved_base":
        gm[0][1] += 64
    elif tamper == "same_base":
        gm[1][1] = gm[0][1]
    elif tamper == "huge_base":
        gm[0][1] = 1 << 62
    else:
        next(e for e in events if e[2] == "data_copy_pad")[3] = []
    cr, _ = judge_case(ch.spec, job, r, SECRET)
    assert cr.verdict == Verdict.RULE_VIOLATION, cr
    assert "replay" in cr.message or "malformed" in cr.message


@pytest.mark.parametrize("cell, words", [
    ({"cell_type": "code", "metadata": [], "source": "x = 1"}, "metadata must be an object"),
    ({"cell_type": "code", "metadata": {}, "source": 42}, "source must be a string"),
    ({"cell_type": "code", "metadata": {"tags": "solution"}, "source": ""}, "tags must be"),
    ("not a cell", "is not an object"),
])
def test_malformed_notebooks_are_the_submissions_fault(tmp_path, cell, words):
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# hi"}, cell],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    p = tmp_path / "bad.ipynb"
    p.write_text(json.dumps(nb))
    with pytest.raises(SubmissionError, match=words):
        load_submission(p)
    r = grade(MINI, p, GradeOptions(secret=SECRET, limits=FAST))
    assert r.verdict == Verdict.RULE_VIOLATION and "cell 1" in r.message, r


# ---- 5. untrusted text ---------------------------------------------------------------------
EVIL = "ok\x1b[2J\x1b[H\rACCEPTED\x07 \x1b]0;title\x07\u202eevil\x9b"


def test_untrusted_text_is_cleaned_for_terminals_escaped_in_html_exact_in_json():
    r = Report(challenge="mini", submission="s\x1b[31m.py", verdict=Verdict.WRONG_ANSWER,
               message="m" + EVIL, stdout=EVIL, stderr=EVIL, notes=[EVIL])
    text = str(r)
    for bad in ("\x1b", "\r", "\x07", "\u202e", "\x9b"):
        assert bad not in text
    assert "ACCEPTED" in text  # the words stay readable, only the controls go
    page = r._repr_html_()
    assert "\x1b" not in page and "<script" not in page
    assert json.loads(r.to_json())["stdout"] == EVIL


@pytest.mark.parametrize("name", ["a\nb", "x" * 33, "", "ana\x1b[2J", "-ana", "名前", "a b"])
def test_bad_user_names_are_refused(name):
    with pytest.raises(ValueError, match="invalid leaderboard user name"):
        check_user(name)


def test_good_user_names_pass():
    for name in ("ana", "Bob_2", "x.y-z", "a" * 32):
        assert check_user(name) == name
    assert clean("plain\ttext\n") == "plain\ttext\n"


# ---- submit never loses a grade ------------------------------------------------------------
def _submit(db: str, user: str = "ana") -> tuple[int, str, str]:
    import argparse
    import contextlib
    import io

    args = argparse.Namespace(challenge=str(MINI), submission=str(HOSTILE / "honest.py"),
                              user=user, db=db, json=False)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cmd_submit(args)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", ["garbage", "foreign", "directory", "no_parent"])
def test_submit_prints_the_grade_when_the_leaderboard_cannot_be_written(tmp_path, case):
    db = tmp_path / "lb.sqlite3"
    user = "ana"
    if case == "garbage":
        db.write_bytes(b"this is not a database" * 100)
    elif case == "foreign":
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE submissions (id INTEGER, other TEXT)")
        con.commit()
        con.close()
    elif case == "directory":
        db.mkdir()
    else:
        (tmp_path / "file").write_text("x")
        db = tmp_path / "file" / "lb.sqlite3"  # a parent that is a file
    code, out, err = _submit(str(db), user)
    assert code == EXIT_LEADERBOARD, (code, out, err)
    assert out.startswith("ACCEPTED") and "cases:" in out
    line = err.strip().splitlines()[-1]
    assert "NOT recorded" in line and str(db) in line


def test_submit_refuses_a_bad_user_name_before_grading(tmp_path, monkeypatch):
    """An invalid --user is a usage error said at once, not after seconds of grading."""
    import importlib

    grade_module = importlib.import_module("ascendlab.grader.grade")

    def no_grading(*a, **k):
        raise AssertionError("graded before the user name was checked")

    monkeypatch.setattr(grade_module, "grade", no_grading)
    code, out, err = _submit(str(tmp_path / "lb.sqlite3"), "ana\n#1 mallory")
    assert code == EXIT_USAGE and out == ""
    assert "invalid leaderboard user name" in err and "mallory" in err
    assert not (tmp_path / "lb.sqlite3").exists()


@root_only
def test_submit_with_a_read_only_leaderboard(tmp_path):
    db = tmp_path / "lb.sqlite3"
    code, _out, _err = _submit(str(db))
    assert code == 0
    subprocess.run(["chattr", "+i", str(db)], check=False)
    immutable = "i" in subprocess.run(["lsattr", str(db)], capture_output=True,
                                      text=True).stdout.split(" ")[0]
    try:
        if not immutable:
            pytest.skip("chattr +i is not supported on this file system")
        code, out, err = _submit(str(db))
        assert code == EXIT_LEADERBOARD and out.startswith("ACCEPTED") and "NOT recorded" in err
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=False)


# ---- 6. leftovers --------------------------------------------------------------------------
def test_scratch_files_do_not_outlive_the_job_and_disk_is_bounded(tmp_path):
    limits = Limits(wall_s=20.0, cpu_s=15.0, memory_mb=1536, disk_mb=8)
    r = grade_mini(compose(tmp_path, "leftovers"), limits=limits)
    assert r.verdict == Verdict.ACCEPTED, r
    _tag, written, mode = _stdout_line(r, "LEFTOVERS").split()
    if not isolation.bwrap():  # (under bwrap the folder is a private mount point instead)
        assert mode == "0o700"
    else:
        assert int(written) <= 8 << 20  # the private /tmp is 8 MiB
    for d in ("/tmp", "/var/tmp", "/dev/shm"):
        assert not Path(d, "ascendlab-leftover-probe").exists()
        assert not Path(d, "ascendlab-leftover-probe-big").exists()


def test_job_folders_are_private(tmp_path):
    from ascendlab.grader.grade import _write_job
    from ascendlab.grader.submission import Submission

    ch = load_challenge(MINI)
    uid = isolation.new_job_uid()
    root = isolation.job_root(uid)
    try:
        _write_job(root, ch, Submission("s.py", "pass", "py"),
                   make_jobs(ch, SECRET, public_only=True), uid)
        for dirpath, _dirs, _files in os.walk(root):
            st = os.stat(dirpath)
            assert st.st_mode & 0o077 == 0, dirpath  # nobody but the owner
            if uid is not None:
                assert st.st_uid == uid
    finally:
        isolation.remove_job(root, uid)


def test_sweep_removes_folders_of_dead_graders():
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    import tempfile

    root = Path(tempfile.mkdtemp(prefix=f"{isolation.JOB_PREFIX}{dead.pid}-"))
    (root / "job").mkdir(parents=True)
    (root / "job" / "submission.py").write_text("secret")
    isolation._register(str(root), None, dead.pid)  # as that grader's job_root() did
    old = time.time() - 3600
    os.utime(Path(isolation.registry()) / f"{root.name}.json", (old, old))
    alive = Path(isolation.job_root(None))  # ours: a live grader's folder stays
    try:
        removed = isolation.sweep_leftovers()
        assert str(root) in removed and not root.exists()
        assert alive.exists()
    finally:
        isolation.remove_job(str(alive), None)


def test_sigterm_of_the_grader_removes_the_job_and_kills_the_child(tmp_path):
    sub = compose(tmp_path, "infinite_loop")
    code = ("import sys; from ascendlab.cli import main; "
            f"sys.exit(main(['grade', {str(MINI)!r}, {str(sub)!r}]))")
    import tempfile

    before = {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(isolation.JOB_PREFIX)}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    mine: set[str] = set()
    for _ in range(200):  # wait (bounded) for its job folder
        time.sleep(0.05)
        mine = {n for n in os.listdir(tempfile.gettempdir())
                if n.startswith(f"{isolation.JOB_PREFIX}{proc.pid}-")} - before
        if mine:
            break
    assert mine, "the grader never made its job folder"
    time.sleep(1.0)  # let the sandboxed child start
    proc.terminate()
    assert proc.wait(timeout=30) == 128 + 15
    assert not any(Path(tempfile.gettempdir(), n).exists() for n in mine)
    time.sleep(0.5)
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert not any("ascendlab.grader.harness" in ln and any(n in ln for n in mine)
                   for ln in out.splitlines())


def test_doctor_line_names_the_isolation_in_force():
    from ascendlab.grader.sandbox import describe

    lines = describe()
    assert lines and ("bubblewrap" in lines[0] or "unshare" in lines[0] or "NO" in lines[0])


def test_lazy_imports_work_after_the_privilege_drop(tmp_path):
    """The private uid can still import what it did not preload: the folders bubblewrap makes
    for its mounts are traversable (it would make them 0700)."""
    probe = tmp_path / "lazy.py"
    probe.write_text((HOSTILE / "honest.py").read_text() + "\n\ndef launch(x, y, z, core_num):\n"
                     "    import csv  # noqa: F401 - not preloaded by the harness\n"
                     "    import tqdm.auto  # noqa: F401 - site-packages, not preloaded\n"
                     "    print('LAZY ok', flush=True)\n    run(x, y, z)\n")
    r = grade_mini(probe)
    assert r.verdict == Verdict.ACCEPTED, r
    assert "LAZY ok" in r.stdout
