"""The 7-day challenge: every day is well formed and fair, its starter fails with a message
that says what to do (as .py and as a notebook), its reference is correct, and — graded in
full (slow) — the reference reaches gold while the same kernel on one core / one buffer
(SLOW = True) is correct but below gold."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ascendlab import precision
from ascendlab.grader import GradeOptions, grade
from ascendlab.grader.challenge import load_challenge
from ascendlab.grader.report import Verdict

from .build import REFERENCES, days, notebook, slow_source

DAYS = days()
IDS = [d.name for d in DAYS]
SECRET = 20261201
PUBLIC = GradeOptions(secret=SECRET, public_only=True)


def test_the_days_exist_in_order():
    assert [d.name.split("-")[0] for d in DAYS] == [f"day{i}" for i in range(1, len(DAYS) + 1)]
    assert len(DAYS) >= 5


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_folder_readme_and_no_solution(day):
    ch = load_challenge(day)
    assert ch.name == ("swish" if day.name == "day1-swish" else day.name)
    for word in ("Story", "Formula", "Shapes", "Rules", "Tiers", "Hints", "launch("):
        assert word in ch.readme, (day.name, word)
    assert "FILL ME IN (roughly" in (day / "starter.py").read_text()
    assert not (day / "reference.py").exists()
    assert (REFERENCES / day.name / "reference.py").is_file()


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_hidden_cases_come_from_the_secret_and_include_a_perf_case(day):
    spec = load_challenge(day).spec
    a, c = spec.cases(1), spec.cases(2)
    assert a == spec.cases(1)
    assert [x.seed for x in a if x.hidden] != [x.seed for x in c if x.hidden]
    perf = [x for x in a if x.perf]
    assert len(perf) == 1 and perf[0].size == max(x.size for x in a)
    assert any(min(x.shape) <= 3 for x in a if x.hidden)  # a 1-3 long dimension


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_cases_are_fair(day):
    """The correctly rounded golden passes the precision rule on every small case."""
    spec = load_challenge(day).spec
    for secret in range(3):
        for case in spec.cases(secret):
            if case.size > 200_000:
                continue
            golden = spec.golden(case, spec.make_inputs(case))
            for name, (_, dtype) in spec.outputs_for(case).items():
                g = golden[name]
                with np.errstate(over="ignore"):
                    r = precision.check(g.astype(dtype), g)
                assert r.passed, (case.describe(), name, str(r))


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_notebook_is_built_from_the_starter(day):
    assert json.loads((day / "starter.ipynb").read_text()) == notebook(day), \
        "run: python tests/challenges/build.py notebooks"


@pytest.mark.parametrize("kind", ["starter.py", "starter.ipynb"])
@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_starter_is_gradeable_and_says_what_to_do(day, kind):
    r = grade(day, day / kind, PUBLIC)
    assert r.verdict == Verdict.RUNTIME_ERROR, r.message
    assert "FILL ME IN (roughly" in r.message and "README.md: Hints" in r.message, r.message


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_reference_is_correct_on_the_public_cases(day):
    r = grade(day, REFERENCES / day.name / "reference.py", PUBLIC)
    assert r.verdict == Verdict.ACCEPTED, r.message


@pytest.mark.slow
@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_reference_is_gold_and_the_slow_variant_is_not(day, tmp_path):
    opts = GradeOptions(secret=SECRET)
    r = grade(day, REFERENCES / day.name / "reference.py", opts)
    assert r.verdict == Verdict.ACCEPTED and r.tier == "gold", (r.tier, r.message)
    slow = tmp_path / "slow_variant.py"
    slow.write_text(slow_source(REFERENCES / day.name / "reference.py"))
    s = grade(day, slow, opts)
    assert s.verdict == Verdict.ACCEPTED, s.message  # correct ...
    assert s.tier in ("silver", "bronze"), s.message  # ... but below gold
    assert s.perf[0].cycles > r.perf[0].cycles
