"""Cycle-model overhead: the time to model a Run against the time to emulate it, on the
double-buffered add kernel of emulation_speed.py (4 Mi float16, 8 cores, tile 4096).

    python benchmarks/cost_overhead.py [--repeat 7] [--target 0.20]

Interleaves the two (both see the same machine load) and prints the min and median wall and
process CPU times and their ratios (modelling / emulation); issue #3's target is at most 0.20.
Exits 1 when --target is given and the CPU-time ratio of the minima exceeds it. (A faster
emulator raises this ratio: the model's work is per event, the emulator's per event and per
byte.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import emulation_speed as bench  # the same kernel and sizes, from this directory
import numpy as np

import ascendlab
import ascendlab.asc as asc
from ascendlab.analysis.cost import simulate


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=7, help="measurements of each (default 7)")
    p.add_argument("--target", type=float, default=None,
                   help="exit 1 if modelling/emulation exceeds this (issue target: 0.20)")
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.random(bench.N).astype(np.float16)
    y = rng.random(bench.N).astype(np.float16)
    z = np.zeros_like(x)
    stream = asc.lib.runtime.current_stream()
    bench.vadd[bench.CORES, stream](x, y, z, bench.N // bench.CORES, bench.TILE)
    emu, model, emu_cpu, model_cpu = [], [], [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        bench.vadd[bench.CORES, stream](x, y, z, bench.N // bench.CORES, bench.TILE)
        emu.append(time.perf_counter() - t0)
        emu_cpu.append(time.process_time() - c0)
        run = ascendlab.last_run()
        t0, c0 = time.perf_counter(), time.process_time()
        result = simulate(run)
        model.append(time.perf_counter() - t0)
        model_cpu.append(time.process_time() - c0)
    med = statistics.median
    ratio = min(model_cpu) / min(emu_cpu)
    print(f"vector add, {bench.N} float16, {bench.CORES} cores, tile {bench.TILE}: "
          f"{len(run.trace)} events, {result.cycles:,} modelled cycles")
    for name, wall, cpu in (("emulation", emu, emu_cpu), ("modelling", model, model_cpu)):
        print(f"  {name + ':':<11}wall min {min(wall) * 1e3:7.1f} ms  median "
              f"{med(wall) * 1e3:7.1f} ms   CPU min {min(cpu) * 1e3:7.1f} ms  median "
              f"{med(cpu) * 1e3:7.1f} ms")
    print(f"  ratio (modelling / emulation), CPU time: min/min {ratio:.2f}, median/median "
          f"{med(model_cpu) / med(emu_cpu):.2f};  wall: min/min {min(model) / min(emu):.2f}, "
          f"median/median {med(model) / med(emu):.2f}")
    if args.target is not None and ratio > args.target:
        print(f"  above the target of {args.target:.2f}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
