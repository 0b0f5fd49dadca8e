"""Patterns in a Run's trace and schedule that name a kernel change (the advisor's evidence).

Pure readers of the trace (trace.py) and the cycle model's schedule (`run.cost`: start, end,
occupancy per instruction); no estimate here is a re-run. Each reader looks at one core at a
time, in program order:

  buffer_levels   per route (GM->L1, L1->L0A, L1->L0B, L0C->GM, GM->UB, UB->GM ...): how many
                  times a core filled (or, for stores, drained) its local buffer, how many
                  distinct local addresses it used per fill (1: single buffering) and how long
                  the writers of that buffer waited on flags (the stall it causes)
  reloads         GM tiles (same address, size, blocks, stride) a core loads more than once
  round_trips     GM bytes a core writes and reads back itself after a sync_all
  vector_gaps     idle cycles of a core's V pipe after an implicit PIPE_V barrier or around a
                  scalar access of UB (get_value / set_value): serialised reductions
  port_busy       the union of a core's GM transfers in time (its GM port's busy cycles)
  overlap_bound   a core's span if its pipes overlapped perfectly: its busiest pipe, with
                  MTE2, MTE3 and FIX counted together as its GM port
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..runtime.trace import OPS
from .cost import by_core

_ROUTE_PIPES = ("MTE2", "MTE1", "MTE3", "FIX")
_LOCAL = ("UB", "L1", "L0A", "L0B", "L0C")


@dataclass
class Level:
    """One route of one core: its transfers grouped into fills of the local buffer."""

    route: str  # "GM->L1", "L1->L0A", "L0C->GM", ...
    space: str  # the local buffer's space (the destination of a load, the source of a store)
    transfers: int = 0
    fills: int = 0  # maximal runs of transfers between two uses of the buffer by the other side
    addresses: set[int] = field(default_factory=set)  # distinct local start addresses
    wait: float = 0.0  # cycles the buffer's writers waited on flags / queue slots
    first: int = -1  # trace index of the first transfer (its source line)

    @property
    def per_fill(self) -> float:
        return self.transfers / self.fills if self.fills else 0.0

    @property
    def slots(self) -> float:
        """Distinct buffers the route cycles through (1: single buffering)."""
        return len(self.addresses) / self.per_fill if self.per_fill else 0.0

    @property
    def single(self) -> bool:
        return self.fills >= 3 and self.slots <= 1.0


def core_events(run: Any) -> dict[int, list[int]]:
    """core -> its trace indices in program order (the cost model's grouping)."""
    return by_core(run.trace)


def route_of(e: Any) -> tuple[str, str, bool] | None:
    """(route, local space, is_load) of a transfer, None when `e` is not one."""
    if e.pipe not in _ROUTE_PIPES or not e.reads or not e.writes:
        return None
    src, dst = e.reads[0].space, e.writes[0].space
    if src == dst:
        return None
    load = dst in _LOCAL and (src == "GM" or src == "L1")
    space = dst if load else src
    if space not in _LOCAL:
        return None
    return f"{src}->{dst}", space, load


def buffer_levels(run: Any, idx: list[int]) -> dict[str, Level]:
    """The routes of one core (its trace indices `idx`, program order). A fill's `wait` counts
    only the write-after-read waits of the buffer's writers: a load waiting for the consumer
    of its buffer (not for the data it reads), a store's producer waiting for the store."""
    trace, start, issue, occ = run.trace, run.cost.start, run.cost.issue, run.cost.occupied
    free: dict[str, float] = {}  # pipe -> when its last instruction stopped occupying it
    levels: dict[str, Level] = {}
    pipes: dict[str, str] = {}  # route -> its pipe
    last: dict[str, str] = {}  # route -> "W" (a transfer) or "O" (the other side)
    pending: dict[str, list[tuple[str, float]]] = {}  # pipe -> (src, held) of waits since
    for i in idx:
        e = trace[i]
        s = e.sync
        if s is not None and s.kind == "wait":
            held = start[i] - max(issue[i], free.get(e.pipe, 0.0))
            if held > 0:
                pending.setdefault(e.pipe, []).append((s.src, held))
                free[e.pipe] = start[i]  # the next wait's hold starts here (no double count)
            continue
        if not (e.reads or e.writes):
            continue
        if occ[i]:
            free[e.pipe] = max(free.get(e.pipe, 0.0), start[i] + occ[i])
        waits = pending.pop(e.pipe, ())
        r = route_of(e)
        if r is not None:
            route, space, load = r
            lv = levels.get(route)
            if lv is None:
                lv = levels[route] = Level(route, space, first=i)
                pipes[route] = e.pipe
            lv.transfers += 1
            if last.get(route) != "W":
                lv.fills += 1
                last[route] = "W"
            lv.addresses.add((e.writes if load else e.reads)[0].addr)
            if load:
                raw = "MTE2" if e.reads[0].space == "L1" else ""
                lv.wait += sum(h for src, h in waits if src != raw)
        for route, lv in levels.items():
            if r is not None and r[0] == route:
                continue
            load = route.endswith(lv.space)
            if any(a.space == lv.space for a in (e.reads if load else e.writes)):
                last[route] = "O"
                if not load:  # a producer of a store route's buffer
                    lv.wait += sum(h for src, h in waits if src == pipes[route])
    return levels


@dataclass
class Reload:
    """GM tiles one core loaded more than once."""

    core: int
    transfers: int  # loads that repeat an earlier one
    bytes: int  # their bytes
    distinct: int  # bytes of the distinct tiles that were reloaded
    occupied: float  # their cycles on the core's GM port
    where: int  # trace index of the line with the most reloaded bytes
    space: str  # where they were loaded to (L1 / UB)
    tensor: str
    indices: list[int] = field(default_factory=list)  # the repeated loads


def written_tensors(run: Any) -> set[str]:
    """Names of the GM tensors some instruction of the run writes (outputs, workspaces)."""
    return {a.name for e in run.trace if e.pipe in ("MTE3", "FIX", "S") for a in e.writes
            if a.space == "GM"}


def reloads(run: Any, idx: list[int], written: set[str] | None = None) -> Reload | None:
    """The repeated GM -> local loads of one core (exact repeats of a tile; partial overlaps
    are not counted), of tensors no instruction writes (`written`: a workspace read again
    holds new data)."""
    trace, occ = run.trace, run.cost.occupied
    written = written_tensors(run) if written is None else written
    seen: dict[tuple, int] = {}
    rep: list[int] = []
    n = nbytes = 0
    distinct: set[tuple] = set()
    occupied = 0.0
    by_line: dict[tuple[str, int], tuple[int, int]] = {}
    spaces: dict[str, int] = {}
    names: dict[str, int] = {}
    for i in idx:
        e = trace[i]
        if e.pipe != "MTE2" or not e.reads or e.reads[0].space != "GM" or not e.writes:
            continue
        a = e.reads[0]
        if a.name in written:
            continue
        key = (a.addr, a.nbytes, a.count, a.stride, e.writes[0].space)
        if key in seen:
            rep.append(i)
            b = a.total_bytes
            n += 1
            nbytes += b
            distinct.add(key)
            occupied += occ[i]
            k = (e.file, e.line)
            got = by_line.get(k, (0, i))
            by_line[k] = (got[0] + b, got[1])
            spaces[e.writes[0].space] = spaces.get(e.writes[0].space, 0) + b
            names[a.name] = names.get(a.name, 0) + b
        else:
            seen[key] = i
    if not n:
        return None
    where = max(by_line.values())[1]
    dbytes = sum(k[1] * k[2] for k in distinct)
    return Reload(trace[idx[0]].core, n, nbytes, dbytes, occupied, where,
                  max(spaces, key=spaces.get), max(names, key=names.get), rep)


@dataclass
class RoundTrip:
    """GM bytes one core wrote and read back itself after a sync_all."""

    core: int
    bytes: int
    occupied: float  # the write-backs' and re-reads' cycles, start to result
    write: int  # trace index of a write (its line)
    read: int  # trace index of a re-read


def round_trips(run: Any, idx: list[int]) -> RoundTrip | None:
    """GM bytes the core wrote before a sync_all and reads back after it (only its own bytes
    of each read count); `occupied` is the write-backs' and re-reads' time from start to result
    (latency included: the sync_all waits for the write, the compute for the read)."""
    trace, start, end = run.trace, run.cost.start, run.cost.end
    writes: list[tuple[int, int, int, int]] = []  # (start, end, trace index, phase)
    phase = 0
    nbytes = 0
    occupied = 0.0
    first_w = first_r = -1
    used: set[int] = set()
    for i in idx:
        e = trace[i]
        if e.sync is not None and e.sync.kind == "sync_all":
            phase += 1
            continue
        if e.pipe in ("MTE3", "FIX") and e.writes and e.writes[0].space == "GM":
            a = e.writes[0]
            writes.append((a.addr, a.end, i, phase))
        elif e.pipe == "MTE2" and e.reads and e.reads[0].space == "GM" and writes:
            a = e.reads[0]
            for lo, hi, w, ph in writes:
                if ph < phase and lo < a.end and a.addr < hi:
                    both = min(hi, a.end) - max(lo, a.addr)  # the core's own bytes
                    part = both / max(1, a.end - a.addr)
                    nbytes += both
                    occupied += (end[i] - start[i]) * part
                    if w not in used:
                        used.add(w)
                        occupied += end[w] - start[w]
                    if first_r < 0:
                        first_w, first_r = w, i
    if not nbytes:
        return None
    return RoundTrip(trace[idx[0]].core, nbytes, occupied, first_w, first_r)


@dataclass
class VectorGaps:
    """Idle cycles of one core's V pipe, by what stood between two vector instructions."""

    barrier: float = 0.0  # after an implicit PIPE_V barrier
    scalar: float = 0.0  # around a scalar access of UB (get_value / set_value)
    barriers: int = 0
    scalars: int = 0
    reductions: int = 0  # reduce-class vector instructions
    where: int = -1  # trace index of the instruction after the largest gap


def vector_gaps(run: Any, idx: list[int]) -> VectorGaps:
    trace, start, occ = run.trace, run.cost.start, run.cost.occupied
    g = VectorGaps()
    prev = -1
    between = ""  # "barrier" / "scalar" seen since prev
    best = 0.0
    for i in idx:
        e = trace[i]
        s = e.sync
        if s is not None:
            if s.kind == "barrier" and s.implicit and s.src in ("V", "ALL"):
                between = between or "barrier"
                g.barriers += 1
            continue
        if e.pipe == "S" and any(a.space == "UB" for a in e.reads + e.writes):
            between = "scalar"
            g.scalars += 1
            continue
        if e.pipe != "V" or not occ[i]:
            continue
        info = OPS.get(e.op)
        if info is not None and info.cost_class == "reduce":
            g.reductions += 1
        if prev >= 0 and between:
            gap = max(0.0, start[i] - (start[prev] + occ[prev]))
            if between == "scalar":
                g.scalar += gap
            else:
                g.barrier += gap
            if gap > best:
                best, g.where = gap, i
        prev, between = i, ""
    return g


def port_busy(run: Any, idx: list[int], only: set[int] | None = None,
              skip: set[int] | None = None) -> float:
    """Cycles the core's GM port was busy: the union of its GM transfers' occupancy (MTE2
    reads, MTE3 and FIX writes overlap in time when their non-GM parts do)."""
    trace, start, occ = run.trace, run.cost.start, run.cost.occupied
    if only is not None:
        idx = [i for i in idx if i in only]
    if skip:
        idx = [i for i in idx if i not in skip]
    spans = sorted((start[i], start[i] + occ[i]) for i in idx
                   if trace[i].pipe in ("MTE2", "MTE3", "FIX") and occ[i]
                   and (any(a.space == "GM" for a in trace[i].reads)
                        or any(a.space == "GM" for a in trace[i].writes)))
    total = 0.0
    lo = hi = -1.0
    for a, b in spans:
        if a > hi:
            total += hi - lo
            lo, hi = a, b
        elif b > hi:
            hi = b
    return total + (hi - lo)


def overlap_bound(run: Any, core: int, idx: list[int] | None = None) -> tuple[float, str]:
    """(cycles, pipe): the core's busiest pipe, its GM port (MTE2, MTE3, FIX transfers as one
    port, port_busy) standing for those pipes when `idx`, its trace indices, is given."""
    busy = dict(run.cost.per_core_busy.get(core, {}))
    gm = sum(busy.pop(p, 0.0) for p in ("MTE2", "MTE3", "FIX"))
    busy.pop("S", None)
    busy["GM port"] = port_busy(run, idx) if idx is not None else gm
    pipe = max(busy, key=busy.get)
    return float(busy[pipe]), pipe


def critical_core(run: Any) -> int:
    """The core whose span is the kernel's (the last to finish)."""
    cc = run.cost.core_cycles
    return max(cc, key=cc.get) if cc else 0


__all__ = ["Level", "Reload", "RoundTrip", "VectorGaps", "buffer_levels", "core_events",
           "critical_core", "overlap_bound", "port_busy", "reloads", "round_trips", "route_of",
           "vector_gaps", "written_tensors"]
