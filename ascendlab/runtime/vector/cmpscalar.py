"""Vector compare_scalar: compare a tensor with a scalar, one result bit per element in UB.

compare_scalar(dst, src0, src1_scalar, cmp_mode, count)
compare_scalar(dst, src0, src1_scalar, cmp_mode, mask, repeat_times, UnaryRepeatParams
               [, is_set_mask])

Facts relied on (Ascend C CompareScalar, asc-devkit docs; pyasc asc.language.basic
compare_scalar): dst uint8, one bit per element, little-endian (element j is bit j % 8 of
byte j // 8); src0 float16 / float32 with every CMPMODE, int32 with CMPMODE.EQ only; the scalar
has src0's dtype; the count form needs count * sizeof(T) to be a multiple of 256 B; on Atlas A2
/ A3 and the inference AI Core the mask is a reserved parameter without effect, so every lane of
every repeat is compared. As for compare (vector/cmpsel.py), repeat i's 256 / sizeof(T) bits go
to dst bytes [i * 32 / sizeof(T), (i + 1) * 32 / sizeof(T)): dst's strides are not used (an
assumption, the same as compare's). NaN compares false except with NE.
"""

from __future__ import annotations

import sys
from typing import Any

from ...errors import DTypeError
from ..core import access, check_vector_order, emit
from ..enums import CMPMODE
from ..params import UnaryRepeatParams
from ..trace import register_op
from . import elementwise as _vec
from .cmpsel import CMP_DTYPES, COMPARE, _enum, _head, count_repeats, repeat_params, store_bits
from .reduce import repeat_access

_getframe = sys._getframe

vector_ops = {"compare_scalar": "compare"}
register_op("compare_scalar", "V", "compare", flops_per_elem=1, module=__name__)


def _operands(op: str, head: dict, c: Any, frame: Any) -> tuple[Any, Any, Any, CMPMODE]:
    """dst, src0, the scalar in src0's dtype, the mode: checked."""
    dst = _vec.vec_operand(op, head["dst"], "dst", c, frame)
    src0 = _vec.vec_operand(op, head["src0"], "src0", c, frame)
    mode = _enum(op, CMPMODE, "cmp_mode", head["cmp_mode"], c, frame)
    st = src0.dtype
    if st.name not in CMP_DTYPES:
        raise DTypeError(f"{op}: src0 {src0.describe()} is {st.name}; supported: float16, "
                         "float32, int32 (CMPMODE.EQ only)")
    if st.name == "int32" and mode != CMPMODE.EQ:
        raise DTypeError(f"{op}: int32 sources support only CMPMODE.EQ, got {mode.name}")
    if dst.dtype.name != "uint8":
        raise DTypeError(f"{op}: dst {dst.describe()} is {dst.dtype.name}; the bitmask dst must "
                         "be uint8")
    return dst, src0, _vec.cast_scalar(head["src1_scalar"], st, op), mode


def _repeat_form(op: str, b: dict, src0: Any, c: Any, frame: Any) -> tuple:
    """(values, read access, element count, repeats, event args) of the mask form."""
    R, p = repeat_params(op, b, UnaryRepeatParams, c)
    isz = src0.dtype.itemsize
    L = 256 // isz
    idx = _vec.plan(tuple(range(L)), R, 32 // isz, int(p.src_blk_stride), int(p.src_rep_stride))
    n = R * L
    values = None
    if n:
        _vec.span_check(op, src0, int(idx.max()) + 1, "src0", c, frame)
        values = src0.arr[idx + src0.e0]
    read = repeat_access(src0, idx, R, L, int(p.src_rep_stride))
    return values, read, n, R, (("mask", b["mask"]), ("repeat_times", R), ("params", tuple(p)))


def compare_scalar(*args: Any, **kwargs: Any) -> None:
    """dst bit j = src0[j] <cmp_mode> src1_scalar (see the module docstring for the forms)."""
    frame = _getframe(1)
    op = "compare_scalar"
    head, rest = _head(op, ("dst", "src0", "src1_scalar", "cmp_mode"), args, kwargs)
    c = _vec.current_vector_core(frame)
    dst, src0, s, mode = _operands(op, head, c, frame)
    isz = src0.dtype.itemsize
    b = _vec.bind_overload(("mask", "repeat_times", "repeat_params", "is_set_mask"), 3, rest,
                           kwargs)
    if b is not None:
        values, read, n, R, out_args = _repeat_form(op, b, src0, c, frame)
    else:
        b = _vec.bind_overload(("count",), 1, rest, kwargs)
        if b is None:
            raise TypeError(f"{op}: expected (dst, src0, src1_scalar, cmp_mode, count) or (..., "
                            "mask, repeat_times, repeat_params[, is_set_mask])")
        n = b["count"].__index__()
        R = count_repeats(op, n, isz, c, frame)
        values = None
        if n:
            _vec.span_check(op, src0, n, "src0", c, frame)
            values = src0.arr[src0.e0:src0.e0 + n]
        read = access("UB", src0.addr, n * isz, src0.name, 1, 0)
        out_args = (("count", n),)
    writes = store_bits(op, c, dst, n, lambda: COMPARE[mode](values, s), frame)
    if c.launch.auto_sync:
        check_vector_order(c, (read,), writes, frame)
    emit(c, "V", op, (read,), writes, n, src0.dtype.name, R, frame, None,
         out_args + (("cmp_mode", mode.name), ("scalar", s.item())))


__all__ = ["compare_scalar"]
