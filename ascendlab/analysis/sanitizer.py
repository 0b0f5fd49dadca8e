"""The sanitizer: msSanitizer's memcheck, initcheck, racecheck and synccheck, computed from a
Run's trace after the launch (it reads Run.trace, Run.gm and Run.chip; it changes no result).

    run = ascendlab.launch(kernel, 8, x, y, z, sanitize=True)   # or RunOptions(sanitize=True)
    run.findings                     # Finding(kind, message, core, lines, event), trace order
    SanitizerReport(run.findings)    # text (str) and HTML (_repr_html_) rendering

What the runtime already checks while it emulates (and raises on, or records as memcheck
findings): out-of-bounds GM/UB/L1/L0 accesses, data_copy lengths that are not 32 B multiples,
capacity overflow at init_buffer, misaligned UB/L1 (32 B) and L0 (512 B) addresses, double
free, free into the wrong queue, deque on an empty queue, event ids out of range. The sanitizer
adds what needs the whole trace:

memcheck  leaks at kernel end (a queue slot allocated or dequeued and never freed; a tensor
          enqueued and never dequeued), and two cores writing overlapping GM bytes between the
          same two sync_all calls (a "phase"; the k-th sync_all of every core ends phase k),
          unless both are atomic stores (set_atomic_add/max/min); a use after free: an access
          to a queue slot's bytes between its free_tensor and its next alloc_tensor
          (sanitizer_uaf.py).
initcheck a read of local bytes (UB, L1, L0A/B/C) that nothing on the core wrote before. GM
          is not checked: arguments come from the host, guard zones are memcheck's.
racecheck a read and a write, or two writes, of the same local bytes of one core with no
          happens-before path between them; and a GM read on one core of bytes another core
          writes in the same phase (inter-core).
synccheck a set_flag no wait_flag consumes (it leaks into the next kernel), a wait_flag no
          set_flag satisfies or that waits for a set stuck behind itself (the kernel hangs;
          a launch raises DeadlockError for these itself, runtime/sync/deadlock.py, so the
          sanitizer reports them on traces that were not launched: a replay, a compile-only
          launch), and two set_flag of one flag with no wait_flag between them (undefined on
          the chip).

Happens-before (racecheck), per core, one vector clock per pipe (S V MTE1 MTE2 MTE3 M FIX):
  * Each pipe runs its instructions in issue (program) order, but an instruction may start
    before the previous one on its pipe completes (hardware-facts.md 1.7). So two instructions of
    one pipe are ordered only by a barrier of that pipe (pipe_barrier(p), PIPE_ALL, the
    implicit auto-sync V barriers) or by a path through other pipes. Exceptions, treated as
    completing in order: S (the scalar unit executes its own loads and stores in order), M
    (accumulating mmads into one L0C tile is the standard k-loop and needs no barrier), and V
    when the launch has auto_sync=True (CANN's compiler inserts the same-pipe PIPE_V barriers;
    with auto_sync=False a missing pipe_barrier(PIPE_V) is reported, the raw hardware rule).
  * A set (set_flag, enque, free_tensor) on pipe P fires once every earlier P instruction is
    done; the wait it matches (deps.match_syncs: the n-th wait of a flag consumes the n-th set)
    orders every later instruction of the waiting pipe after it. A wait on S stalls the scalar
    unit, which issues everything, so it orders every later instruction of every pipe.
  * PIPE_ALL and sync_all: every earlier instruction completes before any later one starts.
  * A scalar read (get_value) returns its value before the scalar unit issues anything after
    it, so a later write by any pipe is ordered after it. A scalar write (set_value) is posted:
    a later DMA or vector read of it needs set_flag(S_MTE3 / S_V) (ADK SetFlag example).
  * Nothing else orders pipes: e.g. a V result is not ordered before a later get_value.
  The replay issues events in program order; a wait whose set is not issued yet blocks its
  pipe (later instructions of that pipe queue up) until the set arrives. A wait on S with no
  issued set, a PIPE_ALL/sync_all with a blocked pipe, or a pipe still blocked at the end is a
  hang (synccheck). Cost: O(events x pipes) plus the shadow segments touched per access.

initcheck follows the same replay order (program order unless a wait defers a pipe). Masked
and strided repeat-form vector accesses are recorded as one block per repeat spanning the
repeat's footprint (an over-approximation: skipped lanes and block-stride gaps fall inside),
so for those reads only the first and last byte of each repeat's block are checked (they are
certainly read); writes are taken whole. data_copy_pad UB->GM reads block_len bytes of each
32 B-padded UB block. Cube operands (reads of L1, L0A, L0B) count as initialised when any byte
of the block was written: ND->NZ leaves the padding rows of a fractal unwritten, the cube
reads them and their results are discarded. So initcheck has no false positives from masks or
padding, and may miss a never-written byte in the middle of a masked repeat or a fractal.

Order: root cause first. One bug often leaves several findings (a deadlocked pipe never frees
the tensors it would have freed, so leaks follow the deadlock), so findings are sorted by a
causality rank, deadlock/hang > race > out of bounds > uninitialised read > leak
(sanitizer_findings.CAUSALITY), then by trace order. SanitizerReport, Run.findings and the
grader's headline follow it.

Findings are reported once per source line (or pair of lines): a bug inside a loop is one
finding, at its first occurrence, even across cores.

Limitations: racecheck over-approximates masked/strided vector footprints (two pipes touching
interleaved lanes of one block would be reported); GM races inside one core (an MTE3 write read
back by MTE2 without MTE3_MTE2) are not checked; two cores' atomic stores (a DMA event whose
args hold "atomic", runtime/dma/atomic.py) to the same GM bytes are not a race; the 32-deep MTE1/M
issue queues are unbounded here;
TBuf scratch has no queue, so its hazards are judged on flags and barriers alone (as on chip).
A wait issued before its set in program order is legal and judged in the chip's order, but the
emulator runs program order, so such a kernel's numbers can differ from the chip's.
"""

