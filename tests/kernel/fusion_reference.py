"""A hand-written pyasc reference for the ControlNet++ fusion (the baseline benchmarks/lowering.py
compares the generated kernels with): three kernels, written the way an Ascend C author would.

1. cond_means: the H*W mean of every (condition, b, c) row, one vector reduce_sum per row.
2. cond_weights: w = sigmoid(mean @ W + bias) per (condition, b) on the vector unit (axpy over
   the rows of W; C is small), with the fp32 weights written to GM.
3. fuse: out = (we*e + wd*d + ws*s + f) / (we + wd + ws + 1) per (b, c) row, the three weights
   and the reciprocal of the denominator on the scalar pipe, the rest as float32 vector ops.
"""

from __future__ import annotations

import numpy as np

import ascendlab.asc as asc

TILE = 4096  # elements per tile (H*W up to 4096 per row)


@asc.jit
def cond_means(e: asc.GlobalAddress, d: asc.GlobalAddress, s: asc.GlobalAddress,
               means: asc.GlobalAddress, rows: int, hw: int, per_core: int):
    first = asc.get_block_idx() * per_core
    last = first + per_core
    if last > 3 * rows:
        last = 3 * rows
    ge, gd, gs, gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ge.set_global_buffer(e)
    gd.set_global_buffer(d)
    gs.set_global_buffer(s)
    gm.set_global_buffer(means)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qy = asc.TQue(asc.TPosition.VECOUT, 1)
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, 2, TILE * 2)
    pipe.init_buffer(qy, 1, 1024 * 4)
    pipe.init_buffer(work, TILE * 8)
    xf = work.get_with_offset(TILE, 0, asc.float32)
    tmp = work.get_with_offset(TILE, TILE * 4, asc.float32)
    y = qy.alloc_tensor(asc.float32)
    for r in range(first, last):
        x = qx.alloc_tensor(asc.float16)
        row = r % rows
        if r < rows:
            asc.data_copy(x, ge[row * hw:], hw)
        elif r < 2 * rows:
            asc.data_copy(x, gd[row * hw:], hw)
        else:
            asc.data_copy(x, gs[row * hw:], hw)
        qx.enque(x)
        x = qx.deque(asc.float16)
        asc.cast(xf, x, asc.RoundMode.CAST_NONE, hw)
        qx.free_tensor(x)
        asc.reduce_sum(y[r - first:], xf, tmp, hw)
    asc.muls(y, y, 1.0 / hw, last - first)
    qy.enque(y)
    y = qy.deque(asc.float32)
    asc.data_copy_pad(gm[first:], y, asc.DataCopyExtParams(1, (last - first) * 4, 0, 0, 0))
    qy.free_tensor(y)


@asc.jit
def cond_weights(means: asc.GlobalAddress, w: asc.GlobalAddress, bias: asc.GlobalAddress,
                 out: asc.GlobalAddress, batch: int, c: int):
    idx = asc.get_block_idx()  # one (condition, b) pair per core
    cond = idx // batch
    gm, gw, gb, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gm.set_global_buffer(means + idx * c)
    gw.set_global_buffer(w + cond * c * c)
    gb.set_global_buffer(bias + cond * c)
    go.set_global_buffer(out + idx * c)
    pipe = asc.TPipe()
    qw = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qw, 1, (c * c + c) * 4)
    pipe.init_buffer(qy, 1, c * 4)
    wl = qw.alloc_tensor(asc.float32)
    asc.data_copy(wl, gw, c * c)
    asc.data_copy(wl[c * c:], gm, c)  # this pair's means, read on the scalar pipe below
    qw.enque(wl)
    wl = qw.deque(asc.float32)
    y = qy.alloc_tensor(asc.float32)
    asc.data_copy(y, gb, c)
    asc.set_flag(asc.HardEvent.MTE2_S, 0)
    asc.wait_flag(asc.HardEvent.MTE2_S, 0)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    for i in range(c):
        asc.axpy(y, wl[i * c:], wl.get_value(c * c + i), c)   # y += mean[i] * W[i, :]
    asc.muls(y, y, -1.0, c)
    asc.exp(y, y, c)
    asc.adds(y, y, 1.0, c)
    asc.reciprocal(y, y, c)
    qw.free_tensor(wl)
    qy.enque(y)
    y = qy.deque(asc.float32)
    asc.data_copy(go, y, c)
    qy.free_tensor(y)


