"""The `ascendlab` command, run as a user would: in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "pyasc"


def ascendlab(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendlab", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def test_pyasc_runs_an_unmodified_script_with_its_own_arguments():
    r = ascendlab("pyasc", str(HERE / "vadd_script.py"), "-r", "Model", "-v", "Ascend910B2",
                  "-n", "8192")
    assert r.returncode == 0, r.stderr
    assert "vadd ok: 8192 elements on Ascend910B2" in r.stdout


def test_pyasc_runs_a_pyasc_pytest_file():
    r = ascendlab("pyasc", "-m", "pytest", str(HERE / "vadd_suite.py"), "-q", "-p",
                  "no:cacheprovider")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "13 passed" in r.stdout


def test_pyasc_warns_by_default_and_raises_with_strict():
    r = ascendlab("pyasc", str(HERE / "unaligned_script.py"))
    assert r.returncode == 0, r.stderr
    assert "copied 8 elements" in r.stdout  # what the NPU moves: 32 B of the 40 asked
    assert "MemcheckWarning" in r.stderr and "40 B is not a multiple of 32 B" in r.stderr
    r = ascendlab("pyasc", "--strict", str(HERE / "unaligned_script.py"))
    assert r.returncode != 0
    assert "OutOfBoundsError" in r.stderr and "unaligned_script.py:17" in r.stderr


def test_pyasc_failing_script_exit_code_and_missing_script():
    r = ascendlab("pyasc", "does_not_exist.py")
    assert r.returncode == 2 and "no such script" in r.stderr
    r = ascendlab("pyasc")
    assert r.returncode == 2


def test_unemulated_pyasc_module_is_named(tmp_path):
    script = tmp_path / "uses_language.py"
    script.write_text("from asc.language.core.dtype import KnownTypes\n")
    r = ascendlab("pyasc", str(script))
    assert r.returncode != 0
    assert "asc.language is part of pyasc but ascendlab does not emulate it" in r.stderr


@pytest.mark.parametrize("args", [["--help"], ["pyasc", "--help"], ["chips"]])
def test_help_and_chips(args):
    r = ascendlab(*args)
    assert r.returncode == 0
    assert "Ascend910B1" in r.stdout or "usage" in r.stdout


def test_example_script_runs_and_prints_the_trace():
    root = Path(__file__).resolve().parents[1]
    r = ascendlab("pyasc", str(root / "examples" / "vadd.py"), "--cores", "4")
    assert r.returncode == 0, r.stderr
    assert "correct" in r.stdout and "set MTE2->V" in r.stdout


def test_pyasc_passes_pytest_options_through():
    """Everything after `-m pytest` reaches pytest: -q, -x, -k EXPR, -h."""
    suite = str(HERE / "vadd_suite.py")
    r = ascendlab("pyasc", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k",
                  "backend_names", suite)
    assert r.returncode == 0, r.stderr
    assert "1 passed, 12 deselected" in r.stdout, r.stdout  # -k reached pytest
    h = ascendlab("pyasc", "-m", "pytest", "-h")
    assert h.returncode == 0 and "usage: " in h.stdout and "pytest" in h.stdout
    own = ascendlab("pyasc", "--strict", "--chip", "Ascend910B2", "-m", "pytest", "--version")
    assert own.returncode == 0 and "pytest" in (own.stdout + own.stderr)
