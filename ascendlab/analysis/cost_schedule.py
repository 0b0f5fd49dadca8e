"""The cycle model's scheduler (cost.py prices each instruction; this places them in time):
per core, the scalar unit dispatches in program order and each pipe runs its queue in order,
held by the matched sync edges; a core's GM transfers share its ports (_Port); cores meet at
sync_all and cross-core flags (drive), or run independently (independent). The rules are in
cost.py's docstring.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from heapq import heappop, heappush
from typing import Any

import numpy as np

from ..runtime.trace import PIPES

# Event kinds for the scheduler (cost.py assigns them).
PLAIN, WAIT, SET, BARRIER, BARRIER_ALL, SYNC_ALL, XWAIT = range(7)
PIPE_IX = {p: k for k, p in enumerate(PIPES)}
S_PIPE = PIPE_IX["S"]
NP = len(PIPES)


def independent(sims: dict[int, CoreSim], arrays: tuple) -> None:
    """Schedule cores that never meet, one by one. A core whose program is the same as an
    earlier core's (same kinds, pipes, costs, latencies, port times and flags, instruction by
    instruction: e.g. the blocks of a data-parallel kernel) gets that core's schedule copied,
    which is exactly what simulating it again would give."""
    cols = arrays[:7]  # kind, pipe, cost, occ, lat, port, fid
    seen: list[tuple[CoreSim, int, int]] = []  # distinct programs so far: (core, start, end)
    for sim in sims.values():
        order = sim.order
        a, b = order[0], order[-1] + 1
        if b - a == len(order):  # one contiguous run of the trace
            # (list comparison: C speed, and it stops at the first difference)
            twin = next((t for t, ta, tb in seen if tb - ta == b - a
                         and all(col[a:b] == col[ta:tb] for col in cols)), None)
            if twin is not None:
                sim.copy_from(twin)
                continue
            seen.append((sim, a, b))
        for _ in sim.run():  # never yields: no sync_all, no cross-core flag
            pass


def drive(gens: dict[int, Any], shared: dict[int, deque]) -> None:
    """Run the cores' schedules together: each yields ("all", t) at a sync_all and ("x", flag)
    at a cross-core wait whose set has not fired; it resumes once every live core has met
    (sync_all) or once the flag fires. A wait no core can ever satisfy is sent None (the core
    records it as stuck and goes on)."""
    state: dict[int, Any] = {}

    def step(c: int, value: Any) -> None:
        try:
            state[c] = gens[c].send(value)
        except StopIteration:
            state[c] = None

    for c in gens:
        step(c, None)
    while True:
        moved = True
        while moved:
            moved = False
            for c, st in list(state.items()):
                if st is not None and st[0] == "x" and shared[st[1]]:
                    step(c, None)
                    moved = True
        live = [c for c, st in state.items() if st is not None]
        if not live:
            return
        if all(state[c][0] == "all" for c in live):
            met = max(state[c][1] for c in live)
            for c in live:
                step(c, met)
            continue
        for c in live:  # deadlock: release the cross-core waits as stuck
            if state[c][0] == "x":
                step(c, None)


class _Port:
    """A core's GM port: busy intervals; a transfer takes the first idle gap after it is
    ready. Intervals no future transfer can reach are dropped (see prune)."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.ends: list[float] = []

    def reserve(self, t: float, d: float) -> float:
        starts, ends = self.starts, self.ends
        k = bisect_right(ends, t)
        n = len(starts)
        while k < n and t + d > starts[k]:
            if ends[k] > t:
                t = ends[k]
            k += 1
        if k > 0 and ends[k - 1] == t:  # touches the interval before: extend it
            ends[k - 1] = t + d
            if k < n and starts[k] == t + d:
                ends[k - 1] = ends[k]
                del starts[k], ends[k]
        elif k < n and starts[k] == t + d:
            starts[k] = t
        else:
            starts.insert(k, t)
            ends.insert(k, t + d)
        return t

    def prune(self, horizon: float) -> None:
        """Drop intervals ending before `horizon`, the earliest start any future transfer
        can have: they can no longer constrain anything."""
        k = bisect_right(self.ends, horizon)
        if k:
            del self.starts[:k], self.ends[:k]


