# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: a small record that expands to a long replay: the launch's trace is sent again
# with its last full event repeated as tens of thousands of 8-byte back-references (wire
# format 2), hoping to keep the grader's judge busy for as long as it likes.
import sys

H = sys.modules["__main__"]  # the harness runs as `python -m ascendlab.grader.harness`
_real = H.run_case


def _bloated(*args, **kwargs):
    rec = _real(*args, **kwargs)
    run = rec.get("run")
    if run is not None:
        events = run["events"]
        last = max(i for i, e in enumerate(events) if isinstance(e, list))
        events.extend([last] * 60_000)
    return rec


H.run_case = _bloated  # run_cases looks run_case up when it calls it
