"""Kernels for the cycle-model tests: LayerNorm + GeLU (fused, and unfused as two kernels) and a
synchronised single-tile matmul."""

from __future__ import annotations

import numpy as np

import ascendlab.asc as asc

EPS = 1e-5
GELU_K = 1.702  # GeLU(x) ~ x * sigmoid(1.702 x)


@asc.jit
def row_stats(xl, work, red, cols: asc.ConstExpr[int]):
    """Normalise one row in place: xl = (xl - mean) / sqrt(var + eps)."""
    asc.reduce_sum(red, xl, work, cols)
    asc.set_flag(asc.HardEvent.V_S, 0)
    asc.wait_flag(asc.HardEvent.V_S, 0)
    mean = red.get_value(0) / cols
    asc.adds(xl, xl, -mean, cols)
    asc.mul(work, xl, xl, cols)
    asc.reduce_sum(red, work, work, cols)
    asc.set_flag(asc.HardEvent.V_S, 0)
    asc.wait_flag(asc.HardEvent.V_S, 0)
    var = red.get_value(0) / cols
    asc.duplicate(work, var + EPS, cols)
    asc.rsqrt(work, work, cols)
    asc.mul(xl, xl, work, cols)


@asc.jit
def gelu(out, xl, work, cols: asc.ConstExpr[int]):
    """out = xl * sigmoid(1.702 xl) = xl / (1 + exp(-1.702 xl))."""
    asc.muls(work, xl, -GELU_K, cols)
    asc.exp(work, work, cols)
    asc.adds(work, work, 1.0, cols)
    asc.div(out, xl, work, cols)


@asc.jit
def layernorm_gelu(x: asc.GlobalAddress, y: asc.GlobalAddress, rows: int,
                   cols: asc.ConstExpr[int], stage: asc.ConstExpr[str]):
    """Per row: stage "ln": y = LayerNorm(x); "gelu": y = GeLU(x); "fused": y = GeLU(LN(x)).
    Rows are split over the blocks; double-buffered in and out queues."""
    per = rows // asc.get_block_num()
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * per * cols)
    yg.set_global_buffer(y + asc.get_block_idx() * per * cols)
    pipe = asc.TPipe()
    q_in = asc.TQue(asc.TPosition.VECIN, 2)
    q_out = asc.TQue(asc.TPosition.VECOUT, 2)
    tmp = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(q_in, 2, cols * 4)
    pipe.init_buffer(q_out, 2, cols * 4)
    pipe.init_buffer(tmp, cols * 4 + 64)
    work = tmp.get(asc.float32, cols)
    red = tmp.get_with_offset(8, cols * 4, asc.float32)
    for r in range(per):
        xl = q_in.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[r * cols:], cols)
        q_in.enque(xl)
        xl = q_in.deque(asc.float32)
        out = q_out.alloc_tensor(asc.float32)
        if stage == "ln":
            row_stats(xl, work, red, cols)
            asc.data_copy(out, xl, cols)
        elif stage == "gelu":
            gelu(out, xl, work, cols)
        else:
            row_stats(xl, work, red, cols)
            gelu(out, xl, work, cols)
        q_out.enque(out)
        q_in.free_tensor(xl)
        out = q_out.deque(asc.float32)
        asc.data_copy(yg[r * cols:], out, cols)
        q_out.free_tensor(out)


def layernorm_gelu_reference(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    n = (x - mean) / np.sqrt(var + EPS)
    return n / (1 + np.exp(-GELU_K * n))


@asc.jit
def matmul_tile(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                m: asc.ConstExpr[int], k: asc.ConstExpr[int], n: asc.ConstExpr[int]):
    """c (m x n, fp32) = a (m x k) @ b (k x n), fp16, one tile per block, every pipe handoff
    synchronised with set_flag / wait_flag. m, k, n are multiples of 16."""
    m1, k1, n1 = m // 16, k // 16, n // 16
    off = asc.get_block_idx()
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + off * m * k)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c + off * m * n)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m * k)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, m * k * 2, k * n)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * k)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, k * n)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n)
    asc.data_copy(a1, ag, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
    asc.data_copy(b1, bg, asc.Nd2NzParams(1, k, n, 0, n, k, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for r in range(m1):  # A: NZ in L1 -> ZZ in L0A, one fractal row at a time
        asc.load_data(a2[r * k1 * 256:], a1[r * 256:], asc.LoadData2DParams(0, k1, m1, 0, 0,
                                                                            False, 0))
    for i in range(k1):  # B: NZ in L1 -> ZN in L0B, transposing each fractal
        asc.load_data(b2[i * n1 * 256:], b1, asc.LoadData2DParams(i, n1, k1, 0, 0, True, 0))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(co1, a2, b2, asc.MmadParams(m, n, k))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(cg, co1, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=m, dst_stride=n))
