"""The sanitizer's per-core pass: happens-before over the sync edges (racecheck), reads of
never-written local bytes (initcheck) and waits that can never be satisfied (synccheck).

The rules are in sanitizer.py's docstring. This module replays one core's events in an order
the chip could execute them in: program order, except that a pipe blocked on a wait whose set
has not been issued yet queues its later instructions until the set arrives (a wait issued
before its set in program order is legal on the chip). Each pipe carries a vector clock: entry
q of pipe p's clock is how many pipe-q instructions are known to be complete before p's next
instruction starts. Each local memory has a shadow map of byte segments remembering the last
writer and the latest reader per pipe since that write.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from ..runtime.trace import PIPES as _TRACE_PIPES
from ..runtime.trace import Event, Finding
from .sanitizer_findings import HARD_EVENTS, Reports, at, flag_name, short  # noqa: F401

# The pipes (trace.PIPES) in the order this pass visits them when several are released at once:
# scalar first, as the scalar unit issues every instruction. Which writer a byte's shadow keeps
# when two unordered writers touch it depends on this order, and the battery pins the reported
# lines, so it is kept.
PIPES = tuple(sorted(_TRACE_PIPES, key=("S", "V", "MTE1", "MTE2", "MTE3", "M", "FIX").index))
PIPE_INDEX = {p: i for i, p in enumerate(PIPES)}
NP = len(PIPES)
_S = 0
LOCAL = frozenset({"UB", "L1", "L0A", "L0B", "L0C"})
_CUBE_IN = frozenset({"L1", "L0A", "L0B"})
_ALL, _ENDS, _ANY = range(3)  # initcheck rules for a read block, see CorePass._accesses
_QUEUE_OPS = frozenset({"alloc_tensor", "enque", "deque", "free_tensor"})


def _copy(st: list | None) -> list | None:
    return None if st is None else [st[0], st[1], st[2], dict(st[3])]


class Shadow:
    """One local memory of one core as disjoint byte segments [bounds[k], bounds[k+1]).

    A segment's state is None (never touched) or [writer pipe (-1: never written), writer's
    index on its pipe, writer's event, {reader pipe: (index, event)} since that write].
    """

    __slots__ = ("bounds", "states")

    def __init__(self, capacity: int) -> None:
        self.bounds = [0, capacity]
        self.states: list[list | None] = [None]

    def span(self, lo: int, hi: int) -> tuple[int, int]:
        """Segment indices [i, j) covering exactly [lo, hi), splitting segments as needed."""
        b = self.bounds
        i = bisect_right(b, lo) - 1
        if b[i] != lo:
            i += 1
            b.insert(i, lo)
            self.states.insert(i, _copy(self.states[i - 1]))
        j = bisect_left(b, hi, i + 1)
        if b[j] != hi:
            b.insert(j, hi)
            self.states.insert(j, _copy(self.states[j - 1]))
        return i, j


class CorePass(Reports):
    """Replays the events of one core; appends Findings to `out` (messages: Reports)."""

    def __init__(self, run: Any, set_of: dict[int, int], out: list[Finding],
                 seen: set) -> None:
        self.trace = run.trace
        self.chip = run.chip
        self.set_of = set_of
        self.out = out
        self.seen = seen  # dedup keys of findings already reported (loops repeat bugs)
        auto = bool(run.options.get("auto_sync", True))
        # Pipes whose instructions complete in issue order (see sanitizer.py's docstring).
        self.in_order = tuple(p in ("S", "M") or (p == "V" and auto) for p in PIPES)
        self.auto_sync = auto
        self.clock = [[0] * NP for _ in range(NP)]
        self.count = [0] * NP
        self.blocked = [-1] * NP  # the wait each pipe is blocked on, -1 if none
        self.queued: list[list[int]] = [[] for _ in range(NP)]
        self.set_clock: dict[int, list[int]] = {}  # processed set -> its clock, until consumed
        self.waiter: dict[int, int] = {}  # unprocessed set -> the pipe blocked waiting for it
        self.shadow: dict[str, Shadow] = {}
        self.dead = False  # a deadlock stopped the replay
        self.phase = 0  # sync_all calls passed
        self.gm: list[tuple] = []  # (phase, lo, hi, is_write, event) of every GM block
        self.slots: dict[tuple[int, int], tuple[str, int, int]] = {}  # (queue, slot) -> state
        self.last_set: dict[tuple, int] = {}  # flag -> its set not yet followed by a wait
        # for the cross-core order of MIX kernels (sanitizer._XOrder): where each GM access
        # sits in its pipe (pipe, count), and the clock each cross-core set fires with
        self.pos: dict[int, tuple[int, int]] = {}
        self.xset_clock: dict[int, list[int]] = {}

    # ---- driving -------------------------------------------------------------------------
    def run(self, indices: list[int], complete: bool) -> None:
        """Replay the core's events (trace indices in program order)."""
        trace = self.trace
        blocked = self.blocked
        for i in indices:
            if self.dead:
                break
            e = trace[i]
            if e.op in _QUEUE_OPS or e.op == "init_buffer":
                self._queue_state(i, e)
            elif e.sync is not None and e.sync.key[0] == "flag":
                self._double_set(i, e)
            p = PIPE_INDEX[e.pipe]
            if blocked[p] >= 0:
                self.queued[p].append(i)
            else:
                self._step(i, e, p)
        if complete and not self.dead:
            for p in range(NP):
                if blocked[p] >= 0:
                    self._hang(blocked[p])

    def _step(self, i: int, e: Event, p: int) -> None:
        s = e.sync
        if s is None:
            self.count[p] += 1
            n = self.count[p]
            if e.reads or e.writes:
                self._accesses(i, e, p, n)
            if self.in_order[p]:
                self.clock[p][p] = n
            return
        kind = s.kind
        self.count[p] += 1
        n = self.count[p]
        if kind == "set":
            v = self.clock[p][:]
            v[p] = n
            q = self.waiter.pop(i, -1)
            if q >= 0:
                self._release(q, v)
            else:
                self.set_clock[i] = v
        elif kind == "wait":
            src = self.set_of.get(i, -1)
            v = self.set_clock.pop(src, None)
            if v is None:  # the set is not issued yet (or never is): the pipe blocks
                self.count[p] -= 1  # counted again when it is released
                self.blocked[p] = i
                if src >= 0:
                    self.waiter[src] = p
                if p == _S:  # the scalar unit stalls: nothing after it is ever issued
                    for w in self.blocked:
                        if w >= 0:
                            self._hang(w)
                    self.dead = True
                return
            self._join(p, v)
        elif kind == "barrier":
            if s.src == "ALL":
                self._full_barrier(i, e)
            else:
                q = PIPE_INDEX[s.src]
                self.clock[q][q] = self.count[q]
        elif kind == "sync_all":
            self._full_barrier(i, e)
            self.phase += 1
        elif kind == "xset":  # fires once the earlier work of its pipe is done, like a set
            v = self.clock[p][:]
            v[p] = n
            self.xset_clock[i] = v
        if self.in_order[p]:
            self.clock[p][p] = n

    def _join(self, p: int, v: list[int]) -> None:
        if p == _S:  # a wait on S stalls issue: every later instruction starts after it
            self.clock = [list(map(max, c, v)) for c in self.clock]
        else:
            self.clock[p] = list(map(max, self.clock[p], v))

    def _release(self, q: int, v: list[int]) -> None:
        """The set pipe q was blocked on arrived: finish the wait, replay what queued up."""
        self.blocked[q] = -1
        self.count[q] += 1
        self._join(q, v)
        if self.in_order[q]:
            self.clock[q][q] = self.count[q]
        pending, self.queued[q] = self.queued[q], []
        trace = self.trace
        for j in pending:
            if self.blocked[q] >= 0 or self.dead:
                self.queued[q].append(j)
            else:
                self._step(j, trace[j], q)

    def _full_barrier(self, i: int, e: Event) -> None:
        """PIPE_ALL / sync_all: every earlier instruction completes before any later starts."""
        stuck = [w for w in self.blocked if w >= 0]
        if stuck:
            for w in stuck:
                self._hang(w, barrier=i)
            self.dead = True
            return
        full = self.count[:]
        self.clock = [full[:] for _ in range(NP)]

    # ---- memory --------------------------------------------------------------------------
    def _accesses(self, i: int, e: Event, p: int, n: int) -> None:
        vc = self.clock[p]
        args = e.args
        # initcheck rule per read (module docstring of sanitizer.py): every byte; the first and
        # last byte of each block of a masked/strided repeat-form vector read; any byte of a
        # cube operand block (ND->NZ leaves the padding rows of a fractal unwritten).
        repeat_form = len(args) > 1 and any(k == "lanes" or k == "mask" for k, _ in args)
        for a in e.reads:
            if a.space in LOCAL:
                limit = 0
                if e.op == "data_copy_pad" and e.writes:
                    limit = e.writes[0].nbytes  # UB->GM reads block_len of each padded block
                rule = _ENDS if repeat_form else _ANY if a.space in _CUBE_IN else _ALL
                self._touch(i, e, p, n, vc, a, False, rule, limit)
            elif a.space == "GM":
                self._gm(i, a, False, p, n)
        for a in e.writes:
            if a.space in LOCAL:
                self._touch(i, e, p, n, vc, a, True, _ALL, 0)
            elif a.space == "GM":
                self._gm(i, a, True, p, n)

    def _gm(self, i: int, a: Any, write: bool, p: int, n: int) -> None:
        self.pos[i] = (p, n)  # where the GM access sits in its pipe (the cross-core order)
        if a.count == 1 or a.stride == a.nbytes:
            if a.count and a.nbytes:
                self.gm.append((self.phase, a.addr, a.end, write, i))
            return
        for lo, hi in a.ranges():
            self.gm.append((self.phase, lo, hi, write, i))

    def _touch(self, i: int, e: Event, p: int, n: int, vc: list[int], a: Any, write: bool,
               rule: int, limit: int) -> None:
        """Check one access against the shadow and record it. Reads: initcheck (bytes never
        written, judged by `rule`, see _accesses) and read-after-write races; writes:
        write-after-read and write-after-write races."""
        if not a.nbytes or not a.count:
            return
        sh = self.shadow.get(a.space)
        if sh is None:
            sh = self.shadow[a.space] = Shadow(self.chip.capacity(a.space))
        cap = sh.bounds[-1]
        if a.count == 1 or (a.stride == a.nbytes and rule == _ALL and not limit):
            blocks = ((a.addr, a.addr + a.count * a.nbytes),)
        else:
            blocks = a.ranges()
        for lo, hi in blocks:
            if hi > cap:
                hi = cap
            if lo >= hi:
                continue
            k0, k1 = sh.span(lo, hi)
            states = sh.states
            bounds = sh.bounds
            if write:
                for k in range(k0, k1):
                    st = states[k]
                    if st is None:
                        states[k] = [p, n, i, {}]
                        continue
                    for rp, (rn, rev) in st[3].items():
                        # a scalar read (get_value) is synchronous: it completes before the
                        # scalar unit issues anything after it
                        if vc[rp] < rn and rev != i and (rp != _S or rev > i):
                            self._race("write-after-read", rev, i, a, bounds[k], bounds[k + 1])
                    wp = st[0]
                    if wp >= 0 and vc[wp] < st[1] and st[2] != i:
                        self._race("write-after-write", st[2], i, a, bounds[k], bounds[k + 1])
                    st[0] = p
                    st[1] = n
                    st[2] = i
                    st[3] = {}
                continue
            bad = None  # first never-written range that counts for initcheck
            written = False
            writer = -1  # an instruction that wrote part of this read block
            for k in range(k0, k1):
                st = states[k]
                if st is None or st[0] < 0:
                    if bad is None and (rule != _ENDS or k == k0 or k == k1 - 1) and (
                            not limit or bounds[k] < lo + limit):
                        bad = (bounds[k], bounds[k + 1] if not limit
                               else min(bounds[k + 1], lo + limit))
                    if st is None:
                        states[k] = [-1, 0, -1, {p: (n, i)}]
                        continue
                else:
                    written = True
                    writer = st[2]
                    if vc[st[0]] < st[1] and st[2] != i:
                        self._race("read-after-write", st[2], i, a, bounds[k], bounds[k + 1])
                st[3][p] = (n, i)
            if bad is not None and (rule != _ANY or not written):
                self._uninit(i, e, a, bad[0], bad[1], writer)

    # ---- queue slots and flags, in program order -----------------------------------------
    def _queue_state(self, i: int, e: Event) -> None:
        if e.op == "init_buffer":
            args = dict(e.args)
            q = args["queue"]
            for s in [k for k in self.slots if k[0] == q]:
                del self.slots[s]  # re-initialised after pipe.reset(): the old slots are gone
            return
        slot = (e.args[0][1], e.args[1][1])
        first = i if e.op == "alloc_tensor" else self.slots.get(slot, ("", i, i))[2]
        self.slots[slot] = (e.op, i, first)  # (latest operation, its event, the alloc event)

    def _double_set(self, i: int, e: Event) -> None:
        s = e.sync
        flag = (s.src, s.dst, s.key)
        if s.kind == "wait":
            self.last_set.pop(flag, None)
            return
        prev = self.last_set.get(flag, -1)
        self.last_set[flag] = i
        if prev < 0:
            return
        p = self.trace[prev]
        key = ("double", p.file, p.line, e.file, e.line)
        if key in self.seen:
            return
        self.seen.add(key)
        name = flag_name(e)
        msg = (f"synccheck: {name} sets a flag that the set_flag at {short(p.file)}:{p.line} "
               f"already set, with no wait_flag consuming it in between [core {e.core}, "
               f"{short(e.file)}:{e.line}]: two sets in a row are undefined on the chip (one is "
               f"lost and the second wait_flag hangs). Fix: wait_flag between the two set_flag "
               f"calls, or use another event id")
        self.out.append(Finding("synccheck", msg, e.core, (at(p), at(e)), i))