@asc.jit
def fuse(f: asc.GlobalAddress, e: asc.GlobalAddress, d: asc.GlobalAddress,
         s: asc.GlobalAddress, wts: asc.GlobalAddress, out: asc.GlobalAddress, rows: int,
         hw: int, per_core: int):
    first = asc.get_block_idx() * per_core
    last = first + per_core
    if last > rows:
        last = rows
    gf, ge, gd, gs = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gw, go = asc.GlobalTensor(), asc.GlobalTensor()
    gf.set_global_buffer(f)
    ge.set_global_buffer(e)
    gd.set_global_buffer(d)
    gs.set_global_buffer(s)
    gw.set_global_buffer(wts)
    go.set_global_buffer(out)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 2)
    qout = asc.TQue(asc.TPosition.VECOUT, 2)
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qin, 2, TILE * 2 * 4)
    pipe.init_buffer(qout, 2, TILE * 2)
    pipe.init_buffer(work, TILE * 4 * 2)
    acc = work.get_with_offset(TILE, 0, asc.float32)
    t = work.get_with_offset(TILE, TILE * 4, asc.float32)
    for row in range(first, last):
        x = qin.alloc_tensor(asc.float16)
        asc.data_copy(x, ge[row * hw:], hw)
        asc.data_copy(x[TILE:], gd[row * hw:], hw)
        asc.data_copy(x[2 * TILE:], gs[row * hw:], hw)
        asc.data_copy(x[3 * TILE:], gf[row * hw:], hw)
        qin.enque(x)
        we = gw.get_value(row)
        wd = gw.get_value(rows + row)
        ws = gw.get_value(2 * rows + row)
        inv = 1.0 / (we + wd + ws + 1.0)
        x = qin.deque(asc.float16)
        asc.cast(acc, x, asc.RoundMode.CAST_NONE, hw)
        asc.muls(acc, acc, we, hw)                                        # we * e
        asc.cast(t, x[TILE:], asc.RoundMode.CAST_NONE, hw)
        asc.axpy(acc, t, wd, hw)                                          # + wd * d
        asc.cast(t, x[2 * TILE:], asc.RoundMode.CAST_NONE, hw)
        asc.axpy(acc, t, ws, hw)                                          # + ws * s
        asc.cast(t, x[3 * TILE:], asc.RoundMode.CAST_NONE, hw)
        asc.add(acc, acc, t, hw)                                          # + f
        qin.free_tensor(x)
        y = qout.alloc_tensor(asc.float16)
        asc.muls(acc, acc, inv, hw)
        asc.cast(y, acc, asc.RoundMode.CAST_RINT, hw)
        qout.enque(y)
        y = qout.deque(asc.float16)
        asc.data_copy(go[row * hw:], y, hw)
        qout.free_tensor(y)


def run_reference(params: dict, feature, edge, depth, sem, cores: int = 48):
    """(output, Runs) of the three hand-written kernels; params as op.params (names edge.*,
    depth.*, sem.*). Needs H*W <= TILE and a multiple of 16, C*C*4 B within UB."""
    b, c, h, w = feature.shape
    rows, hw = b * c, h * w
    means = np.zeros(3 * rows, np.float32)
    per = -(-3 * rows // cores)
    r1 = cond_means[-(-3 * rows // per)](edge, depth, sem, means, rows, hw, per)
    ws = np.stack([params[f"{k}.weight"] for k in ("edge", "depth", "sem")]).astype(np.float32)
    bs = np.stack([params[f"{k}.bias"] for k in ("edge", "depth", "sem")]).astype(np.float32)
    wts = np.zeros(3 * rows, np.float32)
    r2 = cond_weights[3 * b](means, ws, bs, wts, b, c)
    out = np.zeros_like(feature)
    per = -(-rows // cores)
    r3 = fuse[-(-rows // per)](feature, edge, depth, sem, wts, out, rows, hw, per)
    return out, [r1, r2, r3]
