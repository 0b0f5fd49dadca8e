"""Buffer occupancy: bytes of each local memory (UB, L1, L0A, L0B, L0C) of one core over time,
against its capacity.

Two step curves per memory, in the cycle model's time:
* reserved: what the kernel set aside: init_buffer regions (TQue and TBuf) from the
  init_buffer on, plus bytes of static LocalTensors (placed by address) from their first use.
  On Ascend this is fixed at compile time; it must stay under the capacity.
* in use: TQue slots from alloc_tensor to free_tensor (the slot is held), plus, for bytes no
  queue manages (TBuf, static tensors), bytes holding data that is still to be read: from the
  instruction that writes them to the last instruction that reads that data, tracked in 32 B
  blocks. Double buffering shows as two slots in use at once.

Limitations: an in-place instruction counts its bytes twice while it runs; a partly
overwritten write keeps all its bytes until its last read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..runtime.trace import Run

SPACES = ("UB", "L1", "L0A", "L0B", "L0C")
BLOCK = 32  # bytes: the liveness granularity (UB/L1 alignment)


@dataclass
class Occupancy:
    """One local memory of one core: step curves (value holds from t[i] to t[i + 1])."""

    space: str
    core: int
    capacity: int  # bytes
    t: np.ndarray  # cycles
    in_use: np.ndarray  # bytes
    reserved: np.ndarray  # bytes

    @property
    def peak_in_use(self) -> int:
        return int(self.in_use.max()) if self.in_use.size else 0

    @property
    def peak_reserved(self) -> int:
        return int(self.reserved.max()) if self.reserved.size else 0


class _Space:
    """Per-memory bookkeeping while walking one core's instructions."""

    def __init__(self, capacity: int) -> None:
        nb = -(-capacity // BLOCK)
        self.capacity = capacity
        self.managed = np.zeros(nb, dtype=bool)  # bytes of TQue slots
        self.reserved = np.zeros(nb, dtype=bool)  # init_buffer regions or touched
        self.gen = np.full(nb, -1, dtype=np.int64)  # live data: the write that produced it
        self.used: list[tuple[float, int]] = []  # (time, +/- bytes)
        self.res: list[tuple[float, int]] = []

    def blocks(self, addr: int, end: int) -> slice:
        return slice(max(addr, 0) // BLOCK, min(-(-end // BLOCK), len(self.gen)))


def occupancy_model(run: Run, core: int = 0) -> list[Occupancy]:
    """The occupancy curves of every local memory `core` touches (see the module docstring)."""
    cost = run.cost
    spaces = _Spaces(run.chip)
    trace = run.trace
    evs = [i for i, e in enumerate(trace) if e.core == core]
    qlen = _regions(trace, evs, spaces, cost.start)
    _uses(trace, evs, spaces, qlen, cost.start, cost.end)
    out = []
    for name in SPACES:
        if name in spaces:
            sp = spaces[name]
            t, used, res = _steps(sp.used, sp.res)
            out.append(Occupancy(name, core, sp.capacity, t, used, res))
    return out


class _Spaces(dict):
    """space name -> its _Space, made on first use."""

    def __init__(self, chip: Any) -> None:
        super().__init__()
        self.chip = chip

    def __missing__(self, name: str) -> _Space:
        sp = self[name] = _Space(self.chip.capacity(name))
        return sp


def _regions(trace: list, evs: list[int], spaces: _Spaces,
             start: Any) -> dict[int, tuple[str, int]]:
    """Reserve the init_buffer regions (queue slots are "managed" for the whole kernel);
    returns queue -> (space, slot bytes) of the queues that allocate tensors."""
    queues = {dict(trace[i].args).get("queue") for i in evs if trace[i].op == "alloc_tensor"}
    qlen: dict[int, tuple[str, int]] = {}
    for i in evs:
        e = trace[i]
        if e.op == "init_buffer":
            a = dict(e.args)
            sp = spaces[a["space"]]
            sl = sp.blocks(a["addr"], a["addr"] + a["num"] * a["len"])
            new = int((~sp.reserved[sl]).sum()) * BLOCK
            sp.reserved[sl] = True
            sp.res.append((start[i], new))
            if a["queue"] in queues:
                sp.managed[sl] = True
                qlen[a["queue"]] = (a["space"], a["len"])
    return qlen


def _uses(trace: list, evs: list[int], spaces: _Spaces, qlen: dict[int, tuple[str, int]],
          start: Any, end: Any) -> None:
    """In-use bytes: queue slots from alloc_tensor to free_tensor; other bytes from the write
    that fills them (a generation) to the end of their last reader."""
    gen_start: list[float] = []
    gen_end: list[float] = []
    gen_bytes: list[int] = []
    gen_space: list[_Space] = []
    for i in evs:
        e = trace[i]
        if e.op in ("alloc_tensor", "free_tensor"):
            q = dict(e.args).get("queue")
            if q in qlen:
                name, n = qlen[q]
                spaces[name].used.append((start[i], n if e.op == "alloc_tensor" else -n))
            continue
        for a in e.reads:
            if a.space == "GM":
                continue
            sp = spaces[a.space]
            g = sp.gen[sp.blocks(a.addr, a.end)]
            for k in np.unique(g[g >= 0]):
                if end[i] > gen_end[k]:
                    gen_end[k] = end[i]
        for a in e.writes:
            if a.space == "GM":
                continue
            sp = spaces[a.space]
            sl = sp.blocks(a.addr, a.end)
            touched = ~sp.reserved[sl]
            if touched.any():  # a static tensor's bytes: reserved from their first use
                sp.res.append((start[i], int(touched.sum()) * BLOCK))
                sp.reserved[sl] = True
            free = ~sp.managed[sl]
            n = int(free.sum()) * BLOCK
            if n:
                sp.gen[sl][free] = len(gen_start)
                gen_start.append(start[i])
                gen_end.append(end[i])
                gen_bytes.append(n)
                gen_space.append(sp)
    for s, t, n, sp in zip(gen_start, gen_end, gen_bytes, gen_space):
        sp.used.append((s, n))
        sp.used.append((t, -n))


def _steps(used: list[tuple[float, int]], res: list[tuple[float, int]]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge two delta lists into step curves on one time axis."""
    times = np.array([t for t, _ in used] + [t for t, _ in res] + [0.0], dtype=np.float64)
    du = np.array([d for _, d in used] + [0] * len(res) + [0], dtype=np.int64)
    dr = np.array([0] * len(used) + [d for _, d in res] + [0], dtype=np.int64)
    order = np.argsort(times, kind="stable")
    times, du, dr = times[order], np.cumsum(du[order]), np.cumsum(dr[order])
    last = np.flatnonzero(np.diff(np.append(times, np.inf)) > 0)  # last delta at each time
    return times[last], du[last], dr[last]
