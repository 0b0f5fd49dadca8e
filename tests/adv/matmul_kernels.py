"""Matmul kernels in pyasc style for the adv tests and the benchmark: cube-only, MIX with C in
GM, MIX with a leaky-relu epilogue in UB (queues), and the insert_sync / LocalTensorAuto form."""

from __future__ import annotations

import numpy as np

import ascendlab.asc as asc
import ascendlab.asc.lib.host as host


@asc.jit
def block_offsets(tiling: asc.adv.TCubeTiling) -> tuple[int, int, int, int, int, int]:
    """This core's (A, B, C, bias) element offsets and its block's rows and columns."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    rows = tiling.m - mi * tiling.single_core_m
    if rows > tiling.single_core_m:
        rows = tiling.single_core_m
    cols = tiling.n - ni * tiling.single_core_n
    if cols > tiling.single_core_n:
        cols = tiling.single_core_n
    off_a = mi * tiling.single_core_m * tiling.k_a
    off_b = ni * tiling.single_core_n
    off_c = mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n
    return off_a, off_b, off_c, off_b, rows, cols


@asc.jit(matmul_cube_only=True)
def mm_cube_only(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                 bias: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
    if asc.ascend_is_aic():
        off_a, off_b, off_c, off_bias, rows, cols = block_offsets(tiling)
        ga = asc.GlobalTensor()
        gb = asc.GlobalTensor()
        gc = asc.GlobalTensor()
        gbias = asc.GlobalTensor()
        ga.set_global_buffer(a + off_a)
        gb.set_global_buffer(b + off_b)
        gc.set_global_buffer(c + off_c)
        gbias.set_global_buffer(bias + off_bias)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(
            a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype),
            bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gbias.dtype))
        asc.adv.register_matmul(pipe, mm, tiling)
        if asc.get_block_idx() < tiling.used_core_num:
            mm.set_tensor_a(ga)
            mm.set_tensor_b(gb)
            if tiling.is_bias:
                mm.set_bias(gbias)
            mm.set_tail(rows, cols, tiling.k_a)
            mm.iterate_all(gc)
            mm.end()
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def mm_mix(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
           tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """MIX: every vector core with a block drives its group's cube core; C straight to GM."""
    off_a, off_b, off_c, off_bias, rows, cols = block_offsets(tiling)
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a + off_a)
    gb.set_global_buffer(b + off_b)
    gc.set_global_buffer(c + off_c)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.set_tail(rows, cols)
        mm.iterate_all(gc)
        mm.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def mm_leaky_relu(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                  bias: asc.GlobalAddress, alpha: float, tiling: asc.adv.TCubeTiling,
                  workspace: asc.GlobalAddress):
    """MIX with a vector epilogue: each base block comes to UB (iterate + get_tensor_c), gets
    leaky_relu and goes out through a VECOUT queue. Needs single-core shapes that are
    multiples of the base block."""
    off_a, off_b, off_c, off_bias, rows, cols = block_offsets(tiling)
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gbias = asc.GlobalTensor()
    ga.set_global_buffer(a + off_a)
    gb.set_global_buffer(b + off_b)
    gc.set_global_buffer(c + off_c)
    gbias.set_global_buffer(bias + off_bias)
    pipe = asc.TPipe()
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=out_q, num=1, len=tiling.base_m * tiling.base_n * c.dtype.sizeof())
    mm = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, gc.dtype),
        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gbias.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.set_bias(gbias)
        round_m = tiling.single_core_m // tiling.base_m
        with mm.iterate() as count:
            out = out_q.alloc_tensor(c.dtype)
            mm.get_tensor_c(out, en_sequential_write=True)
            asc.leaky_relu(out, out, alpha, count=tiling.base_m * tiling.base_n)
            out_q.enque(out)
            out = out_q.deque(c.dtype)
            start = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
            params = asc.DataCopyParams(
                block_count=tiling.base_m,
                block_len=tiling.base_n * c.dtype.sizeof() // asc.property(asc.DEFAULT_C0_SIZE),
                src_stride=0,
                dst_stride=(tiling.n - tiling.base_n) * c.dtype.sizeof()
                // asc.property(asc.DEFAULT_C0_SIZE))
            asc.data_copy(gc[start:], out, repeat_params=params)
            out_q.free_tensor(out)
        mm.end()


@asc.jit(insert_sync=True)
def mm_auto(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, alpha: float,
            tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, bias: asc.GlobalAddress,
            blocksize: asc.ConstExpr[int]):
    """The automatic-sync form: no queues and no flags; LocalTensorAuto for the UB block,
    set_sys_workspace, register_matmul without a tiling then init. Launched on used_core_num
    groups: vector cores fold their index onto the blocks (two compute each block)."""
    asc.set_sys_workspace(workspace)
    tiling.share_l1_size = asc.property(asc.TOTAL_L1_SIZE)
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    idx = asc.get_block_idx() % tiling.used_core_num
    mi = idx % m_blocks
    ni = idx // m_blocks
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    gbias = asc.GlobalTensor()
    ga.set_global_buffer(a + mi * tiling.k_a * tiling.single_core_m)
    gb.set_global_buffer(b + ni * tiling.single_core_n)
    gc.set_global_buffer(c + mi * tiling.n * tiling.single_core_m + ni * tiling.single_core_n)
    gbias.set_global_buffer(bias + ni * tiling.single_core_n)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, gc.dtype),
        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gbias.dtype),
        matmul_config=asc.adv.MatmulConfig())
    asc.adv.register_matmul(pipe, mm)
    mm.init(tiling)
    mm.set_tensor_a(ga)
    mm.set_tensor_b(gb)
    mm.set_bias(gbias)
    round_m = tiling.single_core_m // tiling.base_m
    with mm.iterate() as count:
        out = asc.LocalTensorAuto(c.dtype, blocksize)
        mm.get_tensor_c(out, en_sequential_write=True)
        asc.leaky_relu(out, out, alpha, count=tiling.base_m * tiling.base_n)
        start = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
        params = asc.DataCopyParams(
            block_count=tiling.base_m,
            block_len=tiling.base_n * c.dtype.sizeof() // 32, src_stride=0,
            dst_stride=(tiling.n - tiling.base_n) * c.dtype.sizeof() // 32)
        asc.data_copy(gc[start:], out, repeat_params=params)
    mm.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def host_tiling(m: int, n: int, k: int, dim: int, bias: bool = False, c_pos: str = "GM",
                ab: str = "DT_FLOAT16", fix: tuple[int, int, int] | None = None,
                traverse: str | None = None, c: str = "DT_FLOAT") -> asc.adv.TCubeTiling:
    """A TCubeTiling from asc.lib.host's MultiCoreMatmulTiling, built as pyasc's tutorials do
    (c: C's data type)."""
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    dt = getattr(host.DataType, ab)
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    t.set_c_type(getattr(host.TPosition, c_pos), host.CubeFormat.ND, getattr(host.DataType, c))
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(bias)
    if traverse is not None:
        t.set_traverse(getattr(host.MatrixTraverse, traverse))
    if fix is not None:
        t.set_fix_split(*fix)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


def operands(m: int, k: int, n: int, dtype: str = "float16", seed: int = 0):
    """Integer-valued A, B and bias (exact in fp16 and in fp32 accumulation)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 5, (m, k)).astype(dtype)
    b = rng.integers(-5, 5, (k, n)).astype(dtype)
    bias = rng.integers(-5, 5, (1, n)).astype(np.float32)
    return a, b, bias
