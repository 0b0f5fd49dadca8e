"""Vector instructions that fuse a binary op (and relu / a deq scale) with a precision cast.

add_relu_cast / sub_relu_cast(dst, src0, src1, count | mask, repeat_times, BinaryRepeatParams
[, is_set_mask]): dst = cast(max(src0 +/- src1, 0)); pairs float16 -> int8, float32 -> float16,
int16 -> int8.
mul_cast(dst, src0, src1, ...): dst = cast(src0 * src1); float16 -> int8 / uint8.
add_deq_relu(dst, src0, src1, ...): dst = float16(max((src0 + src1) * DEQSCALE, 0)); int32
sources, DEQSCALE the half scale of set_deq_scale(scale) (scalar/sysvar.py).

Facts relied on (Ascend C docs AddReluCast, SubReluCast, MulCast, AddDeqRelu, SetDeqScale;
pyasc asc.language.basic vec_binary / vec_vconv): the formulas and dtype pairs above; the
repeat forms take BinaryRepeatParams whose strides count 32 B blocks of each operand's own
dtype; lanes per repeat follow the widest operand (256 B of it).

ASSUMPTIONS (the docs give no rounding for these fused forms): the binary op is computed in
the source dtype (float16 / float32 arithmetic rounds to nearest even, int16 / int32 wrap as
the vector add does), then the conversion is the vector cast's default for that pair
(CAST_NONE: round half to even for float -> float16 / int8 / uint8, clamped to the target
range; int16 -> int8 saturates). add_deq_relu converts the int32 sum to float32, multiplies by
the scale in float32, applies relu, then rounds to float16 (nearest even).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import DTypeError, ParamError
from .. import core as _core
from ..enums import RoundMode
from ..params import BinaryRepeatParams
from ..trace import register_op
from . import elementwise as _vec
from .cast import converter

_getframe = sys._getframe

RELU_PAIRS = frozenset({("float16", "int8"), ("float32", "float16"), ("int16", "int8")})
FUSED: dict[str, tuple[Callable, bool, frozenset]] = {
    "add_relu_cast": (np.add, True, RELU_PAIRS),
    "sub_relu_cast": (np.subtract, True, RELU_PAIRS),
    "mul_cast": (np.multiply, False, frozenset({("float16", "int8"), ("float16", "uint8")})),
    "add_deq_relu": (np.add, True, frozenset({("int32", "float16")})),
}
for _op in FUSED:
    register_op(_op, "V", "convert", flops_per_elem=2, replayable=False,
            module=__name__)


def deq_scale(op: str, c: Any, frame: Any) -> float:
    """The half scale set by set_deq_scale(scale); a ParamError when none is set."""
    value = c.lib.get("deq_scale")
    if value is None or value[0] != "half":
        got = "nothing" if value is None else f"the {value[0]} form"
        raise ParamError(f"{op}: reads the DEQSCALE half scale of set_deq_scale(scale), but "
                         f"{got} was set {_core.where(c, frame)}")
    return float(value[1])


def _compute(op: str, fn: Callable, relu: bool, src: str, dst: str, c: Any,
             frame: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    if op == "add_deq_relu":
        scale = np.float32(deq_scale(op, c, frame))

        def deq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            r = np.add(a, b, dtype=np.int32).astype(np.float32) * scale
            return np.maximum(r, np.float32(0)).astype(np.float16)
        return deq
    conv = converter(src, dst, RoundMode.CAST_NONE)

    def fused(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            r = fn(a, b, dtype=a.dtype)
        if relu:
            r = np.maximum(r, r.dtype.type(0))
        return conv(r)
    return fused


def fused_cast(op: str, dst: Any, src0: Any, src1: Any, args: tuple, kwargs: dict,
               frame: Any) -> None:
    """Run one instruction of FUSED in any of its forms."""
    fn, relu, pairs = FUSED[op]
    c = _vec.current_vector_core(frame)
    dst = _vec.vec_operand(op, dst, "dst", c, frame)
    src0 = _vec.vec_operand(op, src0, "src0", c, frame)
    src1 = _vec.vec_operand(op, src1, "src1", c, frame)
    pair = (src0.dtype.name, dst.dtype.name)
    if src1.dtype != src0.dtype:
        raise DTypeError(f"{op}: src1 {src1.describe()} is {src1.dtype.name} but src0 is "
                         f"{src0.dtype.name}; sources must have the same dtype")
    if pair not in pairs:
        listing = ", ".join(f"{s}->{d}" for s, d in sorted(pairs))
        raise DTypeError(f"{op}: {pair[0]} -> {pair[1]} is not supported; supported: "
                         f"{listing}")
    lanes = 256 // max(src0.dtype.itemsize, dst.dtype.itemsize)
    f = _vec.parse_form(op, args, kwargs, BinaryRepeatParams, lanes, c, frame)
    p = f.params
    strides = ((p[0], p[3]), (p[1], p[4]), (p[2], p[5])) if p else ()
    compute = _compute(op, fn, relu, pair[0], pair[1], c, frame)
    _vec.execute(c, op, dst, (src0, src1), f, strides, lambda a, b, d: compute(a, b), False,
                 frame, (("src_dtype", pair[0]),))


def _make(op: str) -> Callable[..., None]:
    def instruction(dst: Any, src0: Any, src1: Any, *args: Any, **kwargs: Any) -> None:
        fused_cast(op, dst, src0, src1, args, kwargs, _getframe(1))
    instruction.__name__ = instruction.__qualname__ = op
    instruction.__doc__ = (f"{op}(dst, src0, src1, count) or {op}(dst, src0, src1, mask, "
                           "repeat_times, BinaryRepeatParams): see vector/fused_cast.py")
    return instruction


add_relu_cast = _make("add_relu_cast")
sub_relu_cast = _make("sub_relu_cast")
mul_cast = _make("mul_cast")
add_deq_relu = _make("add_deq_relu")

__all__ = ["FUSED", "add_deq_relu", "add_relu_cast", "deq_scale", "fused_cast", "mul_cast",
           "sub_relu_cast"]
