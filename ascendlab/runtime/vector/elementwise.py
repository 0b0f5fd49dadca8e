"""The vector unit (PIPE_V): element-wise instructions, read as a table.

Every instruction comes in pyasc's forms (reference/pyasc-api-surface.md section 4.0):
  count form   op(dst, src..., count)                       exactly `count` elements
  mask forms   op(dst, src..., mask, repeat_times, params)  `repeat_times` repeats of 256 B,
               mask = int (first N lanes of each repeat) or [low64, high64] (bit per lane);
               params = Binary/UnaryRepeatParams strides in 32 B blocks.
Lanes a mask leaves out are not written. In counter mode (set_mask_count) the mask is the
total element count and repeat_times is ignored. `is_set_mask=False` uses set_vector_mask's mask.

SEMANTICS below is the living definition of each instruction: one numpy line per op, computed
in the operand dtype (numpy rounds float16 results once per op, like the hardware; integer ops
wrap). Each op is registered once in trace.OPS (register_op, below) with its cost class; a
test checks that the semantics tables and the cost table cover the registry.
Limitations: transcendental results (exp, ln, sqrt, rsqrt, reciprocal) are computed in float64
and rounded once, not with the chip's approximations; fused multiply-adds round once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from ...errors import DTypeError
from .. import core as _core
from ..core import access, order_vector, site, vector_spans
from ..dtypes import DataType
from ..enums import VECTOR_POSITIONS
from ..memory.tensor import LocalTensor
from ..params import BinaryRepeatParams, UnaryRepeatParams
from ..trace import OPS, VECTOR_CLASSES, event, register_op

_getframe = sys._getframe
_new = tuple.__new__

F16_F32 = frozenset({"float16", "float32"})
ARITH = frozenset({"float16", "float32", "int16", "int32"})
RELU_T = frozenset({"float16", "float32", "int16"})
BITS = frozenset({"int16", "uint16"})
ANY_NUM = frozenset({"float16", "float32", "int16", "int32", "uint16", "uint32", "int8", "uint8"})


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, x.dtype.type(0))


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once to a's dtype (float64 holds float16/float32 products exactly)."""
    return (a.astype(np.float64) * b + c).astype(a.dtype)


# Element-wise semantics. Binary: f(src0, src1, dst) -> new dst values. dst is passed because
# fused ops read it. Unary: f(src) ; scalar: f(src, s) with s already in the tensor dtype.
# A numpy ufunc entry is applied as ufunc(src0, src1, out=dst), without a temporary.
BINARY: dict[str, tuple[Callable[..., np.ndarray], frozenset[str]]] = {
    "add": (np.add, ARITH),
    "sub": (np.subtract, ARITH),
    "mul": (np.multiply, ARITH),
    "div": (np.divide, F16_F32),
    "max": (np.maximum, ARITH),
    "min": (np.minimum, ARITH),
    "bitwise_and": (np.bitwise_and, BITS),
    "bitwise_or": (np.bitwise_or, BITS),
    "add_relu": (lambda a, b, d: _relu(a + b), RELU_T),
    "sub_relu": (lambda a, b, d: _relu(a - b), RELU_T),
    # dst = src0 * dst + src1, rounded once like an FMA (an assumption: the chip's rounding of
    # its fused multiply-add is not documented)
    "fused_mul_add": (lambda a, b, d: _fma(a, d, b), F16_F32),
    "fused_mul_add_relu": (lambda a, b, d: _relu(_fma(a, d, b)), F16_F32),
    # dst = src0 * src1 + dst, rounded once
    "mul_add_dst": (lambda a, b, d: _fma(a, b, d), F16_F32),
}
READS_DST = frozenset({"fused_mul_add", "fused_mul_add_relu", "mul_add_dst"})

# float16 ops whose torch CPU kernel gives numpy's bits (every float16 pair, NaN payloads
# included: tests/runtime/test_vector.py) and is several times faster (numpy has no float16
# SIMD kernels; benchmarks/emulation_speed.py --torch). Used only when the process has already
# imported torch: importing it here would cost seconds. sub/mul/max/min differ in NaN payloads.
TORCH_F16 = frozenset({"add", "div"})