class CoreSim:
    """One core: the scalar unit dispatches in program order; each pipe executes its queue in
    order; among the pipes, the head instruction that is ready first runs first, so the GM port
    serves transfers in the order they become ready. Zero-cost instructions (queue and flag
    edges) run as soon as they are ready without going through that ordering."""

    def __init__(self, order: list[int], arrays: tuple, issue: dict[int, float],
                 shared: dict[int, deque]) -> None:
        self.order = order
        self.arrays = arrays
        self.issue = issue
        self.shared = shared  # cross-core flag -> FIFO of fired times (all cores)
        self.done = [0.0] * NP
        self.busy = [0.0] * NP
        self.t_s = 0.0
        self.stuck: list[int] = []

    def span(self) -> float:
        return max(self.t_s, *self.done)

    def copy_from(self, twin: CoreSim) -> None:
        """Take the schedule of a core with the same program (see _independent)."""
        start, end = self.arrays[7], self.arrays[8]
        a, b, ta = self.order[0], self.order[-1] + 1, twin.order[0]
        start[a:b] = start[ta:ta + b - a]
        end[a:b] = end[ta:ta + b - a]
        self.done = twin.done[:]
        self.busy = twin.busy[:]
        self.t_s = twin.t_s
        self.stuck = [i - ta + a for i in twin.stuck]

    def _segments(self, pipe: list[int], cost: list[float]) -> Any:
        """The program as (non-S indices, their cumulative dispatch costs, their indices per
        pipe, the S instruction that ends the run or -1) tuples (numpy does the splitting: the
        runs between scalar instructions are long in most kernels). Only this core's part of
        the trace goes to numpy (a copied twin never gets here)."""
        a, b = self.order[0], self.order[-1] + 1
        if b - a == len(self.order):  # one contiguous run of the trace
            order = np.arange(a, b, dtype=np.int64)
            pk = np.array(pipe[a:b], dtype=np.int8)
            ck = np.array(cost[a:b])
        else:
            order = np.asarray(self.order, dtype=np.int64)
            pk = np.array(pipe, dtype=np.int8)[order]
            ck = np.array(cost)[order]
        bounds = np.flatnonzero(pk == S_PIPE).tolist()
        prev = 0
        for b in bounds + [len(order)]:
            seg = order[prev:b]
            if len(seg):
                spk = pk[prev:b]
                per = {int(p): seg[spk == p].tolist() for p in np.unique(spk)}
                yield seg.tolist(), np.cumsum(ck[prev:b]), per, (int(order[b])
                                                                 if b < len(order) else -1)
            else:
                yield [], None, {}, int(order[b]) if b < len(order) else -1
            prev = b + 1

    def run(self) -> Any:  # noqa: C901 - one tight loop on purpose: it is the model's hot path
        """Walk the program; yields ("all", arrival time) at each sync_all and resumes at the
        time all cores met; yields ("x", flag) at a cross-core wait not yet satisfied."""
        kind, pipe, cost, occ, lat, port, fid, start, end = self.arrays
        issue = self.issue
        done = self.done
        busy = self.busy
        occ_until = [0.0] * NP
        queues: list[list[int]] = [[] for _ in PIPES]
        heads = [0] * NP
        queued = [False] * NP  # the pipe's head is on the heap
        fifo: dict[int, deque[float]] = dict(self.shared)  # flag -> fired times not consumed
        waiters: dict[int, list[int]] = {}  # flag -> pipes whose head waits on it
        heap: list[tuple[float, int]] = []
        gm = _Port()
        reserve = gm.reserve
        l2 = _Port()  # reads served mostly by L2 (no HBM bandwidth used)

        def fire(f: int, t: float, work: list[int]) -> None:
            q = fifo.get(f)
            if q is None:
                q = fifo[f] = deque()
            q.append(t)
            got = waiters.pop(f, None)
            if got:
                work.extend(got)

        def settle(work: list[int]) -> None:
            """Advance each pipe in `work` through its ready zero-cost head instructions,
            then queue its first costed ready head on the heap."""
            while work:
                pk = work.pop()
                if queued[pk]:
                    continue
                q = queues[pk]
                h = heads[pk]
                nq = len(q)
                while h < nq:
                    i = q[h]
                    t = issue[i]
                    u = occ_until[pk]
                    if u > t:
                        t = u
                    k = kind[i]
                    if k == WAIT:
                        ready = fifo.get(fid[i])
                        if not ready:
                            waiters.setdefault(fid[i], []).append(pk)
                            break
                        if ready[0] > t:
                            t = ready[0]
                    elif k == BARRIER:
                        d = done[pk]
                        if d > t:
                            t = d
                    if occ[i] or port[i]:
                        heappush(heap, (t, pk))
                        queued[pk] = True
                        break
                    start[i] = end[i] = t
                    occ_until[pk] = t
                    if k == WAIT:
                        ready.popleft()
                    elif k == SET:  # fire the flag (inline of fire(): this is the hot path)
                        d = done[pk]
                        f = fid[i]
                        fq = fifo.get(f)
                        if fq is None:
                            fq = fifo[f] = deque()
                        fq.append(t if t > d else d)
                        got = waiters.pop(f, None)
                        if got:
                            work.extend(got)
                    if t > done[pk]:
                        done[pk] = t
                    h += 1
                heads[pk] = h

        def drain(wanted: int = -1, before: float = -1.0) -> None:
            """Run the costed heads in order of readiness: all of them, or until flag `wanted`
            has a fired set, or while they are ready no later than `before` (when >= 0)."""
            work: list[int] = []
            while heap:
                if wanted >= 0 and fifo.get(wanted):
                    return
                if before >= 0 and heap[0][0] > before:
                    return
                t, pk = heappop(heap)
                queued[pk] = False
                i = queues[pk][heads[pk]]
                k = kind[i]
                if k == WAIT:
                    fifo[fid[i]].popleft()
                elif k == SET:
                    d = done[pk]
                    fire(fid[i], t if t > d else d, work)
                o = occ[i]
                pt = port[i]
                if pt < 0:
                    t = l2.reserve(t, -pt)
                    if len(l2.starts) > 32:
                        l2.prune(occ_until[0])
                elif pt:
                    t = reserve(t, pt)
                    if len(gm.starts) > 32:
                        gm.prune(min(occ_until[0], occ_until[3], occ_until[5]))
                start[i] = t
                t += o
                occ_until[pk] = t
                t += lat[i]
                end[i] = t
                if t > done[pk]:
                    done[pk] = t
                busy[pk] += o
                heads[pk] += 1
                work.append(pk)
                settle(work)

        t_s = 0.0
        for seg_idx, seg_cum, seg_pipes, i in self._segments(pipe, cost):
            if seg_idx:  # dispatch a run of non-S instructions: issue times are a prefix sum
                times = (seg_cum + t_s).tolist()
                busy[S_PIPE] += float(seg_cum[-1])
                t_s = times[-1]
                issue.update(zip(seg_idx, times))
                work = []
                for pk, ids in seg_pipes.items():
                    q = queues[pk]
                    if heads[pk] == len(q) and not queued[pk]:  # the pipe was idle
                        work.append(pk)
                    q.extend(ids)
                settle(work)
            if i < 0:
                break
            k = kind[i]
            t = t_s
            if k == WAIT:
                f = fid[i]
                if not fifo.get(f):
                    drain(wanted=f)
                ready = fifo.get(f)
                if not ready:  # the scalar unit would hang here
                    self.stuck.append(i)
                else:
                    r = ready.popleft()
                    if r > t:
                        t = r
            elif k == SET:
                drain(before=t)
            elif k == XWAIT:
                ready = fifo[fid[i]]
                if not ready:
                    drain()
                    yield ("x", fid[i])
                if ready:
                    r = ready.popleft()
                    if r > t:
                        t = r
                else:  # no core ever sets it: the scalar unit would hang here
                    self.stuck.append(i)
            elif k == BARRIER_ALL or k == SYNC_ALL:
                drain()
                self.stuck.extend(q[h] for q, h in zip(queues, heads) if h < len(q))
                d = max(done)
                if d > t:
                    t = d
                if k == SYNC_ALL:
                    self.t_s = t
                    met = yield ("all", t)
                    if met > t:
                        t = met
                for p in range(NP):
                    if occ_until[p] < t:
                        occ_until[p] = t
            c = cost[i]
            start[i] = t
            end[i] = t_s = t + c
            if k == SET:
                d = done[S_PIPE]
                work: list[int] = []
                fire(fid[i], t if t > d else d, work)
                settle(work)
            if t_s > done[S_PIPE]:
                done[S_PIPE] = t_s
            busy[S_PIPE] += c
        self.t_s = t_s
        drain()
        self.stuck.extend(q[h] for q, h in zip(queues, heads) if h < len(q))


