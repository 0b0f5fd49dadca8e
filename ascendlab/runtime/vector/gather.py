"""Gathers and scatters inside UB on the vector unit: gather (by element), gatherb (by 32 B
block), scatter, and bilinear_interpolation (Ascend C's composition of gatherb, brcb, mul,
add and adds).

Facts relied on (Ascend C API reference Gather, Gatherb, Scatter, BilinearInterpolation;
asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_gather_impl.h, ..._scatter_impl.h,
..._bilinearinterpolation_impl.h; pyasc asc.language.basic.vec_gather / vec_scatter /
vec_binary for the signatures):
- gather(dst, src, src_offset, src_base, count) or (..., mask, repeat_times, dst_rep_stride):
  dst[i] = the element at byte src.addr + src_base + src_offset[i]; offsets are uint32 byte
  offsets (element aligned). A repeat fills the mask's lanes of 256 B of dst (dst_rep_stride
  32 B blocks apart). dtypes: 16- and 32-bit.
- gatherb(dst, src0, offset, repeat_times, GatherRepeatParams(dst_blk_stride=1,
  dst_rep_stride=8)): each repeat reads 8 uint32 byte offsets (32 B aligned, relative to
  src0) and copies those 8 blocks of 32 B to dst block j at (repeat * dst_rep_stride +
  j * dst_blk_stride) * 32 B. dtypes uint16 / uint32; the vector mask is not used.
- scatter(dst, src, dst_offset, dst_base, count | mask, repeat_times, src_rep_stride): the
  inverse of gather (the element of src goes to byte dst.addr + dst_base + dst_offset[i]).
  Ascend C reports it as not supported on the Atlas A2 chips (the NPU build skips it).
- gather_mask(dst, src0, src1_pattern, reduce_mode, mask, GatherMaskParams(src0_block_stride,
  repeat_times, src0_repeat_stride, src1_repeat_stride)[, gather_mask_mode]) -> the count kept:
  each repeat reads 256 B of src0 (block / repeat strides in 32 B blocks) and keeps the
  elements whose pattern bit is 1, packed one after another into dst across repeats. The
  pattern is built in (1: even lanes, 2: odd, 3-6: lane 0-3 of every 4, 7: all) or a uint16
  (16-bit data) / uint32 (32-bit data) tensor read bit by bit, lane i = bit i, one repeat's
  bits after another, repeats src1_repeat_stride blocks apart. In normal mode (reduce_mode
  False) mask is ignored. The call leaves the vector unit in normal mask mode.
  get_gather_mask_remain_count() returns the last call's count.
- bilinear_interpolation(dst, src0, src0_offset, src1, mask, h_repeat, repeat_mode,
  dst_blk_stride, v_r_offset, v_repeat, shared_tmp_buffer), float16: gatherb of
  h_repeat * v_repeat repeats into the tmp buffer, brcb of src1 behind it, one multiply per
  repeat (by src1[i], or by src1[8i + block] with repeat_mode), the h_repeat products of
  each vertical step summed, and the v_repeat sums copied to dst v_r_offset elements apart.
Limitations: gather_mask's counter mode (reduce_mode True) means different things on
different chips (the docs give two readings) and is not emulated (NotImplementedError).
Assumptions: in the mask forms repeat r takes its offsets from
src_offset[r * lanes_per_repeat:] (scatter likewise from dst_offset, and its src
src_rep_stride blocks per repeat); gather / scatter cost one elementwise repeat per 256 B of
dst (src); out-of-UB offsets are errors, offsets outside the source tensor's buffer findings.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from ...errors import AlignmentError, DTypeError, OutOfBoundsError
from .. import core as _core
from ..core import access
from ..memory.tensor import LocalTensor
from ..params import BinaryRepeatParams, UnaryRepeatParams
from ..trace import register_op
from . import elementwise as _vec
from .forms import Form, _repeat_form
from .reduce import _finish, _int, operand
from .sort import is_a2, unsupported

_getframe = sys._getframe

GATHER_DTYPES = frozenset({"float16", "bfloat16", "uint16", "int16", "float32", "uint32",
                           "int32"})
GATHERB_DTYPES = frozenset({"uint16", "uint32"})
for _op in ("gather", "scatter"):
    register_op(_op, "V", "elementwise", dtypes=GATHER_DTYPES, replayable=False,
                module=__name__)
register_op("gatherb", "V", "elementwise", dtypes=GATHERB_DTYPES, replayable=False,
            module=__name__)
register_op("gather_mask", "V", "elementwise", dtypes=GATHER_DTYPES, replayable=False,
            module=__name__)


@dataclass(frozen=True)
class GatherRepeatParams:
    """gatherb's destination strides, in 32 B blocks."""

    dst_blk_stride: int = 1
    dst_rep_stride: int = 8


