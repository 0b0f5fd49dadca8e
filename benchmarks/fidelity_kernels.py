"""Kernels of benchmarks/fidelity.py (module level, so @asc.jit can read their source)."""

from __future__ import annotations

import ascendlab.asc as asc


@asc.jit
def swiglu(x: asc.GlobalAddress, y: asc.GlobalAddress, h: int, rows: int, cols: int,
           col_blocks: int, tr: asc.ConstExpr[int], tc: asc.ConstExpr[int],
           iters: asc.ConstExpr[int]):
    """y[r, j] = silu(x[r, j]) * x[r, h + j] for x of shape (R, 2h) fp16, computed in fp32, as
    torch_npu's swiglu(x, dim=-1). Block c owns the rows x cols region at row (c // col_blocks)
    * rows, column (c % col_blocks) * cols, in `iters` tiles of tr rows x tc columns (tiles go
    along the columns, then down the rows); TQue double buffering in and out."""
    c = asc.get_block_idx()
    r0 = (c // col_blocks) * rows
    c0 = (c % col_blocks) * cols
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + r0 * 2 * h + c0)
    yg.set_global_buffer(y + r0 * h + c0)
    pipe = asc.TPipe()
    q_a = asc.TQue(asc.TPosition.VECIN, 2)
    q_b = asc.TQue(asc.TPosition.VECIN, 2)
    q_o = asc.TQue(asc.TPosition.VECOUT, 2)
    calc = asc.TBuf(asc.TPosition.VECCALC)
    n = tr * tc
    pipe.init_buffer(q_a, 2, n * 2)
    pipe.init_buffer(q_b, 2, n * 2)
    pipe.init_buffer(q_o, 2, n * 2)
    pipe.init_buffer(calc, 3 * n * 4)
    af = calc.get(asc.float32)
    bf = af[n:]
    t = af[2 * n:]
    tiles_per_row = cols // tc
    for i in range(iters):
        off_x = (i // tiles_per_row) * tr * 2 * h + (i % tiles_per_row) * tc
        off_y = (i // tiles_per_row) * tr * h + (i % tiles_per_row) * tc
        a_l = q_a.alloc_tensor(asc.float16)
        b_l = q_b.alloc_tensor(asc.float16)
        if tr == 1:
            asc.data_copy(a_l, xg[off_x:], n)
            asc.data_copy(b_l, xg[off_x + h:], n)
        else:
            gap = (2 * h - tc) * 2 // 32
            asc.data_copy(a_l, xg[off_x:], asc.DataCopyParams(tr, tc * 2 // 32, gap, 0))
            asc.data_copy(b_l, xg[off_x + h:], asc.DataCopyParams(tr, tc * 2 // 32, gap, 0))
        q_a.enque(a_l)
        q_b.enque(b_l)
        a_l = q_a.deque(asc.float16)
        b_l = q_b.deque(asc.float16)
        o_l = q_o.alloc_tensor(asc.float16)
        asc.cast(af, a_l, asc.RoundMode.CAST_NONE, n)
        asc.cast(bf, b_l, asc.RoundMode.CAST_NONE, n)
        asc.muls(t, af, -1.0, n)
        asc.exp(t, t, n)
        asc.adds(t, t, 1.0, n)
        asc.div(t, af, t, n)
        asc.mul(t, t, bf, n)
        asc.cast(o_l, t, asc.RoundMode.CAST_RINT, n)
        q_a.free_tensor(a_l)
        q_b.free_tensor(b_l)
        q_o.enque(o_l)
        o_l = q_o.deque(asc.float16)
        if tr == 1:
            asc.data_copy(yg[off_y:], o_l, n)
        else:
            asc.data_copy(yg[off_y:], o_l,
                          asc.DataCopyParams(tr, tc * 2 // 32, 0, (h - tc) * 2 // 32))
        q_o.free_tensor(o_l)


@asc.jit
def gm_to_ub(x: asc.GlobalAddress, offset: int, count: asc.ConstExpr[int]):
    """One DataCopy of `count` fp16 elements from x + offset (elements) into UB."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x + offset)
    ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, count)
    asc.data_copy(ub, xg, count)


@asc.jit
def l1_to_l0a(a: asc.GlobalAddress, fractals: asc.ConstExpr[int]):
    """GM -> L1 (one copy), then one load_data of `fractals` 512 B fractals L1 -> L0A."""
    ag = asc.GlobalTensor()
    ag.set_global_buffer(a)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, fractals * 256)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, fractals * 256)
    asc.data_copy(a1, ag, fractals * 256)
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.load_data(a2, a1, asc.LoadData2DParams(0, fractals, 1, 0, 0, False, 0))
