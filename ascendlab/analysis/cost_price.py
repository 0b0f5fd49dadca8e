"""The cycle model's first pass (cost.py runs it): what each event of a trace costs where — its
scheduler kind, pipe, scalar-unit cycles, pipe occupancy, latency, fixed part, GM port time and
flag — plus the totals the roofline needs. The rules are in cost.py's docstring.

The runtime shares one Event object among the repetitions of an instruction (a loop's queue
events, its vector instruction on the same slots, ...), so an event whose price does not depend
on what came before it (everything but GM transfers and cube steps) is priced once per object
and its totals are added once per repetition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..runtime.chips import ChipSpec
from ..runtime.trace import OPS, VECTOR_CLASSES, op_info
from .cost_memory import dma_cost
from .cost_schedule import BARRIER, BARRIER_ALL, PIPE_IX, PLAIN, S_PIPE, SET, SYNC_ALL, WAIT, XWAIT

if TYPE_CHECKING:
    from .cost import CostTable

_KIND = {"wait": WAIT, "set": SET, "sync_all": SYNC_ALL, "xset": SET, "xwait": XWAIT}
_CROSS = frozenset({"xset", "xwait"})


class Priced(NamedTuple):
    """The first pass's result: per-event columns (index = trace index) and totals."""

    columns: tuple[list, ...]  # kind, pipe, cost, occ, lat, fixed, port, fid
    gm_reads: list[tuple]  # (event, bytes key, moved, repeats, dst, misaligned, read before)
    written: dict[tuple, int]  # bytes key of a GM write -> its first event
    dma_cache: dict[tuple, tuple[float, float, float]]
    bytes_moved: dict[tuple[str, str], int]
    gm_read: int
    gm_write: int
    flops: int
    vec_work: float
    cube_work: float
    cross: set[int]  # flags between cores (one FIFO shared by all cores)


class _Repeated(Exception):
    """An Event object whose price depends on its place occurs more than once."""


def price(trace: list, table: CostTable, chip: ChipSpec, rd_rate: float, wr_rate: float
          ) -> Priced:
    """Price every event of `trace` (see the module docstring); GM reads get their dispatch
    cost only: l2_hits prices them once the L2 reuse is known.

    Each distinct Event object is visited once, in the order of its first occurrence, and the
    rows are laid out by object identity afterwards (C loops). An object whose price depends on
    its place (a GM transfer, a cube step: their totals accumulate in trace order) never recurs
    in a runtime's trace; if one does, every occurrence is visited in order instead."""
    ids = list(map(id, trace))
    times, order = occurrences(ids)
    try:
        return _Pricer(table, chip, rd_rate, wr_rate, times, False).run(trace, ids, order)
    except _Repeated:
        return _Pricer(table, chip, rd_rate, wr_rate, times, True).run(trace, ids, order)


def occurrences(ids: list[int]) -> tuple[dict[int, int], list[int]]:
    """(how many times each object id occurs, the index of each id's first occurrence in
    trace order), from one sort in C (a Counter and a dict of indices take twice as long)."""
    objs, first, counts = np.unique(np.fromiter(ids, np.uint64, len(ids)), return_index=True,
                                    return_counts=True)
    return dict(zip(objs.tolist(), counts.tolist())), np.sort(first).tolist()


