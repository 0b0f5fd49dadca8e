"""asc.adv.Matmul.iterate_batch on the emulator: several single-core matmuls in one call, laid
out as the Matmul's LayoutMode says (Ascend C's IterateBatch).

pyasc's signature (python/asc/language/adv/matmul.py):

    mm.iterate_batch(c, batch_a, batch_b, en_sequential_write, matrix_stride_a=0,
                     matrix_stride_b=0, matrix_stride_c=0, en_partial_sum=None, en_atomic=None,
                     sync=True, wait_iterate_batch=None)

The NORMAL layout (BMNK) is emulated, as Ascend C's batch scheduler and batch copy-in define it
(asc-devkit impl/adv_api/detail/matmul/scheduler/batch, stage/copy_cube_in/batch): the call
computes batch = max(batch_a, batch_b) products C[i] = A[i // (batch // batch_a)] @
B[i // (batch // batch_b)] (one operand broadcast when batch_a != batch_b; the larger must be a
multiple of the smaller). The matrices are the tiling's org shape (m x k_a for A, k_b x n for
B, m x n for C, or set_org_shape's), row-major, one after the other: matrix i of A starts
matrix_stride_a elements after matrix i - 1, or m * k_a when the stride is 0 (B likewise with
matrix_stride_b or k_b * n; C always m * n, or m * org_kc: matrix_stride_c is reserved in
Ascend C and ignored, as there). In each product the core computes its block as iterate_all
does (single_core_m x single_core_n over single_core_k, or the set_tail values) at the place
its set_tensor_a/b and C tensors point to, so a tiling that splits m and n over cores works as
it does for one matrix. With one core (single shape = org shape, BatchMatmulTiling's case)
this is Ascend C's contiguous NORMAL layout exactly (its batch copy-in steps one single_core
matrix per batch); with the shape split over cores the emulator keeps the org matrix per batch,
which is what pyasc's generalization test (test_matmul_iterate_batch.py) computes.

Every product runs through the same traced cube schedule as iterate_all (matmul_engine.py /
matmul_schedule.py: GM -> L1 ND2NZ, load_data, mmad, fixpipe, with their flags), one Job per
batch, so the cost model and the sanitizer see every instruction. Where the emulator departs
from Ascend C: Ascend C copies all batches of A and of B into L1 with one ND2NZ each before the
products; the emulator loads each product's tiles as iterate_all does (more, smaller MTE2
copies; when a product's operands fit L1, the same GM bytes for batch_a == batch_b, while a
broadcast operand is read once per product instead of once per call).

Not emulated (NotImplementedError naming it): the BSNGD, SBNGD and BNGS1S2 layouts, C in UB
(en_sequential_write=True), en_partial_sum=True, en_atomic 2/3 (max/min), a bias, sync=False,
and the overload without batch counts (iterate_batch(c, en_partial_sum, en_atomic, ...)).
"""

from __future__ import annotations

import copy
import sys
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from ..errors import LaunchError
from ..runtime.tensor import LocalTensor
from .matmul_engine import Job
from .matmul_writeback import as_global, where

if TYPE_CHECKING:
    from .matmul import Matmul

_getframe = sys._getframe


class LayoutMode(IntEnum):
    """pyasc's asc.LayoutMode (python/asc/language/core/enums.py): how a batched Matmul's
    operand is laid out in GM (Ascend C's LayoutMode)."""

    NONE = 0
    NORMAL = 1
    BSNGD = 2
    SBNGD = 3
    BNGS1S2 = 4


_EMULATED = (LayoutMode.NORMAL,)


def _layout(mm: Matmul, frame: Any) -> None:
    """Every operand's MatmulType must say NORMAL (the one layout emulated)."""
    for role, t in (("a", mm.a_type), ("b", mm.b_type), ("c", mm.c_type)):
        raw = t.layout
        mode = LayoutMode(int(raw)) if raw is not None else LayoutMode.NONE
        if mode == LayoutMode.NONE:
            raise LaunchError(f"Matmul.iterate_batch: MatmulType {role} has layout NONE "
                              f"(Ascend C's Matmul server skips such a call: C stays unwritten); "
                              f"give asc.adv.MatmulType(..., layout) a LayoutMode (NORMAL, "
                              f"BSNGD, SBNGD or BNGS1S2) {where(frame)}")
        if mode not in _EMULATED:
            raise NotImplementedError(f"Matmul.iterate_batch: layout {mode.name} (MatmulType "
                                      f"{role}) is not emulated; emulated: NORMAL "
                                      f"{where(frame)}")


