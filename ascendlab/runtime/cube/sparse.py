"""Structured-sparse matmul: load_data_with_sparse (B1 -> B2 with a 2-bit index) and
mmad_with_sparse (int8 x int8 -> int32).

Facts relied on (Ascend C docs LoadDataWithSparse, MmadWithSparse and its example; pyasc
asc.language.basic.mm):
- the original B (K x N) keeps at most 2 non-zeros in every 4 consecutive K elements; its dense
  form (K/2 x N, ZN fractals in L0B) is loaded by load_data_with_sparse, which copies 512 B
  dense fractals B1 -> B2 like load_data (LoadData2DParams, no transpose) and reads 128 B of
  index per fractal: one 2-bit index per dense element, four to a byte, the first element in
  the lowest bits (the docs' "reversed" layout);
- dense elements come in pairs per group of 4 original K positions: the first index is the
  position (0..2) of the 1st non-zero among elements 0..2, the second the position of the
  2nd non-zero among elements 1..3 (so 1 + index); the cube uses them to pick A's columns:
  C[m, n] = sum over dense kd of A[m, 4 * (kd // 2) + pos(kd, n)] * Bd[kd, n];
- MmadParams.m / n / k give the original K (the example: k = 64, B2 holds one 32 x 16 dense
  fractal); dst CO1 int32, fm A2 int8, filter B2 int8; M, N or K of 0 skips the instruction.

ASSUMPTIONS: index fractal r sits at idx byte (start_index + r * src_stride) * 128, following
the dense fractal it belongs to; the index travels with the L0B bytes it was loaded for (kept
beside L0B, 2 bits per byte); an index of 3 is an error; k must be a multiple of 4.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import DTypeError, ParamError
from .. import core as _core
from ..core import access, emit
from ..enums import TPosition
from ..memory.checks import (
    blocks,
    check_align,
    check_local_span,
    check_pos,
    check_range,
    fields,
    nop,
)
from ..memory.tensor import check_core_kind, require_local
from ..params import LoadData2DParams, MmadParams
from ..trace import register_op
from .mmad import (
    FRACTAL,
    store_c,
)

_getframe = sys._getframe
IDX_BYTES = FRACTAL // 4  # 2 bits per dense int8 element

register_op("load_data_with_sparse", "MTE1", "dma", replayable=False, module=__name__)
register_op("mmad_with_sparse", "M", "cube", flops_per_elem=2, replayable=False,
            module=__name__)


def _shadow(c: Any) -> np.ndarray:
    """The sparse index beside L0B: byte i // 4 holds the index of L0B byte i."""
    sh = c.lib.get("l0b_sparse_index")
    if sh is None:
        sh = c.lib["l0b_sparse_index"] = np.zeros(c.mem("L0B").size // 4, np.uint8)
    return sh


def load_data_with_sparse(dst: Any, src: Any, idx: Any, params: Any) -> None:
    """Copy dense int8 fractals B1 -> B2 with their 2-bit index (module docstring)."""
    frame = _getframe(1)
    op = "load_data_with_sparse"
    c = _core.current or _core.core()
    check_core_kind(c, "L1", op, frame)
    dst, src, idx = (require_local(op, t, r) for t, r in ((dst, "dst"), (src, "src"),
                                                             (idx, "idx")))
    check_pos(c, op, dst, "dst", (TPosition.B2,), frame)
    check_pos(c, op, src, "src", (TPosition.B1,), frame)
    check_pos(c, op, idx, "idx", (TPosition.B1,), frame)
    if dst.dtype.name != "int8" or src.dtype.name != "int8" or idx.dtype.itemsize != 1:
        raise DTypeError(f"{op}: dst and src must be int8 and idx a byte type; got "
                         f"{dst.dtype.name}, {src.dtype.name}, {idx.dtype.name}")
    if not isinstance(params, LoadData2DParams):
        raise TypeError(f"{op}: params must be LoadData2DParams, got {type(params).__name__}")
    start, rep, sstride, _sid, gap, transpose, _mode = fields(params)
    for name, v, hi in (("start_index", start, 65535), ("repeat_times", rep, 255),
                        ("src_stride", sstride, 65535), ("dst_gap", gap, 65535)):
        check_range(c, op, "LoadData2DParams", name, v, 0, hi, frame)
    if transpose:
        raise ParamError(f"{op}: if_transpose is not supported (LoadDataWithSparse)")
    check_align(c, op, dst, "dst", c.chip.l0ab_align, frame, " (one fractal)")
    check_align(c, op, src, "src", 32, frame)
    check_align(c, op, idx, "idx", 32, frame)
    args = (("params", tuple(params)),)
    if not rep:
        nop(c, "MTE1", op, "int8", frame, args)
        return
    dstride = (1 + gap) * FRACTAL
    check_local_span(c, src, (start + (rep - 1) * sstride + 1) * FRACTAL, op, "src", frame,
                      start * FRACTAL)
    check_local_span(c, idx, (start + (rep - 1) * sstride + 1) * IDX_BYTES, op, "idx", frame,
                      start * IDX_BYTES)
    check_local_span(c, dst, (rep - 1) * dstride + FRACTAL, op, "dst", frame)
    l1 = c.mem("L1")
    data = blocks(l1, src.addr + start * FRACTAL, rep, FRACTAL, sstride * FRACTAL).copy()
    index = blocks(l1, idx.addr + start * IDX_BYTES, rep, IDX_BYTES,
                    sstride * IDX_BYTES).copy()
    blocks(c.mem("L0B"), dst.addr, rep, FRACTAL, dstride)[...] = data
    blocks(_shadow(c), dst.addr // 4, rep, IDX_BYTES, dstride // 4)[...] = index
    emit(c, "MTE1", op,
         (access("L1", src.addr + start * FRACTAL, FRACTAL, src.name, rep, sstride * FRACTAL),
          access("L1", idx.addr + start * IDX_BYTES, IDX_BYTES, idx.name, rep,
                 sstride * IDX_BYTES)),
         (access("L0B", dst.addr, FRACTAL, dst.name, rep, dstride),),
         rep * FRACTAL, "int8", rep, frame, None, args)


def mmad_with_sparse(dst: Any, fm: Any, filter: Any, params: Any) -> None:
    """C (L0C int32) = / += A (L0A int8, m x k) times the sparse B given densely in L0B."""
    frame = _getframe(1)
    op = "mmad_with_sparse"
    c = _core.current or _core.core()
    check_core_kind(c, "L0C", op, frame)
    if not isinstance(params, MmadParams):
        raise TypeError(f"{op}: params must be MmadParams, got {type(params).__name__}")
    dst, fm, filter = (require_local(op, t, r) for t, r in ((dst, "dst"), (fm, "fm"),
                                                               (filter, "filter")))
    check_pos(c, op, dst, "dst", (TPosition.CO1,), frame)
    check_pos(c, op, fm, "fm", (TPosition.A2,), frame)
    check_pos(c, op, filter, "filter", (TPosition.B2,), frame)
    if (fm.dtype.name, filter.dtype.name, dst.dtype.name) != ("int8", "int8", "int32"):
        raise DTypeError(f"{op}: fm x filter -> dst must be int8 x int8 -> int32, got "
                         f"{fm.dtype.name} x {filter.dtype.name} -> {dst.dtype.name}")
    m, n, k = int(params.m), int(params.n), int(params.k)
    for name, v in (("m", m), ("n", n), ("k", k)):
        check_range(c, op, "MmadParams", name, v, 0, 4095, frame)
    init = bool(params.cmatrix_init_val) and not params.is_bias
    args = (("m", m), ("n", n), ("k", k), ("init", init))
    if not (m and n and k):
        nop(c, "M", op, "int8", frame, args)
        return
    if k % 4:
        raise ParamError(f"{op}: MmadParams.k={k} must be a multiple of 4 (groups of 4 K "
                         "elements keep 2)")
    check_align(c, op, fm, "fm", c.chip.l0ab_align, frame)
    check_align(c, op, filter, "filter", c.chip.l0ab_align, frame)
    check_align(c, op, dst, "dst", 1024, frame, " (256 elements)")
    kd = k // 2
    m1, n1, k1, kd1 = -(-m // 16), -(-n // 16), -(-k // 32), -(-kd // 32)
    a_bytes, b_bytes, c_bytes = m1 * k1 * FRACTAL, kd1 * n1 * FRACTAL, m1 * n1 * 1024
    check_local_span(c, fm, a_bytes, op, "fm", frame)
    check_local_span(c, filter, b_bytes, op, "filter", frame)
    check_local_span(c, dst, c_bytes, op, "dst", frame)
    a = (fm.arr[fm.e0:fm.e0 + a_bytes].reshape(m1, k1, 16, 32).transpose(0, 2, 1, 3)
         .reshape(m1 * 16, k1 * 32)[:m, :k].astype(np.int64))
    b = (filter.arr[filter.e0:filter.e0 + b_bytes].reshape(kd1, n1, 16, 32)
         .transpose(0, 3, 1, 2).reshape(kd1 * 32, n1 * 16)[:kd, :n].astype(np.int64))
    packed = _shadow(c)[filter.addr // 4:(filter.addr + b_bytes) // 4]
    codes = (packed[:, None] >> np.array([0, 2, 4, 6], np.uint8)) & 3
    idx = (codes.reshape(kd1, n1, 16, 32).transpose(0, 3, 1, 2).reshape(kd1 * 32, n1 * 16)
           [:kd, :n].astype(np.int64))
    if (idx == 3).any():
        raise ParamError(f"{op}: the sparse index of filter {filter.describe()} holds 3; "
                         "indexes are 0..2 (LoadDataWithSparse)")
    rows = np.arange(kd)[:, None]
    cols = 4 * (rows // 2) + idx + (rows % 2)  # the 2nd index counts from element 1
    prod = np.einsum("mkn,kn->mn", a[:, cols], b)
    store_c(dst, m, n, prod, init)
    reads = (access("L0A", fm.addr, a_bytes, fm.name),
             access("L0B", filter.addr, b_bytes, filter.name))
    c_acc = access("L0C", dst.addr, c_bytes, dst.name)
    if not init:
        reads += (c_acc,)
    emit(c, "M", op, reads, (c_acc,), m * n * kd, "int8", m1 * n1 * kd1, frame, None, args)


__all__ = ["load_data_with_sparse", "mmad_with_sparse"]
