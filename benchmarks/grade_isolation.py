"""Grading under bubblewrap vs the unshare fallback, interleaved in one run (the machine is
noisy: only the ratio means something), and the grader's peak Python memory while it reads
and judges the records (they arrive through the record channel and are parsed one case at a
time).

    python benchmarks/grade_isolation.py [--repeat 3] [--challenge swish]

Prints min and median wall time of each path, their ratio, and the peak traced memory.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
import warnings
from pathlib import Path

from ascendlab.grader import GradeOptions, Verdict, grade
from ascendlab.grader.isolation import bwrap

REPO = Path(__file__).resolve().parents[1]
SOLUTIONS = {"swish": REPO / "tests" / "grader" / "solutions" / "swish_honest.py",
             "vadd": REPO / "tests" / "grader" / "solutions" / "vadd_honest.py"}


def _one(challenge: str, sandbox: str, secret: int) -> tuple[float, int]:
    tracemalloc.start()
    t0 = time.perf_counter()
    r = grade(challenge, SOLUTIONS[challenge], GradeOptions(secret=secret, sandbox=sandbox))
    wall = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    if r.verdict != Verdict.ACCEPTED:
        raise SystemExit(f"{sandbox}: {r.verdict.value}: {r.message}")
    return wall, peak


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--challenge", default="swish", choices=sorted(SOLUTIONS))
    args = p.parse_args(argv)
    warnings.simplefilter("ignore", RuntimeWarning)
    if not bwrap():
        print("bubblewrap does not work here: only the unshare path can be measured")
    paths = ["auto", "unshare"] if bwrap() else ["unshare"]
    walls: dict[str, list[float]] = {k: [] for k in paths}
    peaks: dict[str, list[int]] = {k: [] for k in paths}
    for k in range(args.repeat):
        for path in paths:  # interleaved: both see the same machine load
            w, m = _one(args.challenge, path, k)
            walls[path].append(w)
            peaks[path].append(m)
    for path in paths:
        name = "bubblewrap" if path == "auto" else "unshare"
        print(f"{name:>10}: min {min(walls[path]):.2f} s, median "
              f"{statistics.median(walls[path]):.2f} s; peak traced memory "
              f"{max(peaks[path]) / 2**20:.1f} MiB")
    if len(paths) == 2:
        ratios = [a / b for a, b in zip(walls["auto"], walls["unshare"])]
        print(f"bubblewrap / unshare: min {min(ratios):.2f}, median "
              f"{statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