class GatherMaskMode(IntEnum):
    """pyasc asc.GatherMaskMode (reserved by Ascend C: only DEFAULT)."""

    DEFAULT = 0


@dataclass(frozen=True)
class GatherMaskParams:
    """gather_mask's repeats and strides (32 B blocks)."""

    src0_block_stride: int = 1
    repeat_times: int = 1
    src0_repeat_stride: int = 0
    src1_repeat_stride: int = 0


# built-in patterns: the lanes of each group of 4 that are kept (pattern 1, 2: of each 2)
_BUILTIN = {1: (2, (0,)), 2: (2, (1,)), 3: (4, (0,)), 4: (4, (1,)), 5: (4, (2,)), 6: (4, (3,)),
            7: (1, (0,))}


def _indexed(op: str, dst: Any, src: Any, offs: Any, role: str, c: Any, frame: Any
             ) -> tuple[LocalTensor, LocalTensor, LocalTensor]:
    d = operand(op, dst, "dst", c, frame)
    s = operand(op, src, "src", c, frame)
    o = operand(op, offs, role, c, frame)
    _vec.dtype_check(op, GATHER_DTYPES, c, frame, d, s)
    if o.dtype.name != "uint32":
        raise DTypeError(f"{op}: {role} {o.describe()} must be uint32, got {o.dtype.name} "
                         f"{_core.where(c, frame)}")
    return d, s, o


def _form(op: str, args: tuple, kwargs: dict, stride_name: str, L: int, c: Any, frame: Any
          ) -> tuple[Form, int]:
    """pyasc's overloads: (count) or (mask, repeat_times, <stride_name>)."""
    b = _vec.bind_overload(("count",), 1, args, kwargs)
    if b is not None:
        f = Form()
        f.count = _int(op, "count", b["count"], 0, 2**32 - 1, c, frame)
        return f, 0
    b = _vec.bind_overload(("mask", "repeat_times", stride_name), 3, args, kwargs)
    if b is None:
        raise TypeError(f"{op}: expected (count) or (mask, repeat_times, {stride_name}); got "
                        f"{len(args)} positional and {sorted(kwargs)} keyword arguments")
    stride = _int(op, stride_name, b[stride_name], 0, 65535, c, frame)
    f = _repeat_form(op, Form(), b["mask"], int(b["repeat_times"]),
                     UnaryRepeatParams(1, 1, stride, stride), True, L, c, frame)
    return f, stride