def torch_f16(op: str, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> bool:
    """out[...] = op(a, b) with torch's kernel when torch is imported; False when it is not."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    fn = torch.add if op == "add" else torch.div
    fn(torch.from_numpy(a), torch.from_numpy(b), out=torch.from_numpy(out))
    return True


def _f64(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Compute in float64 and round once to the operand dtype: results are then (nearly always)
    correctly rounded and the same on every host CPU, unlike numpy's float32 SIMD kernels."""
    return lambda x: fn(x.astype(np.float64)).astype(x.dtype)


UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], frozenset[str]]] = {
    "abs": (np.abs, frozenset({"float16", "float32", "int16", "int32"})),
    "exp": (_f64(np.exp), F16_F32),
    "ln": (_f64(np.log), F16_F32),
    "sqrt": (_f64(np.sqrt), F16_F32),
    "rsqrt": (_f64(lambda x: 1.0 / np.sqrt(x)), F16_F32),
    "reciprocal": (_f64(lambda x: 1.0 / x), F16_F32),
    "relu": (_relu, frozenset({"float16", "float32", "int32"})),
    "bitwise_not": (np.invert, BITS),
}

SCALAR: dict[str, tuple[Callable[[np.ndarray, Any], np.ndarray], frozenset[str]]] = {
    "adds": (lambda x, s: x + s, ARITH),
    "muls": (lambda x, s: x * s, ARITH),
    "maxs": (lambda x, s: np.maximum(x, s), ARITH),
    "mins": (lambda x, s: np.minimum(x, s), ARITH),
    "leaky_relu": (lambda x, s: np.where(x >= 0, x, x * s), F16_F32),
    "shift_left": (lambda x, s: np.left_shift(x, s), frozenset({"int16", "uint16", "int32",
                                                                "uint32"})),
    "shift_right": (lambda x, s: np.right_shift(x, s), frozenset({"int16", "uint16", "int32",
                                                                  "uint32"})),
}

# ---- the registry (trace.OPS): one record per op --------------------------------------------
# Fused multiply-adds count 2 operations per element, fills and conversions none, the rest 1.
FMA = frozenset({"fused_mul_add", "fused_mul_add_relu", "mul_add_dst", "axpy"})
for _table, _klass in ((BINARY, "elementwise"), (SCALAR, "elementwise"), (UNARY, None)):
    for _op, (_fn, _dtypes) in _table.items():
        register_op(_op, "V", _klass or ("elementwise" if _op in ("abs", "relu", "bitwise_not")
                                         else "transcendental"),
                    flops_per_elem=2 if _op in FMA else 1, dtypes=_dtypes, module=__name__)
register_op("axpy", "V", "elementwise", flops_per_elem=2, dtypes=F16_F32, module=__name__)
register_op("duplicate", "V", "elementwise", dtypes=ANY_NUM, module=__name__)
# brcb and the block reductions are registered where they are implemented, in vector/rows.py;
# copy (which adv.softmax's AlignedBroadCastImpl also issues) in vector/copy.py.


class _VectorOps(Mapping[str, str]):
    """Op -> cost class of every vector op in trace.OPS: a live view of the registry."""

    def __getitem__(self, op: str) -> str:
        info = OPS[op]
        if info.cost_class not in VECTOR_CLASSES:
            raise KeyError(op)
        return info.cost_class

    def __iter__(self) -> Iterator[str]:
        return (k for k, info in list(OPS.items()) if info.cost_class in VECTOR_CLASSES)

    def __len__(self) -> int:
        return sum(1 for _ in self)


VECTOR_OPS: Mapping[str, str] = _VectorOps()


# The operand checks, the mask / repeat plan and the execution engine are in vector/forms.py
from .forms import (  # noqa: E402
    Form,
    _count,
    _repeat_form,
    bind_overload,
    current_vector_core,
    dtype_check,
    execute,
    mask_lanes,
    parse_form,
    plan,
    span_check,
    vec_operand,
)