from __future__ import annotations

import html
from collections import defaultdict
from typing import Any

import numpy as np

from ..runtime.trace import Finding, Run
from .deps import match_syncs
from .sanitizer_findings import CAUSALITY, by_cause, causality_rank
from .sanitizer_hb import CorePass, at, flag_name, short
from .sanitizer_uaf import use_after_free

KINDS = ("memcheck", "initcheck", "racecheck", "synccheck")


def sanitize(run: Run, *, complete: bool | None = None) -> list[Finding]:
    """The sanitizer's findings for `run`, root cause first: by causality rank (deadlock >
    race > out of bounds > uninitialised read > leak), then in trace order (Run.findings is not
    modified).

    complete=False skips the end-of-kernel checks (leaks, unmatched sets and waits); by default
    they run when the kernel finished (run.error is None).
    """
    if complete is None:
        complete = run.error is None
    trace = run.trace
    match = match_syncs(trace)
    per_core: dict[int, list[int]] = defaultdict(list)
    for i, e in enumerate(trace):
        per_core[e.core].append(i)
    out: list[Finding] = []
    seen: set = set()
    passes: dict[int, CorePass] = {}
    for core in sorted(per_core):
        cp = CorePass(run, match.set_of, out, seen)
        cp.run(per_core[core], complete)
        passes[core] = cp
        if complete:
            _leaks(run, cp, out, seen)
    _cross_core(run, passes, out, seen, _XOrder(run, match.xset_of, passes))
    use_after_free(run, out, seen)  # memcheck (sanitizer_uaf.py)
    if complete:
        for i in match.unmatched_sets:
            _unwaited_set(run, i, out, seen)
    return by_cause(out)


# ---- memcheck: leaks at kernel end ---------------------------------------------------------
def _leaks(run: Run, cp: CorePass, out: list[Finding], seen: set) -> None:
    for (q, slot), (op, i, first) in cp.slots.items():
        if op == "free_tensor":
            continue
        e, a = run.trace[i], run.trace[first]
        key = ("leak", e.file, e.line)
        if key in seen:
            continue
        seen.add(key)
        la, le = f"{short(a.file)}:{a.line}", f"{short(e.file)}:{e.line}"
        if op == "enque":
            msg = (f"memcheck: queue #{q} is not empty at kernel end: the tensor allocated at "
                   f"{la} (slot {slot}) is enqueued at {le} and never dequeued [core {e.core}, "
                   f"{le}]. Fix: deque it in the consumer stage and free_tensor it, or do not "
                   f"enque it")
        else:
            then = f", dequeued at {le}," if op == "deque" else ""
            msg = (f"memcheck: leak at kernel end: the tensor allocated at {la} from queue "
                   f"#{q} (slot {slot}){then} is never freed [core {e.core}, {la}]. Fix: call "
                   f"free_tensor on it after its last use (every alloc_tensor needs a "
                   f"free_tensor, usually by the consumer after deque)")
        lines = (at(a),) if first == i else (at(a), at(e))
        out.append(Finding("memcheck", msg, e.core, lines, first))


