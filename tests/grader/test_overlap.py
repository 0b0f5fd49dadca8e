"""Grading on two cores (GradeOptions.overlap, judge.judge_case(parallel=True)): records judged
while the child runs and the fresh-input replay in a forked copy give the verdicts of judging
one case after another on one core."""

from __future__ import annotations

import runpy

import pytest

from ascendlab.grader import Verdict
from ascendlab.grader.challenge import load_challenge
from ascendlab.grader.grade import make_jobs
from ascendlab.grader.harness import run_case
from ascendlab.grader.judge import judge_case
from ascendlab.grader.wire import poisoned

from .conftest import MINI, SECRET, SOLUTIONS, compose, grade_mini

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _summary(report):
    return (report.verdict, report.tier, [(c.case, c.verdict, c.cycles, c.tier, c.events)
                                          for c in report.cases])


def test_overlapped_grading_gives_the_same_report(tmp_path):
    honest = compose(tmp_path, "honest")
    one = grade_mini(honest, overlap=False)
    two = grade_mini(honest, overlap=True)
    assert one.verdict == Verdict.ACCEPTED, one
    assert _summary(two) == _summary(one)
    assert "judge_while_sandboxed" not in one.timings
    baked = compose(tmp_path, "baked_scalars")
    one, two = grade_mini(baked, overlap=False), grade_mini(baked, overlap=True)
    assert one.verdict == two.verdict == Verdict.RULE_VIOLATION, (one, two)
    assert two.message == one.message and "fresh inputs" in two.message


@pytest.mark.parametrize("hostile,verdict", [("honest", Verdict.ACCEPTED),
                                             ("baked_scalars", Verdict.RULE_VIOLATION),
                                             ("mini_race", Verdict.SANITIZER_ERROR)])
def test_the_forked_fresh_input_replay_judges_like_the_serial_one(tmp_path, hostile, verdict):
    """judge_case on the same record, with the fresh-input replay (and the sanitizer) in this
    process and in a fork: the same case report (a baked answer, a race are caught too)."""
    ch = load_challenge(MINI)
    job = make_jobs(ch, SECRET, public_only=True)[0]
    path = SOLUTIONS / f"{hostile}.py" if hostile == "mini_race" else compose(tmp_path, hostile)
    launch = runpy.run_path(str(path))["launch"]
    arrays = {n: a.copy() for n, a in job.inputs.items()}
    arrays.update({n: poisoned(s, d) for n, (s, d) in job.outputs.items()})
    rec = run_case(launch, arrays, job.order, job.params, job.chip, None)
    serial, _ = judge_case(ch.spec, job, rec, SECRET, shadow=True, parallel=False)
    forked, _ = judge_case(ch.spec, job, rec, SECRET, shadow=True, parallel=True)
    assert serial.verdict == forked.verdict == verdict, (serial.message, forked.message)
    assert forked.message == serial.message and forked.cycles == serial.cycles
    assert forked.details == serial.details and forked.precision == serial.precision
    if verdict == Verdict.RULE_VIOLATION:
        assert "fresh inputs" in forked.message
    if verdict == Verdict.SANITIZER_ERROR:
        assert "racecheck" in forked.message
