"""Replay, part 2: the vector instructions. Each handler rebuilds a recorded vector event's call
(count form, or mask + repeat_times + repeat params in normal or counter mode) and issues it
through the same function the pyasc surface calls. Repeat-form Accesses start at the first
active lane; the tensor start is recovered with the runtime's own index plan (vector.plan)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...runtime.core import CoreState
from ...runtime.dtypes import DataType
from ...runtime.enums import CMPMODE, ReduceOrder, RoundMode, SelMode
from ...runtime.params import BinaryRepeatParams, UnaryRepeatParams
from ...runtime.trace import Access, Event
from ...runtime.vector import cast as _cast
from ...runtime.vector import cmpscalar as _cmpscalar
from ...runtime.vector import cmpsel as _cmpsel
from ...runtime.vector import elementwise as _vec
from ...runtime.vector import reduce as _red
from .operands import Replayer
from .operands import trampoline as _trampoline


# ---- helpers for the vector forms -------------------------------------------------------------
def _mask_of(lanes: tuple[int, ...]) -> Any:
    """A mask argument that selects exactly `lanes` (a count when they are 0..n-1)."""
    n = len(lanes)
    if lanes == tuple(range(n)):
        return n
    low = sum(1 << i for i in lanes if i < 64)
    high = sum(1 << (i - 64) for i in lanes if i >= 64)
    return [low, high]


@lru_cache(maxsize=4096)
def _first_lane(lanes: tuple[int, ...], itemsize: int, blk: int, rep: int) -> int:
    """Element offset of the first element repeat 0 touches (vector.plan's minimum)."""
    if not lanes:
        return 0
    return int(_vec.plan(tuple(lanes), 1, 32 // itemsize, blk, rep).min())


def _rep_start(a: Access, dtype: str, lanes: tuple[int, ...], blk: int, rep: int) -> int:
    """The operand's start address from a repeat-form Access (which starts at its first lane)."""
    if not a.nbytes and not a.count:
        return a.addr
    isz = DataType(dtype).itemsize
    return a.addr - _first_lane(lanes, isz, blk, rep) * isz


class _Form:
    """The mask/count part of a recorded vector event, as call arguments again."""

    def __init__(self, args: dict, lanes_per_repeat: int) -> None:
        self.count = args.get("count")
        self.lanes = tuple(args.get("lanes", ()))
        self.repeats = int(args.get("repeat_times", args.get("repeat_time", 0)))
        self.params = tuple(args.get("params", ()))
        self.counter = bool(args.get("counter", False))
        self.tail = int(args.get("tail", 0))
        self.L = lanes_per_repeat

    @property
    def is_count(self) -> bool:
        return self.count is not None

    def mask(self) -> Any:
        """The mask argument: lanes (normal mode) or the total element count (counter mode)."""
        if not self.counter:
            return _mask_of(self.lanes)
        r = self.repeats
        if r == 0:
            return 0
        return len(self.lanes) if r == 1 else (r - 1) * self.L + self.tail


def _counter_mode(c: CoreState, on: bool) -> bool:
    was = c.mask_counter
    c.mask_counter = on
    return was


# ---- the handlers: op -> handler(replayer, core, event) ----------------------------------------
def _issue_vector(rp: Replayer, c: CoreState, e: Event, run: Any) -> None:
    """Run `run(form)` with the core in the event's mask mode (counter or normal)."""
    args = dict(e.args)
    was = _counter_mode(c, bool(args.get("counter", False)))
    try:
        run(args)
    finally:
        c.mask_counter = was


def _binary(rp: Replayer, c: CoreState, e: Event) -> None:
    def run(args: dict) -> None:
        f = _Form(args, 256 // DataType(e.dtype).itemsize)
        dt = e.dtype
        r0, r1 = e.reads[0], e.reads[1]
        if f.is_count:
            dst, s0, s1 = rp.local(c, e.writes[0], dt), rp.local(c, r0, dt), rp.local(c, r1, dt)
            call_args: tuple = (f.count,)
        else:
            p = f.params
            dst = rp.local(c, e.writes[0], dt, _rep_start(e.writes[0], dt, f.lanes, p[0], p[3]))
            s0 = rp.local(c, r0, dt, _rep_start(r0, dt, f.lanes, p[1], p[4]))
            s1 = rp.local(c, r1, dt, _rep_start(r1, dt, f.lanes, p[2], p[5]))
            call_args = (f.mask(), f.repeats, BinaryRepeatParams(*p))
        _trampoline(e.file, e.line, True)(_vec.binary, (e.op, dst, s0, s1, call_args, {}))

    _issue_vector(rp, c, e, run)


def _unary_like(kind: str) -> Any:
    """unary / scalar_op / axpy / duplicate: one dst, at most one source."""

    def handler(rp: Replayer, c: CoreState, e: Event) -> None:
        def run(args: dict) -> None:
            dt = e.dtype
            src_dt = args.get("src_dtype", dt)
            wide = max(DataType(dt).itemsize, DataType(src_dt).itemsize)
            f = _Form(args, 256 // wide)
            p = f.params
            if f.is_count:
                dst = rp.local(c, e.writes[0], dt)
                src = rp.local(c, e.reads[0], src_dt) if kind != "duplicate" else None
                form: tuple = (f.count,)
            else:
                dst = rp.local(c, e.writes[0], dt,
                               _rep_start(e.writes[0], dt, f.lanes, p[0], p[2]))
                src = (rp.local(c, e.reads[0], src_dt,
                                _rep_start(e.reads[0], src_dt, f.lanes, p[1], p[3]))
                       if kind != "duplicate" else None)
                form = ((f.mask(), f.repeats, p[0], p[2]) if kind == "duplicate"
                        else (f.mask(), f.repeats, UnaryRepeatParams(*p)))
            tramp = _trampoline(e.file, e.line, True)
            if kind == "unary":
                tramp(_vec.unary, (e.op, dst, src, form, {}))
            elif kind == "scalar":
                tramp(_vec.scalar_op, (e.op, dst, src, args["scalar"], form, {}))
            elif kind == "axpy":
                tramp(_vec.axpy, (dst, src, args["scalar"], form, {}))
            else:
                tramp(_vec.duplicate, (dst, args["scalar"], form, {}))

        _issue_vector(rp, c, e, run)

    return handler


def _cast_op(rp: Replayer, c: CoreState, e: Event) -> None:
    def run(args: dict) -> None:
        dt, st = e.dtype, args["src_dtype"]
        f = _Form(args, 256 // max(DataType(dt).itemsize, DataType(st).itemsize))
        mode = RoundMode[args["round_mode"]]
        if f.is_count:
            dst, src = rp.local(c, e.writes[0], dt), rp.local(c, e.reads[0], st)
            rest: tuple = (f.count,)
        else:
            p = f.params
            dst = rp.local(c, e.writes[0], dt, _rep_start(e.writes[0], dt, f.lanes, p[0], p[2]))
            src = rp.local(c, e.reads[0], st, _rep_start(e.reads[0], st, f.lanes, p[1], p[3]))
            rest = (f.mask(), f.repeats, UnaryRepeatParams(*p))
        _trampoline(e.file, e.line, False)(_cast.cast, (dst, src, mode) + rest, {})

    _issue_vector(rp, c, e, run)


def _reduce_op(rp: Replayer, c: CoreState, e: Event) -> None:
    args = dict(e.args)
    kind = e.op.split("_")[-1]
    dt = e.dtype
    isz = DataType(dt).itemsize
    dst_acc, tmp_acc = e.writes
    dst = rp.local(c, dst_acc, dt)
    # reduce_sum writes min(documented minimum, what the buffer holds) of the work buffer
    tmp = rp.local(c, tmp_acc, dt, hi=tmp_acc.addr + tmp_acc.nbytes if kind == "sum" else None)
    if "count" in args:
        src = rp.local(c, e.reads[0], dt)
        call_args: tuple = (dst, src, tmp, args["count"])
    else:
        lanes = tuple(args["lanes"])
        rep = args["src_rep_stride"]
        src = rp.local(c, e.reads[0], dt, e.reads[0].addr - _first_lane(lanes, isz, 1, rep) * isz
                       if e.reads[0].nbytes or e.reads[0].count else None)
        call_args = (dst, src, tmp, _mask_of(lanes), args["repeat_time"], rep)
    kw = {"cal_index": True} if args.get("cal_index") else {}
    fn = {"sum": _red.reduce_sum, "max": _red.reduce_max, "min": _red.reduce_min}[kind]
    _trampoline(e.file, e.line, False)(fn, call_args, kw)


def _whole_reduce_op(rp: Replayer, c: CoreState, e: Event) -> None:
    def run(args: dict) -> None:
        kind = e.op.split("_")[-1]
        dt = e.dtype
        f = _Form(args, 256 // DataType(dt).itemsize)
        f.repeats = int(args["repeat_time"])
        blk, rep = args["src_blk_stride"], args["src_rep_stride"]
        dst = rp.local(c, e.writes[0], dt)
        src = rp.local(c, e.reads[0], dt, _rep_start(e.reads[0], dt, f.lanes, blk, rep))
        call_args = (dst, src, f.mask(), f.repeats, args["dst_rep_stride"], blk, rep)
        kw = {"order": ReduceOrder[args["order"]]} if kind != "sum" else {}
        fn = {"sum": _red.whole_reduce_sum, "max": _red.whole_reduce_max,
              "min": _red.whole_reduce_min}[kind]
        _trampoline(e.file, e.line, False)(fn, call_args, kw)

    _issue_vector(rp, c, e, run)


def _compare_op(rp: Replayer, c: CoreState, e: Event) -> None:
    args = dict(e.args)
    st = e.dtype
    dst = rp.local(c, e.writes[0], "uint8")
    s0, s1 = rp.local(c, e.reads[0], st), rp.local(c, e.reads[1], st)
    mode = CMPMODE[args["cmp_mode"]]
    if "count" in args:
        rest: tuple = (args["count"],)
    else:
        mask = args["mask"]
        rest = (mask, args["repeat_times"], BinaryRepeatParams(*args["params"]))
    _trampoline(e.file, e.line, False)(_cmpsel.compare, (dst, s0, s1, mode) + rest, {})


def _compare_scalar_op(rp: Replayer, c: CoreState, e: Event) -> None:
    args = dict(e.args)
    dst = rp.local(c, e.writes[0], "uint8")
    s0 = rp.local(c, e.reads[0], e.dtype)
    head = (dst, s0, args["scalar"], CMPMODE[args["cmp_mode"]])
    rest: tuple = ((args["count"],) if "count" in args else
                   (args["mask"], args["repeat_times"], UnaryRepeatParams(*args["params"])))
    _trampoline(e.file, e.line, False)(_cmpscalar.compare_scalar, head + rest, {})


def _select_op(rp: Replayer, c: CoreState, e: Event) -> None:
    def run(args: dict) -> None:
        dt = e.dtype
        mode = SelMode[args["sel_mode"]]
        scalar_mode = mode == SelMode.VSEL_TENSOR_SCALAR_MODE
        f = _Form(args, 256 // DataType(dt).itemsize)
        reads = e.reads
        sel = rp.local(c, reads[-1], "uint8")
        if f.is_count:
            dst, s0 = rp.local(c, e.writes[0], dt), rp.local(c, reads[0], dt)
            s1 = args["scalar"] if scalar_mode else rp.local(c, reads[1], dt)
            rest: tuple = (f.count,)
        else:
            p = f.params
            dst = rp.local(c, e.writes[0], dt, _rep_start(e.writes[0], dt, f.lanes, p[0], p[3]))
            s0 = rp.local(c, reads[0], dt, _rep_start(reads[0], dt, f.lanes, p[1], p[4]))
            s1 = (args["scalar"] if scalar_mode else
                  rp.local(c, reads[1], dt, _rep_start(reads[1], dt, f.lanes, p[2], p[5])))
            rest = (f.mask(), f.repeats, BinaryRepeatParams(*p))
        _trampoline(e.file, e.line, False)(_cmpsel.select, (dst, sel, s0, s1, mode) + rest, {})

    _issue_vector(rp, c, e, run)

VECTOR_HANDLERS: dict[str, Any] = {
    **{op: _binary for op in _vec.BINARY},
    **{op: _unary_like("unary") for op in _vec.UNARY},
    **{op: _unary_like("scalar") for op in _vec.SCALAR},
    "axpy": _unary_like("axpy"),
    "duplicate": _unary_like("duplicate"),
    "cast": _cast_op,
    "reduce_sum": _reduce_op, "reduce_max": _reduce_op, "reduce_min": _reduce_op,
    "whole_reduce_sum": _whole_reduce_op, "whole_reduce_max": _whole_reduce_op,
    "whole_reduce_min": _whole_reduce_op,
    "compare": _compare_op,
    "compare_scalar": _compare_scalar_op,
    "select": _select_op,
}

__all__ = ["VECTOR_HANDLERS"]
