"""profile() against emulation on day 7's reference (the performance case, hidden-largest).

    python benchmarks/profile_speed.py [--repeat 5] [--target 0.5]

Each repeat emulates the reference once, then models it (run.cost: what every launch report
and the grader compute anyway), then runs ascendlab.profile(run) on it (hot lines, critical
path, the advisor's rules and trace detectors). Prints the min and median process CPU times
and two ratios measured in the same run: profile / emulation (issue 23's target: <= 0.5), and
(model + profile) / emulation. Exits 1 when --target is given and the first ratio of the minima
exceeds it.
"""

from __future__ import annotations

import argparse
import runpy
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import ascendlab
from ascendlab.grader.challenge import load_challenge

REPO = Path(__file__).resolve().parents[1]
DAY = "day7-condition-fusion"
SECRET = 20261201  # tests/challenges/build.py's: the cases the table was made with


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="measurements of each (default 5)")
    p.add_argument("--target", type=float, default=None,
                   help="exit 1 if profile/emulation exceeds this (issue 23: 0.5)")
    args = p.parse_args(argv)
    spec = load_challenge(DAY).spec
    case = next(c for c in spec.cases(SECRET) if c.perf)
    inputs = spec.make_inputs(case)
    launch = runpy.run_path(str(REPO / "tests" / "challenges" / DAY / "reference.py"))["launch"]
    emu, model, prof = [], [], []
    for _ in range(args.repeat):
        outs = [np.zeros(s, d) for s, d in spec.outputs_for(case).values()]
        t0 = time.process_time()
        launch(*[inputs[n] for n in spec.inputs], *outs, 48)
        emu.append(time.process_time() - t0)
        run = ascendlab.last_run()
        t0 = time.process_time()
        cycles = run.cost.cycles
        model.append(time.process_time() - t0)
        t0 = time.process_time()
        text = str(ascendlab.profile(run))
        prof.append(time.process_time() - t0)
    med = statistics.median
    print(f"{DAY} reference, {case.name} {case.shape}: {len(run.trace):,} events, "
          f"{cycles:,} modelled cycles, {len(text.splitlines())} profile lines")
    for name, xs in (("emulation", emu), ("cost model", model), ("profile()", prof)):
        print(f"  {name + ':':<12} CPU min {min(xs) * 1e3:7.1f} ms  median {med(xs) * 1e3:7.1f} ms")
    ratio = min(prof) / min(emu)
    print(f"  profile / emulation: min/min {ratio:.2f}, median/median "
          f"{med(prof) / med(emu):.2f};  (cost model + profile) / emulation: min/min "
          f"{(min(model) + min(prof)) / min(emu):.2f}")
    if args.target is not None and ratio > args.target:
        print(f"  above the target of {args.target:.2f}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
