"""Vector reductions: reduce_sum / reduce_max / reduce_min (whole-tensor results) and
whole_reduce_sum / whole_reduce_max / whole_reduce_min (one result per repeat).

Facts relied on (asc-devkit docs/api/context ReduceSum.md, ReduceMax.md, WholeReduceSum.md,
WholeReduceMax.md; pyasc docs asc.language.basic.*):
- dtypes float16/float32 (Atlas A2); dst, src and the work buffer share the dtype. src and the
  work buffer start 32 B aligned; dst only needs its element size (sums) or twice it (max/min).
- Sums: a binary tree inside each 256 B repeat (lanes 2i and 2i+1 first). Across repeats the
  count form adds the repeat results in order, the mask form uses a tree again. float16
  intermediate sums saturate at 65504 (ReduceSum.md and WholeReduceSum.md give the example
  [60000, 60000, -30000, 100] -> 35604).
- reduce_max/min: dst[0] = value; with cal_index dst[1] holds the index of the first occurrence
  as raw integer bits of dst's dtype (uint16 for float16, uint32 for float32). float16 supports
  indices up to 65535 only. In the mask form the index is repeat * (256 / sizeof(T)) + lane
  ("derived from the iteration position and the in-repeat index").
- reduce_* work buffer: ReduceSum accepts any size (its content is left unchanged, "方式二") or
  the minimum RoundUp(firstMaxRepeat, 32 B) elements; ReduceMax/Min need a minimum size: the
  sum over the rounds of each round's (value, index) output rounded up to 32 B (one round
  without cal_index). firstMaxRepeat is repeat_time (mask form) or count / (256 / sizeof(T)).
- reduce_* repeat_time may exceed 255 (int32); whole_reduce_* repeat_time is in [0, 255].
- whole_reduce_sum: dst[i * dst_rep_stride] (unit: one dst element). whole_reduce_max/min:
  dst_rep_stride counts pairs (2 elements) for ORDER_VALUE_INDEX / ORDER_INDEX_VALUE, elements
  for ORDER_ONLY_VALUE and uint32 words for ORDER_ONLY_INDEX, whose index is always uint32.
  The index is the lane inside the repeat.

Assumptions (not in the docs): saturation is symmetric (-65504 too) and applies only to a sum
of two finite values (an inf input stays inf); masked-out lanes add 0 to a sum and are skipped
by max/min; among equal values the lowest lane / repeat wins; a NaN wins max/min and reports
the first NaN; ties between +0.0 and -0.0 count as equal. reduce_* mask forms always use the
per-repeat mask (they set it themselves), whole_reduce_* honour set_mask_count /
is_set_mask=False like the other vector instructions. The work buffer is recorded in the trace
as written (the minimum size, clipped to the buffer for reduce_sum) but its content is not
modelled.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import AlignmentError, DTypeError, EmptyHandleError, ParamError, PositionError
from .. import core as _core
from ..core import access, check_vector_order, emit
from ..dtypes import DataType
from ..enums import VECTOR_POSITIONS, ReduceOrder
from ..memory.tensor import LocalTensor
from ..trace import register_op
from . import elementwise as _vec

_getframe = sys._getframe

F16_F32 = frozenset({"float16", "float32"})
INT32_MAX = 2**31 - 1

vector_ops = {
    "reduce_sum": "reduce", "reduce_max": "reduce", "reduce_min": "reduce",
    "whole_reduce_sum": "reduce", "whole_reduce_max": "reduce", "whole_reduce_min": "reduce",
}
for _op, _klass in vector_ops.items():
    register_op(_op, "V", _klass, flops_per_elem=1, module=__name__)
# Block reductions (one result per 32 B block, also issued by adv.softmax) are registered where
# they are implemented, in vector/rows.py.

_U32 = DataType("uint32")


# ---- operands and argument binding ----------------------------------------------------------
def operand(op: str, t: Any, role: str, c: Any, frame: Any, align: int = 32) -> LocalTensor:
    """A UB (VECIN/VECOUT/VECCALC) LocalTensor starting `align` B aligned."""
    if not isinstance(t, LocalTensor):
        raise TypeError(f"{op}: {role} must be a LocalTensor, got {type(t).__name__}")
    if t.space is None:
        raise EmptyHandleError(f"{op}: {role} is an empty LocalTensor handle")
    if t.pos not in VECTOR_POSITIONS:
        raise PositionError(f"{op}: {role} {t.describe()} is in {t.pos.name}; vector "
                            f"instructions read and write only VECIN/VECOUT/VECCALC (UB) "
                            f"{_core.where(c, frame)}")
    if t.addr % align:
        raise AlignmentError(f"{op}: {role} {t.describe()} starts at UB+{t.addr}, not {align} B "
                             f"aligned {_core.where(c, frame)}")
    return t


def _dtypes(op: str, c: Any, frame: Any, dst: LocalTensor, *others: tuple[str, LocalTensor]
            ) -> None:
    name = dst.dtype.name
    if name not in F16_F32:
        raise DTypeError(f"{op}: dst {dst.describe()} is {name}; supported: float16, float32 "
                         f"{_core.where(c, frame)}")
    for role, t in others:
        if t.dtype != dst.dtype:
            raise DTypeError(f"{op}: {role} {t.describe()} is {t.dtype.name} but dst is {name}; "
                             f"operands must have the same dtype {_core.where(c, frame)}")


def _int(op: str, name: str, v: Any, lo: int, hi: int, c: Any, frame: Any) -> int:
    try:
        n = v.__index__()
    except (AttributeError, TypeError):
        raise TypeError(f"{op}: {name} must be an int, got {type(v).__name__}") from None
    if not lo <= n <= hi:
        raise ParamError(f"{op}: {name}={n} is outside [{lo}, {hi}] {_core.where(c, frame)}")
    return n


def _lanes(op: str, mask: Any, L: int, c: Any, frame: Any) -> tuple[int, ...]:
    lanes = _vec.mask_lanes(op, mask, L, c, frame)
    if not lanes:
        raise ParamError(f"{op}: bit mask {mask!r} selects no lane (mask[0] and mask[1] may not "
                         f"both be 0) {_core.where(c, frame)}")
    return lanes


# ---- trace helpers --------------------------------------------------------------------------
def repeat_access(t: LocalTensor, idx: np.ndarray, repeats: int, per_rep: int,
                  rep_stride: int) -> Any:
    """Access of a repeat-form read: one block per repeat spanning that repeat's elements."""
    isz = t.dtype.itemsize
    if not len(idx):
        return access("UB", t.addr, 0, t.name, 0, 0)
    if repeats <= 1 or rep_stride == 0 or len(idx) <= per_rep:
        lo, hi = int(idx.min()), int(idx.max())
        return access("UB", t.addr + lo * isz, (hi - lo + 1) * isz, t.name, 1, 0)
    first = idx[:per_rep]
    lo, hi = int(first.min()), int(first.max())
    return access("UB", t.addr + lo * isz, (hi - lo + 1) * isz, t.name, repeats, rep_stride * 32)


