"""What one traced event costs: time (the slope of launch time over event count) and memory
(bytes the trace holds per event), on benchmarks/emulation_speed.py's double-buffered float16
add (4 Mi elements, 8 cores) at tile sizes 4096 ... 512 (16 k ... 131 k events).

    python benchmarks/trace_cost.py [--repeat 3]

Time: each tile size is launched --repeat times (interleaved); the slope is a least-squares fit
of process CPU time against the number of events, over the per-size minima (and, separately,
medians). The data work (numpy's adds and copies) is the same at every tile size, so the slope
is the per-event cost of the emulator. Memory: the bytes of every distinct object the trace
list reaches (the list, Events, Accesses, tuples, ints, strings; shared objects counted once),
divided by the number of events. Issue 16's targets: <= 1.2 us and <= 120 B per event.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from emulation_speed import CORES, N, vadd  # noqa: E402

import ascendlab  # noqa: E402

TILES = (4096, 2048, 1024, 512)


def trace_bytes(trace: list) -> int:
    """Bytes of the distinct objects `trace` reaches (containers followed: tuples, lists)."""
    seen: set[int] = set()
    total = 0
    stack: list = [trace]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)
        if isinstance(o, (tuple, list)):
            stack.extend(o)
    return total


def _slope(xs: list[float], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.random(N).astype(np.float16)
    y = rng.random(N).astype(np.float16)
    z = np.zeros_like(x)
    events: dict[int, int] = {}
    per_event_bytes: dict[int, float] = {}
    times: dict[int, list[float]] = {t: [] for t in TILES}
    for t in TILES:  # warm up, count, measure memory
        run = vadd[CORES, None](x, y, z, N // CORES, t)
        events[t] = len(run.trace)
        per_event_bytes[t] = trace_bytes(run.trace) / len(run.trace)
        del run
    for _ in range(args.repeat):
        for t in TILES:
            t0 = time.process_time()
            vadd[CORES, None](x, y, z, N // CORES, t)
            times[t].append(time.process_time() - t0)
    ev = [events[t] for t in TILES]
    slope_min = _slope(ev, [min(times[t]) for t in TILES]) * 1e6
    slope_med = _slope(ev, [statistics.median(times[t]) for t in TILES]) * 1e6
    print(f"float16 add, {N} elements, {CORES} cores, double buffered "
          f"({ascendlab.__name__} trace)")
    for t in TILES:
        print(f"  tile {t:5d}: {events[t]:7d} events   CPU min {min(times[t]) * 1e3:7.1f} ms  "
              f"median {statistics.median(times[t]) * 1e3:7.1f} ms   "
              f"trace {per_event_bytes[t]:6.1f} B/event")
    print(f"  per event (slope): {slope_min:.2f} us over the minima, {slope_med:.2f} us over "
          f"the medians")
    print(f"  trace memory: {min(per_event_bytes.values()):.0f}-"
          f"{max(per_event_bytes.values()):.0f} B/event")
    return 0


if __name__ == "__main__":
    sys.exit(main())
