"""asc.adv.Matmul.iterate_batch (NORMAL layout), more cases: batched products against numpy
(equal batches, broadcast A or B, a matrix stride, fp32, atomic add, the shape split over
cores), the traced cube pipeline per product, asc.LayoutMode, and the layouts refused by name
(tests/adv/test_matmul_batch.py has the calling forms)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import ascendlab.asc as asc
import ascendlab.asc.lib.host as host
from ascendlab.adv.matmul_batch import LayoutMode
from ascendlab.analysis.sanitizer import sanitize
from ascendlab.errors import LaunchError, OutOfBoundsError

from .matmul_kernels import host_tiling


def _batched(a, b, c, off_a: int, off_b: int, off_c: int, layout: int):
    """GM tensors at the given element offsets and a Matmul whose operands have `layout`."""
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a + off_a)
    gb.set_global_buffer(b + off_b)
    gc.set_global_buffer(c + off_c)
    mm = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype, False, layout),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype, False, layout),
        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype, False, layout))
    return mm, ga, gb, gc


@asc.jit(matmul_cube_only=True)
def bmm_cube_only(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                  tiling: asc.adv.TCubeTiling, batch_a: int, batch_b: int, stride_a: int,
                  atomic: int, layout: asc.ConstExpr[int]):
    if asc.ascend_is_aic():
        mm, ga, gb, gc = _batched(a, b, c, 0, 0, 0, layout)
        pipe = asc.TPipe()
        asc.adv.register_matmul(pipe, mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.iterate_batch(gc, batch_a, batch_b, False, stride_a, en_atomic=atomic)
        mm.end()
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def bmm_mix(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
            tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, batch: int):
    """MIX: vector core v computes its own batch of products (A, B, C v-th slices)."""
    v = asc.get_block_idx() * batch
    mm, ga, gb, gc = _batched(a, b, c, v * tiling.m * tiling.k_a, v * tiling.k_b * tiling.n,
                              v * tiling.m * tiling.n, asc.LayoutMode.NORMAL)
    pipe = asc.TPipe()
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    mm.set_tensor_a(ga)
    mm.set_tensor_b(gb)
    mm.iterate_batch(gc, batch, batch, False)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def bmm_split(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
              tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, batch: int):
    """MIX, the tiling's m x n split over the vector cores: each computes its block of every
    product (its tensors point at the block in batch 0)."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m0 = idx % m_blocks * tiling.single_core_m
    n0 = idx // m_blocks * tiling.single_core_n
    mm, ga, gb, gc = _batched(a, b, c, m0 * tiling.k_a, n0, m0 * tiling.n + n0,
                              asc.LayoutMode.NORMAL)
    pipe = asc.TPipe()
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.iterate_batch(gc, batch, batch, False)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def _ints(shape, dtype, seed):
    """Integer-valued operands: exact in fp16 and in the float32 accumulation."""
    return np.random.default_rng(seed).integers(-5, 5, shape).astype(dtype)


