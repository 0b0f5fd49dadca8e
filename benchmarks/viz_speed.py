"""Drawing cost of the tiling map: viz.tiling(run).figure() (model + matplotlib figure) and the
same rendered to PNG, against emulating the run it draws, measured in the same run.

    python benchmarks/viz_speed.py [--repeat 5] [--target 1.0]

The run is emulation_speed.py's double-buffered vector add (4 Mi float16 elements, 8 cores,
tile 4096: 3 tensors x 1,024 tiles) plus a small one (1 Mi, tile 256: 3 x 4,096 tiles). Prints
per-repeat ratios (figure / emulation), their min and median; the target of issue #16 is a
ratio of at most 1. Exits 1 when --target is given and the median ratio exceeds it. Times are
CPU times of this process (time.process_time): both sides are single-threaded, and CPU time
is far steadier than wall time on a loaded shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from emulation_speed import CORES, TILE, N, vadd  # the same kernel, from this directory

import ascendlab
from ascendlab import viz
from ascendlab.viz.view import figure_png

CASES = ((N, TILE), (1 << 20, 256))  # (elements, tile)


def _measure(n: int, tile: int, repeat: int) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(0)
    x = rng.random(n).astype(np.float16)
    y = rng.random(n).astype(np.float16)
    z = np.zeros_like(x)
    run = ascendlab.launch(vadd, CORES, x, y, z, n // CORES, tile)  # warm up both
    figure_png(viz.tiling(run).figure())
    fig_r, png_r = [], []
    for _ in range(repeat):  # interleaved: both see the same machine load
        t0 = time.process_time()
        run = ascendlab.launch(vadd, CORES, x, y, z, n // CORES, tile)
        emulate = time.process_time() - t0
        t0 = time.process_time()
        fig = viz.tiling(run).figure()
        drawn = time.process_time() - t0
        figure_png(fig)
        rendered = time.process_time() - t0
        fig_r.append(drawn / emulate)
        png_r.append(rendered / emulate)
    print(f"vector add, {n:,} float16, {CORES} cores, tile {tile}: {len(run.trace):,} events")
    return fig_r, png_r


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="measurements of each (default 5)")
    p.add_argument("--target", type=float, default=None,
                   help="exit 1 if a median ratio exceeds this (issue target: 1.0)")
    args = p.parse_args(argv)
    worst = 0.0
    for n, tile in CASES:
        fig_r, png_r = _measure(n, tile, args.repeat)
        for label, r in (("tiling(run).figure() / emulation", fig_r),
                         ("... + rendered to PNG / emulation", png_r)):
            print(f"  {label:<36} min {min(r):5.2f}x  median {statistics.median(r):5.2f}x  "
                  f"(runs: {', '.join(f'{v:.2f}' for v in r)})")
        worst = max(worst, statistics.median(fig_r))
    if args.target is not None and worst > args.target:
        print(f"  above the target of {args.target}x")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
