"""Where the emulator's time per tile goes: the double-buffered add of emulation_speed.py
(4 Mi float16, 8 cores) at one tile size, launched with its pyasc calls replaced by no-ops
cumulatively, so each difference is what one kind of call costs per tile:

    python benchmarks/emulation_breakdown.py [--tile 512] [--rounds 5]

  add          asc.add (the vector fast path and numpy's float16 add of `tile` elements)
  copies       the 3 asc.data_copy calls (2 in, 1 out)
  queue ops    the 12 TQue calls (alloc_tensor, enque, deque, free_tensor; 3 queues)
  skeleton     what is left: the kernel's own Python (3 @asc.jit helper calls, 3 GM slices,
               the loop) with every pyasc call a no-op

The four variants are interleaved, `--rounds` times each, and the minima are compared (the
machine is shared). A tile issues 16 traced events, so the per-event cost of
benchmarks/trace_cost.py is about (full - per-element work) / 16. The no-op variants compute
nothing: only their times are used.
"""

from __future__ import annotations

import argparse
import time

import emulation_speed as bench  # the kernel and its sizes, from this directory
import numpy as np

import ascendlab.asc as asc
from ascendlab.runtime.framework import queue as _queue

_QUEUE_OPS = ("alloc_tensor", "enque", "deque", "free_tensor")
PARTS = ("add", "copies", "queue ops")


_HANDLE = object()  # what a no-op alloc_tensor / deque hands out


def _no_op(*args: object, **kwargs: object) -> None:
    return None


def _queue_no_op(que: object, *args: object, **kwargs: object) -> object:
    return _HANDLE


class _Variants:
    """Switches the pyasc calls between the real ones and no-ops (level 0: all real; level k:
    the first k of PARTS are no-ops)."""

    def __init__(self) -> None:
        self.add, self.copy = asc.add, asc.data_copy
        self.queue = {n: getattr(_queue.TQueBind, n) for n in _QUEUE_OPS}

    def set(self, level: int) -> None:
        asc.add = self.add if level < 1 else _no_op
        asc.data_copy = self.copy if level < 2 else _no_op
        for name, real in self.queue.items():
            setattr(_queue.TQueBind, name, real if level < 3 else _queue_no_op)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tile", type=int, default=512, help="elements per tile (default 512)")
    p.add_argument("--rounds", type=int, default=5, help="launches of each variant (default 5)")
    args = p.parse_args(argv)
    block = bench.N // bench.CORES
    if args.rounds < 1:
        p.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.tile <= 0 or block % args.tile:
        p.error(f"--tile must divide the {block} elements of a core, got {args.tile}")
    rng = np.random.default_rng(0)
    x = rng.random(bench.N).astype(np.float16)
    y = rng.random(bench.N).astype(np.float16)
    z = np.zeros_like(x)
    stream = asc.lib.runtime.current_stream()
    bench.vadd[bench.CORES, stream](x, y, z, block, args.tile)  # warm up (compiles the kernel)
    variants = _Variants()
    best = [float("inf")] * 4
    try:
        for _ in range(args.rounds):
            for level in range(4):
                variants.set(level)
                c0 = time.process_time()
                bench.vadd[bench.CORES, stream](x, y, z, block, args.tile)
                best[level] = min(best[level], time.process_time() - c0)
    finally:
        variants.set(0)
    tiles = bench.N // args.tile
    us = [b / tiles * 1e6 for b in best]
    print(f"vector add, {bench.N} float16, {bench.CORES} cores, tile {args.tile}: "
          f"{tiles} tiles, CPU time per tile (min of {args.rounds})")
    print(f"  full kernel      {us[0]:6.1f} us")
    for k, name in enumerate(PARTS):
        print(f"  {name:<16} {us[k] - us[k + 1]:6.1f} us")
    print(f"  skeleton         {us[3]:6.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
