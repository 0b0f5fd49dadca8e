"""Vector compare (to a bitmask in UB) and select (by a bitmask).

compare(dst, src0, src1, cmp_mode, count | mask, repeat_times, BinaryRepeatParams[, is_set_mask])
select(dst, sel_mask, src0, src1, sel_mode, count | mask, repeat_times, BinaryRepeatParams
       [, is_set_mask])

Facts relied on (asc-devkit docs/api/context Compare.md, Select.md; CCE intrinsics vcmpv /
vsel; pyasc docs asc.language.basic.compare / select):
- compare: src float16 / float32 with every CMPMODE, int32 with CMPMODE.EQ only; dst uint8 or
  int8 holding one bit per element, little-endian (element j is bit j % 8 of byte j // 8). The
  count form needs count * sizeof(T) to be a multiple of 256 B. On Atlas A2 the mask argument
  is reserved and has no effect (Compare.md; vcmpv "has no MASK parameter"): every lane of every
  repeat is compared, and repeat i's 256 / sizeof(T) bits go to dst bytes [i * 32 / sizeof(T),
  (i + 1) * 32 / sizeof(T)) ("new dst = dst + 16 B" for f16, 8 B for f32) - so dst's block and
  repeat strides are not used (an assumption for the Ascend C wrapper, which passes them on).
- select: dst/src0/src1 float16 / float32, sel_mask uint8/16/32/64; a set bit picks src0, a
  clear bit src1. VSEL_CMPMASK_SPR (mode 0): every repeat uses the same first 256 / sizeof(T)
  bits of sel_mask, also in the count form. VSEL_TENSOR_SCALAR_MODE (1, src1 is a scalar cast to
  T) and VSEL_TENSOR_TENSOR_MODE (2) consume sel_mask continuously: repeat i uses bits
  [i * 256 / sizeof(T), (i + 1) * 256 / sizeof(T)), lane l of it bit i * 256 / sizeof(T) + l.
  Lanes the mask leaves out keep dst's value.

The register forms (compare(src0, src1, cmp_mode, mask, repeat_params) writing the cmpMask
register, select without a mask or count reading it) are in vector/cmpreg.py. The 8 KB of UB
that Select modes 1/2 reserve as scratch on A2 is not modelled. NaN compares false except with NE.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import DTypeError, ParamError
from .. import core as _core
from ..core import access, check_vector_order, emit
from ..enums import CMPMODE, SelMode
from ..memory.tensor import LocalTensor
from ..params import BinaryRepeatParams
from ..trace import register_op
from . import elementwise as _vec
from .cmpreg import compare_to_register, is_register_select, select_register_form
from .reduce import repeat_access

_getframe = sys._getframe

CMP_DTYPES = frozenset({"float16", "float32", "int32"})
MASK_DTYPES = frozenset({"uint8", "int8"})
SEL_DTYPES = frozenset({"float16", "float32"})
SEL_MASK_DTYPES = frozenset({"uint8", "uint16", "uint32", "uint64"})

COMPARE = {
    CMPMODE.LT: np.less, CMPMODE.GT: np.greater, CMPMODE.EQ: np.equal,
    CMPMODE.LE: np.less_equal, CMPMODE.GE: np.greater_equal, CMPMODE.NE: np.not_equal,
}

vector_ops = {"compare": "compare", "select": "elementwise"}
for _op, _klass in vector_ops.items():
    register_op(_op, "V", _klass, flops_per_elem=1, module=__name__)


def _head(op: str, names: tuple[str, ...], args: tuple, kwargs: dict) -> tuple[dict, tuple]:
    """Bind the leading parameters (positional or keyword); the rest stay for the form."""
    head = dict(zip(names, args))
    for k in names:
        if k in kwargs:
            if k in head:
                raise TypeError(f"{op}() got multiple values for argument {k!r}")
            head[k] = kwargs.pop(k)
    missing = [k for k in names if k not in head]
    if missing:
        raise TypeError(f"{op}: missing argument(s) {', '.join(missing)}")
    return head, args[len(names):]


def _enum(op: str, enum: Any, name: str, value: Any, c: Any, frame: Any) -> Any:
    try:
        return enum(int(value))
    except (TypeError, ValueError):
        names = ", ".join(m.name for m in enum)
        raise ParamError(f"{op}: {name}={value!r} is not a {enum.__name__} ({names}) "
                         f"{_core.where(c, frame)}") from None


def _ub_bytes(c: Any, t: LocalTensor) -> np.ndarray:
    """The bytes of t's memory (shared with every typed view of it)."""
    return c.mem(t.space)


