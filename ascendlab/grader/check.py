"""check(): a quick grade of a launch function from a notebook, with an HTML report.

    from ascendlab.grader import check
    check("swish", launch)          # the Report renders itself as the cell's output

It runs `launch` in this process on the challenge's public cases (and, with hidden=True, on
freshly drawn cases like the hidden ones), then judges exactly as `ascendlab grade` does:
the recorded trace is replayed on the grader's own copies of the inputs, checked against the
float64 reference, sanitized and modelled. What it does not do is contain the code: no
sandbox, no limits, no source rules (it has a function, not a file). The official grade is
`ascendlab grade CHALLENGE FILE` (or `ascendlab submit`).
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from ..analysis.cost import MODEL_VERSION
from .challenge import load_challenge
from .grade import judge_records, make_jobs
from .report import Report, Verdict
from .wire import poisoned


def check(challenge: Any, launch: Any, *, hidden: bool = False, secret: int | None = None,
          shadow: bool | None = None) -> Report:
    """Grade the function `launch` on `challenge` in this process (see the module docstring).
    hidden=True adds cases drawn like the hidden ones (from a fresh secret, not the grader's)."""
    # imported here, not at the top: `python -m ascendlab.grader.harness` (the sandboxed
    # child) imports this package first, and a harness already in sys.modules then makes
    # runpy print a RuntimeWarning into every graded report's stderr
    from . import harness

    t0 = time.perf_counter()
    ch = load_challenge(challenge)
    name = getattr(launch, "__name__", "launch")
    report = Report(challenge=ch.name, submission=f"{name}() (notebook)",
                    verdict=Verdict.ACCEPTED, message="", model_version=MODEL_VERSION)
    try:
        secret = secrets.randbits(63) if secret is None else secret
        jobs = make_jobs(ch, secret, public_only=not hidden)
        files = (getattr(getattr(launch, "__code__", None), "co_filename", ""),)
        records = []
        for job in jobs:
            arrays = {k: v.copy() for k, v in job.inputs.items()}
            arrays.update({k: poisoned(s, d) for k, (s, d) in job.outputs.items()})
            rec = harness.run_case(launch, arrays, job.order, job.params, job.chip, files)
            records.append(json.loads(json.dumps(rec)))  # the same bytes the sandbox sends
        judge_records(ch, jobs, records, secret, report, shadow)
    except Exception as exc:  # noqa: BLE001 - a check never crashes the notebook
        report.verdict = Verdict.INTERNAL_ERROR
        report.message = f"the check failed ({type(exc).__name__}: {exc})"
    report.notes.append("local check: ran in this notebook's process on the "
                        + ("public and practice-hidden" if hidden else "public")
                        + " cases, without the sandbox; the official grade is `ascendlab "
                        f"grade {ch.name} FILE`")
    report.timings["total"] = time.perf_counter() - t0
    return report


__all__ = ["check"]
