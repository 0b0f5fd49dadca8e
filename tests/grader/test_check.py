"""check(): the in-notebook grade of a launch function."""

from __future__ import annotations

import importlib.util

import pytest

from ascendlab.grader import Verdict, check

from .conftest import HOSTILE, MINI, SOLUTIONS

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_check_accepts_and_renders_html():
    honest = _load(HOSTILE / "honest.py", "honest_mini")
    r = check(MINI, honest.launch)
    assert r.verdict == Verdict.ACCEPTED, r
    assert [c.case for c in r.cases] == ["public-a"]
    html = r._repr_html_()
    assert "ACCEPTED" in html and "public-a" in html
    assert any("without the sandbox" in n for n in r.notes)


def test_check_with_practice_hidden_cases_and_the_real_challenge():
    sol = _load(SOLUTIONS / "swish_honest.py", "swish_honest_mod")
    r = check("swish", sol.launch)
    assert r.ok, r
    r = check(MINI, _load(HOSTILE / "honest.py", "honest_mini2").launch, hidden=True)
    assert r.ok and r.perf  # the practice largest case gives a tier


def test_check_reports_the_wrong_answer():
    honest = _load(HOSTILE / "honest.py", "honest_mini3")

    def launch(x, y, z, core_num):
        honest.run(x, y, z, op="sub")

    r = check(MINI, launch)
    assert r.verdict == Verdict.WRONG_ANSWER
    assert "worst element" in r.message


def test_check_reports_writes_outside_the_kernel():
    honest = _load(HOSTILE / "honest.py", "honest_mini4")

    def launch(x, y, z, core_num):
        honest.run(x, y, z, op="sub")
        z[...] = x + y

    r = check(MINI, launch)
    assert r.verdict == Verdict.RULE_VIOLATION and "outside emulated" in r.message


def test_check_leaves_the_session_options_as_it_found_them():
    """check() runs the learner's launch in the learner's process: the chip and modes it sets
    for the grading must not leak into later launches (they would change their cycles)."""
    from ascendlab.runtime.launch.jit import SESSION, configure

    before = configure(chip="Ascend910B1", strict=False)
    try:
        check(MINI, _load(HOSTILE / "honest.py", "honest_mini").launch)
        assert SESSION.options == before
    finally:
        configure(strict=True)
