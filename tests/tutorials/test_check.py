"""check(): each exercise's solution passes, the notebook's unsolved stub does not, and a
wrong, crashing or unknown answer gives a report instead of an exception."""

from __future__ import annotations

import runpy
from dataclasses import replace
from pathlib import Path

import pytest

from ascendlab.tutorials import all_exercises, check, get_exercise
from ascendlab.tutorials import progress as P
from ascendlab.tutorials.notebooks import notebooks, read, stubs

SOLUTIONS = Path(__file__).resolve().parent / "solutions"
EXERCISES = all_exercises()


def _stub_sources() -> dict[str, tuple[str, str]]:
    found = {}
    for nb in notebooks():
        for ex_id, entry, src in stubs(read(nb)):
            found[ex_id] = (entry, src)
    return found


STUBS = _stub_sources()


def _entry(path: Path, name: str):
    return runpy.run_path(str(path))[name]


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.id)
def test_solution_passes(ex):
    path = SOLUTIONS / ex.solution_name
    assert path.is_file(), f"{ex.id}: no solution at {path}"
    report = check(ex.id, _entry(path, ex.entry))
    assert report.passed, str(report)
    assert ex.id in P.load(), "a pass is recorded in the progress file"


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.id)
def test_stub_in_the_notebook_fails(ex, tmp_path):
    assert ex.id in STUBS, f"{ex.id}: no notebook cell carries its stub"
    entry, src = STUBS[ex.id]
    assert entry == ex.entry
    assert "FILL ME IN (roughly " in src, f"{ex.id}: the stub says FILL ME IN (roughly N lines)"
    path = tmp_path / f"stub_{ex.name}.py"  # a file, so @asc.jit can read the kernel's source
    path.write_text(src)
    report = check(ex.id, _entry(path, entry))
    assert not report.passed, str(report)
    assert ex.id not in P.load()
    assert "NOT YET" in str(report) and "NOT YET" in report._repr_html_()


def test_unknown_exercise_reports_instead_of_raising():
    report = check("99.nothing", lambda *a, **k: None)
    assert not report.passed
    assert "01.vadd" in report.message  # names the known ids


def test_a_crashing_launch_is_a_report():
    def launch(x, y, z, core_num):
        raise ZeroDivisionError("boom")

    report = check("01.vadd", launch)
    assert not report.passed and report.report is not None
    assert "ZeroDivisionError" in report.message and "boom" in report.message


def test_a_launch_without_a_kernel_is_a_report():
    report = check("01.vadd", lambda x, y, z, core_num: None)
    assert not report.passed
    assert "exactly one kernel" in report.message


def _check_variant(**changes):
    """Check the 01.vadd solution against 01.vadd with some fields changed."""
    from ascendlab.tutorials import registry

    sol = _entry(SOLUTIONS / "01_vadd.py", "launch")
    ex = get_exercise("01.vadd")
    registry._REGISTRY["01.vadd"] = replace(ex, **changes)
    try:
        return check("01.vadd", sol)
    finally:
        registry._REGISTRY["01.vadd"] = ex


def test_required_ops_are_enforced():
    report = _check_variant(requires=frozenset({"add", "mul"}))
    assert not report.passed
    assert "asks for mul" in report.message


def test_cycle_target_is_enforced():
    report = _check_variant(cycle_target=1.0)
    # the solution is correct but, on 8 of 48 cores, not at the roofline
    assert not report.passed and report.report.ok
    assert "the target is <= 1x" in report.message
    assert "but: correct" not in report.message  # one "correct, but", not two
