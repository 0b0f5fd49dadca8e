"""asc.adv.Matmul on the emulator: numerics against numpy for several shapes (tails, bias),
cube-only and MIX launches, the iterate loop's block order, the traced cube pipeline, the
cross-core protocol, insert_sync, and the errors a user meets."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.analysis.deps import match_syncs
from ascendlab.analysis.sanitizer import sanitize
from ascendlab.errors import KernelSyntaxError, LaunchError

from .matmul_kernels import (
    host_tiling,
    mm_auto,
    mm_cube_only,
    mm_leaky_relu,
    mm_mix,
    operands,
)

SHAPES = [(64, 64, 64), (200, 96, 150), (33, 17, 129), (1, 16, 1), (512, 256, 384)]


def reference(a, b, bias=None):
    out = a.astype(np.float32) @ b.astype(np.float32)
    return out if bias is None else out + bias


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("with_bias", [False, True])
def test_cube_only_fp16_to_fp32_with_tails(m, k, n, with_bias):
    a, b, bias = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    tiling = host_tiling(m, n, k, dim=8, bias=with_bias)
    run = mm_cube_only[tiling.used_core_num](a, b, c, bias, tiling)
    np.testing.assert_array_equal(c, reference(a, b, bias if with_bias else None))
    assert run.core_kind == "aic"
    assert not sanitize(run)
    assert 0 < run.bound_cycles <= run.cycles <= run.cost.serial_cycles


def test_cube_only_fp32_inputs():
    m, k, n = 96, 72, 80
    a, b, bias = operands(m, k, n, "float32")
    c = np.zeros((m, n), np.float32)
    tiling = host_tiling(m, n, k, dim=4, ab="DT_FLOAT")
    mm_cube_only[tiling.used_core_num](a, b, c, bias, tiling)
    np.testing.assert_array_equal(c, reference(a, b))


def test_hand_filled_tiling_with_zero_depths_and_steps():
    """A tiling filled by hand (pyasc's K:matmul does this): zero db/step_k fields mean the
    emulator's documented defaults."""
    m, k, n = 128, 192, 128
    a, b, bias = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    t = asc.adv.TCubeTiling(used_core_num=4, m=m, n=n, k_a=k, k_b=k, single_core_m=64,
                            single_core_n=64, single_core_k=k, base_m=64, base_n=64, base_k=64,
                            depth_a1=1, depth_b1=1, step_m=1, step_n=1, is_bias=1)
    run = mm_cube_only[4](a, b, c, bias, t)
    np.testing.assert_array_equal(c, reference(a, b, bias))
    assert not sanitize(run)


@pytest.mark.parametrize("m,k,n,groups", [(128, 64, 256, 2), (200, 96, 150, 3),
                                          (512, 512, 1024, 24)])
def test_mix_iterate_all_to_gm(m, k, n, groups):
    a, b, _ = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(1 << 20, np.uint8)
    tiling = host_tiling(m, n, k, dim=2 * groups)
    run = mm_mix[groups](a, b, c, tiling, ws)
    np.testing.assert_array_equal(c, reference(a, b))
    assert run.core_kind == "mix" and run.block_num == groups
    kinds = Counter(run.core_kinds.values())
    assert kinds["aiv"] == 2 * groups and 1 <= kinds["aic"] <= groups
    # cube work is on cube cores only, vector cores only talk to them
    for e in run.trace:
        if e.pipe in ("M", "MTE1", "FIX"):
            assert run.kind_of(e.core) == "aic"
    assert not sanitize(run)
    assert 0 < run.bound_cycles <= run.cycles <= run.cost.serial_cycles


def test_mix_leaky_relu_epilogue_with_bias():
    """pyasc's matmul + leaky_relu tutorial configuration: m, k, n = 1024, 256, 640 on two
    vector cores with base blocks 256 x 128."""
    m, k, n = 1024, 256, 640
    a, b, bias = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(16 << 20, np.uint8)
    tiling = host_tiling(m, n, k, dim=2, bias=True, c_pos="VECCALC", fix=(256, 128, -1),
                         traverse="FIRSTM")
    assert (tiling.base_m, tiling.base_n, tiling.used_core_num) == (256, 128, 2)
    alpha = 0.001
    run = mm_leaky_relu[tiling.used_core_num // 2](a, b, c, bias, alpha, tiling, ws)
    ref = reference(a, b, bias)
    np.testing.assert_allclose(c, np.where(ref >= 0, ref, ref * np.float32(alpha)), rtol=1e-6)
    assert not sanitize(run)
    # one request and one result per block, matched across the two cores
    blocks = (tiling.single_core_m // tiling.base_m) * (tiling.single_core_n // tiling.base_n)
    ops = Counter(e.op for e in run.trace)
    assert ops["mm_request"] == ops["mm_serve"] == ops["mm_done"] == 2 * blocks
    assert len(match_syncs(run.trace).xset_of) == 4 * blocks


def test_iterate_visits_blocks_m_fastest_then_n_fastest():
    """`with mm.iterate() as count:` runs once per block; ORDER_M walks M first."""
    m, k, n = 256, 64, 256
    a, b, _ = operands(m, k, n)
    for order in (0, 1):
        t = asc.adv.TCubeTiling(used_core_num=1, m=m, n=n, k_a=k, k_b=k, single_core_m=m,
                                single_core_n=n, single_core_k=k, base_m=128, base_n=128,
                                base_k=64, depth_a1=1, depth_b1=1, step_m=1, step_n=1,
                                iterate_order=order)
        got: list[int] = []

        @asc.jit(matmul_cube_only=True)
        def order_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                         tiling: asc.adv.TCubeTiling):
            ga = asc.GlobalTensor()
            gb = asc.GlobalTensor()
            gc = asc.GlobalTensor()
            ga.set_global_buffer(a)
            gb.set_global_buffer(b)
            gc.set_global_buffer(c)
            pipe = asc.TPipe()
            mm = asc.adv.Matmul(
                a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
                b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
                c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype))
            asc.adv.register_matmul(pipe, mm, tiling)
            mm.set_tensor_a(ga)
            mm.set_tensor_b(gb)
            with mm.iterate() as count:
                got.append(count)  # noqa: B023 - the kernel runs inside this iteration
                mm.get_tensor_c(gc[count * tiling.base_m * tiling.base_n:],
                                en_sequential_write=True)

        c = np.zeros((4, 128, 128), np.float32)
        order_kernel[1](a, b, c, t)
        assert got == [0, 1, 2, 3]
        ref = reference(a, b)
        blocks = [(i % 2, i // 2) if order == 0 else (i // 2, i % 2) for i in range(4)]
        for i, (mi, ni) in enumerate(blocks):
            np.testing.assert_array_equal(c[i], ref[mi * 128:(mi + 1) * 128,
                                                    ni * 128:(ni + 1) * 128])


def test_trace_has_the_cube_pipeline_with_user_lines():
    m, k, n = 256, 256, 256
    a, b, bias = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    tiling = host_tiling(m, n, k, dim=1)
    run = mm_cube_only[1](a, b, c, bias, tiling)
    by = Counter((e.pipe, e.op) for e in run.trace)
    for key in (("MTE2", "data_copy"), ("MTE1", "load_data"), ("M", "mmad"),
                ("FIX", "fixpipe")):
        assert by[key] > 0, key
    mm = [e for e in run.trace if e.op == "mmad"]
    assert sum(e.count for e in mm) == m * n * k  # every MAC once
    assert {e.file for e in mm} == {mm_cube_only.fn.__code__.co_filename}  # the user's file
    assert all(dict(e.args).get("adv") == "Matmul" for e in mm)
    gm_reads = [a for e in run.trace if e.op == "data_copy" for a in e.reads]
    assert {a.space for a in gm_reads} == {"GM"}
    assert run.cost.bytes_moved["L0C->GM"] == m * n * 4


def test_insert_sync_kernel_with_local_tensor_auto():
    """pyasc's automatic-sync Matmul kernel form (fp32 inputs, hand-filled tiling, two vector
    cores per block): exact results, syncs inserted on the vector side, no races."""
    m = k = n = 256
    rng = np.random.default_rng(2025)
    a = (rng.random((m, k), dtype=np.float32) - .5) * 10
    b = (rng.random((k, n), dtype=np.float32) - .5) * 10
    bias = (rng.random((1, n), dtype=np.float32) - .5) * 10
    c = np.empty((m, n), np.float32)
    used = 4
    t = asc.adv.TCubeTiling(used_core_num=used, m=m, n=n, k_a=k, k_b=k, single_core_m=128,
                            single_core_n=128, single_core_k=k, base_m=64, base_n=64,
                            base_k=64, depth_a1=1, depth_b1=1, step_m=1, step_n=1, is_bias=1)
    ws = np.zeros(16 << 20, np.uint8)
    run = mm_auto[used](a, b, c, 0.01, t, ws, bias, 64 * 64)
    ref = a @ b + bias
    np.testing.assert_allclose(c, np.where(ref >= 0, ref, ref * np.float32(0.01)), atol=1e-3)
    auto = [e for e in run.trace if e.sync is not None and e.sync.key == ("auto",)]
    assert auto and all(e.sync.implicit and dict(e.args)["auto"] for e in auto)
    assert all(run.kind_of(e.core) == "aiv" for e in auto)
    pairs = {dict(e.args)["event"] for e in auto}
    assert "V_MTE3" in pairs  # leaky_relu writes what the copy-out reads
    found = sanitize(run)
    # vector cores i and i + used compute the same block on purpose: only the duplicate
    # (identical) GM writes are reported, never a race inside a core
    assert found and {f.kind for f in found} == {"memcheck"}
    assert all("both write c" in f.message for f in found)


def test_struct_argument_is_a_per_core_copy():
    t = asc.adv.TCubeTiling(m=100, single_core_m=16)
    seen = []

    @asc.jit
    def reads_struct(x: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
        seen.append((tiling.m.ceildiv(tiling.single_core_m), tiling.share_l1_size))
        tiling.share_l1_size = asc.property(asc.TOTAL_L1_SIZE)
        seen.append(tiling.m // 3 + tiling.m % 7)

    reads_struct[2](np.zeros(8, np.float32), t)
    assert seen == [(7, 0), 35, (7, 0), 35]  # the second core sees its own fresh copy
    assert t.share_l1_size == 0  # nothing flows back to the host


def test_errors_name_the_problem():
    m, k, n = 64, 64, 64
    a, b, bias = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    too_big = asc.adv.TCubeTiling(used_core_num=1, m=m, n=n, k_a=k, k_b=k, single_core_m=m,
                                  single_core_n=n, single_core_k=k, base_m=64, base_n=64,
                                  base_k=64, depth_a1=1, depth_b1=1, step_m=1, step_n=1,
                                  db_l0c=2)
    too_big.base_m = too_big.base_n = 256  # 256 x 256 fp32 x 2 buffers: 512 KiB of L0C
    with pytest.raises(ValueError, match="L0C"):
        mm_cube_only[1](a, b, c, bias, too_big)

    @asc.jit(kernel_type=asc.runtime.config.KernelType.AIV_ONLY)
    def vector_only(a: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
        mm = asc.adv.Matmul(
            a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
        asc.adv.register_matmul(asc.TPipe(), mm, tiling)

    with pytest.raises(LaunchError, match="needs the cube cores"):
        vector_only[1](a, asc.adv.TCubeTiling())

    @asc.jit
    def transposed(a: asc.GlobalAddress):
        asc.adv.Matmul(
            a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype, True),
            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a.dtype),
            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))

    with pytest.raises(NotImplementedError, match="transposed a"):
        transposed[1](a)

    with pytest.raises(KernelSyntaxError, match="with"):
        @asc.jit
        def plain_with(a: asc.GlobalAddress):
            with open("x") as f:  # noqa: F841
                pass

        plain_with[1](a)


def test_missing_get_tensor_c_is_reported():
    m, k, n = 128, 64, 128
    a, b, _ = operands(m, k, n)
    t = asc.adv.TCubeTiling(used_core_num=1, m=m, n=n, k_a=k, k_b=k, single_core_m=m,
                            single_core_n=n, single_core_k=k, base_m=64, base_n=64, base_k=64,
                            depth_a1=1, depth_b1=1, step_m=1, step_n=1)

    @asc.jit(matmul_cube_only=True)
    def forgets(a: asc.GlobalAddress, b: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
        ga = asc.GlobalTensor()
        gb = asc.GlobalTensor()
        ga.set_global_buffer(a)
        gb.set_global_buffer(b)
        mm = asc.adv.Matmul(
            a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
        asc.adv.register_matmul(asc.TPipe(), mm, tiling)
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        with mm.iterate():
            pass

    with pytest.raises(LaunchError, match="never fetched"):
        forgets[1](a, b, t)


def test_mix_cost_overlaps_the_cube_pipeline():
    """The cycle model sees the Matmul's double buffering: the modelled span of a cube-bound
    block is well below the serial sum of its instructions."""
    ascendlab.configure(chip="Ascend910B2")
    m, k, n = 256, 1024, 256
    a, b, _ = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(1 << 20, np.uint8)
    tiling = host_tiling(m, n, k, dim=2)
    run = mm_mix[1](a, b, c, tiling, ws)
    assert run.cycles < 0.75 * run.cost.serial_cycles
    busy = run.cost.per_core_busy
    aic = [core for core, kind in run.core_kinds.items() if kind == "aic"]
    assert busy[aic[0]]["M"] > 0 and busy[aic[0]]["MTE2"] > 0


def test_the_float32_operand_copy_follows_writes_into_its_argument():
    """matmul_engine._f32 converts an operand once per content of its GM argument: reused while
    nothing wrote into the argument, remade after a write (GMAlloc.version)."""
    from ascendlab.adv.matmul_engine import _f32
    from ascendlab.runtime.dtypes import DataType
    from ascendlab.runtime.memory.gm import GlobalAddress, GMAlloc
    from ascendlab.runtime.memory.tensor import GlobalTensor

    host = np.arange(12, dtype=np.float16).reshape(3, 4)
    alloc = GMAlloc("a", 0, host.view(np.uint8).ravel(), DataType("float16"), host.shape)
    g = GlobalTensor()
    g.set_global_buffer(GlobalAddress(alloc, 0, DataType("float16")))
    first = _f32(g, 3, 4, 4)
    assert first.dtype == np.float32 and np.array_equal(first, host.astype(np.float32))
    assert _f32(g, 3, 4, 4) is first  # no write: the same copy
    alloc.private()
    alloc.mark_written()
    alloc.array()[1, 2] = 100
    second = _f32(g, 3, 4, 4)
    assert second is not first and second[1, 2] == 100 and first[1, 2] == 6


def _slice_by_slice(a16, b16, bias, t):
    """What the traced instructions compute: per core region and base block, C starts from 0
    (+ the bias row) and adds each base_k slice's float32 product in K order."""
    m, n = a16.shape[0], b16.shape[1]
    sm, sn, bm, bn, bk = (int(v) for v in (t.single_core_m, t.single_core_n, t.base_m,
                                           t.base_n, t.base_k))
    out = np.zeros((m, n), np.float32)
    for r0 in range(0, m, sm):
        for c0 in range(0, n, sn):
            a = a16[r0:r0 + sm].astype(np.float32)  # the core's operands, as _f32 makes them
            b = b16[:, c0:c0 + sn].astype(np.float32)
            for m0 in range(0, a.shape[0], bm):
                for n0 in range(0, b.shape[1], bn):
                    acc = np.zeros((min(bm, a.shape[0] - m0), min(bn, b.shape[1] - n0)),
                                   np.float32)
                    if bias is not None:
                        acc += bias[0, c0 + n0:c0 + n0 + acc.shape[1]]
                    for k0 in range(0, a.shape[1], bk):
                        acc += a[m0:m0 + bm, k0:k0 + bk] @ b[k0:k0 + bk, n0:n0 + bn]
                    out[r0 + m0:r0 + m0 + acc.shape[0], c0 + n0:c0 + n0 + acc.shape[1]] = acc
    return out


@pytest.mark.parametrize("m,k,n,with_bias", [(200, 520, 150, True), (256, 384, 320, False)])
def test_random_operands_give_the_slice_by_slice_float32_sums_bit_for_bit(m, k, n, with_bias):
    """With non-integer operands the summation order shows: the result is, to the bit, the
    base_k-slice accumulation the traced mmad instructions describe."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal((1, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tiling = host_tiling(m, n, k, dim=8, bias=with_bias)
    assert int(tiling.single_core_k) == k and int(tiling.base_k) < k  # several K slices
    mm_cube_only[tiling.used_core_num](a, b, c, bias, tiling)
    want = _slice_by_slice(a, b, bias if with_bias else None, tiling)
    assert np.array_equal(c.view(np.uint32), want.view(np.uint32))
    # the order shows: one float32 product over the whole K rounds differently
    assert not np.array_equal(want, a.astype(np.float32) @ b.astype(np.float32)
                              + (bias if with_bias else 0))
