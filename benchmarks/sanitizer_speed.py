"""Sanitizer cost: the double-buffered vector add of emulation_speed.py (4 Mi float16 elements,
8 cores, tile 4096) launched with the sanitizer on and off, measured in the same run.

    python benchmarks/sanitizer_speed.py [--repeat 7] [--target 3.0]

Prints the best-of-N wall times of the whole launch and their ratio (sanitizer on / off); the
target of issue #4 is a ratio of at most 3. Exits 1 when --target is given and the ratio
exceeds it. Interleaves the two measurements so both see the same machine load.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from emulation_speed import CORES, TILE, N, vadd  # the same kernel, from this directory

import ascendlab


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=7, help="measurements of each (default 7)")
    p.add_argument("--target", type=float, default=None,
                   help="exit 1 if the ratio exceeds this (issue target: 3.0)")
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.random(N).astype(np.float16)
    y = rng.random(N).astype(np.float16)
    z = np.zeros_like(x)
    run = ascendlab.launch(vadd, CORES, x, y, z, N // CORES, TILE, sanitize=True)  # warm up
    assert np.array_equal(z, x + y) and run.findings == []
    off, on = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        ascendlab.launch(vadd, CORES, x, y, z, N // CORES, TILE, sanitize=False)
        off.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        run = ascendlab.launch(vadd, CORES, x, y, z, N // CORES, TILE, sanitize=True)
        on.append(time.perf_counter() - t0)
    ratio = min(on) / min(off)
    print(f"vector add, {N} float16, {CORES} cores, tile {TILE}, double buffered")
    print(f"  events traced:   {len(run.trace)}; sanitizer findings: {len(run.findings)}")
    print(f"  sanitizer off:   best {min(off) * 1e3:7.1f} ms   median "
          f"{statistics.median(off) * 1e3:7.1f} ms")
    print(f"  sanitizer on:    best {min(on) * 1e3:7.1f} ms   median "
          f"{statistics.median(on) * 1e3:7.1f} ms")
    print(f"  ratio (best/best): {ratio:.2f}x   "
          f"(median/median {statistics.median(on) / statistics.median(off):.2f}x)")
    if args.target is not None and ratio > args.target:
        print(f"  above the target of {args.target}x")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
