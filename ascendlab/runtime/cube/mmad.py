"""The cube path (AIC): load_data (L1 -> L0A/L0B), mmad; the ND->NZ copy into L1 is in
dma/nd2nz.py and fixpipe (L0C -> GM) in cube/fixpipe.py.

Fractal layouts (ADK Mmad.md; c0 = 32 B / sizeof(T): 16 for fp16, 8 for fp32, 32 for int8):

- L1 after data_copy(dst, src, Nd2NzParams): "NZ". The ND matrix is cut into column blocks of
  c0 columns; inside a block each row is one 32 B unit, rows `dst_nz_n_stride` units apart, and
  blocks `dst_nz_c0_stride` units apart (set it to the row count rounded up to 16 to get whole
  16 x c0 fractals, column-major over fractals).
- L0A (A, M x K): "ZZ". 16 x c0 fractals, row-major over (m1, k1), row-major inside (512 B).
- L0B (B, K x N): "ZN". c0 x 16 fractals, row-major over (k1, n1), column-major inside: each
  fractal is stored as 16 rows (n) of c0 elements (k).
- L0C (C, M x N): "NZ". 16 x 16 fractals, column-major over (m1, n1) (fractal n1 * M1 + m1),
  row-major inside (256 elements: 1024 B for fp32/int32).

Pipes (ADK 矩阵计算流程): GM->L1 MTE2, L1->L0A/L0B MTE1, mmad M, L0C->GM FIX.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import DTypeError, PositionError
from .. import core as _core
from ..core import access, emit
from ..enums import TPosition
from ..memory.checks import (
    blocks,
    check_align,
    check_gm_span,
    check_local_span,
    check_pos,
    check_range,
    fields,
    nop,
)
from ..memory.tensor import (
    GlobalTensor,
    LocalTensor,
    check_core_kind,
    require_global,
    require_local,
)
from ..params import LoadData2DParams, MmadParams
from ..trace import register_op
from . import img2col as _img2col

# load_data runs on MTE1 (L1 -> L0) or MTE2 (GM -> L1/L0); mmad counts 2 operations per
# multiply-add (Event.count = m * n * k)
register_op("load_data", "", "dma", module=__name__)
register_op("mmad", "M", "cube", flops_per_elem=2, module=__name__)

_getframe = sys._getframe
_as_strided = np.lib.stride_tricks.as_strided

FRACTAL = 512  # bytes of one L0A/L0B fractal (LoadData2D unit)
# (fm dtype, filter dtype) -> dst dtype (ADK Mmad.md, table for Atlas A2; bf16/int4 do not
# exist in pyasc).
_MMAD_TYPES = {("float16", "float16"): "float32", ("float32", "float32"): "float32",
               ("int8", "int8"): "int32"}
# MACs per cycle relative to fp16's 16x16x16: fp32 runs at 1/4 (ADK NPU架构版本2201.md);
# int8's tile is 16x32x16 (INI [DtypeMKN]), ASSUMPTION: one tile per cycle like fp16.
_MMAD_RATE = {"float16": 1.0, "float32": 0.25, "int8": 2.0}
_LOAD_ROUTES = frozenset({(TPosition.A1, TPosition.A2), (TPosition.B1, TPosition.B2)})
_LOAD_FROM_GM = frozenset({TPosition.A1, TPosition.B1, TPosition.A2, TPosition.B2})


def _load_operands(c: Any, dst: Any, src: Any, params: Any,
                   frame: Any) -> tuple[LocalTensor, Any, str]:
    """load_data's operands checked: the params form, the route (GM -> L1/L0 on MTE2, A1 ->
    A2 / B1 -> B2 on MTE1) and the type; (dst, src, pipe)."""
    op = "load_data"
    check_core_kind(c, "L1", op, frame)
    if not isinstance(params, LoadData2DParams):
        raise NotImplementedError(f"load_data with {type(params).__name__} is not emulated; "
                                  "emulated: LoadData2DParams (2D fractal load), "
                                  "LoadData3DParamsV1/V2/V2Pro (img2col) "
                                  f"{_core.where(c, frame)}")
    dst = require_local(op, dst, "dst")
    if type(src) is GlobalTensor:
        src = require_global(op, src, "src")
        check_pos(c, op, dst, "dst (from GM)", _LOAD_FROM_GM, frame)
        pipe = "MTE2"
    elif type(src) is LocalTensor:
        src = require_local(op, src, "src")
        if (src.pos, dst.pos) not in _LOAD_ROUTES:
            raise PositionError(f"load_data: {src.pos.name} -> {dst.pos.name} is not a "
                                f"load_data route (routes: A1->A2, B1->B2, GM->A1/B1/A2/B2); "
                                f"dst {dst.describe()}, src {src.describe()} "
                                f"{_core.where(c, frame)}")
        pipe = "MTE1"
    else:
        raise TypeError(f"load_data: src must be a LocalTensor or GlobalTensor, got "
                        f"{type(src).__name__}")
    dt = dst.dtype
    if src.dtype is not dt and src.dtype != dt:
        raise DTypeError(f"load_data: dst is {dt.name} but src is {src.dtype.name}; load_data "
                         f"does not convert {_core.where(c, frame)}")
    if not dt.is_numeric() or dt.itemsize not in (1, 2, 4):
        raise DTypeError(f"load_data: {dt.name} is not supported (1, 2 or 4-byte types) "
                         f"{_core.where(c, frame)}")
    return dst, src, pipe


def load_data(dst: Any, src: Any, params: Any = None) -> None:
    """LoadData 2D: copy 512 B fractals A1 -> A2 / B1 -> B2 (MTE1) or GM -> A1/B1/A2/B2 (MTE2).

    Repeat r < repeat_times reads fractal start_index + r*src_stride of src (bytes
    [f*512, f*512 + 512) from src's start) and writes it at dst fractal r*(1 + dst_gap);
    if_transpose (2-byte types only) transposes each 16 x 16 fractal. repeat_times 0 is a
    no-op. L0A/L0B start addresses must be 512 B aligned, L1 ones 32 B.

    With a LoadData3DParamsV1 / V2 / V2Pro it is load_3d (img2col, A1 -> A2): see
    cube/img2col.py.

    Limitations: LoadData2DParamsV2 is not emulated, nor addr_mode != 0 (reserved); sid is
    ignored.
    """
    frame = _getframe(1)
    if isinstance(params, _img2col.FORMS):
        _img2col.load_data_3d(dst, src, params, frame)
        return
    op = "load_data"
    c = _core.current or _core.core()
    dst, src, pipe = _load_operands(c, dst, src, params, frame)
    dt = dst.dtype
    isz = dt.itemsize
    start, rep, sstride, _sid, gap, transpose, addr_mode = fields(params)
    for name, v, hi in (("start_index", start, 65535), ("repeat_times", rep, 255),
                        ("src_stride", sstride, 65535), ("dst_gap", gap, 65535)):
        check_range(c, op, "LoadData2DParams", name, v, 0, hi, frame)
    if addr_mode:
        raise NotImplementedError(f"load_data: LoadData2DParams.addr_mode={addr_mode} "
                                  f"(reserved) is not emulated; use 0 {_core.where(c, frame)}")
    if transpose and isz != 2:
        raise DTypeError(f"load_data: if_transpose needs a 2-byte type (16 x 16 fractals), got "
                         f"{dt.name}; fp32/int8 transposes are load_data_with_transpose "
                         f"{_core.where(c, frame)}")
    l0 = dst.space in ("L0A", "L0B")
    check_align(c, op, dst, "dst", c.chip.l0ab_align if l0 else 32, frame,
                 " (one fractal)" if l0 else "")
    if pipe == "MTE1":
        check_align(c, op, src, "src", 32, frame)
    args = (("params", tuple(params)),)
    if not rep:
        nop(c, pipe, op, dt.name, frame, args)
        return
    lo = start * FRACTAL
    src_hi = (start + (rep - 1) * sstride) * FRACTAL + FRACTAL
    dstride = (1 + gap) * FRACTAL
    dst_hi = (rep - 1) * dstride + FRACTAL
    if pipe == "MTE2":
        check_gm_span(c, src, src_hi, op, frame, lo)
        a = src.alloc
        sbuf, si, saddr, sname, ss = a.buf, a.idx0 + src.offset, a.base + src.offset, a.name, "GM"
    else:
        check_local_span(c, src, src_hi, op, "src", frame, lo)
        sbuf, si, saddr, sname, ss = c.mem(src.space), src.addr, src.addr, src.name, src.space
    check_local_span(c, dst, dst_hi, op, "dst", frame)
    data = blocks(sbuf, si + lo, rep, FRACTAL, sstride * FRACTAL).copy()
    if transpose:
        data = np.ascontiguousarray(data.view(np.uint16).reshape(rep, 16, 16)
                                    .transpose(0, 2, 1)).view(np.uint8).reshape(rep, FRACTAL)
    blocks(c.mem(dst.space), dst.addr, rep, FRACTAL, dstride)[...] = data
    emit(c, pipe, op, (access(ss, saddr + lo, FRACTAL, sname, rep, sstride * FRACTAL),),
         (access(dst.space, dst.addr, FRACTAL, dst.name, rep, dstride),),
         rep * FRACTAL // isz, dt.name, rep, frame, None, args)


# ---- mmad ------------------------------------------------------------------------------------
def _mmad_operands(c: Any, dst: Any, fm: Any, filter: Any, bias_or_params: Any, params: Any,
                   frame: Any) -> tuple[LocalTensor, LocalTensor, LocalTensor, MmadParams]:
    """mmad's operands checked: kinds, positions, the (fm, filter) -> dst types; (dst, fm,
    filter, params)."""
    op = "mmad"
    check_core_kind(c, "L0C", op, frame)
    if params is None:
        params, bias = bias_or_params, None
    else:
        bias = bias_or_params
    if bias is not None:
        raise NotImplementedError("mmad with a bias tensor (mmad(dst, fm, filter, bias, params): "
                                  "bias in C2/BiasTable) is not emulated; add the bias in L0C "
                                  "with cmatrix_init_val=False instead "
                                  f"{_core.where(c, frame)}")
    if not isinstance(params, MmadParams):
        raise TypeError(f"mmad: params must be MmadParams, got {type(params).__name__}")
    dst = require_local(op, dst, "dst")
    fm = require_local(op, fm, "fm")
    filter = require_local(op, filter, "filter")
    check_pos(c, op, dst, "dst", (TPosition.CO1,), frame)
    check_pos(c, op, fm, "fm", (TPosition.A2,), frame)
    check_pos(c, op, filter, "filter", (TPosition.B2,), frame)
    at, bt, ct = fm.dtype.name, filter.dtype.name, dst.dtype.name
    want = _MMAD_TYPES.get((at, bt))
    if want != ct:
        combos = ", ".join(f"{a} x {b} -> {d}" for (a, b), d in _MMAD_TYPES.items())
        raise DTypeError(f"mmad: fm {at} x filter {bt} -> dst {ct} is not supported; "
                         f"supported: {combos} {_core.where(c, frame)}")
    return dst, fm, filter, params


def _mmad_values(fm: LocalTensor, filter: LocalTensor, dst: LocalTensor, m: int, n: int,
                 k: int, init: bool) -> None:
    """C (NZ in L0C) = / += A (ZZ in L0A) @ B (ZN in L0B) on the tensors' bytes; m == 1 reads
    A as a plain ND row (GEMV)."""
    at = fm.dtype.name
    c0 = 32 // fm.dtype.itemsize
    m1, n1, k1 = -(-m // 16), -(-n // 16), -(-k // c0)
    gemv = m == 1
    e = fm.e0
    if gemv:
        a = fm.arr[e:e + k].reshape(1, k)
    else:
        a = (fm.arr[e:e + m1 * k1 * 16 * c0].reshape(m1, k1, 16, c0).transpose(0, 2, 1, 3)
             .reshape(m1 * 16, k1 * c0)[:m, :k])
    e = filter.e0
    b = (filter.arr[e:e + k1 * n1 * 16 * c0].reshape(k1, n1, 16, c0).transpose(0, 3, 1, 2)
         .reshape(k1 * c0, n1 * 16)[:k, :n])
    if at == "int8":
        prod = a.astype(np.int64) @ b.astype(np.int64)
    else:
        prod = a.astype(np.float32) @ b.astype(np.float32)  # fp16 products are exact in fp32
    store_c(dst, m, n, prod, init)


def store_c(dst: LocalTensor, m: int, n: int, prod: np.ndarray, init: bool) -> None:
    """Write (init) or add an m x n product into dst's NZ fractals in L0C."""
    m1, n1 = -(-m // 16), -(-n // 16)
    c_elems = m1 * n1 * 256
    e = dst.e0
    cv = dst.arr[e:e + c_elems].reshape(n1, m1, 16, 16).transpose(1, 2, 0, 3)  # (m1,16,n1,16)
    if m == m1 * 16 and n == n1 * 16:
        full = prod if init else cv.reshape(m, n) + prod
        cv[...] = full.astype(dst.dtype.np).reshape(m1, 16, n1, 16)
    else:
        full = cv.reshape(m1 * 16, n1 * 16)  # a copy: padding keeps its old values
        full[:m, :n] = prod if init else full[:m, :n] + prod
        cv[...] = full.reshape(m1, 16, n1, 16)


def mmad(dst: Any, fm: Any, filter: Any, bias_or_params: Any = None, params: Any = None) -> None:
    """Mmad: C (L0C, NZ) = / += A (L0A, ZZ) @ B (L0B, ZN) for an m x k by k x n product, pipe M.

    cmatrix_init_val=True (the default) starts C from 0, False accumulates into C (as does the
    deprecated is_bias=True). fp16 x fp16 -> fp32 (exact products, float32 accumulation),
    fp32 x fp32 -> fp32, int8 x int8 -> int32 (wrapping). M, N are padded to 16 and K to c0
    when indexing fractals; the padding is ignored. m == 1 is GEMV: A is read from L0A as a
    plain ND row of k elements (ADK Mmad.md). A zero m, n or k skips the instruction (the
    event is still recorded). fm/filter start 512 B aligned, dst 256 elements (1024 B).

    Limitations: the bias forms (mmad(dst, fm, filter, bias, params), cmatrix_source=True:
    C initialised from C2/BiasTable) are not emulated. The accumulation order inside a K step
    is numpy's, not the cube's; fp32 uses full float32 (no HF32). The padding rows/columns of
    C's fractals keep what L0C held (the hardware's values there are unspecified). unit_flag,
    fm_offset, filter_offset and k_direction_align only go into the event's args.
    """
    frame = _getframe(1)
    op = "mmad"
    c = _core.current or _core.core()
    dst, fm, filter, params = _mmad_operands(c, dst, fm, filter, bias_or_params, params, frame)
    at, bt, ct = fm.dtype.name, filter.dtype.name, dst.dtype.name
    m, n, k, unit_flag, fm_off, filt_off, is_bias, csrc, cinit, kalign = fields(params)[:10]
    for flag in ("en_ssparse", "en_winograd_a", "en_winograd_b"):
        if getattr(params, flag):
            raise NotImplementedError(f"mmad: MmadParams.{flag}=True is not emulated "
                                      f"{_core.where(c, frame)}")
    for name, v in (("m", m), ("n", n), ("k", k)):
        check_range(c, op, "MmadParams", name, v, 0, 4095, frame)
    init = bool(cinit) and not is_bias
    if not init and csrc:
        raise NotImplementedError("mmad: MmadParams.cmatrix_source=True (C initialised from "
                                  f"C2/BiasTable) is not emulated {_core.where(c, frame)}")
    check_align(c, op, fm, "fm", c.chip.l0ab_align, frame)
    check_align(c, op, filter, "filter", c.chip.l0ab_align, frame)
    check_align(c, op, dst, "dst", 256 * dst.dtype.itemsize, frame, " (256 elements)")
    isz = fm.dtype.itemsize
    c0 = 32 // isz
    m1, n1, k1 = -(-m // 16), -(-n // 16), -(-k // c0)
    args = (("m", m), ("n", n), ("k", k), ("init", init), ("dtypes", (at, bt, ct)),
            ("c0", c0), ("rate", _MMAD_RATE[at]), ("gemv", m == 1), ("unit_flag", unit_flag),
            ("fm_offset", fm_off), ("filter_offset", filt_off), ("k_direction_align", kalign))
    if not (m and n and k):
        nop(c, "M", op, at, frame, args)
        return
    gemv = m == 1
    a_bytes = k1 * 32 if gemv else m1 * k1 * FRACTAL
    b_bytes = k1 * n1 * FRACTAL
    c_elems = m1 * n1 * 256
    c_bytes = c_elems * dst.dtype.itemsize
    check_local_span(c, fm, a_bytes, op, "fm", frame)
    check_local_span(c, filter, b_bytes, op, "filter", frame)
    check_local_span(c, dst, c_bytes, op, "dst", frame)
    _mmad_values(fm, filter, dst, m, n, k, init)
    reads = (access("L0A", fm.addr, a_bytes, fm.name), access("L0B", filter.addr, b_bytes,
                                                               filter.name))
    c_acc = access("L0C", dst.addr, c_bytes, dst.name)
    if not init:
        reads += (c_acc,)
    emit(c, "M", op, reads, (c_acc,), m * n * k, at, m1 * n1 * k1, frame, None, args)


__all__ = ["load_data", "mmad", "store_c"]