# ---- the instructions -----------------------------------------------------------------------
def _fast_entry(c: Any, op: str, dt: Any, n: int, dst: LocalTensor, src0: LocalTensor,
                src1: LocalTensor, frame: Any) -> tuple:
    """binary's fast-path entry for one recurring instruction: (its Event, its vector spans,
    the numpy views of dst, src0 and src1, whether torch may compute it, the call site (which
    holds the code object))."""
    nb = n * dt.itemsize
    w = access("UB", dst.addr, nb, dst.name)
    reads = (access("UB", src0.addr, nb, src0.name), access("UB", src1.addr, nb, src1.name))
    if op in READS_DST:
        reads += (w,)
    where = site(c, frame)
    ev = event(c.idx, "V", op, reads, (w,), n, dt.name, (nb + 255) >> 8, where[0], where[1],
               None, (("count", n),))
    return (ev, vector_spans(reads, (w,)), dst.arr[dst.e0:dst.e0 + n],
            src0.arr[src0.e0:src0.e0 + n], src1.arr[src1.e0:src1.e0 + n],
            op in TORCH_F16 and dt.name == "float16", where)


def binary(op: str, dst: Any, src0: Any, src1: Any, args: tuple, kwargs: dict,
           frame: Any) -> None:
    """A two-source instruction of BINARY in any of its forms."""
    fn, allowed = BINARY[op]
    c = _core.current
    # Fast path: the count form on well-formed UB operands (the common case, kept lean because
    # every emulated instruction is a hot path). Anything unusual takes the checked path below.
    if (c is not None and not kwargs and len(args) == 1 and type(dst) is LocalTensor
            and type(src0) is LocalTensor and type(src1) is LocalTensor and c.kind == "aiv"):
        dt = dst.dtype
        n = args[0]
        if type(n) is not int:
            n = n.__index__()
        nb = n * dt.itemsize
        da, a0, a1 = dst.addr, src0.addr, src1.addr
        if (src0.dtype is dt and src1.dtype is dt and dst.space == "UB" and src0.space == "UB"
                and src1.space == "UB" and not (da | a0 | a1) & 31 and dt.name in allowed
                and n >= 0 and da + nb <= dst.hi and a0 + nb <= src0.hi and a1 + nb <= src1.hi
                and dst.pos in VECTOR_POSITIONS and src0.pos in VECTOR_POSITIONS
                and src1.pos in VECTOR_POSITIONS and dst.c is c and src0.c is c
                and src1.c is c):  # (the entry's views are of this core's memory)
            # the same instruction on the same slots from the same call site (a loop): one
            # entry, built once, holding the shared Event and the operands' numpy views; the
            # key holds the site's code id and bytecode offset (the entry keeps the code object
            # alive, so the id stays unique), not the costlier line
            key = (op, dt, da, a0, a1, n, dst.name, src0.name, src1.name, id(frame.f_code),
                   frame.f_lasti)
            got = c.memo.get(key)
            if got is None:
                got = c.memo[key] = _fast_entry(c, op, dt, n, dst, src0, src1, frame)
            ev, spans, d, x0, x1, on_torch, _ = got
            if type(fn) is not np.ufunc:
                d[...] = fn(x0, x1, d)
            elif not (on_torch and torch_f16(op, x0, x1, d)):
                fn(x0, x1, out=d)
            if c.launch.auto_sync:
                order_vector(c, spans, frame)
            c.append(ev)
            return
    c = current_vector_core(frame)
    vec_operand(op, dst, "dst", c, frame)
    vec_operand(op, src0, "src0", c, frame)
    vec_operand(op, src1, "src1", c, frame)
    dtype_check(op, allowed, c, frame, dst, src0, src1)
    f = parse_form(op, args, kwargs, BinaryRepeatParams, 256 // dst.dtype.itemsize, c, frame)
    p = f.params
    strides = ((p[0], p[3]), (p[1], p[4]), (p[2], p[5])) if p else ()
    execute(c, op, dst, (src0, src1), f, strides, fn, op in READS_DST, frame)


def unary(op: str, dst: Any, src: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    """A one-source instruction of UNARY in any of its forms."""
    c = current_vector_core(frame)
    fn, allowed = UNARY[op]
    vec_operand(op, dst, "dst", c, frame)
    vec_operand(op, src, "src", c, frame)
    dtype_check(op, allowed, c, frame, dst, src)
    f = parse_form(op, args, kwargs, UnaryRepeatParams, 256 // dst.dtype.itemsize, c, frame)
    p = f.params
    strides = ((p[0], p[2]), (p[1], p[3])) if p else ()
    execute(c, op, dst, (src,), f, strides, lambda a, d: fn(a), False, frame)


def scalar_op(op: str, dst: Any, src: Any, scalar: Any, args: tuple, kwargs: dict,
              frame: Any) -> None:
    """A tensor-scalar instruction of SCALAR; the scalar is cast to the tensor dtype first."""
    c = current_vector_core(frame)
    fn, allowed = SCALAR[op]
    vec_operand(op, dst, "dst", c, frame)
    vec_operand(op, src, "src", c, frame)
    dtype_check(op, allowed, c, frame, dst, src)
    s = cast_scalar(scalar, src.dtype, op)
    f = parse_form(op, args, kwargs, UnaryRepeatParams, 256 // dst.dtype.itemsize, c, frame)
    p = f.params
    strides = ((p[0], p[2]), (p[1], p[3])) if p else ()
    execute(c, op, dst, (src,), f, strides, lambda a, d: fn(a, s), False, frame,
            (("scalar", s.item()),))


def cast_scalar(value: Any, dtype: DataType, op: str) -> Any:
    """A kernel scalar converted to the tensor dtype, as pyasc materialises it."""
    try:
        return np.asarray(value).astype(dtype.np)[()]
    except (TypeError, ValueError):
        raise TypeError(f"{op}: scalar {value!r} cannot be converted to {dtype.name}") from None


def axpy(dst: Any, src: Any, scalar: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    """dst = src * scalar + dst (float16 src may accumulate into a float32 dst)."""
    op = "axpy"
    c = current_vector_core(frame)
    vec_operand(op, dst, "dst", c, frame)
    vec_operand(op, src, "src", c, frame)
    pair = (src.dtype.name, dst.dtype.name)
    if pair not in (("float16", "float16"), ("float32", "float32"), ("float16", "float32")):
        raise DTypeError(f"axpy: src {pair[0]} -> dst {pair[1]} is not supported (float16, "
                         f"float32, or float16 src with float32 dst)")
    s = cast_scalar(scalar, src.dtype, op)
    wide = 256 // max(src.dtype.itemsize, dst.dtype.itemsize)
    f = parse_form(op, args, kwargs, UnaryRepeatParams, wide, c, frame)
    p = f.params
    strides = ((p[0], p[2]), (p[1], p[3])) if p else ()

    def compute(a: np.ndarray, d: np.ndarray) -> np.ndarray:
        return (a.astype(np.float64) * s + d).astype(d.dtype)  # one rounding (assumption)

    execute(c, op, dst, (src,), f, strides, compute, True, frame,
            (("scalar", s.item()), ("src_dtype", src.dtype.name)))


def duplicate(dst: Any, scalar: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    """Fill: duplicate(dst, scalar, count) or duplicate(dst, scalar, mask, repeat_times,
    dst_block_stride, dst_repeat_stride)."""
    op = "duplicate"
    c = current_vector_core(frame)
    vec_operand(op, dst, "dst", c, frame)
    dtype_check(op, ANY_NUM, c, frame, dst)
    s = cast_scalar(scalar, dst.dtype, op)
    lanes = 256 // dst.dtype.itemsize
    if not kwargs and len(args) == 1:
        f = Form()
        f.count = _count(op, args[0], c, frame)
        strides: tuple = ()
    else:
        names = ("mask", "repeat_times", "dst_block_stride", "dst_repeat_stride", "is_set_mask")
        bound = dict(zip(names, args))
        bound.update(kwargs)
        if "count" in bound:
            f = Form()
            f.count = _count(op, bound["count"], c, frame)
            strides = ()
        else:
            params = (int(bound.get("dst_block_stride", 1)), int(bound.get("dst_repeat_stride", 8)))
            f = _repeat_form(op, Form(), bound["mask"], int(bound["repeat_times"]),
                             UnaryRepeatParams(params[0], 1, params[1], 8),
                             bool(bound.get("is_set_mask", True)), lanes, c, frame)
            strides = ((params[0], params[1]),)
    execute(c, op, dst, (), f, strides, lambda d: np.full(d.shape, s, dtype=d.dtype), False,
            frame, (("scalar", s.item()),))


__all__ = ["BINARY", "SCALAR", "UNARY", "VECTOR_OPS", "Form", "axpy", "bind_overload", "binary",
           "cast_scalar", "current_vector_core", "dtype_check", "duplicate", "execute",
           "mask_lanes", "parse_form", "plan", "scalar_op", "span_check", "unary",
           "vec_operand"]
