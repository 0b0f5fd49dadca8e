"""cast_deq: int16 -> int8 / uint8 quantisation with the DEQSCALE parameters.

cast_deq(dst, src, count[, is_vec_deq, half_block]) or cast_deq(dst, src, mask, repeat_times,
UnaryRepeatParams[, is_set_mask, is_vec_deq, half_block]); pyasc's defaults is_vec_deq=True,
half_block=True.

Facts relied on (Ascend C docs CastDeq, SetDeqScale; pyasc asc.language.basic.vec_vconv):
- src int16, dst int8 (signMode true) or uint8 (signMode false);
- is_vec_deq=False uses the (scale, offset, sign_mode) of set_deq_scale(scale, offset,
  sign_mode); is_vec_deq=True the 16 triples that set_deq_scale(vdeq, vdeq_info) wrote into
  the 128 B vdeq tensor, used cyclically; offset is a signed 9-bit value (sysvar.deq_config);
- each 32 B block of src (16 int16) yields 16 bytes, stored in the lower half of the matching
  32 B dst block when half_block is True, in the upper half when False.

ASSUMPTIONS (the docs give the formula as an image the emulator's sources do not carry):
result = saturate(rint(float32(x) * scale) + offset) to int8 / uint8, rounding half to even;
element j uses triple j % 16 in the vector form; the other half of each dst block keeps its
bytes; the repeat form's strides count 32 B blocks of each operand (dst blocks hold 16 results).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import DTypeError, ParamError
from .. import core as _core
from ..core import access, check_vector_order, emit
from ..params import UnaryRepeatParams
from ..trace import register_op
from . import elementwise as _vec
from .reduce import repeat_access

_getframe = sys._getframe

register_op("cast_deq", "V", "convert", flops_per_elem=2, replayable=False,
            module=__name__)


def _unpack(word: int) -> tuple[float, int, bool]:
    scale = float(np.array([word & 0xFFFFFFFF], np.uint32).view(np.float32)[0])
    off = (word >> 37) & 0x1FF
    return scale, off - 512 if off & 0x100 else off, bool((word >> 46) & 1)


def deq_params(c: Any, vec: bool, frame: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """16 (scale, offset, sign_mode) rows (one repeated 16 times for the scalar form)."""
    value = c.lib.get("deq_scale")
    want = "vdeq" if vec else "config"
    if value is None or value[0] != want:
        form = ("set_deq_scale(vdeq, vdeq_info)" if vec
                else "set_deq_scale(scale, offset, sign_mode)")
        got = "nothing" if value is None else f"the {value[0]} form"
        raise ParamError(f"cast_deq(is_vec_deq={vec}) reads the DEQSCALE of {form}, but {got} "
                         f"was set {_core.where(c, frame)}")
    if vec:
        words = c.mem("UB")[value[1]:value[1] + 128].copy().view(np.uint64)
        rows = [_unpack(int(w)) for w in words]
    else:
        rows = [_unpack(int(value[1]))] * 16
    s, o, m = zip(*rows)
    return np.array(s, np.float32), np.array(o, np.int64), np.array(m, bool)


def cast_deq(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """See the module docstring."""
    frame = _getframe(1)
    op = "cast_deq"
    c = _vec.current_vector_core(frame)
    dst = _vec.vec_operand(op, dst, "dst", c, frame)
    src = _vec.vec_operand(op, src, "src", c, frame)
    if src.dtype.name != "int16" or dst.dtype.name not in ("int8", "uint8"):
        raise DTypeError(f"{op}: {src.dtype.name} -> {dst.dtype.name} is not supported; "
                         "supported: int16 -> int8, int16 -> uint8")
    repeat_form = len(args) >= 3 and isinstance(args[2], UnaryRepeatParams) or (
        "repeat_params" in kwargs)
    n_form = 4 if repeat_form else 1
    extra = dict(zip(("is_vec_deq", "half_block"), args[n_form:]))
    for k in ("is_vec_deq", "half_block"):
        if k in kwargs:
            extra[k] = kwargs.pop(k)
    vec, half = bool(extra.get("is_vec_deq", True)), bool(extra.get("half_block", True))
    f = _vec.parse_form(op, args[:n_form], kwargs, UnaryRepeatParams, 128, c, frame)
    scale, offset, signed = deq_params(c, vec, frame)
    half_off = 0 if half else 16
    if f.count >= 0:
        lanes, R, (db, dr, sb, sr) = tuple(range(f.count)), 1, (1, 0, 1, 0)
    else:
        lanes, R = f.lanes, f.repeats
        db, sb, dr, sr = f.params
    dlanes = tuple((x // 16) * 32 + x % 16 + half_off for x in lanes)
    si = _vec.plan(lanes, R, 16, sb, sr, f.tail)
    di = _vec.plan(dlanes, R, 32, db, dr, f.tail)
    n = len(si)
    if n:
        _vec.span_check(op, src, int(si.max()) + 1, "src", c, frame)
        _vec.span_check(op, dst, int(di.max()) + 1, "dst", c, frame)
        want_signed = dst.dtype.name == "int8"
        if bool(signed.any()) != want_signed or bool(signed.all()) != want_signed:
            raise ParamError(f"{op}: dst {dst.describe()} is {dst.dtype.name} but DEQSCALE's "
                             f"sign_mode is {signed.tolist() if vec else bool(signed[0])} "
                             "(int8 needs True, uint8 False)")
        k = np.tile(np.asarray(lanes, np.int64) % 16, R)[:n]
        x = src.arr[si + src.e0].astype(np.float32)
        r = np.rint(x * scale[k]).astype(np.int64) + offset[k]
        info = np.iinfo(dst.arr.dtype)
        dst.arr[di + dst.e0] = np.clip(r, info.min, info.max).astype(dst.arr.dtype)
    if f.count >= 0:
        reads = (access("UB", src.addr, n * 2, src.name, 1, 0),)
        writes = (access("UB", dst.addr, int(di.max()) + 1 if n else 0, dst.name, 1, 0),)
    else:
        reads = (repeat_access(src, si, R, len(lanes), sr),)
        writes = (repeat_access(dst, di, R, len(lanes), dr),)
    if vec:
        reads += (access("UB", c.lib["deq_scale"][1], 128, "vdeq", 1, 0),)
    if c.launch.auto_sync:
        check_vector_order(c, reads, writes, frame)
    emit(c, "V", op, reads, writes, n, "int16", max(R, -(-n * 2 // 256)), frame, None,
         (("is_vec_deq", vec), ("half_block", half)))


__all__ = ["cast_deq", "deq_params"]
