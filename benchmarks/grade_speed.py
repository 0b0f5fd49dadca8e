"""Grading speed: one honest submission graded end to end as `ascendlab grade` does (sandboxed
child, replay of every case twice: the submission's inputs and fresh ones, sanitizer, precision
check, cycle model and profile), for a vector challenge ("swish": 13 cases, the largest
512 x 2048 float16 on 48 vector cores), a cube one ("mini_mm": asc.adv.Matmul on the cube
cores, the largest case 256 x 256 x 256), its MIX form, and a notebook submission (papermill
in the sandbox).

    python benchmarks/grade_speed.py [--repeat 3] [--target 10] [--challenge swish]

Prints the wall time of each grading and its phases, the best and the median, and the ratio to
a baseline measured in the same run: the submission's own launches on every case, in this
process, without grading. The target of issues #5 and #11 is at most 10 s per grading on the
2-core development machine; exits 1 when --target is given and the best time exceeds it.
"""

from __future__ import annotations

import argparse
import json
import runpy
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

from ascendlab.grader import GradeOptions, Verdict, grade
from ascendlab.grader.challenge import load_challenge
from ascendlab.grader.grade import make_jobs
from ascendlab.grader.wire import poisoned

REPO = Path(__file__).resolve().parents[1]
SOL = REPO / "tests" / "grader" / "solutions"
TEST_CH = REPO / "tests" / "grader" / "challenges"
# name -> (challenge, submission)
CASES = {"swish": ("swish", SOL / "swish_honest.py"),
         "vadd": ("vadd", SOL / "vadd_honest.py"),
         "mini_mm": (TEST_CH / "mini_mm", SOL / "mini_mm_cube.py"),
         "mini_mm_mix": (TEST_CH / "mini_mm_mix", SOL / "mini_mm_mix.py"),
         "vadd_notebook": ("vadd", SOL / "vadd_honest.py")}


def _notebook(py: Path, out: Path) -> Path:
    """The .py as a notebook: a parameters cell and the solution in a `solution` cell."""
    cells = [(["parameters"], "GRADING = False\n"), (["solution"], py.read_text())]
    out.write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {"tags": t}, "source": s, "outputs": [],
         "execution_count": None} for t, s in cells], "metadata": {}, "nbformat": 4,
        "nbformat_minor": 5}))
    return out


def baseline(challenge: str | Path, py: Path, secret: int) -> float:
    """Seconds to run the submission's launch on every case in this process (no grading)."""
    ch = load_challenge(challenge)
    launch = runpy.run_path(str(py))["launch"]
    t0 = time.perf_counter()
    for job in make_jobs(ch, secret):
        arrays = [job.inputs[n].copy() if n in job.inputs else
                  poisoned(*job.outputs[n]) for n in job.order]
        launch(*arrays, **job.params)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="gradings (default 3)")
    p.add_argument("--target", type=float, default=None,
                   help="exit 1 if the best grading takes longer (issue target: 10 s)")
    p.add_argument("--challenge", default="swish", choices=sorted(CASES))
    args = p.parse_args(argv)
    warnings.simplefilter("ignore", RuntimeWarning)
    challenge, sub = CASES[args.challenge]
    tmp = tempfile.TemporaryDirectory()
    if args.challenge.endswith("_notebook"):
        sub = _notebook(sub, Path(tmp.name) / "solution.ipynb")
    times, bases, report = [], [], None
    for k in range(args.repeat):
        t0 = time.perf_counter()
        report = grade(challenge, sub, GradeOptions(secret=k))
        times.append(time.perf_counter() - t0)
        if report.verdict != Verdict.ACCEPTED:
            print(report)
            return 1
        bases.append(baseline(challenge, CASES[args.challenge][1], k))
        phases = ", ".join(f"{name} {t:.2f} s" for name, t in report.timings.items())
        print(f"  grading {k + 1}: {times[-1]:.2f} s ({phases}); baseline {bases[-1]:.2f} s")
    assert report is not None
    events = sum(c.events for c in report.cases)
    ratios = [t / max(b, 1e-9) for t, b in zip(times, bases)]
    print(f"{args.challenge}: {len(report.cases)} cases, {events:,} events replayed (x2), "
          f"verdict {report.verdict.value} ({report.tier}), sandbox: "
          f"{'; '.join(report.sandbox['isolation'])}")
    print(f"  best {min(times):.2f} s, median {statistics.median(times):.2f} s; grading / "
          f"baseline: min {min(ratios):.1f}x, median {statistics.median(ratios):.1f}x")
    tmp.cleanup()
    if args.target is not None and min(times) > args.target:
        print(f"  above the target of {args.target} s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
