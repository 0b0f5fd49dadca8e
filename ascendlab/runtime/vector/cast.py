"""Vector precision conversion: cast(dst, src, round_mode, count | mask, repeat_times,
UnaryRepeatParams[, is_set_mask]).

Supported (src, dst) pairs and round modes are the Ascend C Cast table for Atlas A2 (910B,
asc-devkit docs/api/context/Cast.md, table 4), restricted to the dtypes pyasc has (no
bfloat16 / int4). The same table is applied to every emulated chip (the 310P table differs).
int32 -> float16 needs set_deq_scale (Cast with a deq scale) and is not emulated.

Rounding (Cast.md): CAST_RINT half to even, CAST_FLOOR / CAST_CEIL toward -inf / +inf,
CAST_ROUND half away from zero, CAST_TRUNC toward zero, CAST_ODD (von Neumann) an inexact
result takes the neighbour whose last mantissa bit is 1, CAST_NONE is CAST_RINT when the
conversion loses precision and exact otherwise. Every conversion is rounded exactly once:
the source value is held exactly in float64 (int64 sources use a round-to-odd proxy that
keeps every rounding decision), numpy gives the nearest-even neighbour, and the directed
modes pick between the two neighbours.

Overflow saturates (Cast.md: "溢出默认按照饱和处理"): a finite value beyond the float16 range
becomes +-65504 in every mode, float -> integer clamps to the integer range. Assumptions (not
in the docs): NaN -> integer gives 0, +-inf -> integer gives the range limit, +-inf and NaN stay
inf / NaN in float -> float, a negative value cast to uint8 (an "exception" in the docs)
clamps to 0, and float16 subnormals are kept (no flush to zero).

Mixed widths: the wider type decides the lanes per repeat (64 when one side is 32-bit); each
operand packs 32 B / its own element size lanes per block, as vector.execute does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import DTypeError, ParamError
from .. import core as _core
from ..enums import RoundMode
from ..params import UnaryRepeatParams
from ..trace import register_op
from . import elementwise as _vec

_getframe = sys._getframe

NONE, RINT, FLOOR, CEIL = (RoundMode.CAST_NONE, RoundMode.CAST_RINT, RoundMode.CAST_FLOOR,
                           RoundMode.CAST_CEIL)
ROUND, TRUNC, ODD = RoundMode.CAST_ROUND, RoundMode.CAST_TRUNC, RoundMode.CAST_ODD
_D5 = frozenset({RINT, FLOOR, CEIL, ROUND, TRUNC})
_N = frozenset({NONE})

# (src, dst) -> round modes the Atlas A2 Cast table accepts.
SUPPORTED: dict[tuple[str, str], frozenset[RoundMode]] = {
    ("float16", "float32"): _N,
    ("float16", "int32"): _D5,
    ("float16", "int16"): _D5,
    ("float16", "int8"): _D5 | _N,
    ("float16", "uint8"): _D5 | _N,
    ("float32", "float32"): _D5,
    ("float32", "float16"): _D5 | {ODD, NONE},
    ("float32", "int32"): _D5,
    ("float32", "int16"): _D5,
    ("float32", "int64"): _D5,
    ("uint8", "float16"): _N,
    ("int8", "float16"): _N,
    ("int16", "float16"): _D5 | _N,
    ("int16", "float32"): _N,
    ("int32", "float32"): _D5 | _N,
    ("int32", "int16"): _N,
    ("int32", "int64"): _N,
    ("int64", "int32"): _N,
    ("int64", "float32"): _D5,
}

# Conversions that never lose precision (numpy's cast is exact for them).
_EXACT = frozenset({("float16", "float32"), ("uint8", "float16"), ("int8", "float16"),
                    ("int16", "float32")})

vector_ops = {"cast": "convert"}
for _op, _klass in vector_ops.items():
    register_op(_op, "V", _klass, flops_per_elem=0, module=__name__)


# ---- rounding kernels (vectorized, exact) -------------------------------------------------
def round_to_float(x: np.ndarray, target: np.dtype, mode: RoundMode) -> np.ndarray:
    """x rounded once to float16/float32. numpy's cast gives the nearest (ties to even)
    directly; the directed modes compare it with x held exactly in float64 (int64 through a
    proxy that keeps every rounding decision)."""
    with np.errstate(over="ignore", invalid="ignore"):
        n = x.astype(target)  # nearest, ties to even
        if mode not in (RINT, NONE):
            if x.dtype == np.int64:
                x = _int64_proxy(x)
                n = x.astype(target)
            else:
                x = x.astype(np.float64)
            n64 = n.astype(np.float64)
            below = n64 < x  # n is the lower neighbour
            inexact = below | (n64 > x)
            if inexact.any():
                toward = np.where(below, np.inf, -np.inf).astype(target)
                other = np.nextafter(n, toward)
                lo = np.where(below, n, other)
                hi = np.where(below, other, n)
                if mode == FLOOR:
                    pick = lo
                elif mode == CEIL:
                    pick = hi
                elif mode == TRUNC:
                    pick = np.where(x > 0, lo, hi)
                elif mode == ROUND:
                    tie = (x - lo.astype(np.float64)) == (hi.astype(np.float64) - x)
                    pick = np.where(tie, np.where(x > 0, hi, lo), n)
                else:  # ODD: the neighbour whose last mantissa bit is 1
                    bits = lo.view(np.uint16 if target == np.float16 else np.uint32)
                    pick = np.where(bits & 1, lo, hi)
                n = np.where(inexact, pick, n)
        over = np.isinf(n)
        if over.any():  # a finite overflow saturates to the largest finite value
            over &= np.isfinite(x)
            n = np.where(over, np.copysign(np.finfo(target).max, x).astype(target), n)
    return n


def round_to_int(x: np.ndarray, target: np.dtype, mode: RoundMode) -> np.ndarray:
    """float16/float32 x rounded per mode, clamped to the integer range of target."""
    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        if mode in (RINT, NONE):
            r = np.rint(x64)
        elif mode == FLOOR:
            r = np.floor(x64)
        elif mode == CEIL:
            r = np.ceil(x64)
        elif mode == TRUNC:
            r = np.trunc(x64)
        else:  # ROUND: half away from zero
            t = np.trunc(x64)
            r = np.where(np.abs(x64 - t) >= 0.5, t + np.sign(x64), t)
        r = np.where(np.isnan(r), 0.0, r)
        info = np.iinfo(target)
        if info.bits < 64:
            return np.clip(r, info.min, info.max).astype(target)
        top = r >= 2.0**63  # int64: 2**63 - 1 is not a float64
        out = np.clip(r, -(2.0**63), 2.0**63 - 1024).astype(target)
        if top.any():
            out[top] = info.max
        return out


def _int64_proxy(x: np.ndarray) -> np.ndarray:
    """float64 stand-in for int64 x: exact below 2**53, else the magnitude's low 12 bits are
    folded into a sticky bit, which preserves every rounding to <= 40 significant bits."""
    u = x.view(np.uint64)
    neg = x < 0
    m = np.where(neg, ~u + np.uint64(1), u)
    big = m >= np.uint64(1 << 53)
    if big.any():
        sticky = ((m & np.uint64(0xFFF)) != 0).astype(np.uint64) << np.uint64(11)
        m = np.where(big, ((m >> np.uint64(12)) << np.uint64(12)) | sticky, m)
    v = m.astype(np.float64)
    return np.where(neg, -v, v)


def _round_integral(x: np.ndarray, mode: RoundMode) -> np.ndarray:
    """float32 -> float32 rounded to an integral value (exact, keeps -0.0)."""
    if mode == RINT:
        return np.rint(x)
    if mode == FLOOR:
        return np.floor(x)
    if mode == CEIL:
        return np.ceil(x)
    t = np.trunc(x)
    if mode == TRUNC:
        return t
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def converter(src: str, dst: str, mode: RoundMode) -> Callable[[np.ndarray], np.ndarray]:
    """The numpy function of one supported (src, dst, mode) conversion."""
    sd, dd = np.dtype(src), np.dtype(dst)
    if dd.kind == "f":
        if src == dst:
            return lambda a: _round_integral(a, mode)
        if (src, dst) in _EXACT:
            return lambda a: a.astype(dd)
        return lambda a: round_to_float(a, dd, mode)
    if sd.kind == "f":
        return lambda a: round_to_int(a, dd, mode)
    info = np.iinfo(dd)  # integer -> integer: saturate
    return lambda a: np.clip(a.astype(np.int64), info.min, info.max).astype(dd)


# ---- the instruction ----------------------------------------------------------------------
def _round_mode(value: Any, c: Any, frame: Any) -> RoundMode:
    try:
        return RoundMode(int(value))
    except (TypeError, ValueError):
        names = ", ".join(m.name for m in RoundMode)
        raise ParamError(f"cast: round_mode={value!r} is not a RoundMode ({names}) "
                         f"{_core.where(c, frame)}") from None


def cast(*args: Any, **kwargs: Any) -> None:
    """cast(dst, src, round_mode, count) or cast(dst, src, round_mode, mask, repeat_times,
    UnaryRepeatParams[, is_set_mask]): dst = src converted to dst's dtype."""
    frame = _getframe(1)
    op = "cast"
    head = dict(zip(("dst", "src", "round_mode"), args))
    rest = args[3:]
    for k in ("dst", "src", "round_mode"):
        if k in kwargs:
            if k in head:
                raise TypeError(f"cast() got multiple values for argument {k!r}")
            head[k] = kwargs.pop(k)
    if len(head) < 3:
        raise TypeError("cast: expected (dst, src, round_mode, count) or (dst, src, round_mode, "
                        "mask, repeat_times, repeat_params[, is_set_mask])")
    dst, src = head["dst"], head["src"]
    c = _vec.current_vector_core(frame)
    _vec.vec_operand(op, dst, "dst", c, frame)
    _vec.vec_operand(op, src, "src", c, frame)
    mode = _round_mode(head["round_mode"], c, frame)
    pair = (src.dtype.name, dst.dtype.name)
    allowed = SUPPORTED.get(pair)
    if allowed is None:
        if pair == ("int32", "float16"):
            raise NotImplementedError("cast: int32 -> float16 scales by set_deq_scale on the "
                                      "chip (Cast with a deq scale); it is not emulated")
        listing = ", ".join(f"{s}->{d}" for s, d in SUPPORTED)
        raise DTypeError(f"cast: {pair[0]} -> {pair[1]} is not supported (Ascend C Cast table, "
                         f"Atlas A2); supported pairs: {listing} {_core.where(c, frame)}")
    if mode not in allowed:
        modes = ", ".join(m.name for m in sorted(allowed))
        raise ParamError(f"cast: round_mode {mode.name} is not supported for {pair[0]} -> "
                         f"{pair[1]}; supported: {modes} {_core.where(c, frame)}")
    lanes = 256 // max(src.dtype.itemsize, dst.dtype.itemsize)
    f = _vec.parse_form(op, rest, kwargs, UnaryRepeatParams, lanes, c, frame)
    p = f.params
    strides = ((p[0], p[2]), (p[1], p[3])) if p else ()
    fn = converter(pair[0], pair[1], mode)
    _vec.execute(c, op, dst, (src,), f, strides, lambda a, d: fn(a), False, frame,
                 (("round_mode", mode.name), ("src_dtype", pair[0])))
    if f.count > 0 and src.dtype.itemsize > dst.dtype.itemsize:
        # execute() counts count-form repeats by dst's width; the wider src decides here
        trace = c.launch.trace
        ev = trace[-1]
        trace[-1] = ev._replace(repeats=-(-f.count // lanes))


__all__ = ["SUPPORTED", "cast", "converter", "round_to_float", "round_to_int"]