class _Pricer:
    """The state of one pricing pass (price())."""

    def __init__(self, table: CostTable, chip: ChipSpec, rd_rate: float, wr_rate: float,
                 times: dict[int, int], in_order: bool) -> None:
        self.table, self.chip, self.rd_rate, self.wr_rate = table, chip, rd_rate, wr_rate
        self.times, self.in_order = times, in_order
        self.fast_align, self.slow_rate = chip.gm_fast_align, chip.gm_misaligned_rate
        self.gm_reads: list[tuple] = []
        self.core_read: dict[int, int] = {}  # core -> GM bytes it read so far
        self.written: dict[tuple, int] = {}
        self.bytes_moved: dict[tuple[str, str], int] = {}
        self.gm_read = self.gm_write = self.flops = 0
        self.cube_work = 0.0
        self.dma_cache: dict[tuple, tuple[float, float, float]] = {}
        self.klass_of = {name: info.cost_class for name, info in OPS.items()}
        self.vec_memo: dict[tuple[str, str], Any] = {}  # (op, dtype) -> (cycles/rep, flops)
        # Sync and framework events: the runtime shares one Sync object per flag / queue slot,
        # so their row is memoised by the Sync's identity (or op and pipe name); a Sync object
        # is always issued on the same pipe (a set on its src, a wait on its dst, a barrier on
        # its pipe)
        self.edge_memo: dict[Any, tuple] = {}
        self.flag_ids: dict[tuple, int] = {}  # (src, dst, key) -> small int: one FIFO each
        self.cross: set[int] = set()
        # id(Event) -> its row (kind, pipe, cost, occ, lat, fixed, port, fid); totals of the
        # events priced once for all their occurrences: id(Event) -> (route, bytes, work, flops)
        self.row_of: dict[int, tuple] = {}
        self.totals_of: dict[int, tuple] = {}
        self.placed: set[int] = set()  # ids of the events whose price depends on their place
        # id(the local side's Access tuple) -> (op, pipe, repeats, what a GM transfer into
        # (gm_in) or out of (gm_out) those bytes costs, the tuple: keeps its id unique)
        self.gm_in: dict[int, tuple] = {}
        self.gm_out: dict[int, tuple] = {}

    def run(self, trace: list, ids: list[int], first: list[int]) -> Priced:
        """Price the events (each object once, at its first index `first`, unless in_order)."""
        row_of, placed, in_order = self.row_of, self.placed, self.in_order
        gm_in, gm_out, times = self.gm_in, self.gm_out, self.times
        fa, core_read, gm_reads = self.fast_align, self.core_read, self.gm_reads
        bytes_moved, written = self.bytes_moved, self.written
        order = range(len(trace)) if in_order else first
        for i in order:
            e = trace[i]
            key = id(e)
            if in_order:
                if key in row_of and key not in placed:
                    continue
                placed.add(key)  # (only events priced by place get past the checks below)
            # A GM transfer whose local side (one shared Access tuple) was seen before: the hot
            # path of read_gm / write_gm, inline (fields unpacked in trace.Event's order)
            core, pname, op, reads, writes, _n, _dt, repeats, _f, _l, s, _a = e
            if s is None and reads and writes:
                sh = gm_in.get(id(writes))
                if sh is not None and sh[0] is op and sh[1] is pname and sh[2] == repeats:
                    space, addr, nbytes, _nm, blocks, stride = reads[0]
                    if space == "GM":
                        if not in_order and times[key] > 1:
                            raise _Repeated(op)
                        route, dst, moved, row_of[key] = sh[3]
                        bytes_moved[route] += moved
                        before = core_read.get(core, 0)
                        core_read[core] = before + moved
                        gm_reads.append((i, (addr, nbytes, blocks, stride), moved, repeats, dst,
                                         addr % fa != 0 or blocks > 1 and stride % fa != 0,
                                         before))
                        self.gm_read += moved
                        continue
                sh = gm_out.get(id(reads))
                if sh is not None and sh[0] is op and sh[1] is pname and sh[2] == repeats:
                    space, addr, nbytes, _nm, blocks, stride = writes[0]
                    route, moved, rows = sh[3]
                    if space == "GM" and nbytes * blocks == moved:
                        if not in_order and times[key] > 1:
                            raise _Repeated(op)
                        bytes_moved[route] += moved
                        written.setdefault((addr, nbytes, blocks, stride), i)
                        self.gm_write += moved
                        row_of[key] = rows[addr % fa != 0 or blocks > 1 and stride % fa != 0]
                        continue
            if in_order:
                placed.discard(key)  # priced below; place() marks it again if it is placed
            self.event(i, e)
        vec_work = 0.0
        flops = self.flops
        times = self.times
        for k, (route, moved, work, fl) in self.totals_of.items():  # once per repetition
            n = times[k]
            if route is not None:
                self.bytes_moved[route] += n * moved
            vec_work += n * work
            flops += n * fl
        rows = list(map(row_of.__getitem__, ids))
        columns = tuple(map(list, zip(*rows))) if rows else tuple([] for _ in range(8))
        return Priced(columns, self.gm_reads, self.written, self.dma_cache, self.bytes_moved,
                      self.gm_read, self.gm_write, flops, vec_work, self.cube_work, self.cross)

    def place(self, e: Any, row: tuple) -> None:
        """Record the row of an event whose price depends on its place."""
        key = id(e)
        if self.in_order:
            self.placed.add(key)
        elif self.times[key] > 1:
            raise _Repeated(e.op)
        self.row_of[key] = row

    def slow(self, a: Any) -> bool:
        """Whether GM access `a` is off the fast alignment (its transfer runs slower)."""
        fa = self.fast_align
        return a.addr % fa != 0 or a.count > 1 and a.stride % fa != 0

    def read_gm(self, i: int, e: Any, a: Any, shape: tuple) -> None:
        """A GM read (costed after this pass by l2_hits): shape = (route, dst, bytes, row)."""
        route, dst, moved, row = shape
        self.bytes_moved[route] = self.bytes_moved.get(route, 0) + moved
        before = self.core_read.get(e.core, 0)
        self.core_read[e.core] = before + moved
        self.gm_reads.append((i, (a.addr, a.nbytes, a.count, a.stride), moved, e.repeats, dst,
                              self.slow(a), before))
        self.gm_read += moved
        self.place(e, row)

    def write_gm(self, i: int, e: Any, a: Any, shape: tuple) -> None:
        """A GM write: shape = (route, bytes, (row aligned, row misaligned))."""
        route, moved, rows = shape
        self.bytes_moved[route] = self.bytes_moved.get(route, 0) + moved
        slow = self.slow(a)
        self.written.setdefault((a.addr, a.nbytes, a.count, a.stride), i)
        self.gm_write += moved
        self.place(e, rows[slow])

    def dma_row(self, src: str, dst: str, moved: int, repeats: int, slow: bool, pk: int
                ) -> tuple:
        """The row of a DMA that is not a GM read."""
        ck = (src, dst, moved, repeats, slow)
        got = self.dma_cache.get(ck)
        if got is None:
            got = self.dma_cache[ck] = dma_cost(self.table, self.chip, src, dst, moved, repeats,
                                                self.rd_rate, self.wr_rate,
                                                slow=self.slow_rate if slow else 1.0)
        o, lt, pt = got
        # L1 -> L0 loads have no setup (their fixed cost is latency)
        fx = o - pt if pt else 0.0 if dst in ("L0A", "L0B") else self.table.dma_setup
        return (PLAIN, pk, o if pk == S_PIPE else self.table.dispatch, o, lt, fx, pt, -1)

    def event(self, i: int, e: Any) -> None:
        """Price event i (not a GM transfer of a known shape)."""
        _core, pname, op, reads, writes, count, dt, repeats, _f, _l, s, args = e
        klass = self.klass_of.get(op) or op_info(op).cost_class  # unregistered -> error
        table = self.table
        if s is not None or klass == "framework":
            memo_key = id(s) if s is not None else op + pname
            row = self.edge_memo.get(memo_key)
            if row is None:
                k, o, c = _edge_cost(op, pname, s, table)
                f = (self.flag_ids.setdefault((s.src, s.dst, s.key), len(self.flag_ids))
                     if k in (WAIT, SET, XWAIT) else -1)
                if s is not None and s.kind in _CROSS:
                    self.cross.add(f)
                row = self.edge_memo[memo_key] = (k, PIPE_IX[pname], c, o, 0.0, o, 0.0, f)
            self.row_of[id(e)] = row
            return
        pk = PIPE_IX[pname]
        dispatch = table.dispatch
        if klass == "dma":
            self.dma(i, e, pk)
        elif klass == "cube":  # mmad
            steps = repeats / dict(args).get("rate", 1.0)  # 16x16x16 fp16 steps per cycle
            o = table.cube_setup + steps
            self.cube_work += steps
            self.flops += OPS[op].flops_per_elem * count
            self.place(e, (PLAIN, pk, o if pk == S_PIPE else dispatch, o, table.cube_latency,
                           table.cube_setup, 0.0, -1))
        elif klass == "scalar":  # get_value / set_value
            gm = (reads or writes)[0].space == "GM"
            o = table.scalar_gm if gm else table.scalar_local
            self.row_of[id(e)] = (PLAIN, pk, o if pk == S_PIPE else dispatch, o, 0.0, o, 0.0, -1)
        else:
            vk = self.vec_memo.get((op, dt))
            if vk is None:
                epc = dict(table.vector_elements_per_cycle).get(op)  # a fixed element rate
                vk = self.vec_memo[(op, dt)] = ((
                    max(dict(table.vector_repeat).get(klass, 1.0),
                        2048 / int("".join(filter(str.isdigit, dt)) or 16) / epc if epc
                        else 0.0),
                    OPS[op].flops_per_elem) if klass in VECTOR_CLASSES else ())
            if vk:
                work = repeats * vk[0]
                o = table.vector_setup + work
                row = (PLAIN, pk, o if pk == S_PIPE else dispatch, o, table.vector_latency,
                       table.vector_setup, 0.0, -1)
                self.totals_of[id(e)] = (None, 0, work, vk[1] * count)
            else:
                row = (PLAIN, pk, 0.0 if pk == S_PIPE else dispatch, 0.0, 0.0, 0.0, 0.0, -1)
            self.row_of[id(e)] = row

    def dma(self, i: int, e: Any, pk: int) -> None:
        """A DMA event: a GM read, a GM write, or an on-chip move."""
        reads, writes, op, pname, repeats = e.reads, e.writes, e.op, e.pipe, e.repeats
        src = reads[0].space if reads else "?"
        if writes:
            w = writes[0]
            dst, moved = w.space, w.nbytes * w.count
        else:
            dst, moved = "?", 0
        route = (src, dst)
        if src == "GM":
            shape = (route, dst, moved, (PLAIN, pk, self.table.dispatch, 0.0, 0.0, 0.0, 0.0,
                                         -1))
            self.read_gm(i, e, reads[0], shape)
            if len(writes) == 1:  # later transfers into the same local bytes: see run()
                self.gm_in[id(writes)] = (op, pname, repeats, shape, writes)
        elif dst == "GM":
            shape = (route, moved, (self.dma_row(src, dst, moved, repeats, False, pk),
                                    self.dma_row(src, dst, moved, repeats, True, pk)))
            self.write_gm(i, e, writes[0], shape)
            if reads:  # later transfers from the same local bytes: see run()
                self.gm_out[id(reads)] = (op, pname, repeats, shape, reads)
        else:  # an on-chip move: the same object costs the same wherever it is
            self.bytes_moved.setdefault(route, 0)  # (keeps the routes in first-seen order)
            self.totals_of[id(e)] = (route, moved, 0.0, 0)
            self.row_of[id(e)] = self.dma_row(src, dst, moved, repeats, False, pk)


def _edge_cost(op: str, pname: str, s: Any, table: CostTable) -> tuple[int, float, float]:
    """(scheduler kind, pipe occupancy, scalar-unit cycles) of a sync or framework event."""
    if s is None:
        kind = PLAIN
    else:
        kind = _KIND.get(s.kind) or (BARRIER_ALL if s.src == "ALL" else BARRIER)
    occ = float(table.sync) if op in ("set_flag", "wait_flag", "pipe_barrier") else 0.0
    if OPS[op].cost_class == "framework":
        scalar = table.framework
    elif pname == "S" or s is not None and pname == "S":
        scalar = table.sync
    else:
        scalar = table.sync if pname == "S" else table.dispatch
    return kind, occ, float(scalar)
