"""The sanitizer's findings (sanitizer_hb.py's CorePass reports through these): the
racecheck, initcheck and synccheck (hang, deadlock) messages, each naming the instructions,
the bytes, the core and the fix, and the helpers that format an event for them.
"""

from __future__ import annotations

from typing import Any

from ..runtime.trace import Event, Finding

# pyasc HardEvent names (SRC_DST), for fix hints.
HARD_EVENTS = frozenset(
    "MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 "
    "MTE1_MTE3 MTE1_V MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 "
    "MTE2_S S_MTE3 MTE3_S MTE2_FIX FIX_MTE2 FIX_S M_S FIX_MTE3 MTE1_FIX FIX_MTE1 FIX_FIX".split())


# The causality rank of a finding (lower first): one cause often leaves several findings
# behind (a deadlocked pipe never frees the tensors it would have freed; a race leaves bytes
# a later read finds unwritten), so a report leads with the kind most likely to be the cause:
# deadlock or hang > race > out of bounds > uninitialised read > leak. Within a rank, trace
# order. Sanitizer reports, Run.findings and the grader's headline use this order.
RANK_DEADLOCK, RANK_RACE, RANK_BOUNDS, RANK_UNINIT, RANK_LEAK = range(5)
CAUSALITY = ("deadlock", "race", "out of bounds", "uninitialised read", "leak")


def causality_rank(f: Finding) -> int:
    """Where finding `f` sits in the causality order (CAUSALITY; lower is nearer the cause)."""
    kind, msg = f.kind, f.message
    if kind == "synccheck":
        if "deadlock" in msg or "hang" in msg or "waits forever" in msg:
            return RANK_DEADLOCK
        if "never consumed" in msg:
            return RANK_LEAK  # a flag left set: it leaks into the next kernel
        return RANK_RACE  # two sets in a row: which wait gets which set is a race
    if kind == "racecheck":
        return RANK_RACE
    if kind == "initcheck":
        return RANK_UNINIT
    if "both write" in msg:  # two cores writing the same GM bytes
        return RANK_RACE
    if "leak at kernel end" in msg or "not empty at kernel end" in msg:
        return RANK_LEAK
    return RANK_BOUNDS  # out of bounds, use after free, and the runtime's memcheck findings


def by_cause(findings: Any) -> list[Finding]:
    """`findings` ordered by causality rank, then trace order (module comment above)."""
    return sorted(findings, key=lambda f: (causality_rank(f), f.event))