def _counts(batch_a: Any, batch_b: Any, frame: Any) -> tuple[int, int, int]:
    ba, bb = int(batch_a), int(batch_b)
    if ba < 1 or bb < 1:
        raise ValueError(f"Matmul.iterate_batch: batch_a = {ba}, batch_b = {bb}; both must be "
                         f">= 1 {where(frame)}")
    batch = max(ba, bb)
    if batch % min(ba, bb):
        raise ValueError(f"Matmul.iterate_batch: batch_a = {ba} and batch_b = {bb}: the larger "
                         f"must be a multiple of the smaller (NORMAL layout) {where(frame)}")
    return ba, bb, batch


def _refuse(c: Any, sequential: Any, partial: Any, atomic: Any, sync: Any, wait: Any,
            bias: bool, frame: Any) -> int:
    """The options outside what is emulated; returns en_atomic (0 or 1)."""
    at = where(frame)
    if isinstance(c, LocalTensor) or sequential:
        raise NotImplementedError(f"Matmul.iterate_batch: C in UB (a LocalTensor, "
                                  f"en_sequential_write=True) is not emulated; C in GM is {at}")
    if partial:
        raise NotImplementedError(f"Matmul.iterate_batch(en_partial_sum=True) is not emulated "
                                  f"{at}")
    if wait and sync:
        raise ValueError(f"Matmul.iterate_batch: wait_iterate_batch=True needs sync=False {at}")
    mode = int(atomic or 0)
    if mode in (2, 3):
        raise NotImplementedError(f"Matmul.iterate_batch(en_atomic={mode}) (atomic "
                                  f"{'max' if mode == 2 else 'min'}) is not emulated; 0 and 1 "
                                  f"(add) are {at}")
    if mode not in (0, 1):
        raise ValueError(f"Matmul.iterate_batch: en_atomic = {mode} must be in [0, 1, 2, 3] {at}")
    if bias:
        raise NotImplementedError(f"Matmul.iterate_batch with a bias is not emulated; call "
                                  f"mm.disable_bias() or build the tiling without one {at}")
    return mode


def iterate_batch(mm: Matmul, c: Any, *args: Any, **kwargs: Any) -> None:
    """Matmul.iterate_batch(c, batch_a, batch_b, en_sequential_write, matrix_stride_a=0,
    matrix_stride_b=0, matrix_stride_c=0, en_partial_sum=None, en_atomic=None, sync=True,
    wait_iterate_batch=None): batch = max(batch_a, batch_b) matmuls of the NORMAL layout into C
    in GM (module docstring)."""
    frame = _getframe(1)
    if (args and isinstance(args[0], bool)) or (not args and "batch_a" not in kwargs):
        raise NotImplementedError(f"Matmul.iterate_batch(c, en_partial_sum, en_atomic, "
                                  f"en_sequential_write, ...) (batch counts from the tiling) is "
                                  f"not emulated; pass batch_a and batch_b {where(frame)}")
    _run(mm, c, frame, *args, **kwargs)


def _run(mm: Matmul, c: Any, frame: Any, batch_a: Any, batch_b: Any, en_sequential_write: Any,
         matrix_stride_a: Any = 0, matrix_stride_b: Any = 0, matrix_stride_c: Any = 0,
         en_partial_sum: Any = None, en_atomic: Any = None, sync: Any = True,
         wait_iterate_batch: Any = None) -> None:
    _layout(mm, frame)
    ba, bb, batch = _counts(batch_a, batch_b, frame)
    atomic = bool(_refuse(c, en_sequential_write, en_partial_sum, en_atomic, sync,
                          wait_iterate_batch, mm.use_bias, frame))
    first = mm._job("iterate_batch", sync, frame)  # the checks of iterate_all; the shapes
    org = mm.org or (int(mm.tiling.m), int(mm.tiling.n), int(mm.tiling.k_a),
                     int(mm.tiling.k_b), 0)
    org_m, org_kb = org[0], org[3]
    sa = int(matrix_stride_a) or org_m * first.lda
    sb = int(matrix_stride_b) or org_kb * first.ldb
    sc = org_m * first.ldc
    out = as_global(c, "Matmul.iterate_batch output")
    a_gm, b_gm = mm.a_gm, mm.b_gm
    jobs = [first]  # kept alive: a Job's id keys its L1 tiles in the engine's cache
    first.request(frame)
    for i in range(batch):
        if i:  # product 0 is `first` (the operands as set); the others start further on
            one = copy.copy(mm)  # this product's operands; everything else shared
            one.a_gm = a_gm._view(i // (batch // ba) * sa)
            one.b_gm = b_gm._view(i // (batch // bb) * sb)
            jobs.append(Job(one, frame))
        job = jobs[-1]
        dst = out._view(i * sc)
        for count in range(job.blocks):
            job.compute(count, frame)
            job.write(dst, count, atomic, False, frame, whole=True,
                      notify=i == batch - 1 and count == job.blocks - 1)
    mm.loop = None


__all__ = ["LayoutMode", "iterate_batch"]
