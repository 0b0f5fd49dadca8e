"""insert_sync: the pipe synchronisation pyasc's compiler inserts for a kernel (`@asc.jit(
insert_sync=True)`, forced on by LocalTensorAuto), derived from the data dependencies.

Every instruction of a core passes through AutoSync.append before it enters the trace. If it
touches bytes (UB, L1, L0*, GM) that an earlier instruction of another pipe wrote (RAW, WAW) or
read (WAR), and no sync already orders that instruction before this pipe, a set on the producer
pipe and a wait on this pipe are inserted first: two Events with Sync(..., key=("auto",),
implicit=True), op "set_flag"/"wait_flag", args (("auto", True), ("event", "SRC_DST")) and the
consumer's source line, so the cost model and the race detector see them and a reader can show
where they went. Syncs the kernel already has (set_flag/wait_flag, TQue enque/deque and
free/alloc, pipe_barrier(PIPE_ALL), sync_all) count: a dependency they cover gets no new edge.
Dependencies inside the vector pipe are CANN's implicit PIPE_V barriers (core.check_vector_order).

Limitation: the inserted set sits just before the consuming instruction, not right after the
producing one as a compiler may place it, so it also waits for later, unrelated work of the
producer pipe. Single-buffered kernels (what insert_sync is for) lose nothing by this.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .trace import PIPES as _PIPES
from .trace import Event, Sync, event

_new = tuple.__new__

_EDGES: dict[tuple[str, str], tuple[Sync, Sync, tuple]] = {}
_PRUNE_AT = 64  # entries per pipe before ordered ones are dropped
_KEEP = 4096  # entries per pipe kept at most


def _edge(src: str, dst: str) -> tuple[Sync, Sync, tuple]:
    e = _EDGES.get((src, dst))
    if e is None:
        e = _EDGES[(src, dst)] = (
            _new(Sync, ("set", src, dst, ("auto",), True)),
            _new(Sync, ("wait", src, dst, ("auto",), True)),
            (("auto", True), ("event", f"{src}_{dst}")))
    return e


class AutoSync:
    """One core's dependency tracker; `append` replaces CoreState.append."""

    __slots__ = ("trace", "raw", "recent", "synced", "sets", "last", "inserted", "nxt")

    def __init__(self, c: Any) -> None:
        self.trace: list[Event] = c.launch.trace
        self.raw = self.trace.append
        # pipe -> [(trace index, space, lo, hi, is_write)] of its recent instructions
        self.recent: dict[str, list[tuple[int, str, int, int, bool]]] = {}
        # (src, dst) -> trace index of the latest src instruction known to complete before
        # dst's next instruction starts
        self.synced: dict[tuple[str, str], int] = {}
        self.sets: dict[tuple, deque[int]] = {}  # explicit flag -> src's last index at each set
        self.last: dict[str, int] = {}  # pipe -> trace index of its latest instruction
        self.inserted = 0  # set/wait pairs inserted so far
        self.nxt: dict[str, int] = {}  # pipe -> list length at which to prune next

    def append(self, ev: Event) -> None:
        s = ev.sync
        if s is not None:
            self._learn(s)
            self.raw(ev)
            return
        reads, writes = ev.reads, ev.writes
        if reads or writes:
            p = ev.pipe
            for q, lst in self.recent.items():
                if q == p or not lst:
                    continue
                lim = self.synced.get((q, p), -1)
                if lst[-1][0] <= lim:
                    continue
                if _conflicts(lst, lim, reads, writes):
                    self._insert(ev, q, p)
            idx = len(self.trace)
            lst = self.recent.get(p)
            if lst is None:
                lst = self.recent[p] = []
            for a in reads:
                lst.append((idx, a.space, a.addr, a.end, False))
            for a in writes:
                lst.append((idx, a.space, a.addr, a.end, True))
            if len(lst) > self.nxt.get(p, _PRUNE_AT):
                self._prune(p, lst)
                self.nxt[p] = len(lst) + _PRUNE_AT
        self.last[ev.pipe] = len(self.trace)
        self.raw(ev)

    def _insert(self, ev: Event, q: str, p: str) -> None:
        """A set on q and a wait on p, just before `ev`, attributed to ev's source line."""
        st, wt, args = _edge(q, p)
        core, file, line = ev.core, ev.file, ev.line
        self.raw(event(core, q, "set_flag", file=file, line=line, sync=st, args=args))
        self.raw(event(core, p, "wait_flag", file=file, line=line, sync=wt, args=args))
        self.synced[(q, p)] = self.last.get(q, -1)
        self.inserted += 1

    def _learn(self, s: Sync) -> None:
        """Record what an explicit sync orders."""
        kind = s.kind
        if kind == "set":
            key = (s.src, s.dst, s.key)
            fifo = self.sets.get(key)
            if fifo is None:
                fifo = self.sets[key] = deque()
            fifo.append(self.last.get(s.src, -1))
        elif kind == "wait":
            fifo = self.sets.get((s.src, s.dst, s.key))
            if fifo:  # a wait issued before its set orders nothing we can see yet
                done = fifo.popleft()
                pair = (s.src, s.dst)
                if done > self.synced.get(pair, -1):
                    self.synced[pair] = done
        elif kind == "sync_all" or (kind == "barrier" and s.src == "ALL"):
            for q, i in self.last.items():
                for p in _PIPES:
                    if p != q:
                        self.synced[(q, p)] = i

    def _prune(self, q: str, lst: list) -> None:
        """Drop entries of pipe q that every pipe seen so far is already ordered after, and
        keep at most _KEEP entries (a pipe that never ran constrains nothing until it does;
        a dependency older than _KEEP accesses is assumed ordered by then)."""
        others = [p for p in self.last if p != q]
        floor = min((self.synced.get((q, p), -1) for p in others), default=-1)
        if floor >= 0:
            lst[:] = [e for e in lst if e[0] > floor]
        if len(lst) > _KEEP:
            del lst[:len(lst) - _KEEP]


def _conflicts(lst: list, lim: int, reads: tuple, writes: tuple) -> bool:
    """Does any entry of `lst` after trace index `lim` conflict with these accesses?"""
    for idx, space, lo, hi, w in reversed(lst):
        if idx <= lim:
            return False
        for a in writes:
            if a.space == space and a.addr < hi and lo < a.end:
                return True
        if w:
            for a in reads:
                if a.space == space and a.addr < hi and lo < a.end:
                    return True
    return False