def _finish(c: Any, op: str, reads: tuple, writes: tuple, count: int, dtype: str, repeats: int,
            frame: Any, args: tuple) -> None:
    if c.launch.auto_sync:
        check_vector_order(c, reads, writes, frame)
    emit(c, "V", op, reads, writes, count, dtype, repeats, frame, None, args)


from .reduce_math import (  # noqa: E402  (the numerics and gathering, split off)
    _gather_count,
    _gather_plan,
    _index_bits,
    arg_extreme,
    layout,
    sequential_sum,
    tree_sum,
    tree_sum_1d,
)


# ---- reduce_sum / reduce_max / reduce_min -----------------------------------------------------
def tmp_min_elements(kind: str, first_repeats: int, L: int, epb: int, cal_index: bool) -> int:
    """Minimum work-buffer elements (ReduceSum.md / ReduceMax.md formulas) for kind "sum",
    "max" or "min": L elements per repeat, epb per 32 B block."""
    def up(a: int, b: int) -> int:
        return -(-a // b) * b

    if kind == "sum":
        return up(first_repeats, epb)
    out = 2 * first_repeats
    total = up(out, epb)
    if not cal_index:
        return total
    while out > 2:
        out = 2 * -(-out // L)
        total += up(out, epb)
    return total


def _reduce(kind: str, args: tuple, kwargs: dict, frame: Any) -> None:
    op = f"reduce_{kind}"
    head = ("dst", "src", "shared_tmp_buffer")
    tail = ("cal_index",) if kind != "sum" else ()
    b = _vec.bind_overload(head + ("mask", "repeat_time", "src_rep_stride") + tail, 6, args, kwargs)
    mask_form = b is not None
    if b is None:
        b = _vec.bind_overload(head + ("count",) + tail, 4, args, kwargs)
    if b is None:
        extra = ", cal_index=False" if tail else ""
        raise TypeError(f"{op}: expected (dst, src, shared_tmp_buffer, count{extra}) or (dst, "
                        f"src, shared_tmp_buffer, mask, repeat_time, src_rep_stride{extra}); "
                        f"got {len(args)} positional and {sorted(kwargs)} keyword arguments")
    c = _vec.current_vector_core(frame)
    dst = b["dst"]
    isz_guess = dst.dtype.itemsize if isinstance(dst, LocalTensor) and dst.dtype else 2
    cal_index = bool(b.get("cal_index", False))
    operand(op, dst, "dst", c, frame, isz_guess * (2 if kind != "sum" else 1))
    src = operand(op, b["src"], "src", c, frame)
    tmp = operand(op, b["shared_tmp_buffer"], "shared_tmp_buffer", c, frame)
    _dtypes(op, c, frame, dst, ("src", src), ("shared_tmp_buffer", tmp))
    dt = dst.dtype
    isz = dt.itemsize
    L, epb = 256 // isz, 32 // isz
    if mask_form:
        lanes = _lanes(op, b["mask"], L, c, frame)
        R = _int(op, "repeat_time", b["repeat_time"], 0, INT32_MAX, c, frame)
        rep = _int(op, "src_rep_stride", b["src_rep_stride"], 0, 65535, c, frame)
        if R:  # check the extent before building the (maybe long) index plan
            _vec.span_check(op, src, (R - 1) * rep * epb + lanes[-1] + 1, "src", c, frame)
        idx = _vec.plan(lanes, R, epb, 1, rep)
        last_index = (R - 1) * L + lanes[-1]
        first_repeats, repeats, active = R, R, len(idx)
        sread = repeat_access(src, idx, R, len(lanes), rep)
        args_out: tuple = (("lanes", lanes), ("repeat_time", R), ("src_rep_stride", rep))
    else:
        n = _int(op, "count", b["count"], 0, INT32_MAX, c, frame)
        if n:
            _vec.span_check(op, src, n, "src", c, frame)
        last_index = n - 1
        first_repeats, repeats, active = max(1, n // L), -(-n // L), n
        sread = access("UB", src.addr, n * isz, src.name, 1, 0)
        args_out = (("count", n),)
    if cal_index and isz == 2 and last_index > 65535:
        raise ParamError(f"{op}: with cal_index a float16 reduction reports indices up to 65535 "
                         f"(uint16), but element {last_index} takes part "
                         f"{_core.where(c, frame)}")
    # work buffer: ReduceSum takes any size, ReduceMax/Min need the documented minimum
    need = tmp_min_elements(kind, first_repeats, L, epb, cal_index)
    if kind == "sum":
        tmp_n = max(0, min(need, (tmp.hi - tmp.addr) // isz))
    else:
        _vec.span_check(op, tmp, need, "shared_tmp_buffer (documented minimum)", c,
                        frame)
        tmp_n = need
    n_out = 2 if (kind != "sum" and cal_index) else 1
    if active:
        _vec.span_check(op, dst, n_out, "dst", c, frame)
        d = dst.arr
        if kind == "sum":
            if mask_form:
                x = _gather_plan(src, idx, layout(lanes, R, L)[0], R, L, 0.0)
                d[dst.e0] = tree_sum_1d(tree_sum(x))
            else:
                d[dst.e0] = sequential_sum(tree_sum(_gather_count(src, n, L, 0.0)))
        else:
            # the first occurrence of the extreme in (repeat, lane) order; numpy's argmax and
            # argmin return the first hit (and the first NaN, which wins)
            v = src.arr[idx + src.e0] if mask_form else src.arr[src.e0:src.e0 + n]
            k = int(v.argmax() if kind == "max" else v.argmin())
            d[dst.e0] = v[k]
            if cal_index:
                where_k = int(layout(lanes, R, L)[0][k]) if mask_form else k
                d[dst.e0 + 1:dst.e0 + 2] = _index_bits(where_k, dt)
    writes = (access("UB", dst.addr, n_out * isz if active else 0, dst.name, 1, 0),
              access("UB", tmp.addr, tmp_n * isz, tmp.name, 1, 0))
    if cal_index:
        args_out += (("cal_index", True),)
    _finish(c, op, (sread,), writes, active, dt.name, repeats, frame, args_out)


def reduce_sum(*args: Any, **kwargs: Any) -> None:
    """reduce_sum(dst, src, shared_tmp_buffer, count) or reduce_sum(dst, src,
    shared_tmp_buffer, mask, repeat_time, src_rep_stride): dst[0] = sum of the elements."""
    _reduce("sum", args, kwargs, _getframe(1))


def reduce_max(*args: Any, **kwargs: Any) -> None:
    """reduce_max(dst, src, shared_tmp_buffer, count, cal_index=False) or the mask form
    (..., mask, repeat_time, src_rep_stride, cal_index=False): dst = [max, index bits]."""
    _reduce("max", args, kwargs, _getframe(1))


def reduce_min(*args: Any, **kwargs: Any) -> None:
    """reduce_min(dst, src, shared_tmp_buffer, count, cal_index=False) or the mask form
    (..., mask, repeat_time, src_rep_stride, cal_index=False): dst = [min, index bits]."""
    _reduce("min", args, kwargs, _getframe(1))


# ---- whole_reduce_sum / max / min ------------------------------------------------------------
def _whole(kind: str, args: tuple, kwargs: dict, frame: Any) -> None:
    op = f"whole_reduce_{kind}"
    names = ("dst", "src", "mask", "repeat_time", "dst_rep_stride", "src_blk_stride",
             "src_rep_stride")
    names += ("is_set_mask",) if kind == "sum" else ("order", "is_set_mask")
    b = _vec.bind_overload(names, 7, args, kwargs)
    if b is None:
        extra = "[, is_set_mask]" if kind == "sum" else "[, order[, is_set_mask]]"
        raise TypeError(f"{op}: expected (dst, src, mask, repeat_time, dst_rep_stride, "
                        f"src_blk_stride, src_rep_stride{extra}); got {len(args)} positional "
                        f"and {sorted(kwargs)} keyword arguments")
    c = _vec.current_vector_core(frame)
    order = ReduceOrder.ORDER_VALUE_INDEX
    if kind != "sum":
        o = b.get("order", ReduceOrder.ORDER_VALUE_INDEX)
        try:
            order = ReduceOrder(int(ReduceOrder.ORDER_VALUE_INDEX if o is None else o))
        except (TypeError, ValueError):
            raise ParamError(f"{op}: order={o!r} is not a ReduceOrder "
                             f"{_core.where(c, frame)}") from None
    dst = b["dst"]
    isz_guess = dst.dtype.itemsize if isinstance(dst, LocalTensor) and dst.dtype else 2
    operand(op, dst, "dst", c, frame, isz_guess * (1 if kind == "sum" else 2))
    src = operand(op, b["src"], "src", c, frame)
    _dtypes(op, c, frame, dst, ("src", src))
    dt = dst.dtype
    isz = dt.itemsize
    L, epb = 256 // isz, 32 // isz
    ds = _int(op, "dst_rep_stride", b["dst_rep_stride"], 0, 65535, c, frame)
    blk = _int(op, "src_blk_stride", b["src_blk_stride"], 0, 65535, c, frame)
    rep = _int(op, "src_rep_stride", b["src_rep_stride"], 0, 65535, c, frame)
    is_set = bool(b.get("is_set_mask", True))
    mask = b["mask"]
    tail = 0
    if c.mask_counter:  # counter mode: the mask is the total element count
        total = ((int(mask[0]) if isinstance(mask, (list, tuple)) else int(mask)) if is_set
                 else c.vector_mask[0])
        R = -(-total // L) if total > 0 else 0
        lanes = tuple(range(min(total, L)))
        tail = total - (R - 1) * L if R > 1 else 0
    else:
        R = _int(op, "repeat_time", b["repeat_time"], 0, c.chip.max_repeat_times, c, frame)
        lanes = _lanes(op, mask if is_set else [c.vector_mask[0], c.vector_mask[1]], L, c, frame)
    idx = _vec.plan(lanes, R, epb, blk, rep, tail)
    if len(idx):
        _vec.span_check(op, src, int(idx.max()) + 1, "src", c, frame)
    # dst layout: element offset of each repeat's record and its size in elements
    if kind == "sum" or order == ReduceOrder.ORDER_ONLY_VALUE:
        unit, rec = 1, 1
    elif order == ReduceOrder.ORDER_ONLY_INDEX:
        unit, rec = 4 // isz, 4 // isz  # one uint32 per repeat
    else:
        unit, rec = 2, 2
    if R:
        _vec.span_check(op, dst, (R - 1) * ds * unit + rec, "dst", c, frame)
        fill = 0.0 if kind == "sum" else (-np.inf if kind == "max" else np.inf)
        pos_, valid = layout(lanes, R, L, tail)
        x = _gather_plan(src, idx, pos_, R, L, fill)
        pos = dst.e0 + np.arange(R) * (ds * unit)
        d = dst.arr
        if kind == "sum":
            d[pos] = tree_sum(x)
        else:
            val, lane = arg_extreme(x, valid, kind == "max")
            if order == ReduceOrder.ORDER_ONLY_INDEX:
                words = c.typed_mem("UB", _U32)  # ORDER_ONLY_INDEX: always uint32
                words[(dst.addr >> 2) + np.arange(R) * ds] = lane.astype(np.uint32)
            else:
                bits = _index_bits(lane, dt)
                if order == ReduceOrder.ORDER_ONLY_VALUE:
                    d[pos] = val
                elif order == ReduceOrder.ORDER_VALUE_INDEX:
                    d[pos] = val
                    d[pos + 1] = bits
                else:
                    d[pos] = bits
                    d[pos + 1] = val
    rec_b = rec * isz
    if not R:
        w = access("UB", dst.addr, 0, dst.name, 0, 0)
    elif R == 1 or ds == 0:
        w = access("UB", dst.addr, rec_b, dst.name, 1, 0)
    else:
        w = access("UB", dst.addr, rec_b, dst.name, R, ds * unit * isz)
    r_acc = repeat_access(src, idx, R, len(lanes), rep)
    out_args = (("lanes", lanes), ("repeat_time", R), ("dst_rep_stride", ds),
                ("src_blk_stride", blk), ("src_rep_stride", rep), ("counter", c.mask_counter),
                ("tail", tail))
    if kind != "sum":
        out_args += (("order", order.name),)
    _finish(c, op, (r_acc,), (w,), len(idx), dt.name, R, frame, out_args)


def whole_reduce_sum(*args: Any, **kwargs: Any) -> None:
    """whole_reduce_sum(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride,
    src_rep_stride, is_set_mask=True): dst[i * dst_rep_stride] = sum of repeat i."""
    _whole("sum", args, kwargs, _getframe(1))


def whole_reduce_max(*args: Any, **kwargs: Any) -> None:
    """whole_reduce_max(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride,
    src_rep_stride, order=ORDER_VALUE_INDEX, is_set_mask=True): max and lane of each repeat."""
    _whole("max", args, kwargs, _getframe(1))


def whole_reduce_min(*args: Any, **kwargs: Any) -> None:
    """whole_reduce_min(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride,
    src_rep_stride, order=ORDER_VALUE_INDEX, is_set_mask=True): min and lane of each repeat."""
    _whole("min", args, kwargs, _getframe(1))


__all__ = ["arg_extreme", "operand", "reduce_max", "reduce_min", "reduce_sum", "repeat_access",
           "sequential_sum", "tmp_min_elements", "tree_sum", "whole_reduce_max",
           "whole_reduce_min", "whole_reduce_sum"]