# ---- synccheck: a set nobody waits for ------------------------------------------------------
def _unwaited_set(run: Run, i: int, out: list[Finding], seen: set) -> None:
    e = run.trace[i]
    if e.sync.key[0] != "flag":
        return  # the last free_tensor of a slot sets a WAR flag no alloc needs: normal
    key = ("unwaited", e.file, e.line)
    if key in seen:
        return
    seen.add(key)
    args = dict(e.args)
    msg = (f"synccheck: {flag_name(e)} on pipe {e.sync.src} is never consumed by a wait_flag "
           f"on this core [core {e.core}, {short(e.file)}:{e.line}]: the flag stays set and "
           f"leaks into the next kernel on this core. Fix: add asc.wait_flag(asc.HardEvent."
           f"{args.get('event')}, {args.get('event_id')}) on pipe {e.sync.dst} before the "
           f"work that needs it, or remove the set_flag")
    out.append(Finding("synccheck", msg, e.core, (at(e),), i))


# ---- GM across cores ------------------------------------------------------------------------
def _merged(blocks: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """(lo, hi, event) blocks of one core sorted and merged where they touch or overlap."""
    blocks.sort()
    merged: list[list[int]] = []
    for lo, hi, ev in blocks:
        if merged and lo <= merged[-1][1]:
            if hi > merged[-1][1]:
                merged[-1][1] = hi
        else:
            merged.append([lo, hi, ev])
    return [tuple(m) for m in merged]  # type: ignore[misc]


class _XOrder:
    """Cross-core flags (MIX kernels) order GM accesses of two cores: an access on core A
    happens before one on core B if A sets a cross-core flag once the access is done — after
    it on its own pipe, or after local flags and barriers order it before the set (the set's
    happens-before clock from the core's pass) — and B waits for that flag before its access
    (a wait on the scalar unit stalls everything after it). Chains through a third core do not
    count."""

    def __init__(self, run: Run, xset_of: dict[int, int], passes: dict[int, CorePass]) -> None:
        self.trace = run.trace
        self.passes = passes
        self.edges: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
        for w, st in xset_of.items():
            self.edges[(self.trace[st].core, self.trace[w].core)].append((st, w))

    def _done_before(self, a: int, st: int) -> bool:
        """Is access a (on the same core, earlier in program order) complete when st fires?"""
        t = self.trace
        if t[st].pipe == t[a].pipe:
            return True
        cp = self.passes.get(t[a].core)
        if cp is None:
            return False
        at, vc = cp.pos.get(a), cp.xset_clock.get(st)
        return at is not None and vc is not None and vc[at[0]] >= at[1]

    def before(self, a: int, b: int) -> bool:
        """Does trace event a happen before event b (on another core)?"""
        t = self.trace
        for st, w in self.edges.get((t[a].core, t[b].core), ()):
            if st > a and w < b and self._done_before(a, st):
                return True
        return False

    def ordered(self, a: int, b: int) -> bool:
        return bool(self.edges) and (self.before(a, b) or self.before(b, a))


def _cross_core(run: Run, passes: dict[int, CorePass], out: list[Finding], seen: set,
                xorder: _XOrder) -> None:
    """Overlapping GM writes (memcheck) and reads of bytes another core writes (racecheck)
    between the same sync_all calls, unless cross-core flags order them. A sweep over blocks
    sorted by address keeps, for writes and for reads, the two furthest-reaching earlier
    blocks of different cores."""
    if len(passes) < 2:
        return
    phases: dict[int, list[tuple]] = defaultdict(list)
    trace = run.trace
    for core, cp in passes.items():
        # access kind: READ, WRITE, or ATOMIC (a write under set_atomic_add/max/min)
        split: dict[tuple[int, int], list] = defaultdict(list)
        for phase, lo, hi, write, ev in cp.gm:
            kind = (ATOMIC if any(k == "atomic" for k, _ in trace[ev].args) else WRITE) \
                if write else READ
            split[(phase, kind)].append((lo, hi, ev))
        for (phase, kind), blocks in split.items():
            phases[phase].extend((lo, hi, core, kind, ev) for lo, hi, ev in _merged(blocks))
    for items in phases.values():
        items.sort()
        top: dict[int, list] = {READ: [], WRITE: [], ATOMIC: []}  # up to 2 (hi, core, ev)
        for lo, hi, core, kind, ev in items:
            for other in _CONFLICTS[kind]:
                for ohi, ocore, oev in top[other]:
                    if ocore != core:
                        if ohi > lo and not xorder.ordered(oev, ev):
                            _overlap(run, out, seen, lo, min(hi, ohi), oev, ev, other != READ,
                                     kind != READ)
                        break
            _keep(top[kind], hi, core, ev)


# GM access kinds of the cross-core check, and which earlier kinds each one conflicts with:
# atomic stores (set_atomic_add/max/min) of several cores to the same bytes combine in any
# order, so two of them are no race; an atomic store still races with a plain write or read.
READ, WRITE, ATOMIC = 0, 1, 2
_CONFLICTS = {READ: (WRITE, ATOMIC), WRITE: (WRITE, READ, ATOMIC), ATOMIC: (WRITE, READ)}


def _keep(top: list, hi: int, core: int, ev: int) -> None:
    """Keep the furthest-reaching block and the furthest-reaching one of another core."""
    cand = sorted(top + [(hi, core, ev)], reverse=True)
    best = cand[0]
    second = next((c for c in cand[1:] if c[1] != best[1]), None)
    top[:] = [best] if second is None else [best, second]


def _overlap(run: Run, out: list[Finding], seen: set, lo: int, hi: int, first: int,
             second: int, first_writes: bool, second_writes: bool) -> None:
    t = run.trace
    e1, e2 = t[first], t[second]
    arg = run.arg_at(lo)
    name = arg.name if arg is not None else "a guard zone"
    both = first_writes and second_writes
    key = ("gm", both, name, frozenset((at(e1), at(e2))))  # once per source line pair
    if key in seen:
        return
    seen.add(key)
    rng = f"bytes [{lo - arg.base}, {hi - arg.base})" if arg is not None else f"[{lo}, {hi})"
    if arg is not None:
        try:
            isz = np.dtype(arg.dtype).itemsize
            rng += f" (elements {(lo - arg.base) // isz}..{(hi - arg.base - 1) // isz})"
        except TypeError:
            pass
    l1, l2 = f"{short(e1.file)}:{e1.line}", f"{short(e2.file)}:{e2.line}"
    if both:
        msg = (f"memcheck: cores {e1.core} and {e2.core} both write {name} {rng} between the "
               f"same sync_all calls ({e1.op} at {l1} on core {e1.core}, {e2.op} at {l2} on "
               f"core {e2.core}): the cores run in parallel, so which value lands is undefined "
               f"[core {e2.core}, {l2}]. Fix: {_overlap_fix(run, e1, e2)}")
    else:
        (r, w, ri) = (e2, e1, second) if first_writes else (e1, e2, first)
        lr, lw = f"{short(r.file)}:{r.line}", f"{short(w.file)}:{w.line}"
        msg = (f"racecheck: core {r.core} reads {name} {rng} ({r.op} at {lr}) that core "
               f"{w.core} writes ({w.op} at {lw}) between the same sync_all calls: the cores "
               f"run in parallel, so the value read depends on timing [core {r.core}, {lw} and "
               f"{lr}]. Fix: {_order_fix(run, w, r)}")
        out.append(Finding("racecheck", msg, r.core, (at(w), at(r)), ri))
        return
    out.append(Finding("memcheck", msg, e2.core, (at(e1), at(e2)), second))


def _kind(run: Run, core: int) -> str:
    """'aic' or 'aiv' in a MIX launch ('' otherwise)."""
    return run.core_kinds.get(core, "") if run.core_kind == "mix" else ""


def _order_fix(run: Run, w: Any, r: Any) -> str:
    """How to order core w's GM write before core r's read: sync_all between cores of one
    kind; cross-core flags when a cube core of a MIX kernel is involved (sync_all holds only
    the vector cores there, and is an error on the cube core)."""
    kw, kr = _kind(run, w.core), _kind(run, r.core)
    if "aic" in (kw, kr):
        return (f"core {w.core} ({kw.upper()}) and core {r.core} ({kr.upper()}) are the cube "
                f"and a vector core of a MIX kernel, where asc.sync_all() holds only the vector "
                f"cores (on the cube core it is an error): order them with a cross-core flag, "
                f"asc.cross_core_set_flag(flag_id, 2, asc.PipeID.PIPE_{w.pipe}) on core "
                f"{w.core} after the write and asc.cross_core_wait_flag(flag_id, 2, "
                f"asc.PipeID.PIPE_{r.pipe}) on core {r.core} before the read")
    return "call asc.sync_all() between the write and the read"


def _overlap_fix(run: Run, e1: Any, e2: Any) -> str:
    """Two cores write the same GM bytes: the same instruction on both cores is an address
    (offset, stride, length) bug; two different instructions may need an order."""
    if (e1.file, e1.line, e1.op) == (e2.file, e2.line, e2.op):
        return (f"the same {e1.op} at {short(e1.file)}:{e1.line} writes these bytes on both "
                f"cores, so its destination offset, stride or length is wrong: give each core "
                f"its own slice (offset by asc.get_block_idx() * block_length) and check the "
                f"{e1.op}'s strides cover only that slice")
    if "aic" in (_kind(run, e1.core), _kind(run, e2.core)):
        return ("give each core its own bytes, or order the two writes with a cross-core flag "
                "(asc.cross_core_set_flag / cross_core_wait_flag, mode 2): in a MIX kernel "
                "asc.sync_all() holds only the vector cores and is an error on the cube core")
    return ("give each core its own slice (offset by asc.get_block_idx() * block_length), or "
            "separate the writes with asc.sync_all()")


# ---- rendering --------------------------------------------------------------------------------
class SanitizerReport:
    """Findings rendered as text (str) and as an HTML table in a notebook (_repr_html_)."""

    def __init__(self, findings: Any) -> None:
        if isinstance(findings, Run):
            findings = findings.findings
        self.findings: list[Finding] = by_cause(findings)

    def __len__(self) -> int:
        return len(self.findings)

    def __iter__(self) -> Any:
        return iter(self.findings)

    def counts(self) -> dict[str, int]:
        """Findings per kind, every kind listed."""
        c = dict.fromkeys(KINDS, 0)
        for f in self.findings:
            c[f.kind] = c.get(f.kind, 0) + 1
        return c

    def _headline(self) -> str:
        if not self.findings:
            return "sanitizer: no findings"
        per = ", ".join(f"{k} {n}" for k, n in self.counts().items() if n)
        return f"sanitizer: {len(self.findings)} finding{'s' * (len(self.findings) != 1)} ({per})"

    def __str__(self) -> str:
        lines = [self._headline()]
        for k, f in enumerate(self.findings, 1):
            lines.append(f"{k:>3}. [{f.kind}] core {f.core}: {f.message}")
            lines.extend(f"       at {loc}" for loc in f.lines)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<SanitizerReport {self._headline()}>"

    def _repr_html_(self) -> str:
        colour = {"memcheck": "#c0392b", "initcheck": "#8e44ad", "racecheck": "#d35400",
                  "synccheck": "#2471a3"}
        rows = []
        for f in self.findings:
            badge = (f'<span style="background:{colour.get(f.kind, "#555")};color:white;'
                     f'padding:1px 6px;border-radius:3px">{html.escape(f.kind)}</span>')
            locs = "<br>".join(html.escape(short(x)) for x in f.lines)
            rows.append(f"<tr><td>{badge}</td><td>{f.core}</td>"
                        f"<td style='text-align:left'>{html.escape(f.message)}</td>"
                        f"<td style='text-align:left'><code>{locs}</code></td></tr>")
        head = f"<p><b>{html.escape(self._headline())}</b></p>"
        if not rows:
            return head
        return (head + "<table><tr><th>kind</th><th>core</th><th>message</th><th>lines</th>"
                "</tr>" + "".join(rows) + "</table>")


__all__ = ["CAUSALITY", "KINDS", "SanitizerReport", "causality_rank", "sanitize"]
