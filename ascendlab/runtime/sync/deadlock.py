"""Waits the chip would hang on: checked when every core of a launch has finished, in every
launch (strict or not, sanitize or not), and raised as DeadlockError.

The host runs a core's instructions in program order, so a wait_flag never blocks here and a
kernel with a missing set_flag computes the right numbers. The chip does not: the scalar unit
issues each instruction into its pipe's in-order queue, a wait_flag(SRC_DST, id) blocks the DST
pipe until the SRC pipe has run set_flag(SRC_DST, id), and a pipe blocked on a wait issues
nothing after it (hardware-facts.md 1.7, ADK SetFlag-WaitFlag). This module replays the sync events
of each core in that order:

  * A flag is (HardEvent, event id): the event id space is per pipe pair, so MTE2_V id 1 and
    V_MTE3 id 1 are two flags. The n-th wait of a flag consumes its n-th set (deps.match_syncs'
    rule); a set fires once its pipe reaches it, a wait passes when a fired set is pending.
    TQue enque/deque and free/alloc edges and auto-sync pairs are flags of their own.
  * A wait issued before its set in program order is legal when the set's pipe is free: the
    waiting pipe blocks, later instructions of other pipes still issue, the set releases it.
  * A wait on the scalar pipe (SRC_S events), pipe_barrier(PIPE_ALL) and sync_all stall the
    scalar unit until they pass; with a pipe blocked, nothing after them is ever issued.
  * Cross-core waits (cross_core_wait_flag) are held by the launch's scheduler while the cores
    run (launch/scheduler.py raises DeadlockError there); here they pass.

A wait still blocked when the core's events run out is the deadlock. The error names the first
such wait in program order: its op, line, event (pipes) and id, and the nearest candidate set:
the set it would consume (which then sits behind a blocked pipe, or after a stalled scalar
unit), or a set of the same event with another id, or "none". The same message is recorded as a
synccheck Finding first in Run.findings, so a sanitizer report leads with the cause.

Two sets of one flag before its waits count twice here (set/wait counts); the flag is one bit
on the chip, so that is a separate synccheck finding of the sanitizer (undefined behaviour).
A compile-only launch (runtime/launch/compile_only.py) is not checked.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...errors import DeadlockError
from ..trace import Event, Finding

_FULL = ("barrier", "sync_all")  # with src "ALL": stall the scalar unit until every pipe is idle


def _short(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _name(e: Event) -> str:
    """'wait_flag(MTE2_V, 1)' / 'deque (queue #0 slot 1)' / the op."""
    args = dict(e.args)
    if "event_id" in args:
        return f"{e.op}({args['event']}, {args['event_id']})"
    if "queue" in args:
        return f"{e.op} (queue #{args['queue']} slot {args['slot']})"
    if args.get("auto"):
        return f"{e.op}({args.get('event')}) inserted by auto_sync"
    return e.op


def _flag(e: Event) -> tuple:
    s = e.sync
    return (s.src, s.dst, s.key)


class _Replay:
    """One core's sync events in the chip's order (module docstring)."""

    def __init__(self, trace: list[Event], idx: list[int]) -> None:
        self.trace = trace
        self.idx = idx
        self.fired: dict[tuple, int] = defaultdict(int)
        self.blocked: dict[str, int] = {}  # pipe -> the wait it is blocked on
        self.waiting: dict[tuple, str] = {}  # flag -> the pipe blocked waiting for it
        self.queued: dict[str, list[int]] = defaultdict(list)
        self.stall = -1  # the event that stalled the scalar unit for good (-1: none)

    def run(self) -> None:
        trace = self.trace
        for i in self.idx:
            e = trace[i]
            p = e.pipe
            if p in self.blocked:
                self.queued[p].append(i)
                if p == "S":  # the scalar unit issues everything: nothing later is issued
                    self.stall = self.blocked["S"]
                    return
                continue
            if not self._step(i, e):
                return

    def _step(self, i: int, e: Event) -> bool:
        """Execute one event on its (free) pipe; False once the scalar unit stalls for good."""
        s = e.sync
        kind = s.kind
        if kind == "set":
            f = _flag(e)
            self.fired[f] += 1
            self._release(f)
        elif kind == "wait":
            f = _flag(e)
            if self.fired[f] > 0:
                self.fired[f] -= 1
            else:
                self.blocked[e.pipe] = i
                self.waiting[f] = e.pipe
                if e.pipe == "S":
                    self.stall = i
                    return False
        elif kind in _FULL and s.src == "ALL" and self.blocked:
            self.stall = i
            return False
        return True

    def _release(self, f: tuple) -> None:
        """A set of flag f fired: free the pipe that waits for f, then run what queued up."""
        work = [f]
        while work:
            f = work.pop()
            pipe = self.waiting.get(f)
            w = None if pipe is None else self.blocked.get(pipe)
            if w is None or _flag(self.trace[w]) != f or self.fired[f] <= 0:
                continue
            self.fired[f] -= 1
            del self.blocked[pipe]
            del self.waiting[f]
            pending, self.queued[pipe] = self.queued[pipe], []
            for k, j in enumerate(pending):
                e = self.trace[j]
                if pipe in self.blocked:
                    self.queued[pipe].extend(pending[k:])
                    break
                s = e.sync
                if s.kind == "set":
                    g = _flag(e)
                    self.fired[g] += 1
                    work.append(g)
                elif s.kind == "wait":
                    g = _flag(e)
                    if self.fired[g] > 0:
                        self.fired[g] -= 1
                    else:
                        self.blocked[pipe] = j
                        self.waiting[g] = pipe

    def stuck(self) -> list[int]:
        """The waits still blocked at the end, in program order."""
        return sorted(self.blocked.values())


def check(launch: Any) -> None:
    """Raise DeadlockError for the first wait of any core that the chip would never pass (and
    record it as a synccheck Finding at the head of launch.findings)."""
    trace = launch.trace
    per_core: dict[int, list[int]] = defaultdict(list)
    for i, e in enumerate(trace):
        if e.sync is not None:
            per_core[e.core].append(i)
    for core in sorted(per_core):
        if _in_order(trace, per_core[core]):
            continue
        r = _Replay(trace, per_core[core])
        r.run()
        stuck = r.stuck()
        if not stuck:
            continue
        w = stuck[0]
        msg, lines = _message(r, w)
        launch.findings.insert(0, Finding("synccheck", msg, core, lines, w))
        raise DeadlockError(msg)


def _in_order(trace: list[Event], idx: list[int]) -> bool:
    """True when every wait of the core finds its set already fired in program order, so no
    pipe ever blocks and the replay could only pass (the common case, in one tight loop)."""
    fired: dict[tuple, int] = {}
    get = fired.get
    for i in idx:
        s = trace[i].sync
        k = s.kind
        if k == "set":
            f = (s.src, s.dst, s.key)
            fired[f] = get(f, 0) + 1
        elif k == "wait":
            f = (s.src, s.dst, s.key)
            n = get(f, 0)
            if not n:
                return False
            fired[f] = n - 1
    return True


def _message(r: _Replay, w: int) -> tuple[str, tuple[str, ...]]:
    trace = r.trace
    e = trace[w]
    f = _flag(e)
    src, dst = f[0], f[1]
    here = f"{_short(e.file)}:{e.line}"
    mine = [i for i in r.idx if trace[i].sync.kind in ("set", "wait") and _flag(trace[i]) == f]
    n = sum(1 for i in mine if trace[i].sync.kind == "wait" and i < w)  # earlier waits of f
    sets = [i for i in mine if trace[i].sync.kind == "set"]
    args = dict(e.args)
    ev = args.get("event", f"{src}_{dst}")
    eid = args.get("event_id")
    flag = f"event {ev}" + (f" id {eid}" if eid is not None else "")
    lines: tuple[str, ...] = (f"{e.file}:{e.line}",)
    if n < len(sets):
        s = trace[sets[n]]
        lines += (f"{s.file}:{s.line}",)
        why = _behind(r, sets[n])
        cand = (f"the {_name(s)} at {_short(s.file)}:{s.line} would release it, but {why}")
        fix = ("issue the set_flag before the wait_flag in program order (e.g. one set_flag "
               "before the loop for the first iteration)")
    else:
        cand = _nearest(r, w, f, sets, n)
        fix = (f"add asc.set_flag(asc.HardEvent.{ev}, {eid if eid is not None else 'id'}) on "
               f"pipe {src} before this wait (after the work it is for), or remove the wait")
    msg = (f"deadlock: {_name(e)} on pipe {dst} at {here} waits for {flag} (set on pipe {src}, "
           f"waited on pipe {dst}), and no set_flag the chip can reach satisfies it; "
           f"nearest candidate set_flag: {cand}. On the chip the kernel hangs "
           f"[core {e.core}, {here}]. Fix: {fix}")
    return msg, lines


def _behind(r: _Replay, i: int) -> str:
    """Why the set at trace index i never fires."""
    e = r.trace[i]
    if r.stall >= 0 and i > r.stall:
        b = r.trace[r.stall]
        return (f"it comes after the {_name(b)} at {_short(b.file)}:{b.line}, where the scalar "
                f"unit stops issuing until a blocked pipe runs again")
    w = r.blocked.get(e.pipe)
    if w is not None and w < i:
        b = r.trace[w]
        return (f"it is issued after, and queues on pipe {e.pipe} behind, the {_name(b)} at "
                f"{_short(b.file)}:{b.line}, which is itself blocked behind this wait")
    return "it is never issued"


def _nearest(r: _Replay, w: int, f: tuple, sets: list[int], n: int) -> str:
    trace = r.trace
    if sets:  # all consumed by earlier waits of the same flag
        s = trace[sets[-1]]
        return (f"none left: the {len(sets)} {_name(s)} of this core (last at "
                f"{_short(s.file)}:{s.line}) are consumed by the {n} earlier waits of this flag")
    same = [i for i in r.idx if trace[i].sync.kind == "set" and trace[i].sync.src == f[0]
            and trace[i].sync.dst == f[1]]
    if same:
        s = trace[min(same, key=lambda i: abs(i - w))]
        return (f"none with this id; the nearest set of this event is the {_name(s)} at "
                f"{_short(s.file)}:{s.line} (another event id: ids pair only with their own)")
    return "none"


__all__ = ["check"]
