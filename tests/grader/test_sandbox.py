"""What the sandbox takes away, observed from inside a submission."""

from __future__ import annotations

import os

import pytest

from ascendlab.grader import Verdict
from ascendlab.grader.isolation import JOB_UID_BASE
from ascendlab.grader.sandbox import child_env

from .conftest import HOSTILE, grade_mini, needs_namespaces

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

PROBE = '''
import os

def _probe():
    out = {"pid": os.getpid(), "uid": os.getuid(), "cwd": os.getcwd(),
           "env": sorted(os.environ), "procs": len([p for p in os.listdir("/proc")
                                                    if p.isdigit()])}
    with open("/proc/self/net/dev") as f:  # the interfaces of this network namespace
        out["net"] = sorted(ln.split(":")[0].strip() for ln in f.readlines()[2:])
    try:
        open("/etc/ascendlab-probe", "w").write("x")
        out["write_etc"] = "yes"
    except OSError:
        out["write_etc"] = "no"
    print("PROBE", out, flush=True)

_probe()
'''


CANARY = "ASCENDLAB_TEST_CANARY"


@pytest.fixture
def probe(tmp_path, monkeypatch):
    monkeypatch.setenv(CANARY, "grader-secret")  # must not reach the child
    src = PROBE + "\n" + (HOSTILE / "honest.py").read_text()
    p = tmp_path / "probe.py"
    p.write_text(src)
    r = grade_mini(p)
    assert r.verdict == Verdict.ACCEPTED, r
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("PROBE"))
    return eval(line[len("PROBE "):]), r  # noqa: S307 - our own probe's dict literal


def test_environment_is_scrubbed(probe):
    seen, r = probe
    assert CANARY not in seen["env"]
    # besides the scrubbed set: PWD (bubblewrap's --chdir) and LC_CTYPE (Python's C-locale
    # coercion), neither of which comes from the grader's environment
    assert set(seen["env"]) <= set(child_env("/x")) | {"PWD", "LC_CTYPE"}
    assert "work" in seen["cwd"]
    assert "rlimits cpu/as/fsize/core" in r.sandbox["isolation"]


@needs_namespaces
def test_no_network_and_no_other_processes(probe):
    seen, r = probe
    assert seen["net"] == ["lo"]  # a fresh network namespace: loopback only, and it is down
    assert seen["pid"] == 2 and seen["procs"] <= 3  # PID 1 is the harness's reaper


@pytest.mark.skipif(os.geteuid() != 0, reason="privileges are dropped only when grading as "
                                              "root")
def test_root_is_dropped(probe):
    seen, r = probe
    assert seen["uid"] >= JOB_UID_BASE and seen["write_etc"] == "no"
    assert r.sandbox["privileges"] == f"uid {seen['uid']}"
