"""Matmul.iterate_batch (ascendlab/adv/matmul_batch.py): every core's block of each matrix of a
batch, with A or B broadcast over the batch and a custom C stride, against numpy; and the
layouts and forms that are not emulated."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc

from .matmul_kernels import block_offsets, host_tiling


@asc.jit(matmul_cube_only=True)
def mm_batch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
             tiling: asc.adv.TCubeTiling, batch_a: int, batch_b: int, stride_c: int,
             layout: asc.ConstExpr[int], sync: asc.ConstExpr[bool]):
    if asc.ascend_is_aic():
        off_a, off_b, off_c, _, rows, cols = block_offsets(tiling)
        ga = asc.GlobalTensor()
        gb = asc.GlobalTensor()
        gc = asc.GlobalTensor()
        ga.set_global_buffer(a + off_a)
        gb.set_global_buffer(b + off_b)
        gc.set_global_buffer(c + off_c)
        pipe = asc.TPipe()
        lay = asc.LayoutMode(layout)
        mm = asc.adv.Matmul(
            a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype, False, lay),
            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype, False, lay),
            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype, False, lay))
        asc.adv.register_matmul(pipe, mm, tiling)
        if asc.get_block_idx() < tiling.used_core_num:
            mm.set_tensor_a(ga)
            mm.set_tensor_b(gb)
            mm.set_tail(rows, cols, tiling.k_a)
            mm.iterate_batch(gc, batch_a, batch_b, False, 0, 0, stride_c, sync=sync)
            mm.end()


@pytest.mark.parametrize("batch_a, batch_b, gap", [(2, 2, 0), (3, 1, 0), (1, 2, 64)])
def test_iterate_batch_matches_numpy(batch_a, batch_b, gap):
    m, k, n = 32, 48, 64
    batch = max(batch_a, batch_b)
    rng = np.random.default_rng(batch_a * 10 + batch_b)
    a = rng.integers(-4, 5, (batch_a, m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (batch_b, k, n)).astype(np.float16)
    stride_c = m * n + gap  # elements between C's matrices (0 would be m * n)
    c = np.zeros(batch * stride_c, np.float32)
    tiling = host_tiling(m, n, k, 2)
    run = mm_batch[int(tiling.used_core_num)](a, b, c, tiling, batch_a, batch_b, stride_c,
                                               int(asc.LayoutMode.NORMAL), True)
    for i in range(batch):
        want = (a[i // (batch // batch_a)].astype(np.float32)
                @ b[i // (batch // batch_b)].astype(np.float32))
        np.testing.assert_array_equal(c[i * stride_c:i * stride_c + m * n].reshape(m, n), want)
        assert not c[i * stride_c + m * n:(i + 1) * stride_c].any()  # the gap stays untouched
    assert len(run.events(op="fixpipe")) >= batch  # every matrix is written back


def test_layouts_and_forms_not_emulated():
    m, k, n = 32, 32, 32
    a = np.zeros((2, m, k), np.float16)
    b = np.zeros((2, k, n), np.float16)
    c = np.zeros((2, m, n), np.float32)
    tiling = host_tiling(m, n, k, 1)
    with pytest.raises(NotImplementedError, match="layout .*BSNGD"):
        mm_batch[1](a, b, c, tiling, 2, 2, 0, int(asc.LayoutMode.BSNGD), True)
    with pytest.raises(NotImplementedError, match="sync=False"):
        mm_batch[1](a, b, c, tiling, 2, 2, 0, int(asc.LayoutMode.NORMAL), False)
    with pytest.raises(ValueError, match="batch_a=2 and batch_b=3"):
        mm_batch[1](a, b, c, tiling, 2, 3, 0, int(asc.LayoutMode.NORMAL), True)


@asc.jit(matmul_cube_only=True)
def mm_batch_num(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                 tiling: asc.adv.TCubeTiling, sparse: asc.ConstExpr[bool]):
    """The cube-only form: batch counts from set_batch_num; sparse: set_sparse_index first."""
    if asc.ascend_is_aic():
        ga = asc.GlobalTensor()
        gb = asc.GlobalTensor()
        gc = asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        gc.set_global_buffer(c)
        pipe = asc.TPipe()
        nd, lay = asc.CubeFormat.ND, asc.LayoutMode.NORMAL
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, nd, ga.dtype, False, lay),
                            b=asc.adv.MatmulType(asc.TPosition.GM, nd, gb.dtype, False, lay),
                            c=asc.adv.MatmulType(asc.TPosition.GM, nd, gc.dtype, False, lay))
        asc.adv.register_matmul(pipe, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.set_batch_num(2, 1)
        if sparse:
            mm.set_sparse_index(gb)
        mm.iterate_batch(gc, en_partial_sum=False, en_atomic=0, en_sequential_write=False)


def test_the_cube_only_form_takes_set_batch_num():
    m, k, n = 32, 32, 32
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (2, m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    c = np.zeros((2, m, n), np.float32)
    mm_batch_num[1](a, b, c, host_tiling(m, n, k, 1), False)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    with pytest.raises(NotImplementedError, match="sparse Matmul"):
        mm_batch_num[1](a, b, c, host_tiling(m, n, k, 1), True)
