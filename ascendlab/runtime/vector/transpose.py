"""Transposes in UB on the vector unit: transpose (16 x 16, or NCHW <-> NHWC with
TransposeParamsExt) and trans_data_to_5hd (NCHW -> NC1HWC0 by 16 blocks of 32 B per repeat).

Facts relied on (Ascend C API reference Transpose and TransDataTo5HD; pyasc
asc.language.basic.vec_transpose for the signatures and forms):
- transpose(dst, src): one 16 x 16 matrix of 2-byte elements (uint16 / int16 / float16),
  dst[j][i] = src[i][j]; dst and src 32 B aligned, the same dtype.
- transpose(dst, src, shared_tmp_buffer, TransposeParamsExt(n_size, c_size, h_size, w_size,
  transpose_type)): TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW permute a 4-D tensor;
  shared_tmp_buffer is uint8 scratch the instruction may overwrite.
- trans_data_to_5hd(dst_list, src_list, TransDataTo5HDParams(dst_high_half, src_high_half,
  repeat_times, dst_rep_stride, src_rep_stride)): 16 source and 16 destination 32 B blocks
  per repeat, given as 16 LocalTensors, as 16 addresses (LocalTensor.get_phy_addr) or as two
  uint64 LocalTensors holding 16 addresses each. Per repeat, for 16-bit types destination
  block j holds element j of every source block (a 16 x 16 transpose); for 32-bit types
  column k of the 16 x 8 source (16 values) fills two destination blocks; for 8-bit types
  column j (+16 when src_high_half) fills half of destination block j (the upper half when
  dst_high_half). After each repeat every source address advances src_rep_stride blocks
  and every destination address dst_rep_stride blocks. repeat_times is in [0, 255].
Assumptions: for 32-bit types column k goes to destination blocks 2k and 2k + 1 (the docs
say only that each column forms two new blocks); for the address forms the element type is
the type of the tensor whose get_phy_addr produced the first destination address (pyasc infers
it the same way at compile time); the instruction costs one elementwise repeat per 256 B.
Limitations: the other TransposeType values (NZ / ND layouts of the Confusion Transpose
family) are not emulated (NotImplementedError).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from ...errors import DTypeError, OutOfBoundsError, ParamError
from .. import core as _core
from ..core import access
from ..dtypes import DataType
from ..memory.tensor import LocalTensor
from ..trace import register_op
from . import elementwise as _vec
from .reduce import _finish, _int, operand

_getframe = sys._getframe

B16 = frozenset({"uint16", "int16", "float16"})
EXT_DTYPES = frozenset({"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32",
                        "float32"})
register_op("transpose", "V", "elementwise", dtypes=EXT_DTYPES, replayable=False,
            module=__name__)
register_op("trans_data_to_5hd", "V", "elementwise", dtypes=EXT_DTYPES, replayable=False,
            module=__name__)


class TransposeType(IntEnum):
    """pyasc asc.TransposeType (values as in pyasc's enums)."""

    TRANSPOSE_TYPE_NONE = 0
    TRANSPOSE_NZ2ND_0213 = 1
    TRANSPOSE_NZ2NZ_0213 = 2
    TRANSPOSE_NZ2NZ_012_WITH_N = 3
    TRANSPOSE_NZ2ND_012_WITH_N = 4
    TRANSPOSE_NZ2ND_012_WITHOUT_N = 5
    TRANSPOSE_NZ2NZ_012_WITHOUT_N = 6
    TRANSPOSE_ND2ND_ONLY = 7
    TRANSPOSE_ND_UB_GM = 8
    TRANSPOSE_GRAD_ND_UB_GM = 9
    TRANSPOSE_ND2ND_B16 = 10
    TRANSPOSE_NCHW2NHWC = 11
    TRANSPOSE_NHWC2NCHW = 12


@dataclass(frozen=True)
class TransposeParamsExt:
    """The 4-D shape and the kind of transpose(dst, src, tmp, params)."""

    n_size: int = 0
    c_size: int = 0
    h_size: int = 0
    w_size: int = 0
    transpose_type: TransposeType = TransposeType.TRANSPOSE_ND2ND_B16


@dataclass(frozen=True)
class TransDataTo5HDParams:
    """trans_data_to_5hd's halves (8-bit types), repeats and strides (32 B blocks)."""

    dst_high_half: bool = False
    src_high_half: bool = False
    repeat_times: int = 1
    dst_rep_stride: int = 0
    src_rep_stride: int = 0


def _same_dtype(op: str, dst: LocalTensor, src: LocalTensor, allowed: frozenset[str], c: Any,
                frame: Any) -> str:
    name = dst.dtype.name
    if name not in allowed or src.dtype != dst.dtype:
        raise DTypeError(f"{op}: dst {dst.describe()} is {name} and src {src.describe()} is "
                         f"{src.dtype.name}; they must share one of {', '.join(sorted(allowed))} "
                         f"{_core.where(c, frame)}")
    return name


def transpose(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """transpose(dst, src): a 16 x 16 transpose of 2-byte elements; transpose(dst, src,
    shared_tmp_buffer, TransposeParamsExt): NCHW <-> NHWC."""
    op, frame = "transpose", _getframe(1)
    c = _vec.current_vector_core(frame)
    dst = operand(op, dst, "dst", c, frame)
    src = operand(op, src, "src", c, frame)
    if not args and not kwargs:
        _same_dtype(op, dst, src, B16, c, frame)
        x = _read(op, src, 256, "src", c, frame).reshape(16, 16)
        _write(op, dst, x.T.ravel(), "dst", c, frame)
        _emit_move(c, op, dst, src, 256, (), frame)
        return
    b = _vec.bind_overload(("shared_tmp_buffer", "params"), 2, args, kwargs)
    if b is None:
        raise TypeError(f"{op}: expected (dst, src) or (dst, src, shared_tmp_buffer, params); "
                        f"got {len(args)} more positional and {sorted(kwargs)} keyword arguments")
    tmp, p = b["shared_tmp_buffer"], b["params"]
    tmp = operand(op, tmp, "shared_tmp_buffer", c, frame)
    if tmp.dtype.name != "uint8":
        raise DTypeError(f"{op}: shared_tmp_buffer must be uint8, got {tmp.dtype.name} "
                         f"{_core.where(c, frame)}")
    if not isinstance(p, TransposeParamsExt):
        raise TypeError(f"{op}: params must be TransposeParamsExt, got {type(p).__name__}")
    _same_dtype(op, dst, src, EXT_DTYPES, c, frame)
    kind = TransposeType(int(p.transpose_type))
    dims = tuple(_int(op, f, getattr(p, f), 1, 2**31 - 1, c, frame)
                 for f in ("n_size", "c_size", "h_size", "w_size"))
    n, ch, h, w = dims
    total = n * ch * h * w
    x = _read(op, src, total, "src", c, frame)
    if kind == TransposeType.TRANSPOSE_NCHW2NHWC:
        y = x.reshape(n, ch, h, w).transpose(0, 2, 3, 1)
    elif kind == TransposeType.TRANSPOSE_NHWC2NCHW:
        y = x.reshape(n, h, w, ch).transpose(0, 3, 1, 2)
    else:
        raise NotImplementedError(f"{op} with {kind.name} is not emulated (only "
                                  f"TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW are)")
    _write(op, dst, np.ascontiguousarray(y).ravel(), "dst", c, frame)
    scratch = access("UB", tmp.addr, tmp.hi - tmp.addr, tmp.name)  # may be overwritten
    _emit_move(c, op, dst, src, total, (("params", (*dims, kind.name)),), frame, (scratch,))


def _read(op: str, t: LocalTensor, n: int, role: str, c: Any, frame: Any) -> np.ndarray:
    _vec.span_check(op, t, n, role, c, frame)
    return t.arr[t.e0:t.e0 + n].copy()


def _write(op: str, t: LocalTensor, values: np.ndarray, role: str, c: Any, frame: Any) -> None:
    _vec.span_check(op, t, len(values), role, c, frame)
    t.arr[t.e0:t.e0 + len(values)] = values


def _emit_move(c: Any, op: str, dst: LocalTensor, src: LocalTensor, n: int, args: tuple,
               frame: Any, extra_writes: tuple = ()) -> None:
    nb = n * dst.dtype.itemsize
    reads = (access("UB", src.addr, nb, src.name),)
    writes = (access("UB", dst.addr, nb, dst.name),) + extra_writes
    _finish(c, op, reads, writes, n, dst.dtype.name, -(-nb // 256), frame, args)


# ---- trans_data_to_5hd ------------------------------------------------------------------------
def trans_data_to_5hd(dst_or_list: Any, src_or_list: Any, params: Any) -> None:
    """trans_data_to_5hd(dst_list, src_list, TransDataTo5HDParams): 16 blocks of 32 B per
    repeat transposed into 16 blocks (see the module docstring for the 8/16/32-bit rules)."""
    op, frame = "trans_data_to_5hd", _getframe(1)
    c = _vec.current_vector_core(frame)
    if not isinstance(params, TransDataTo5HDParams):
        raise TypeError(f"{op}: params must be TransDataTo5HDParams, got "
                        f"{type(params).__name__}")
    dst_addrs, dtype, reads = _addresses(op, dst_or_list, "dst", c, frame, None)
    src_addrs, _, more = _addresses(op, src_or_list, "src", c, frame, dtype)
    reads += more
    if dtype.name not in EXT_DTYPES:
        raise DTypeError(f"{op}: {dtype.name} is not supported; supported: "
                         f"{', '.join(sorted(EXT_DTYPES))} {_core.where(c, frame)}")
    R = _int(op, "repeat_times", params.repeat_times, 0, c.chip.max_repeat_times, c, frame)
    ds = _int(op, "dst_rep_stride", params.dst_rep_stride, 0, 65535, c, frame)
    ss = _int(op, "src_rep_stride", params.src_rep_stride, 0, 65535, c, frame)
    isz = dtype.itemsize
    epb = 32 // isz
    arr = c.typed_mem("UB", dtype)
    cap = c.chip.ub_bytes
    for a in (*dst_addrs, *src_addrs):
        last = a + (max(R, 1) - 1) * max(ds, ss) * 32 + 32
        if a % 32 or last > cap:
            raise OutOfBoundsError(f"{op}: block address UB+{a} must be 32 B aligned and its "
                                   f"{R} repeats must stay inside UB ({cap} B) "
                                   f"{_core.where(c, frame)}")
    s0 = np.asarray(src_addrs, dtype=np.int64) // isz
    d0 = np.asarray(dst_addrs, dtype=np.int64) // isz
    lane = np.arange(epb)
    for r in range(R):
        m = arr[(s0 + r * ss * epb)[:, None] + lane]  # (16 blocks, epb) source matrix
        d = (d0 + r * ds * epb)[:, None]
        if isz == 2:
            arr[d + np.arange(16)] = m.T
        elif isz == 4:
            arr[d + np.arange(8)] = m.T.reshape(16, 8)  # column k -> blocks 2k, 2k + 1
        else:
            col = 16 if params.src_high_half else 0
            half = 16 if params.dst_high_half else 0
            arr[d + half + np.arange(16)] = m[:, col:col + 16].T
    reads += tuple(access("UB", a, 32, "5hd_src", R, ss * 32) for a in src_addrs)
    writes = tuple(access("UB", a, 32, "5hd_dst", R, ds * 32) for a in dst_addrs)
    _finish(c, op, reads, writes, 16 * epb * R, dtype.name, 2 * R, frame,
            (("repeat_times", R), ("dst_rep_stride", ds), ("src_rep_stride", ss),
             ("dst_high_half", bool(params.dst_high_half)),
             ("src_high_half", bool(params.src_high_half))))


def _addresses(op: str, v: Any, role: str, c: Any, frame: Any, dtype: DataType | None
               ) -> tuple[list[int], DataType, tuple]:
    """The 16 UB byte addresses of one side, its element type and the reads it took."""
    reads: tuple = ()
    if isinstance(v, LocalTensor):  # a uint64 tensor holding the 16 addresses
        t = operand(op, v, role, c, frame)
        if t.dtype.name != "uint64":
            raise DTypeError(f"{op}: a LocalTensor {role} holds addresses and must be uint64, "
                             f"got {t.dtype.name} {_core.where(c, frame)}")
        _vec.span_check(op, t, 16, role, c, frame)
        addrs = [int(a) for a in t.arr[t.e0:t.e0 + 16]]
        reads = (access("UB", t.addr, 128, t.name),)
    elif isinstance(v, (list, tuple)) and len(v) == 16:
        if all(isinstance(t, LocalTensor) for t in v):
            ts = [operand(op, t, f"{role}_list[{i}]", c, frame) for i, t in enumerate(v)]
            if any(t.dtype != ts[0].dtype for t in ts):
                raise DTypeError(f"{op}: all tensors of {role}_list must share one dtype "
                                 f"{_core.where(c, frame)}")
            if dtype is not None and ts[0].dtype != dtype:
                raise DTypeError(f"{op}: src_list is {ts[0].dtype.name} but dst_list is "
                                 f"{dtype.name} {_core.where(c, frame)}")
            return [t.addr for t in ts], ts[0].dtype, ()
        addrs = [int(a.__index__()) for a in v]
    else:
        raise TypeError(f"{op}: {role} must be 16 LocalTensors, 16 addresses or a uint64 "
                        f"LocalTensor of 16 addresses, got {type(v).__name__}"
                        f"{f' of length {len(v)}' if isinstance(v, (list, tuple)) else ''}")
    if dtype is None:
        dtype = c.lib.get(("phy_addr", "UB", addrs[0]))
        if dtype is None:
            raise ParamError(f"{op}: {role} address UB+{addrs[0]} did not come from "
                             f"LocalTensor.get_phy_addr on this core, so its element type is "
                             f"unknown {_core.where(c, frame)}")
    return addrs, dtype, reads


__all__ = ["TransDataTo5HDParams", "TransposeParamsExt", "TransposeType", "trans_data_to_5hd",
           "transpose"]
