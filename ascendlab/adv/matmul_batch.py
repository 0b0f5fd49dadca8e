"""Matmul.iterate_batch on the emulator: one core's block of every matrix of a batched Matmul.

    mm.iterate_batch(c, batch_a, batch_b, en_sequential_write, matrix_stride_a=0,
                     matrix_stride_b=0, matrix_stride_c=0, en_partial_sum=None, en_atomic=None,
                     sync=True, wait_iterate_batch=None)

Facts (sources: pyasc python/asc/language/adv/matmul.py iterate_batch; Ascend C Matmul
IterateBatch, NORMAL layout): A holds batch_a matrices and B batch_b, one after another in GM
(the tiling's a/b/c_layout_info_*: batch count, then each matrix's rows (S) and columns (D));
C gets batch = max(batch_a, batch_b) matrices, C_i = A_(i // (batch / batch_a)) @
B_(i // (batch / batch_b)). The core's A, B and C tensors point at its block of the first
matrix (as for iterate_all); matrix i's block lies one matrix stride further per index:
m x k_a elements for A, k_b x n for B, m x n for C (the tiling's org shapes), or the
matrix_stride_a/b/c given (elements, 0 = that default).

Each matrix is computed as one iterate_all, so the trace holds the Matmul's usual events, per
matrix. Limitations: only the NORMAL layout is emulated (BSNGD, SBNGD and BNGS1S2 raise
NotImplementedError; NONE, pyasc's default, is a LaunchError: Ascend C's Matmul server skips
such a call, asc-devkit impl/adv_api/detail/matmul/scheduler/batch), as are C in GM,
sync=True (async raises; wait_iterate_batch is then a no-op) and en_partial_sum off;
en_atomic applies to every matrix's write-back. pyasc's second
form, (tensor, en_partial_sum, en_atomic, en_sequential_write, strides...), takes the batch
counts from set_batch_num (positional arguments always bind to the first form, as in pyasc).
batch_a and batch_b must divide the batch count.
"""

from __future__ import annotations

from typing import Any

from ..errors import LaunchError, ParamError
from ..runtime.memory.tensor import GlobalTensor
from ..runtime.vector.forms import bind_overload
from .matmul_enums import LayoutMode
from .matmul_writeback import where

NAMES = ("tensor", "batch_a", "batch_b", "en_sequential_write", "matrix_stride_a",
         "matrix_stride_b", "matrix_stride_c", "en_partial_sum", "en_atomic", "sync",
         "wait_iterate_batch")
CUBE_ONLY_NAMES = ("tensor", "en_partial_sum", "en_atomic", "en_sequential_write",
                   "matrix_stride_a", "matrix_stride_b", "matrix_stride_c")
DEFAULTS = {"matrix_stride_a": 0, "matrix_stride_b": 0, "matrix_stride_c": 0,
            "en_partial_sum": None, "en_atomic": None, "sync": True, "wait_iterate_batch": None}


def iterate_batch(mm: Any, frame: Any, args: tuple, kwargs: dict) -> None:
    """Compute every matrix of the batch into the tensor (see the module docstring); args and
    kwargs are pyasc's first overload, (tensor, batch_a, batch_b, en_sequential_write,
    matrix_stride_a=0, matrix_stride_b=0, matrix_stride_c=0, en_partial_sum=None,
    en_atomic=None, sync=True, wait_iterate_batch=None)."""
    at = where(frame)
    p = bind_overload(NAMES, 4, args, kwargs)
    if p is None:  # the cube-only form: the batch counts come from set_batch_num
        p = bind_overload(CUBE_ONLY_NAMES, 4, args, kwargs)
        if p is None:
            raise TypeError(f"Matmul.iterate_batch{tuple(args)}: fits neither (tensor, batch_a, "
                            "batch_b, en_sequential_write, ...) nor (tensor, en_partial_sum, "
                            f"en_atomic, en_sequential_write, ...) {at}")
        if getattr(mm, "batch_num", None) is None:
            raise LaunchError(f"Matmul.iterate_batch: the form without batch counts needs "
                              f"set_batch_num(batch_a, batch_b) first {at}")
        p["batch_a"], p["batch_b"] = mm.batch_num
    p = {**DEFAULTS, **p}
    c = p["tensor"]
    for role, t in (("a", mm.a_type), ("b", mm.b_type), ("c", mm.c_type)):
        if t.layout is None or int(t.layout) == LayoutMode.NONE:
            raise LaunchError(f"Matmul.iterate_batch: {role}'s MatmulType has layout NONE "
                              "(pyasc's default); Ascend C's Matmul server skips such a call and "
                              "leaves C unwritten: give A, B and C "
                              f"layout=asc.LayoutMode.NORMAL {at}")
        if int(t.layout) != LayoutMode.NORMAL:
            raise NotImplementedError(f"Matmul.iterate_batch: {role} layout "
                                      f"{LayoutMode(int(t.layout)).name} is not emulated "
                                      f"(emulated: NORMAL) {at}")
    if p["wait_iterate_batch"] and p["sync"]:
        raise ValueError(f"Matmul.iterate_batch: wait_iterate_batch=True needs sync=False {at}")
    if not p["sync"]:
        raise NotImplementedError(f"Matmul.iterate_batch(sync=False) is not emulated {at}")
    if p["en_partial_sum"]:
        raise NotImplementedError(f"Matmul.iterate_batch(en_partial_sum=True) is not emulated "
                                  f"{at}")
    if not isinstance(c, GlobalTensor):
        raise NotImplementedError(f"Matmul.iterate_batch: C in {type(c).__name__} is not "
                                  f"emulated (a GM GlobalTensor is) {at}")
    if p["en_sequential_write"]:
        raise ValueError(f"Matmul.iterate_batch: with C in GM en_sequential_write must be False "
                         f"{at}")
    ba, bb = int(p["batch_a"]), int(p["batch_b"])
    batch = max(ba, bb)
    if ba <= 0 or bb <= 0 or batch % ba or batch % bb:
        raise ParamError(f"Matmul.iterate_batch: batch_a={ba} and batch_b={bb} must be >= 1 and "
                         f"divide the batch count {batch} {at}")
    if mm.tiling is None or mm.a_gm is None or mm.b_gm is None:
        raise LaunchError(f"Matmul.iterate_batch: register a tiling and call set_tensor_a / "
                          f"set_tensor_b first {at}")
    t = mm.tiling
    m, n, ka, kb = int(t.m), int(t.n), int(t.k_a), int(t.k_b) or int(t.k_a)
    if mm.org is not None:
        m, n, ka, kb = mm.org[0], mm.org[1], mm.org[2], mm.org[3]
    sa = int(p["matrix_stride_a"]) or m * ka
    sb = int(p["matrix_stride_b"]) or kb * n
    sc = int(p["matrix_stride_c"]) or m * n
    atomic = int(p["en_atomic"] or 0)
    a0, b0 = mm.a_gm, mm.b_gm
    try:
        for i in range(batch):
            mm.a_gm = a0 + (i // (batch // ba)) * sa
            mm.b_gm = b0 + (i // (batch // bb)) * sb
            mm._iterate_all(c + i * sc, atomic, True, frame)
    finally:
        mm.a_gm, mm.b_gm = a0, b0


__all__ = ["iterate_batch"]
