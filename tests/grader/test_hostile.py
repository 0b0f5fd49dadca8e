"""The hostile battery: each submission tries to cheat or to take the grader down; each is
contained with the verdict that names what it did, and the honest one is still accepted."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import ascendlab
from ascendlab.grader import Limits, Verdict

from .conftest import MINI, SECRET, compose, grade_mini, needs_namespaces

SHORT = Limits(wall_s=3.0, cpu_s=2.0, memory_mb=1024)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def test_honest_is_accepted(tmp_path):
    r = grade_mini(compose(tmp_path, "honest"))
    assert r.verdict == Verdict.ACCEPTED, r
    assert r.perf and r.perf[0].cycles > 0 and r.tier in ("gold", "silver", "bronze")


# name -> (verdict, words that must be in the message)
BATTERY = {
    # numpy patched in the child: the grader compares in its own process
    "patch_numpy": (Verdict.WRONG_ANSWER, ["output 'z'", "worst element"]),
    # the runtime patched so that sub adds: the trace says sub, the replay subtracts
    "patch_runtime": (Verdict.RULE_VIOLATION, ["written outside emulated instructions"]),
    # the reference patched in the child: the grader's reference is its own
    "patch_reference": (Verdict.WRONG_ANSWER, ["elements off"]),
    # the spec read from disk and its reference written into z with numpy
    "read_spec": (Verdict.RULE_VIOLATION, ["output 'z'", "outside emulated instructions"]),
    "write_outputs": (Verdict.RULE_VIOLATION, ["outside emulated instructions"]),
    "no_launch": (Verdict.RULE_VIOLATION, ["exactly one kernel", "launched 0"]),
    "mutate_inputs": (Verdict.RULE_VIOLATION, ["input 'x'"]),
    "write_inputs": (Verdict.RULE_VIOLATION, ["writes input 'x'", "read-only"]),
    "cache_cases": (Verdict.RULE_VIOLATION, ["hidden-b", "outside emulated instructions"]),
    "baked_scalars": (Verdict.RULE_VIOLATION, ["fresh inputs", "do not depend on the data"]),
    "forged_record": (Verdict.RULE_VIOLATION, ["fresh inputs"]),
    "sys_exit": (Verdict.RUNTIME_ERROR, ["sys.exit(0)", "sys_exit.py:"]),
    "os_exit": (Verdict.RUNTIME_ERROR, ["ended before this case was recorded"]),
    "kernel_exception": (Verdict.RUNTIME_ERROR, ["IndexError in the kernel",
                                                 "kernel_exception.py:"]),
}


@pytest.mark.parametrize("name", sorted(BATTERY))
def test_battery(tmp_path, name):
    verdict, words = BATTERY[name]
    if name == "read_spec" and not _sandbox_can_read(_spec_the_hostile_finds()):
        # the grader does not hide files (docs/grader.md), but here the clone's directories
        # are closed to the sandbox user: the spec is out of reach and the wrong kernel shows
        verdict, words = Verdict.WRONG_ANSWER, ["output 'z'", "elements off"]
    r = grade_mini(compose(tmp_path, name))
    assert r.verdict == verdict, r
    for w in words:
        assert w in r.message, (w, r.message)


def _spec_the_hostile_finds():
    """read_spec.py walks from two levels above the imported ascendlab package."""
    return Path(ascendlab.__path__[0]).parent / MINI.relative_to(Path(__file__).parents[2]) \
        / "spec.py"


def _sandbox_can_read(path) -> bool:
    """Can the child read `path` (and list its way down to it)? As root the child runs as
    uid nobody, so every directory on the way must be open to others (a clone in a mktemp -d
    directory is not)."""
    from ascendlab.grader import isolation

    if isolation.bwrap():  # only the ascendlab package is mounted, not the repository
        return False
    if os.geteuid() != 0:
        return True
    p = os.path.abspath(path)
    if not os.path.exists(p) or not os.stat(p).st_mode & 0o004:
        return False
    d = os.path.dirname(p)
    while True:
        if os.stat(d).st_mode & 0o005 != 0o005:
            return False
        if d == os.path.dirname(d):
            return True
        d = os.path.dirname(d)


def test_patched_cost_model_changes_nothing(tmp_path):
    honest = grade_mini(compose(tmp_path, "honest"))
    patched = grade_mini(compose(tmp_path, "patch_cost"))
    assert patched.verdict == Verdict.ACCEPTED, patched
    assert patched.cycles() == honest.cycles() > 1


def test_hidden_seed_and_shadow_inputs_stay_in_the_grader(tmp_path):
    r = grade_mini(compose(tmp_path, "read_seed"), limits=None)
    assert r.verdict == Verdict.ACCEPTED, r
    seen = r.stdout + r.stderr
    assert seen.strip(), "the probe printed nothing: it did not run"
    assert str(SECRET) not in seen and hex(SECRET)[2:] not in seen
    assert "ASCENDLAB" not in seen.upper() or "SECRET" not in seen.upper()


def test_huge_stdout_is_cut_and_grading_goes_on(tmp_path):
    t = time.perf_counter()
    r = grade_mini(compose(tmp_path, "huge_stdout"))
    assert r.verdict == Verdict.ACCEPTED, r
    assert len(r.stdout) < 70 * 1024 and "more bytes not shown" in r.stdout
    assert any("cut at 64 KiB" in n for n in r.notes)
    assert time.perf_counter() - t < 30


@pytest.mark.slow
def test_infinite_loop_hits_the_cpu_limit(tmp_path):
    r = grade_mini(compose(tmp_path, "infinite_loop"), limits=SHORT)
    assert r.verdict == Verdict.TIME_LIMIT, r
    assert "CPU seconds" in r.message or "wall-clock" in r.message


@pytest.mark.slow
def test_sleeping_forever_hits_the_wall_clock(tmp_path):
    t = time.perf_counter()
    r = grade_mini(compose(tmp_path, "sleep_forever"), limits=SHORT)
    assert r.verdict == Verdict.TIME_LIMIT, r
    assert "wall-clock limit of 3 s" in r.message
    assert time.perf_counter() - t < 15


@pytest.mark.slow
def test_memory_bomb(tmp_path):
    r = grade_mini(compose(tmp_path, "memory_bomb"),
                   limits=Limits(wall_s=8.0, cpu_s=6.0, memory_mb=800))
    assert r.verdict == Verdict.MEMORY_LIMIT, r
    assert "out of memory" in r.message


def _job_processes() -> list[int]:
    """Processes of any job uid (as root each job has its own uid >= JOB_UID_BASE), or of
    this user (not root: jobs run as the grader's user, counted before and after)."""
    from ascendlab.grader.isolation import JOB_UID_BASE

    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                uid = os.stat(f"/proc/{pid}").st_uid
            except OSError:
                continue
            if (uid >= JOB_UID_BASE) if os.geteuid() == 0 else uid == os.getuid():
                out.append(int(pid))
    return out


@pytest.mark.slow
@needs_namespaces
def test_fork_bomb_is_contained_and_leaves_nothing_behind(tmp_path):
    before = len(_job_processes())
    r = grade_mini(compose(tmp_path, "fork_bomb"), limits=SHORT)
    assert r.verdict == Verdict.TIME_LIMIT, r
    time.sleep(0.5)
    assert len(_job_processes()) <= before  # the PID namespace (and the uid sweep) took them


def test_static_rules_catch_the_crude_versions(tmp_path):
    """With the source rules on (the default), imports of os/sys and runtime internals are
    refused before anything runs."""
    for name, word in (("fork_bomb", "import os"), ("patch_runtime", "ascendlab.runtime"),
                       ("sys_exit", "import sys")):
        r = grade_mini(compose(tmp_path, name), static_rules=True)
        assert r.verdict == Verdict.RULE_VIOLATION, r
        assert word in r.message or any(word in d for c in r.cases for d in c.details), r
