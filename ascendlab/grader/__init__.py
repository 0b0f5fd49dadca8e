"""ascendlab's autograder: numeric parity, rules, performance tiers, in a sandbox that replays.

    from ascendlab.grader import grade, check
    report = grade("swish", "my_swish.py")        # a Report: print(report), report.to_json()
    check("swish", my_launch)                      # in a notebook: public cases, HTML report

The submission runs in a contained child process; the grader re-executes the child's
recorded instruction trace in its own runtime on its own inputs (ascendlab.grader.replay),
so results and cycles come only from emulated instructions. README.md in this folder lists
the modules; docs/grader.md explains challenges, verdicts and the threat model.
"""

from __future__ import annotations

from typing import Any

from .challenge import Case, Challenge, ChallengeSpec, Limits, Rules, Tiers, load_challenge
from .grade import GradeOptions, grade
from .report import CaseReport, PerfReport, Report, Verdict


def check(challenge: Any, launch: Any, **kwargs: Any) -> Report:
    """Grade the function `launch` on the challenge's public cases in this process (a quick
    notebook check; see ascendlab.grader.check)."""
    from .check import check as _check

    return _check(challenge, launch, **kwargs)


__all__ = ["Case", "CaseReport", "Challenge", "ChallengeSpec", "GradeOptions", "Limits",
           "PerfReport", "Report", "Rules", "Tiers", "Verdict", "check", "grade",
           "load_challenge"]
