"""Replay, part 5: a call of asc.adv.softmax (ascendlab/adv/softmax.py) made again.

The library computes the softmax with numpy on its UB operands and records the v220 routine's
vector instructions (softmax_program.py); its first event (a pipe_barrier) carries the call:
shape, dtypes, the chunking (split_m, range_m, tail_m) and the operands' UB addresses. Replay
checks that call (dtypes the routine accepts, the chunking it implies, operands inside UB and
apart, a work buffer large enough for split_m rows), computes the softmax again with the
library's arithmetic on the grader's UB contents, regenerates the instruction stream from the
call and requires it to equal the recorded events one for one. So what lands in dst, sum and
max comes from the grader's execution of the call, and the cycles from the instructions the
call implies.

Limitations: the call's `tiling_fields` are recorded, not re-derived (they do not change what
is computed or issued); whether the work buffer was really free UB (no temp_buffer) is not
re-derived: the buffer must lie inside UB and apart from the operands.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...adv.softmax import _compute, _work_floats
from ...adv.softmax_program import BARRIER_ARGS, events
from ...runtime.core import CoreState
from ...runtime.trace import Access, Event
from .operands import Replayer

_new = tuple.__new__
_ROLES = ("src", "dst", "sum", "max", "work")


def _check_call(call: dict, ub: int) -> tuple[str, int, tuple[int, ...], int]:
    """(kind, per_row, operand bases, work bytes) of a recorded call, after checking it."""
    dt, sdt = call["dtype"], call["sum_dtype"]
    if dt == "float32" and sdt == "float32":
        kind = "f32"
    elif dt == "float16" and sdt in ("float16", "float32"):
        kind = "f16" if sdt == "float16" else "f16f32"
    else:
        raise ValueError(f"softmax of {dt} with {sdt} sum/max is not a call the library takes")
    isz, ssz = (2 if dt == "float16" else 4), (2 if sdt == "float16" else 4)
    per_row = 32 // ssz
    m, k, m0, k0 = (int(call[n]) for n in ("rows", "width", "ori_rows", "ori_width"))
    split_m, range_m, tail_m = (int(call[n]) for n in ("split_m", "range_m", "tail_m"))
    if not (0 < k0 <= k and 0 < m0 <= m) or (k * isz) % 32:
        raise ValueError(f"softmax shape [{m0}, {k0}] of [{m}, {k}] x {isz} B is not valid")
    if not 0 < split_m <= m0 or (range_m, tail_m) != divmod(m0, split_m):
        raise ValueError(f"softmax chunks: split_m {split_m}, range_m {range_m}, tail_m "
                         f"{tail_m} do not cover {m0} rows")
    ops = {o[0]: o[1:] for o in call["operands"]}
    if set(ops) != set(_ROLES):
        raise ValueError(f"softmax operands {sorted(ops)} are not {list(_ROLES)}")
    work = int(ops["work"][1])
    need = 4 * _work_floats(kind, split_m, k, per_row)
    if work < need:
        raise ValueError(f"softmax split_m={split_m} needs {need} B of work buffer, the call "
                         f"has {work} B")
    spans = {"src": m0 * k * isz, "dst": m0 * k * isz, "sum": m0 * per_row * ssz,
             "max": m0 * per_row * ssz, "work": need}
    bases = tuple(int(ops[r][0]) for r in _ROLES)
    for r, b in zip(_ROLES, bases):
        if b < 0 or b + spans[r] > ub or b % 32:
            raise ValueError(f"softmax {r} UB [{b}, {b + spans[r]}) is outside the UB ({ub} B) "
                             "or not 32 B aligned")
    for x in range(5):
        for y in range(x + 1, 5):
            rx, ry = _ROLES[x], _ROLES[y]
            if {rx, ry} == {"src", "dst"} and bases[x] == bases[y]:
                continue  # in place
            if bases[x] < bases[y] + spans[ry] and bases[y] < bases[x] + spans[rx]:
                raise ValueError(f"softmax {rx} and {ry} overlap in UB")
    return kind, per_row, bases, work


def _names(recorded: Sequence[Event], generated: Sequence[Event]) -> tuple[str, ...]:
    """The operand labels the recorded events use (generated with role markers)."""
    got: dict[str, str] = {}
    for rec, gen in zip(recorded, generated):
        for ra, ga in zip(rec.reads + rec.writes, gen.reads + gen.writes):
            if ga.name in _MARKS and got.setdefault(ga.name, ra.name) != ra.name:
                raise ValueError(f"softmax operand {ga.name[1:]} has two labels")
    return tuple(got.get(m, "") for m in _MARKS)


_MARKS = tuple("\x00" + r for r in _ROLES)


def replay_softmax(rp: Replayer, c: CoreState, trace: Sequence[Event], i: int) -> int:
    """Make the call recorded on trace[i] again; returns the number of events it issued."""
    e = trace[i]
    args = dict(e.args)
    if e.op != "pipe_barrier" or "call" not in args:
        raise ValueError(f"{e.op} of asc.adv.softmax outside a call (the call's first event "
                         "carries it)")
    call = dict(args["call"])
    kind, per_row, bases, _work = _check_call(call, c.chip.capacity("UB"))
    key = (kind, int(call["width"]), int(call["ori_width"]), int(call["split_m"]),
           int(call["range_m"]), int(call["tail_m"]))
    first = BARRIER_ARGS + (("call", args["call"]),)
    marked, _p = events(key, bases, _MARKS, e.core, e.file, e.line, first)
    recorded = [ev for ev in trace[i:] if not (ev.sync is not None and ev.sync.implicit)]
    names = _names(recorded[:len(marked)], marked)
    evs, pending = events(key, bases, names, e.core, e.file, e.line, first)
    dt, sdt = call["dtype"], call["sum_dtype"]
    t = [rp.local(c, _new(Access, ("UB", b, 0, n, 1, 0)), d)
         for b, n, d in zip(bases[:4], names, (dt, dt, sdt, sdt))]
    src, dst, sum_t, max_t = t
    _compute(kind, dst, sum_t, max_t, src, int(call["ori_rows"]), int(call["width"]),
             int(call["ori_width"]), per_row)
    before = len(c.launch.trace)
    for ev in evs:
        c.append(ev)
    c.v_pending.clear()  # as the library: its barriers ordered everything before its last step
    if c.launch.auto_sync:
        c.v_pending.extend(pending)
    c.mask_counter = False
    c.vector_mask = (2**64 - 1, 2**64 - 1)
    return len(c.launch.trace) - before


def softmax_ops() -> frozenset[str]:
    """Every op the routine can issue (for the wire's closed set of ops)."""
    ops: set[str] = set()
    for kind in ("f32", "f16", "f16f32"):
        for k, k0 in ((64, 40), (128, 128), (192, 192), (1024, 1000), (4096, 4096)):
            prog, _ = events((kind, k, k0, 3, 2, 1), (0, 0, 0, 0, 0), ("",) * 5, 0, "", 0, ())
            ops.update(ev.op for ev in prog)
    return frozenset(ops)


SOFTMAX_OPS = softmax_ops()

__all__ = ["SOFTMAX_OPS", "replay_softmax"]