def schedule(by_core: dict[int, list[int]], arrays: tuple, issue: dict[int, float],
              cross: set[int]) -> dict[int, CoreSim]:
    """Run every core's events through its pipes (cost_schedule.CoreSim), filling start, end
    and issue. The n-th wait on a flag consumes the n-th set of it on that core
    (deps.match_syncs): sets fire in order on their pipe, waits consume in order on theirs, so
    each core keeps a FIFO of fired times per flag."""
    kind = arrays[0]
    shared = {f: deque() for f in cross}
    sims = {c: CoreSim(order, arrays, issue, shared)
            for c, order in by_core.items()}
    if cross or SYNC_ALL in kind:  # the cores meet: schedule them together
        drive({c: sim.run() for c, sim in sims.items()}, shared)
    else:
        independent(sims, arrays)
    return sims


def waves(run: Any, core_end: dict[int, float], groups: int, mix: bool) -> int:
    """The kernel's span: block b runs on physical core (group) b % groups, after the blocks
    before it."""
    spans: dict[int, float] = {}
    for core, span in core_end.items():
        g = run.group_of(core) if mix else core
        if span > spans.get(g, 0.0):
            spans[g] = span
    slots = [0.0] * groups
    for g in sorted(spans):
        slots[g % groups] += spans[g]
    return int(round(max(slots)))