def _plan(f: Form, L: int, epb: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """(flat-side element indices, offset indices) of the lanes a form selects."""
    if f.count >= 0:
        i = np.arange(f.count)
        return i, i
    lanes = np.asarray(f.lanes, dtype=np.int64)
    r = np.arange(f.repeats)[:, None]
    flat = (r * stride * epb + lanes).ravel()
    return flat, (r * L + lanes).ravel()


def _targets(op: str, t: LocalTensor, base: int, offsets: np.ndarray, role: str, c: Any,
             frame: Any) -> np.ndarray:
    """Element indices (into t.arr) of byte addresses t.addr + base + offsets."""
    isz = t.dtype.itemsize
    byte = t.addr + base + offsets.astype(np.int64)
    if len(byte):
        if int(byte.max()) + isz > c.chip.ub_bytes:
            raise OutOfBoundsError(f"{op}: {role} offset {int(byte.max()) - t.addr - base} B "
                                   f"(+ base {base}) from {t.describe()} leaves UB "
                                   f"({c.chip.ub_bytes} B) {_core.where(c, frame)}")
        if np.any(byte % isz):
            raise AlignmentError(f"{op}: {role} offsets must be multiples of {isz} B "
                                 f"({t.dtype.name}) {_core.where(c, frame)}")
        _vec.span_check(op, t, (int(byte.max()) - t.addr) // isz + 1, role, c, frame)
    return byte // isz


def gather(dst: Any, src: Any, src_offset: Any, src_base: Any, *args: Any, **kwargs: Any
           ) -> None:
    """gather(dst, src, src_offset, src_base, count) or (..., mask, repeat_times,
    dst_rep_stride): dst[i] = src's element at byte src_base + src_offset[i]."""
    op, frame = "gather", _getframe(1)
    c = _vec.current_vector_core(frame)
    d, s, o = _indexed(op, dst, src, src_offset, "src_offset", c, frame)
    isz = d.dtype.itemsize
    L, base = 256 // isz, _int(op, "src_base", src_base, 0, 2**32 - 1, c, frame)
    f, stride = _form(op, args, kwargs, "dst_rep_stride", L, c, frame)
    flat, oi = _plan(f, L, 32 // isz, stride)
    if len(oi):
        _vec.span_check(op, o, int(oi.max()) + 1, "src_offset", c, frame)
        _vec.span_check(op, d, int(flat.max()) + 1, "dst", c, frame)
    src_i = _targets(op, s, base, o.arr[o.e0 + oi], "src", c, frame)
    d.arr[d.e0 + flat] = s.arr[src_i]
    _emit(c, op, (d, flat), (s, src_i - s.e0), (o, oi), f, frame, (("src_base", base),))


def scatter(dst: Any, src: Any, dst_offset: Any, dst_base: Any, *args: Any, **kwargs: Any
            ) -> None:
    """scatter(dst, src, dst_offset, dst_base, count) or (..., mask, repeat_times,
    src_rep_stride): src's element i goes to byte dst_base + dst_offset[i] of dst."""
    op, frame = "scatter", _getframe(1)
    c = _vec.current_vector_core(frame)
    d, s, o = _indexed(op, dst, src, dst_offset, "dst_offset", c, frame)
    isz = d.dtype.itemsize
    L, base = 256 // isz, _int(op, "dst_base", dst_base, 0, 2**32 - 1, c, frame)
    f, stride = _form(op, args, kwargs, "src_rep_stride", L, c, frame)
    if is_a2(c):
        unsupported(c, op, frame, "Atlas inference AI Core")
        return
    flat, oi = _plan(f, L, 32 // isz, stride)
    if len(oi):
        _vec.span_check(op, o, int(oi.max()) + 1, "dst_offset", c, frame)
        _vec.span_check(op, s, int(flat.max()) + 1, "src", c, frame)
    dst_i = _targets(op, d, base, o.arr[o.e0 + oi], "dst", c, frame)
    d.arr[dst_i] = s.arr[s.e0 + flat]
    _emit(c, op, (d, dst_i - d.e0), (s, flat), (o, oi), f, frame, (("dst_base", base),))


def _span(t: LocalTensor, idx: np.ndarray) -> Any:
    isz = t.dtype.itemsize
    if not len(idx):
        return access("UB", t.addr, 0, t.name, 0, 0)
    lo, hi = int(idx.min()), int(idx.max())
    return access("UB", t.addr + lo * isz, (hi - lo + 1) * isz, t.name)


def _emit(c: Any, op: str, dst: tuple, src: tuple, offs: tuple, f: Form, frame: Any,
          args: tuple) -> None:
    n = len(dst[1])
    reads = (_span(*src), _span(*offs))
    repeats = f.repeats if f.count < 0 else -(-n * dst[0].dtype.itemsize // 256)
    form = (("count", f.count),) if f.count >= 0 else (("lanes", f.lanes),
                                                         ("repeat_times", f.repeats))
    _finish(c, op, reads, (_span(*dst),), n, dst[0].dtype.name, repeats, frame, form + args)


def gatherb(dst: Any, src0: Any, offset: Any, repeat_times: Any, repeat_params: Any) -> None:
    """gatherb(dst, src0, offset, repeat_times, GatherRepeatParams): 8 blocks of 32 B per
    repeat, from src0 at the byte offsets in offset."""
    _gatherb(dst, src0, offset, repeat_times, repeat_params, _getframe(1))


def _gatherb(dst: Any, src0: Any, offset: Any, repeat_times: Any, p: Any, frame: Any) -> None:
    op = "gatherb"
    c = _vec.current_vector_core(frame)
    d = operand(op, dst, "dst", c, frame)
    s = operand(op, src0, "src0", c, frame)
    o = operand(op, offset, "offset", c, frame)
    _vec.dtype_check(op, GATHERB_DTYPES, c, frame, d, s)
    if o.dtype.name != "uint32":
        raise DTypeError(f"{op}: offset {o.describe()} must be uint32 {_core.where(c, frame)}")
    if not isinstance(p, GatherRepeatParams):
        raise TypeError(f"{op}: repeat_params must be GatherRepeatParams, got "
                        f"{type(p).__name__}")
    R = _int(op, "repeat_times", repeat_times, 0, c.chip.max_repeat_times, c, frame)
    blk = _int(op, "dst_blk_stride", p.dst_blk_stride, 0, 255, c, frame)
    rep = _int(op, "dst_rep_stride", p.dst_rep_stride, 0, 4095, c, frame)
    _vec.span_check(op, o, 8 * R, "offset", c, frame)
    offs = o.arr[o.e0:o.e0 + 8 * R].astype(np.int64)
    if np.any(offs % 32):
        raise AlignmentError(f"{op}: block offsets must be multiples of 32 B, got "
                             f"{int(offs[offs % 32 != 0][0])} {_core.where(c, frame)}")
    mem = c.mem("UB")
    src_b = s.addr + offs  # first byte of each source block
    dst_b = d.addr + 32 * ((np.arange(R)[:, None] * rep + np.arange(8) * blk).ravel())
    if R:
        hi = int(max(src_b.max(), dst_b.max())) + 32
        if hi > c.chip.ub_bytes:
            raise OutOfBoundsError(f"{op}: a block at UB+{hi - 32} leaves UB "
                                   f"({c.chip.ub_bytes} B) {_core.where(c, frame)}")
        isz = d.dtype.itemsize
        _vec.span_check(op, s, (int(src_b.max()) + 32 - s.addr) // isz, "src0", c, frame)
        _vec.span_check(op, d, (int(dst_b.max()) + 32 - d.addr) // isz, "dst", c, frame)
        mem[dst_b[:, None] + np.arange(32)] = mem[src_b[:, None] + np.arange(32)]
    reads = (access("UB", s.addr, int(src_b.max()) + 32 - s.addr if R else 0, s.name),
             access("UB", o.addr, 32 * R, o.name))
    writes = (access("UB", d.addr, int(dst_b.max()) + 32 - d.addr if R else 0, d.name),)
    _finish(c, op, reads, writes, 8 * R * 32 // d.dtype.itemsize, d.dtype.name, R, frame,
            (("repeat_times", R), ("dst_blk_stride", blk), ("dst_rep_stride", rep)))


def bilinear_interpolation(dst: Any, src0: Any, src0_offset: Any, src1: Any, mask: Any,
                           h_repeat: Any, repeat_mode: Any, dst_blk_stride: Any,
                           v_r_offset: Any, v_repeat: Any, shared_tmp_buffer: Any) -> None:
    """bilinear_interpolation(dst, src0, src0_offset, src1, mask, h_repeat, repeat_mode,
    dst_blk_stride, v_r_offset, v_repeat, shared_tmp_buffer): see the module docstring."""
    from .rows import brcb  # the library routine issues the chip's brcb

    op, frame = "bilinear_interpolation", _getframe(1)
    c = _vec.current_vector_core(frame)
    d = operand(op, dst, "dst", c, frame)
    for role, t in (("src0", src0), ("src1", src1)):
        if not isinstance(t, LocalTensor) or t.dtype is None or t.dtype.name != "float16":
            raise DTypeError(f"{op}: {role} must be a float16 LocalTensor "
                             f"{_core.where(c, frame)}")
    if d.dtype.name != "float16":
        raise DTypeError(f"{op}: dst must be float16, got {d.dtype.name} "
                         f"{_core.where(c, frame)}")
    h = _int(op, "h_repeat", h_repeat, 1, 255, c, frame)
    v = _int(op, "v_repeat", v_repeat, 1, 255, c, frame)
    if h * v > 255:
        raise OutOfBoundsError(f"{op}: h_repeat * v_repeat = {h * v} exceeds 255 repeats "
                               f"{_core.where(c, frame)}")
    tmp = operand(op, shared_tmp_buffer, "shared_tmp_buffer", c, frame).reinterpret_cast(
        d.dtype)
    L, pos = 128, h * v * 128  # elements per repeat; where brcb's output starts in tmp
    _gatherb(tmp.reinterpret_cast("uint16"), src0.reinterpret_cast("uint16"), src0_offset,
             h * v, GatherRepeatParams(), frame)
    brcb(tmp[pos], src1, src1.size // 8)
    mul_p = (BinaryRepeatParams(1, 0, 1, 8, 1, 8) if not repeat_mode
             else BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    _vec.binary("mul", tmp, tmp[pos], tmp, (L, h * v, mul_p), {}, frame)
    c.mask_counter, c.vector_mask = False, (2**64 - 1, 2**64 - 1)  # SetMaskNorm, ResetMask
    add_p = BinaryRepeatParams(1, 1, 1, 0, 8, 0)
    for i in range(v):
        for j in range(1, h):  # the chip's repeats accumulate into one row, in order
            _vec.binary("add", tmp[i * h * L], tmp[(i * h + j) * L], tmp[i * h * L],
                        (mask, 1, add_p), {}, frame)
    stride = _int(op, "dst_blk_stride", dst_blk_stride, 0, 65535, c, frame)
    rows = _int(op, "v_r_offset", v_r_offset, 0, 65535, c, frame) * 2 // 32
    _vec.scalar_op("adds", d, tmp, 0, (mask, v, UnaryRepeatParams(stride, 1, rows, h * 8)), {},
                   frame)


def gather_mask(dst: Any, src0: Any, src1_pattern: Any, reduce_mode: Any, mask: Any,
                params: Any, gather_mask_mode: Any = GatherMaskMode.DEFAULT) -> int:
    """gather_mask(dst, src0, src1_pattern, reduce_mode, mask, GatherMaskParams[, mode]):
    src0's elements whose pattern bit is set, packed into dst; returns how many."""
    op, frame = "gather_mask", _getframe(1)
    c = _vec.current_vector_core(frame)
    d = operand(op, dst, "dst", c, frame)
    s = operand(op, src0, "src0", c, frame)
    _vec.dtype_check(op, GATHER_DTYPES, c, frame, d, s)
    if not isinstance(params, GatherMaskParams):
        raise TypeError(f"{op}: params must be GatherMaskParams, got {type(params).__name__}")
    if reduce_mode not in (True, False):
        raise TypeError(f"{op}: reduce_mode must be True or False, got {reduce_mode!r}")
    if reduce_mode:
        raise NotImplementedError(f"{op}: counter mode (reduce_mode=True) is not emulated")
    isz = s.dtype.itemsize
    L, epb = 256 // isz, 32 // isz
    R = _int(op, "repeat_times", params.repeat_times, 0, c.chip.max_repeat_times, c, frame)
    blk = _int(op, "src0_block_stride", params.src0_block_stride, 0, 65535, c, frame)
    rep = _int(op, "src0_repeat_stride", params.src0_repeat_stride, 0, 65535, c, frame)
    keep, reads = _pattern(op, src1_pattern, params, s, R, L, c, frame)
    idx = _vec.plan(tuple(range(L)), R, epb, blk, rep).reshape(R, L)
    if R:
        _vec.span_check(op, s, int(idx.max()) + 1, "src0", c, frame)
    picked = idx[keep]  # row-major: repeat by repeat, lane by lane
    n = len(picked)
    _vec.span_check(op, d, n, "dst", c, frame)
    d.arr[d.e0:d.e0 + n] = s.arr[s.e0 + picked]
    c.lib["gather_mask_count"] = n
    c.mask_counter = False  # Ascend C leaves normal mode behind
    reads = (access("UB", s.addr, (int(idx.max()) + 1) * isz if R else 0, s.name),) + reads
    _finish(c, op, reads, (access("UB", d.addr, n * isz, d.name),), R * L, d.dtype.name, R,
            frame, (("repeat_times", R), ("kept", n)))
    return n


def _pattern(op: str, p: Any, params: GatherMaskParams, s: LocalTensor, R: int, L: int, c: Any,
             frame: Any) -> tuple[np.ndarray, tuple]:
    """(R, L) bool: the lanes each repeat keeps, and the pattern tensor's read (if any)."""
    if isinstance(p, LocalTensor):
        t = operand(op, p, "src1_pattern", c, frame)
        want = "uint16" if s.dtype.itemsize == 2 else "uint32"
        if t.dtype.name != want:
            raise DTypeError(f"{op}: src1_pattern must be {want} for {s.dtype.name} data, got "
                             f"{t.dtype.name} {_core.where(c, frame)}")
        words = L // (8 * t.dtype.itemsize)  # pattern elements one repeat consumes
        stride = _int(op, "src1_repeat_stride", params.src1_repeat_stride, 0, 65535, c, frame)
        per = 32 // t.dtype.itemsize
        pos = (np.arange(R)[:, None] * stride * per + np.arange(words)).ravel()
        if R:
            _vec.span_check(op, t, int(pos.max()) + 1, "src1_pattern", c, frame)
        raw = t.arr[t.e0 + pos].reshape(R, words).astype(np.uint64)
        bits = (raw[:, :, None] >> np.arange(8 * t.dtype.itemsize, dtype=np.uint64)) & 1
        span = (int(pos.max()) + 1) * t.dtype.itemsize if R else 0
        return bits.reshape(R, L).astype(bool), (access("UB", t.addr, span, t.name),)
    k = _int(op, "src1_pattern", p, 1, 7, c, frame)
    every, lanes = _BUILTIN[k]
    row = np.isin(np.arange(L) % every, lanes)
    return np.broadcast_to(row, (R, L)), ()


def get_gather_mask_remain_count() -> int:
    """The count the last gather_mask on this core kept."""
    return int(_core.core().lib.get("gather_mask_count", 0))


__all__ = ["GatherMaskMode", "GatherMaskParams", "GatherRepeatParams", "bilinear_interpolation",
           "gather", "gather_mask", "gatherb", "get_gather_mask_remain_count", "scatter"]