def reference(a, b, batch_a, batch_b):
    """C[i] = A[i // (batch // batch_a)] @ B[i // (batch // batch_b)] (Ascend C's NORMAL
    broadcast), in float32."""
    batch = max(batch_a, batch_b)
    return np.stack([a[i // (batch // batch_a)].astype(np.float32)
                     @ b[i // (batch // batch_b)].astype(np.float32) for i in range(batch)])


def run_cube_only(m, k, n, batch_a, batch_b, dtype="float16", gap=0, atomic=0, c0=None,
                  layout=LayoutMode.NORMAL):
    """Launch bmm_cube_only on one core; gap elements between A's matrices."""
    a = _ints((batch_a, m * k + gap), dtype, 1)
    b = _ints((batch_b, k, n), dtype, 2)
    c = np.zeros((max(batch_a, batch_b), m, n), np.float32) if c0 is None else c0.copy()
    tiling = host_tiling(m, n, k, dim=1, ab="DT_FLOAT16" if dtype == "float16" else "DT_FLOAT")
    run = bmm_cube_only[1](a, b, c, tiling, batch_a, batch_b, m * k + gap if gap else 0,
                           atomic, int(layout))
    a3 = a[:, :m * k].reshape(batch_a, m, k)
    return run, c, reference(a3, b, batch_a, batch_b), tiling


@pytest.mark.parametrize("m,k,n,batch_a,batch_b", [
    (64, 64, 64, 2, 2), (32, 48, 40, 3, 3), (33, 17, 129, 2, 2),
    (32, 32, 32, 1, 2), (32, 32, 32, 4, 2)])
def test_normal_layout_against_numpy(m, k, n, batch_a, batch_b):
    run, c, ref, tiling = run_cube_only(m, k, n, batch_a, batch_b)
    np.testing.assert_array_equal(c, ref)
    assert not sanitize(run)
    assert 0 < run.bound_cycles <= run.cycles <= run.cost.serial_cycles
    # every product through the traced cube pipeline: a fixpipe per base block per product
    blocks = -(-m // tiling.base_m) * -(-n // tiling.base_n)
    ops = Counter(e.op for e in run.trace)
    assert ops["fixpipe"] == max(batch_a, batch_b) * blocks
    assert ops["mmad"] >= max(batch_a, batch_b) * blocks
    assert {e.pipe for e in run.trace if e.op == "mmad"} == {"M"}


def test_batch_matmul_tiling_for_normal():
    """The tiling from asc.lib.host.BatchMatmulTiling with set_batch_info_for_normal (Ascend
    C's host side of a NORMAL batch): one core, single shape = org shape."""
    m, k, n, batch_a, batch_b = 48, 64, 32, 2, 4
    t = host.BatchMatmulTiling(host.get_ascendc_platform())
    for setter in (t.set_a_type, t.set_b_type):
        setter(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_shape(m, n, k)
    t.set_org_shape(m, n, k)
    t.set_batch_info_for_normal(batch_a, batch_b, m, n, k)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0 and tiling.used_core_num == 1
    a = _ints((batch_a, m, k), "float16", 8)
    b = _ints((batch_b, k, n), "float16", 9)
    c = np.zeros((batch_b, m, n), np.float32)
    run = bmm_cube_only[1](a, b, c, tiling, batch_a, batch_b, 0, 0, int(LayoutMode.NORMAL))
    np.testing.assert_array_equal(c, reference(a, b, batch_a, batch_b))
    assert not sanitize(run)


@pytest.mark.parametrize("batch_a,batch_b", [(2, 2), (1, 4)])
def test_gm_bytes_loaded_per_product(batch_a, batch_b):
    """The trace's GM -> L1 loads: every product's A and B once (they fit L1), so a broadcast
    operand is read once per product (Ascend C reads it once per call: a documented
    departure)."""
    m = k = n = 64
    run, _, _, _ = run_cube_only(m, k, n, batch_a, batch_b)
    gm = sum(a.nbytes * a.count for e in run.trace if e.op == "data_copy" and e.pipe == "MTE2"
             for a in e.reads if a.space == "GM")
    assert gm == max(batch_a, batch_b) * (m * k + k * n) * 2


def test_fp32_and_matrix_stride():
    """float32 operands, and A's matrices 8 elements apart more than their size."""
    run, c, ref, _ = run_cube_only(16, 24, 32, 3, 3, dtype="float32", gap=8)
    np.testing.assert_array_equal(c, ref)
    assert not sanitize(run)


def test_atomic_add_accumulates_into_c():
    c0 = _ints((2, 32, 32), np.float32, 3)
    _, c, ref, _ = run_cube_only(32, 32, 32, 2, 2, atomic=1, c0=c0)
    np.testing.assert_array_equal(c, c0 + ref)


def test_shape_split_over_cores_each_block_of_every_product():
    """pyasc's generalization test's pattern: m x n split over 4 cores; per product the
    matrices keep the org shape and each core writes its block of every C[i]."""
    m, k, n, batch = 64, 48, 64, 3
    a = _ints((batch, m, k), "float16", 6)
    b = _ints((batch, k, n), "float16", 7)
    c = np.zeros((batch, m, n), np.float32)
    ws = np.zeros(1 << 20, np.uint8)
    tiling = host_tiling(m, n, k, dim=4)
    assert tiling.used_core_num == 4 and tiling.single_core_m * tiling.single_core_n < m * n
    run = bmm_split[2](a, b, c, tiling, ws, batch)
    np.testing.assert_array_equal(c, reference(a, b, batch, batch))
    assert not sanitize(run)


def test_layout_mode_is_pyasc_enum():
    assert asc.LayoutMode is LayoutMode
    assert {x.name: x.value for x in asc.LayoutMode} == {
        "NONE": 0, "NORMAL": 1, "BSNGD": 2, "SBNGD": 3, "BNGS1S2": 4}


@pytest.mark.parametrize("layout", [LayoutMode.BSNGD, LayoutMode.SBNGD, LayoutMode.BNGS1S2])
def test_other_layouts_refused_by_name(layout):
    with pytest.raises(NotImplementedError, match=f"layout {layout.name}.*emulated: NORMAL"):
        run_cube_only(32, 32, 32, 2, 2, layout=layout)


def test_layout_none_is_an_error():
    with pytest.raises(LaunchError, match="layout NONE"):
        run_cube_only(32, 32, 32, 2, 2, layout=LayoutMode.NONE)


def test_operand_past_its_argument_is_caught():
    """batch_b = 2 on a single B matrix: the second product reads past B's argument."""
    m = k = n = 32
    a = _ints((2, m, k), "float16", 1)
    b = _ints((1, k, n), "float16", 2)
    c = np.zeros((2, m, n), np.float32)
    tiling = host_tiling(m, n, k, dim=1)
    with pytest.raises(OutOfBoundsError, match=r"Matmul \(B\).*overrun"):
        bmm_cube_only[1](a, b, c, tiling, 2, 2, 0, 0, int(LayoutMode.NORMAL))
