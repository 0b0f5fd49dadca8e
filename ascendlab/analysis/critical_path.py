"""Why each instruction started when it did, and which chain of them sets the kernel's cycles.

A reader of the cycle model's schedule (`run.cost`: per-instruction issue, start, end,
occupancy) and of the trace's matched sync edges (deps.py). For every instruction it finds the
constraint that held it last (its *stall*), among the ones the scheduler applies
(analysis/cost_schedule.py):

  issue     the scalar unit dispatched it only then (program order, S-pipe work before it)
  pipe      the previous instruction of its pipe still occupied the pipe
  flag      a wait_flag / deque / alloc_tensor: the matched set fired only then
  barrier   a pipe_barrier (an implicit PIPE_V one when auto-sync inserted it): the earlier
            results of the pipe were ready only then
  sync_all  every core met there only then
  xcore     a cross-core flag (MIX kernels) fired on another core only then
  port      it was ready earlier, but the core's GM port (HBM share) or L2 port was busy

Walking back from the instruction that ends last, each step goes to the instruction that caused
the stall; that chain is the critical path. Each path instruction's share is the time from its
cause's release to its own result: the shares add up to the kernel's cycles (less the waves'
stacking, which the path of one core does not see).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from .deps import match_syncs

Reason = Literal["start", "issue", "pipe", "flag", "barrier", "sync_all", "xcore", "port"]

_EPS = 1e-6
_PORT_PIPES = frozenset(("MTE2", "MTE3", "FIX", "MTE1", "V", "M"))  # every pipe but S


class Stall(NamedTuple):
    """What held one instruction: the reason, how long beyond its dispatch, and the cause."""

    reason: Reason
    cycles: float  # start - issue: how long it waited after the scalar unit dispatched it
    cause: int  # trace index of the instruction whose completion released it (-1: none)
    released: float  # when the cause let it go (a port stall: when the port freed = start)
    ready: float  # when every other constraint was met (start - ready: port contention)


@dataclass
class CriticalPath:
    """Stalls of every instruction and the chain that sets the total cycles."""

    stalls: list[Stall]
    path: list[int]  # trace indices, first to last
    share: dict[int, float] = field(default_factory=dict)  # path index -> cycles it adds
    total: float = 0.0  # the end of the last instruction on the path

    def on_path(self, i: int) -> bool:
        return i in self.share


@dataclass
class Phase:
    """The part of the critical path up to one sync_all (or, for the last, to the end)."""

    until: int  # trace index of the sync_all on the path that ends it (-1: the kernel's end)
    start: float  # when it began (the release of the previous phase's sync_all, or 0)
    end: float
    share: dict[int, float] = field(default_factory=dict)  # path index -> cycles it adds
    xcore: float = 0.0  # of which: cycles released by another core's flag (MIX hand-offs)

    @property
    def cycles(self) -> float:
        return self.end - self.start


def phases(run: Any) -> list[Phase]:
    """The critical path cut at each sync_all it passes through: one Phase per part, in order;
    their cycles add up to the path's (the kernel's span, less the waves' stacking)."""
    cp = analyze(run)
    trace = run.trace
    out: list[Phase] = []
    cur = Phase(-1, 0.0, 0.0)
    prev_all = False  # the previous path instruction was a sync_all (one barrier, two cores)
    for i in cp.path:
        sh = cp.share.get(i, 0.0)
        s = trace[i].sync
        is_all = s is not None and s.kind == "sync_all"
        if is_all and prev_all and out:
            out[-1].share[i] = sh
            out[-1].until = i
            out[-1].end += sh
            cur = Phase(-1, out[-1].end, out[-1].end)
            continue
        prev_all = is_all
        cur.share[i] = sh
        if cp.stalls[i].reason == "xcore":
            cur.xcore += sh
        if is_all:
            cur.until = i
            cur.end = cur.start + sum(cur.share.values())
            out.append(cur)
            cur = Phase(-1, cur.end, cur.end)
    cur.end = cur.start + sum(cur.share.values())
    if cur.share or not out:
        out.append(cur)
    return out


def analyze(run: Any) -> CriticalPath:
    """The stalls and critical path of `run` under the cycle model (cached on run.cost)."""
    cost = run.cost
    got = getattr(cost, "_critical_path", None)
    if got is not None:
        return got
    result = _analyze(run, cost)
    object.__setattr__(cost, "_critical_path", result)
    return result


