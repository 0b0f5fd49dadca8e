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

from .challenge import Case, Challenge, ChallengeSpec, Limits, Rules, Tiers, load_challenge

# `check` is imported eagerly: importing the submodule ascendlab.grader.check binds the package
# attribute `check` to the module; this import rebinds it to the function, and later imports of
# the (already loaded) submodule leave it alone.
from .check import check
from .grade import GradeOptions, grade
from .report import CaseReport, PerfReport, Report, Verdict

__all__ = ["Case", "CaseReport", "Challenge", "ChallengeSpec", "GradeOptions", "Limits",
           "PerfReport", "Report", "Rules", "Tiers", "Verdict", "check", "grade",
           "load_challenge"]