def short(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def at(e: Event) -> str:
    """'file:line' of an event, for Finding.lines."""
    return f"{e.file}:{e.line}"


def flag_name(e: Event) -> str:
    """'set_flag(MTE2_V, 0)' / 'deque (TQue #1 slot 0)' for messages."""
    args = dict(e.args)
    if "event" in args:
        return f"{e.op}({args['event']}, {args['event_id']})"
    if "queue" in args:
        return f"{e.op} (queue #{args['queue']} slot {args['slot']})"
    return e.op


class Reports:
    """CorePass's finding builders (CorePass sets trace, set_of, out, seen, auto_sync)."""

    trace: Any
    set_of: dict[int, int]
    out: list[Finding]
    seen: set
    auto_sync: bool

    def _race(self, kind: str, first: int, second: int, a: Any, lo: int, hi: int) -> None:
        t = self.trace
        e1, e2 = t[first], t[second]
        key = ("race", kind, e1.file, e1.line, e2.file, e2.line)
        if key in self.seen:
            return
        self.seen.add(key)
        p1, p2 = e1.pipe, e2.pipe
        l1, l2 = f"{short(e1.file)}:{e1.line}", f"{short(e2.file)}:{e2.line}"
        verb1, verb2 = {"read-after-write": ("writes", "reads"),
                        "write-after-read": ("reads", "writes"),
                        "write-after-write": ("writes", "also writes")}[kind]
        if p1 == p2:
            fix = (f"add asc.pipe_barrier(asc.PipeID.PIPE_{p1}) between them"
                   + (" (or launch with auto_sync=True, which inserts it)"
                      if p1 == "V" and not self.auto_sync else ""))
        elif f"{p1}_{p2}" in HARD_EVENTS:
            ev = f"{p1}_{p2}"
            fix = (f"add asc.set_flag(asc.HardEvent.{ev}, id) after the {e1.op} ({l1}) and "
                   f"asc.wait_flag(asc.HardEvent.{ev}, id) before the {e2.op} ({l2}), or pass "
                   f"the tensor through a TQue (enque/deque, free_tensor/alloc_tensor)")
        else:
            fix = f"add asc.pipe_barrier(asc.PipeID.PIPE_ALL) between {l1} and {l2}"
        msg = (f"racecheck: {kind} race on {a.space} bytes [{lo}, {hi}) of {a.name}: "
               f"{e2.op} on pipe {p2} ({l2}) {verb2} bytes that {e1.op} on pipe {p1} ({l1}) "
               f"{verb1}, and no queue, flag or barrier orders the two, so on the chip they "
               f"may overlap [core {e2.core}, {l1} and {l2}]. Fix: {fix}")
        self.out.append(Finding("racecheck", msg, e2.core, (at(e1), at(e2)), second))

    def _uninit(self, i: int, e: Event, a: Any, lo: int, hi: int, writer: int = -1) -> None:
        key = ("init", e.file, e.line)
        if key in self.seen:
            return
        self.seen.add(key)
        if writer >= 0:  # the block read was written in part: the writer is the origin
            w = self.trace[writer]
            lw, lr = f"{short(w.file)}:{w.line}", f"{short(e.file)}:{e.line}"
            msg = (f"initcheck: {e.op} at {lr} reads {a.space} bytes [{lo}, {hi}) "
                   f"({hi - lo} B) of {a.name} that the {w.op} at {lw} left unwritten: it "
                   f"wrote only part of the block this instruction reads [core {e.core}, {lw}]. "
                   f"Fresh local memory is poisoned (NaN for floats, all-ones for integers). "
                   f"Fix: check the length, stride or layout of the {w.op} at {lw} (does it "
                   f"cover every byte the {e.op} reads?), or read only what it wrote")
            self.out.append(Finding("initcheck", msg, e.core, (at(w), at(e)), i))
            return
        msg = (f"initcheck: {e.op} reads {a.space} bytes [{lo}, {hi}) ({hi - lo} B) of {a.name} "
               f"that nothing on this core wrote before [core {e.core}, "
               f"{short(e.file)}:{e.line}]: fresh local memory is poisoned (NaN for floats, "
               f"all-ones for integers). Fix: fill the tensor first (data_copy from GM, "
               f"duplicate, or the instruction that computes it), or read only what was written")
        self.out.append(Finding("initcheck", msg, e.core, (at(e),), i))

    def _hang(self, w: int, barrier: int = -1) -> None:
        """Report the wait at index w that never completes."""
        t = self.trace
        e = t[w]
        key = ("hang", e.file, e.line)
        src = self.set_of.get(w, -1)
        if key in self.seen or e.sync.key[0] != "flag" or 0 <= src < w:
            # A wait whose set was issued before it is blocked only because that set sits
            # behind another blocked wait: report the root (a set issued after its wait, or
            # none at all), not every pipe that piles up behind it.
            return
        self.seen.add(key)
        where = f"[core {e.core}, {short(e.file)}:{e.line}]"
        name = flag_name(e)
        ev = dict(e.args).get("event", f"{e.sync.src}_{e.sync.dst}")
        if src < 0:
            msg = (f"synccheck: {name} on pipe {e.pipe} has no matching set_flag on this core, "
                   f"so the pipe waits forever and the kernel hangs {where}. Fix: add "
                   f"asc.set_flag(asc.HardEvent.{ev}, {dict(e.args).get('event_id', 'id')}) on "
                   f"pipe {e.sync.src} after the work this wait is for, or remove the wait")
            lines: tuple[str, ...] = (at(e),)
        else:
            s = t[src]
            also = ""
            if barrier >= 0:
                b = t[barrier]
                also = (f"; the {b.op} at {short(b.file)}:{b.line} waits for every pipe, so "
                        f"nothing after it is ever issued")
            msg = (f"synccheck: deadlock: {name} on pipe {e.pipe} {where} waits for the "
                   f"{flag_name(s)} at {short(s.file)}:{s.line}, which can only run after "
                   f"instructions that are themselves blocked behind this wait{also}. Fix: "
                   f"issue the set_flag before the wait_flag in program order (e.g. a "
                   f"set_flag before the loop for the first iteration)")
            lines = (at(e), at(s))
        self.out.append(Finding("synccheck", msg, e.core, lines, w))