def _analyze(run: Any, cost: Any) -> CriticalPath:
    trace = run.trace
    n = len(trace)
    start, end, occ, issue = cost.start, cost.end, cost.occupied, cost.issue
    match = match_syncs(trace)
    all_of: dict[int, list[int]] = {}  # sync_all index -> the barrier's members
    for group in match.barriers:
        for i in group:
            all_of[i] = group
    fired = _fired(trace, end)
    last_on: dict[tuple[int, str], int] = {}  # (core, pipe) -> last instruction so far
    done_by: dict[tuple[int, str], int] = {}  # (core, pipe) -> instruction whose end is latest
    last_s: dict[int, int] = {}  # core -> last S-pipe instruction
    stalls: list[Stall] = [Stall("start", 0.0, -1, 0.0, 0.0)] * n
    ports = _ports(trace, start)
    arrived: dict[int, float] = {}  # sync_all index -> when its core reached it
    for i, e in enumerate(trace):
        core, pipe, s = e.core, e.pipe, e.sync
        # the latest constraint wins (the first of equals, in the order start, issue, pipe,
        # then the sync edge)
        ready, reason, cause = 0.0, "start", -1
        key = (core, pipe)
        prev = last_s.get(core)
        if pipe == "S":
            if prev is not None and end[prev] > ready:
                ready, reason, cause = end[prev], "issue", prev
        else:
            # dispatch: the S work or dispatch slot just before it in program order
            if issue[i] > ready:
                ready, reason, cause = issue[i], "issue", prev if prev is not None else -1
            p = last_on.get(key)
            if p is not None and start[p] + occ[p] > ready:
                ready, reason, cause = start[p] + occ[p], "pipe", p
        if s is not None:
            at, why, by = _edge(i, s, match, fired, done_by, key, core, end)
            if by is not None and at > ready:
                ready, reason, cause = at, why, by
        if s is not None and s.kind == "sync_all":
            # the core arrives once every pipe's results are ready (like a barrier on ALL)
            d = _latest(done_by, core, end)
            if d is not None and end[d] > ready:
                ready, reason, cause = end[d], "barrier", d
            arrived[i] = ready
        released = ready
        if start[i] > ready + _EPS and pipe != "S":
            # ready earlier: its GM (or L2) port was serving another transfer of this core
            j = _occupant(ports.get(core, ([], [])), start[i])
            if j >= 0:
                reason, cause, released = "port", j, start[i]
        st = start[i] - issue[i]
        stalls[i] = Stall(reason, st if st > 0 else 0.0, cause, released, ready)
        last_on[key] = i
        d = done_by.get(key)
        if d is None or end[i] >= end[d]:
            done_by[key] = i
        if pipe == "S":
            last_s[core] = i
    # a sync_all member waited for the member that arrived last (which keeps its own cause)
    for group in match.barriers:
        last = max(group, key=lambda j: arrived.get(j, 0.0))
        for j in group:
            if j != last and start[j] > arrived.get(j, 0.0) + _EPS:
                stalls[j] = Stall("sync_all", stalls[j].cycles, last, start[j], start[j])
    return _walk(stalls, start, end, n)


def _edge(i: int, s: Any, match: Any, fired: dict, done_by: dict, key: tuple, core: int,
          end: list[float]) -> tuple[float, Reason, int | None]:
    """(when, reason, cause) of instruction i's sync edge (cause None: it adds no constraint;
    a sync_all's cause is set once every member's arrival is known)."""
    kind = s.kind
    if kind == "wait":
        src = match.set_of.get(i)
        if src is not None:
            at, by = fired[src]
            return at, "flag", by
    elif kind == "xwait":
        src = match.xset_of.get(i)
        if src is not None:
            at, by = fired[src]
            return at, "xcore", by
    elif kind == "barrier":
        d = done_by.get(key) if s.src != "ALL" else _latest(done_by, core, end)
        if d is not None:
            return end[d], "barrier", d
    return 0.0, "start", None


def _fired(trace: list, end: list[float]) -> dict[int, tuple[float, int]]:
    """set / xset index -> (when it fired, the instruction that made it fire then): a set
    fires once it issued and every earlier result of its pipe is ready."""
    done_by: dict[tuple[int, str], int] = {}
    out: dict[int, tuple[float, int]] = {}
    for i, e in enumerate(trace):
        key = (e.core, e.pipe)
        s = e.sync
        if s is not None and s.kind in ("set", "xset"):
            d = done_by.get(key)
            out[i] = (end[d], d) if d is not None and end[d] > end[i] else (end[i], i)
        d = done_by.get(key)
        if d is None or end[i] >= end[d]:
            done_by[key] = i
    return out


def _ports(trace: list, start: list[float]) -> dict[int, tuple[list[float], list[int]]]:
    """core -> its GM transfers sorted by start time (starts, indices)."""
    per: dict[int, list[tuple[float, int]]] = {}
    for i, e in enumerate(trace):
        if e.pipe in _PORT_PIPES and (any(a.space == "GM" for a in e.reads)
                                      or any(a.space == "GM" for a in e.writes)):
            per.setdefault(e.core, []).append((start[i], i))
    out = {}
    for core, items in per.items():
        items.sort()
        out[core] = ([t for t, _ in items], [i for _, i in items])
    return out


def _occupant(port: tuple[list[float], list[int]], t: float) -> int:
    """The transfer that started last before `t` on a core's port (-1: none)."""
    starts, idx = port
    k = bisect_left(starts, t - _EPS)
    return idx[k - 1] if k else -1


def _latest(done_by: dict, core: int, end: list[float]) -> int | None:
    best = None
    for (c, _p), i in done_by.items():
        if c == core and (best is None or end[i] > end[best]):
            best = i
    return best


def _walk(stalls: list[Stall], start: list[float], end: list[float], n: int) -> CriticalPath:
    """Follow the causes back from the instruction that ends last. A path instruction's share
    runs from its own release to its successor's (the last one's: to its end), so the shares
    tile the span from the first release to the last end."""
    if not n:
        return CriticalPath(stalls, [])
    last = max(range(n), key=lambda i: end[i])
    path: list[int] = []
    seen: set[int] = set()
    i = last
    while i >= 0 and i not in seen:
        seen.add(i)
        path.append(i)
        i = stalls[i].cause
    path.reverse()
    share: dict[int, float] = {}
    for k, i in enumerate(path):
        until = stalls[path[k + 1]].released if k + 1 < len(path) else end[i]
        share[i] = max(0.0, until - stalls[i].released)
    return CriticalPath(stalls, path, share, end[last])
