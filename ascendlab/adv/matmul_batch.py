"""Matmul.iterate_batch on the emulator: one core's block of every matrix of a batched Matmul.

    mm.iterate_batch(c, batch_a, batch_b, en_sequential_write, matrix_stride_a=0,
                     matrix_stride_b=0, matrix_stride_c=0, sync=True, wait_iterate_batch=False)

Facts (sources: pyasc python/asc/language/adv/matmul.py iterate_batch; Ascend C Matmul
IterateBatch, NORMAL layout): A holds batch_a matrices and B batch_b, one after another in GM
(the tiling's a/b/c_layout_info_*: batch count, then each matrix's rows (S) and columns (D));
C gets batch = max(batch_a, batch_b) matrices, C_i = A_(i // (batch / batch_a)) @
B_(i // (batch / batch_b)). The core's A, B and C tensors point at its block of the first
matrix (as for iterate_all); matrix i's block lies one matrix stride further per index:
m x k_a elements for A, k_b x n for B, m x n for C (the tiling's org shapes), or the
matrix_stride_a/b/c given (elements, 0 = that default).

Each matrix is computed as one iterate_all, so the trace holds the Matmul's usual events, per
matrix. Limitations: only the NORMAL (and NONE) layout is emulated (BSNGD, SBNGD and BNGS1S2
raise NotImplementedError), as are sync=True and en_sequential_write=False; batch_a and
batch_b must divide the batch count.
"""

from __future__ import annotations

from typing import Any

from ..errors import LaunchError, ParamError
from ..runtime.tensor import GlobalTensor
from .matmul_enums import LayoutMode
from .matmul_writeback import where

_NORMAL = (LayoutMode.NONE, LayoutMode.NORMAL)


def iterate_batch(mm: Any, frame: Any, c: Any, batch_a: Any, batch_b: Any,
                  en_sequential_write: Any, matrix_stride_a: Any = 0, matrix_stride_b: Any = 0,
                  matrix_stride_c: Any = 0, sync: Any = True,
                  wait_iterate_batch: Any = False) -> None:
    """Compute every matrix of the batch into c (see the module docstring)."""
    at = where(frame)
    for role, t in (("a", mm.a_type), ("b", mm.b_type), ("c", mm.c_type)):
        if t.layout is not None and int(t.layout) not in _NORMAL:
            raise NotImplementedError(f"Matmul.iterate_batch: {role} layout {t.layout!r} is not "
                                      f"emulated (NORMAL is) {at}")
    if not sync:
        raise NotImplementedError(f"Matmul.iterate_batch(sync=False) is not emulated {at}")
    if en_sequential_write:
        raise NotImplementedError("Matmul.iterate_batch(en_sequential_write=True) is not "
                                  f"emulated {at}")
    ba, bb = int(batch_a), int(batch_b)
    batch = max(ba, bb)
    if ba <= 0 or bb <= 0 or batch % ba or batch % bb:
        raise ParamError(f"Matmul.iterate_batch: batch_a={ba} and batch_b={bb} must be >= 1 and "
                         f"divide the batch count {batch} {at}")
    if mm.tiling is None or mm.a_gm is None or mm.b_gm is None:
        raise LaunchError(f"Matmul.iterate_batch: register a tiling and call set_tensor_a / "
                          f"set_tensor_b first {at}")
    if not isinstance(c, GlobalTensor):
        raise NotImplementedError(f"Matmul.iterate_batch: C in {type(c).__name__} is not "
                                  f"emulated (a GM GlobalTensor is) {at}")
    t = mm.tiling
    m, n, ka, kb = int(t.m), int(t.n), int(t.k_a), int(t.k_b) or int(t.k_a)
    if mm.org is not None:
        m, n, ka, kb = mm.org[0], mm.org[1], mm.org[2], mm.org[3]
    sa = int(matrix_stride_a) or m * ka
    sb = int(matrix_stride_b) or kb * n
    sc = int(matrix_stride_c) or m * n
    a0, b0 = mm.a_gm, mm.b_gm
    try:
        for i in range(batch):
            mm.a_gm = a0 + (i // (batch // ba)) * sa
            mm.b_gm = b0 + (i // (batch // bb)) * sb
            mm._iterate_all(c + i * sc, 0, True, frame)
    finally:
        mm.a_gm, mm.b_gm = a0, b0


__all__ = ["iterate_batch"]