# ---- compare ------------------------------------------------------------------------------
def count_repeats(op: str, n: int, isz: int, c: Any, frame: Any) -> int:
    """The repeats of a compare's count form: count * sizeof(T) must be whole 256 B repeats."""
    if n < 0 or (n * isz) % 256:
        raise ParamError(f"{op}: count={n} x {isz} B = {n * isz} B is not a multiple of "
                         f"256 B; the count form of {op} processes whole 256 B repeats "
                         f"{_core.where(c, frame)}")
    return n * isz // 256


def repeat_params(op: str, b: dict, cls: type, c: Any) -> tuple[int, Any]:
    """(repeat_times, repeat_params) of a mask form, checked: params of type `cls` with every
    field in [0, 255], repeat_times in [0, the chip's maximum]."""
    p = b["repeat_params"]
    if not isinstance(p, cls):
        raise TypeError(f"{op}: repeat_params must be {cls.__name__}, got {type(p).__name__}")
    R = b["repeat_times"].__index__()
    if not 0 <= R <= c.chip.max_repeat_times:
        raise ParamError(f"{op}: repeat_times={R} is outside [0, {c.chip.max_repeat_times}]")
    for i, v in enumerate(p):
        if not 0 <= int(v) <= 255:
            raise ParamError(f"{op}: {cls.__name__}.{p._fields[i]}={v} is outside [0, 255]")
    return R, p


def store_bits(op: str, c: Any, dst: LocalTensor, n: int, compute: Any, frame: Any) -> tuple:
    """Write compute()'s n booleans to dst as little-endian bits; returns dst's write Access."""
    nb = n // 8
    if n:
        _vec.span_check(op, dst, nb, "dst", c, frame)
        with np.errstate(invalid="ignore"):
            bits = compute()
        _ub_bytes(c, dst)[dst.addr:dst.addr + nb] = np.packbits(bits, bitorder="little")
    return (access("UB", dst.addr, nb, dst.name, 1, 0),)


def check_sources(op: str, src0: LocalTensor, src1: LocalTensor, cmp_mode: Any, c: Any,
                  frame: Any) -> CMPMODE:
    """compare's source dtype rules; returns the CMPMODE."""
    mode = _enum(op, CMPMODE, "cmp_mode", cmp_mode, c, frame)
    st = src0.dtype
    if st.name not in CMP_DTYPES:
        raise DTypeError(f"{op}: src0 {src0.describe()} is {st.name}; supported: float16, "
                         "float32, int32 (CMPMODE.EQ only)")
    if src1.dtype != st:
        raise DTypeError(f"{op}: src1 {src1.describe()} is {src1.dtype.name} but src0 is "
                         f"{st.name}; sources must have the same dtype")
    if st.name == "int32" and mode != CMPMODE.EQ:
        raise DTypeError(f"{op}: int32 sources support only CMPMODE.EQ, got {mode.name}")
    return mode


