"""data_copy(dst_L1, src_GM, Nd2NzParams): GM (ND, row-major) -> L1 (NZ) on MTE2, with the
layouts of cube/mmad.py's docstring (which re-exports copy_nd2nz; dma.data_copy dispatches here)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import DTypeError
from .. import core as _core
from ..core import access, emit
from ..enums import TPosition
from ..memory.checks import (
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
from ..params import Nd2NzParams

_as_strided = np.lib.stride_tricks.as_strided

_L1_POS = frozenset({TPosition.A1, TPosition.B1, TPosition.C1})
_ND2NZ_TYPES = frozenset({"int8", "uint8", "int16", "uint16", "int32", "uint32", "float16",
                          "float32"})


# ---- GM -> L1 with ND -> NZ conversion ------------------------------------------------------
def _nd2nz_operands(c: Any, dst: Any, src: Any,
                    frame: Any) -> tuple[LocalTensor, GlobalTensor]:
    """data_copy(Nd2NzParams)'s operands checked: GM -> L1 only, same supported type."""
    op = "data_copy"
    if type(dst) is LocalTensor and dst.space == "UB":
        raise NotImplementedError("data_copy with Nd2NzParams into UB (VECIN) is not emulated; "
                                  f"emulated: GM -> L1 (A1/B1/C1) {_core.where(c, frame)}")
    if type(src) is not GlobalTensor or type(dst) is not LocalTensor:
        raise NotImplementedError(f"data_copy with Nd2NzParams: only GM (GlobalTensor) -> L1 "
                                  f"(LocalTensor in A1/B1/C1) is emulated, got "
                                  f"{type(src).__name__} -> {type(dst).__name__} "
                                  f"{_core.where(c, frame)}")
    check_core_kind(c, "L1", "data_copy (ND2NZ)", frame)
    dst = require_local(op, dst, "dst")
    src = require_global(op, src, "src")
    check_pos(c, "data_copy (ND2NZ)", dst, "dst", _L1_POS, frame)
    dt = dst.dtype
    if src.dtype is not dt and src.dtype != dt:
        raise DTypeError(f"data_copy (ND2NZ): dst is {dt.name} but src is {src.dtype.name}; "
                         f"data_copy does not convert {_core.where(c, frame)}")
    if dt.name not in _ND2NZ_TYPES:
        raise DTypeError(f"data_copy (ND2NZ): {dt.name} is not supported; supported: "
                         f"{', '.join(sorted(_ND2NZ_TYPES))} {_core.where(c, frame)}")
    return dst, src


def copy_nd2nz(dst: Any, src: Any, p: Nd2NzParams, frame: Any) -> None:
    """data_copy(dst_L1, src_GM, Nd2NzParams): GM (ND, row-major) -> L1 (NZ), pipe MTE2.

    For matrix k < nd_num, row n < n_value, column d < d_value the element at GM
    k*src_nd_matrix_stride + n*src_d_value + d (elements) lands at L1 element
    k*dst_nz_matrix_stride + (d // c0)*dst_nz_c0_stride*c0 + n*dst_nz_n_stride*c0 + d % c0
    (c0 = 32 B / sizeof; the two nz strides count 32 B units). The last partial 32 B unit of
    each row is zero-filled up to 32 B (CCE copy_gm_to_cbuf_multi_nd2nz). nd_num, n_value or
    d_value 0 is a no-op.

    Limitations: rows of the NZ fractals past n_value (up to 16) are not written (they keep
    what L1 held; the hardware does not write them either as far as the docs say). GM -> UB
    (VECIN) ND2NZ, which on 910B uses an 8 KB UB scratch, is not emulated. Overlapping
    destinations are written in numpy order (the hardware gives no order).
    """
    op = "data_copy"
    c = _core.current or _core.core()
    dst, src = _nd2nz_operands(c, dst, src, frame)
    dt = dst.dtype
    nd, nv, dv, snd, sdv, c0s, ns, dms = fields(p)
    for name, v, lo, hi in (("nd_num", nd, 0, 4095), ("n_value", nv, 0, 16384),
                            ("d_value", dv, 0, 65535), ("src_nd_matrix_stride", snd, 0, 65535),
                            ("src_d_value", sdv, 1, 65535), ("dst_nz_c0_stride", c0s, 1, 16384),
                            ("dst_nz_n_stride", ns, 1, 16384),
                            ("dst_nz_matrix_stride", dms, 0, 65535)):
        check_range(c, "data_copy", "Nd2NzParams", name, v, lo, hi, frame)
    check_align(c, "data_copy (ND2NZ)", dst, "dst", 32, frame)
    args = (("params", tuple(p)),)
    if not (nd and nv and dv):
        nop(c, "MTE2", op, dt.name, frame, args)
        return
    isz = dt.itemsize
    c0 = 32 // isz
    d1 = -(-dv // c0)
    row_b = dv * isz
    src_hi = ((nd - 1) * snd + (nv - 1) * sdv) * isz + row_b
    dst_hi = (nd - 1) * dms * isz + (nv - 1) * ns * 32 + (d1 - 1) * c0s * 32 + 32
    check_gm_span(c, src, src_hi, op, frame)
    check_local_span(c, dst, dst_hi, op, "dst", frame)
    a = src.alloc
    rows = _as_strided(a.buf[a.idx0 + src.offset:], shape=(nd, nv, row_b),
                       strides=(snd * isz, sdv * isz, 1), writeable=False)
    data = np.zeros((nd, nv, d1 * 32), np.uint8)  # zero fill of the last 32 B unit
    data[:, :, :row_b] = rows
    out = _as_strided(c.mem(dst.space)[dst.addr:], shape=(nd, nv, d1, 32),
                      strides=(dms * isz, ns * 32, c0s * 32, 1), writeable=True)
    out[...] = data.reshape(nd, nv, d1, 32)
    gm0 = a.base + src.offset
    if nd == 1 or snd == nv * sdv:
        reads = (access("GM", gm0, row_b, a.name, nd * nv, sdv * isz),)
    else:
        reads = tuple(access("GM", gm0 + k * snd * isz, row_b, a.name, nv, sdv * isz)
                      for k in range(nd))
    writes = (access(dst.space, dst.addr, dst_hi, dst.name),)
    emit(c, "MTE2", op, reads, writes, nd * nv * dv, dt.name, nd * nv, frame, None, args)