def compare(*args: Any, **kwargs: Any) -> None:
    """compare(dst, src0, src1, cmp_mode, count) or compare(dst, src0, src1, cmp_mode, mask,
    repeat_times, BinaryRepeatParams[, is_set_mask]): dst bit j = src0[j] <cmp_mode> src1[j]."""
    frame = _getframe(1)
    op = "compare"
    if (len(args) >= 3 and not isinstance(args[2], LocalTensor)) or (
            "repeat_params" in kwargs and "repeat_times" not in kwargs and len(args) < 6):
        compare_to_register(args, kwargs, frame, COMPARE, check_sources)
        return
    head, rest = _head(op, ("dst", "src0", "src1", "cmp_mode"), args, kwargs)
    c = _vec.current_vector_core(frame)
    dst = _vec.vec_operand(op, head["dst"], "dst", c, frame)
    src0 = _vec.vec_operand(op, head["src0"], "src0", c, frame)
    src1 = _vec.vec_operand(op, head["src1"], "src1", c, frame)
    mode = check_sources(op, src0, src1, head["cmp_mode"], c, frame)
    st = src0.dtype
    if dst.dtype.name not in MASK_DTYPES:
        raise DTypeError(f"{op}: dst {dst.describe()} is {dst.dtype.name}; the bitmask dst must "
                         "be uint8 or int8")
    isz = st.itemsize
    L = 256 // isz
    b = _vec.bind_overload(("mask", "repeat_times", "repeat_params", "is_set_mask"), 3, rest,
                           kwargs)
    fn = COMPARE[mode]
    if b is not None:
        R, p = repeat_params(op, b, BinaryRepeatParams, c)
        lanes = tuple(range(L))
        i0 = _vec.plan(lanes, R, 32 // isz, int(p.src0_blk_stride), int(p.src0_rep_stride))
        i1 = _vec.plan(lanes, R, 32 // isz, int(p.src1_blk_stride), int(p.src1_rep_stride))
        n = R * L
        if n:
            _vec.span_check(op, src0, int(i0.max()) + 1, "src0", c, frame)
            _vec.span_check(op, src1, int(i1.max()) + 1, "src1", c, frame)
            a, bb = src0.arr[i0 + src0.e0], src1.arr[i1 + src1.e0]
        reads = (repeat_access(src0, i0, R, L, int(p.src0_rep_stride)),
                 repeat_access(src1, i1, R, L, int(p.src1_rep_stride)))
        out_args: tuple = (("mask", b["mask"]), ("repeat_times", R), ("params", tuple(p)))
    else:
        b = _vec.bind_overload(("count",), 1, rest, kwargs)
        if b is None:
            raise TypeError(f"{op}: expected (dst, src0, src1, cmp_mode, count) or (..., mask, "
                            "repeat_times, repeat_params[, is_set_mask])")
        n = b["count"].__index__()
        R = count_repeats(op, n, isz, c, frame)
        if n:
            _vec.span_check(op, src0, n, "src0", c, frame)
            _vec.span_check(op, src1, n, "src1", c, frame)
            a, bb = src0.arr[src0.e0:src0.e0 + n], src1.arr[src1.e0:src1.e0 + n]
        reads = (access("UB", src0.addr, n * isz, src0.name, 1, 0),
                 access("UB", src1.addr, n * isz, src1.name, 1, 0))
        out_args = (("count", n),)
    writes = store_bits(op, c, dst, n, lambda: fn(a, bb), frame)
    if c.launch.auto_sync:
        check_vector_order(c, reads, writes, frame)
    emit(c, "V", op, reads, writes, n, st.name, R, frame, None,
         out_args + (("cmp_mode", mode.name),))


# ---- select -------------------------------------------------------------------------------
def select(*args: Any, **kwargs: Any) -> None:
    """select(dst, sel_mask, src0, src1, sel_mode, count) or select(dst, sel_mask, src0, src1,
    sel_mode, mask, repeat_times, BinaryRepeatParams[, is_set_mask]); src1 is a tensor for
    VSEL_CMPMASK_SPR / VSEL_TENSOR_TENSOR_MODE and a scalar for VSEL_TENSOR_SCALAR_MODE."""
    frame = _getframe(1)
    op = "select"
    # the register forms (vector/cmpreg.py); the tensor forms always pass a mask or count
    if is_register_select(args, kwargs):
        select_register_form(args, kwargs, frame)
        return
    head, rest = _head(op, ("dst", "sel_mask", "src0", "src1", "sel_mode"), args, kwargs)
    c = _vec.current_vector_core(frame)
    dst = _vec.vec_operand(op, head["dst"], "dst", c, frame)
    sel = _vec.vec_operand(op, head["sel_mask"], "sel_mask", c, frame)
    src0 = _vec.vec_operand(op, head["src0"], "src0", c, frame)
    mode = _enum(op, SelMode, "sel_mode", head["sel_mode"], c, frame)
    scalar_mode = mode == SelMode.VSEL_TENSOR_SCALAR_MODE
    src1 = head["src1"]
    if scalar_mode == isinstance(src1, LocalTensor):
        want = "a scalar" if scalar_mode else "a LocalTensor"
        raise ParamError(f"{op}: sel_mode {mode.name} takes {want} src1, got "
                         f"{type(src1).__name__}")
    dt = dst.dtype
    if dt.name not in SEL_DTYPES:
        raise DTypeError(f"{op}: dst {dst.describe()} is {dt.name}; supported: float16, float32")
    others = (("src0", src0),) if scalar_mode else (("src0", src0), ("src1", src1))
    if not scalar_mode:
        _vec.vec_operand(op, src1, "src1", c, frame)
    for role, t in others:
        if t.dtype != dt:
            raise DTypeError(f"{op}: {role} {t.describe()} is {t.dtype.name} but dst is "
                             f"{dt.name}; operands must have the same dtype")
    if sel.dtype.name not in SEL_MASK_DTYPES:
        raise DTypeError(f"{op}: sel_mask {sel.describe()} is {sel.dtype.name}; supported: "
                         f"{', '.join(sorted(SEL_MASK_DTYPES))}")
    s = _vec.cast_scalar(src1, dt, op) if scalar_mode else None
    isz = dt.itemsize
    L = 256 // isz
    f = _vec.parse_form(op, rest, kwargs, BinaryRepeatParams, L, c, frame)
    srcs = (src0,) if scalar_mode else (src0, src1)
    if f.count >= 0:
        n = f.count
        for role, t in (("dst", dst),) + others:
            if n:
                _vec.span_check(op, t, n, role, c, frame)
        pos = np.arange(n, dtype=np.int64)
        if mode == SelMode.VSEL_CMPMASK_SPR:
            pos %= L
        gathered = [t.arr[t.e0:t.e0 + n] for t in srcs]
        target = slice(dst.e0, dst.e0 + n)
        reads = tuple(access("UB", t.addr, n * isz, t.name, 1, 0) for t in srcs)
        w = access("UB", dst.addr, n * isz, dst.name, 1, 0)
        repeats = -(-n * isz // 256)
        out_args: tuple = (("count", n),)
    else:
        p = f.params
        strides = ((p[0], p[3]), (p[1], p[4]), (p[2], p[5]))
        R, lanes, per = f.repeats, f.lanes, 32 // isz
        idxs = [_vec.plan(lanes, R, per, blk, rep, f.tail) for blk, rep in strides]
        n = len(idxs[0])
        for (role, t), idx in zip((("dst", dst),) + others, idxs):
            if n:
                _vec.span_check(op, t, int(idx.max()) + 1, role, c, frame)
        cols = np.tile(np.asarray(lanes, dtype=np.int64), R)[:n]
        if mode == SelMode.VSEL_CMPMASK_SPR:
            pos = cols
        else:
            pos = np.repeat(np.arange(R, dtype=np.int64), len(lanes))[:n] * L + cols
        gathered = [t.arr[i + t.e0] for t, i in zip(srcs, idxs[1:])]
        target = idxs[0] + dst.e0
        reads = tuple(repeat_access(t, i, R, len(lanes), st[1])
                      for t, i, st in zip(srcs, idxs[1:], strides[1:]))
        w = repeat_access(dst, idxs[0], R, len(lanes), strides[0][1])
        repeats = R
        out_args = (("lanes", lanes), ("repeat_times", R), ("params", f.params),
                    ("counter", f.counter), ("tail", f.tail))
    nbits = int(pos.max()) + 1 if n else 0
    nb = -(-nbits // 8)
    if n:
        _vec.span_check(op, sel, -(-nb // sel.dtype.itemsize), "sel_mask", c, frame)
        raw = _ub_bytes(c, sel)[sel.addr:sel.addr + nb]
        pick = np.unpackbits(raw, bitorder="little").view(bool)[pos]
        other = s if scalar_mode else gathered[1]
        dst.arr[target] = np.where(pick, gathered[0], other)
    reads += (access("UB", sel.addr, nb, sel.name, 1, 0),)
    out_args += (("sel_mode", mode.name),)
    if scalar_mode:
        out_args += (("scalar", s.item()),)
    if c.launch.auto_sync:
        check_vector_order(c, reads, (w,), frame)
    emit(c, "V", op, reads, (w,), n, dt.name, repeats, frame, None, out_args)


__all__ = ["COMPARE", "check_sources", "compare", "count_repeats", "select", "store_bits"]
