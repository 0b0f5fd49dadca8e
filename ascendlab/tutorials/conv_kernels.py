"""Lesson 13's kernels: conv2d + bias + GELU unfused (a cube kernel writing u to GM, then a
vector kernel) and fused (one MIX kernel, the vector cores one tile behind the cube core).

Both share the cube side (one BM-pixel output tile: the input band NHWC -> 5HD in L1 with one
Nd2Nz copy, load_3d windows into L0A, the weights from B1 into L0B, mmad, fixpipe float32) and
the vector side (rows of u + bias, GELU in its tanh form, float16). One buffer each: the
double-buffered version is day 8's challenge (challenges/day8-conv-gelu).

    runs = conv_gelu(x, w5, bias, y, stride, pad, fused=True)   # a list of Runs
"""

from __future__ import annotations

import numpy as np

from .. import asc

BM, BN, BK = 128, 128, 128
CHUNK = 4096
K_GELU = -1.5957691216057308  # -2 sqrt(2 / pi)
E = asc.HardEvent


@asc.jit
def conv_tile(xg, a1, b1, a2, b2, co1, dst, tile: int, h: int, wd: int, cin: int, kk: int,
              cp: int, kh: int, kw: int, stride: int, pad: int, wo: int, m_img: int,
              tiles_m: int, wait_slot: int):
    """Output tile `tile` (BM pixels of one image) as float32 rows of cp channels at dst;
    wait_slot: first wait (cross-core flag 1) until the vector cores have read dst."""
    b = tile // tiles_m
    m0 = tile % tiles_m * BM
    tm = min(BM, m_img - m0)
    ro0, ro1 = m0 // wo, (m0 + tm - 1) // wo
    i0, i1 = ro0 * stride - pad, ro1 * stride - pad + kh  # input rows the windows touch
    lo = max(i0, 0)
    band = min(i1, h) - lo
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)  # one buffer: the band is free again
    asc.data_copy(a1, xg[(b * h + lo) * wd * cin:],
                  asc.Nd2NzParams(1, band * wd, cin, 0, cin, band * wd, 1, 0))
    asc.set_flag(E.MTE2_MTE1, 0)
    asc.wait_flag(E.MTE2_MTE1, 0)
    for n0 in range(0, cp, BN):
        tn = min(BN, cp - n0)
        for k0 in range(0, kk, BK):
            tk = min(BK, kk - k0)
            asc.load_data(a2, a1, asc.LoadData3DParamsV2(
                (pad, pad, lo - i0, i1 - lo - band), band, wd, (cin + 15) // 16 * 16, tk, tm,
                k0, m0 - ro0 * wo, stride, stride, kw, kh, 1, 1, False, 0))
            for i in range(tk // 16):
                asc.load_data(b2[i * tn * 16:], b1, asc.LoadData2DParams(
                    n0 // 16 * (kk // 16) + k0 // 16 + i, tn // 16, kk // 16, 0, 0, True, 0))
            asc.set_flag(E.MTE1_M, 0)
            asc.wait_flag(E.MTE1_M, 0)
            asc.mmad(co1, a2, b2, asc.MmadParams(2 if tm == 1 else tm, tn, tk,
                                                 cmatrix_init_val=k0 == 0))
            asc.set_flag(E.M_MTE1, 0)
            asc.wait_flag(E.M_MTE1, 0)
        asc.set_flag(E.M_FIX, 0)
        asc.wait_flag(E.M_FIX, 0)
        if wait_slot and n0 == 0:  # the epilogue of the previous tile ran meanwhile
            asc.cross_core_wait_flag(1, 2, asc.PipeID.PIPE_FIX)
        asc.fixpipe(dst[n0:], co1, asc.FixpipeParamsV220(tn, tm, (tm + 15) // 16 * 16, cp))
        asc.set_flag(E.FIX_M, 0)
        asc.wait_flag(E.FIX_M, 0)


@asc.jit
def cube_setup(w, cin: int, cout: int, kh: int, kw: int, wd: int, wo: int, stride: int):
    """L1 / L0 tensors of the cube side and the weights in B1 (NZ)."""
    wg = asc.GlobalTensor()
    wg.set_global_buffer(w)
    kk = (cin + 15) // 16 * kh * kw * 16
    cp = (cout + 15) // 16 * 16
    band_max = ((BM - 1) // wo + 2) * stride + kh
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 0, kk * cp)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, kk * cp * 2,
                         (cin + 15) // 16 * band_max * wd * 16)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, BM * BK)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, BK * BN)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, BM * BN)
    asc.data_copy(b1, wg, asc.Nd2NzParams(1, kk, cout, 0, cout, kk, 1, 0))
    return a1, b1, a2, b2, co1, kk, cp


@asc.jit
def vector_setup(bias, cout: int):
    """The epilogue's queues and scratch, and one bias row repeated per UB row."""
    bg = asc.GlobalTensor()
    bg.set_global_buffer(bias)
    cp = (cout + 15) // 16 * 16
    per = max(1, CHUNK // cp)
    span = per * cp
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECOUT, 1)
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, 1, span * 4)
    pipe.init_buffer(qy, 1, span * 2)
    pipe.init_buffer(work, span * 12)
    brow = work.get_with_offset(span, span * 8, asc.float32)
    asc.duplicate(brow, 0.0, cp)
    asc.set_flag(E.V_MTE2, 0)
    asc.wait_flag(E.V_MTE2, 0)
    asc.data_copy_pad(brow, bg, asc.DataCopyExtParams(1, cout * 4, 0, 0, 0),
                      asc.DataCopyPadExtParams(asc.float32, False, 0, 0, 0))
    asc.set_flag(E.MTE2_V, 0)
    asc.wait_flag(E.MTE2_V, 0)
    for r in range(1, per):
        asc.adds(brow[r * cp:], brow, 0.0, cp)
    return pipe, qx, qy, work, brow, per, cp


@asc.jit
def gelu_rows(src, yg, qx, qy, work, brow, per: int, cp: int, cout: int, rows: int):
    """y rows = gelu(src rows + bias) in float16 (src: float32 rows of cp channels)."""
    u = work.get_with_offset(per * cp, 0, asc.float32)
    t = work.get_with_offset(per * cp, per * cp * 4, asc.float32)
    for r0 in range(0, rows, per):
        r = min(per, rows - r0)
        n = r * cp
        xl = qx.alloc_tensor(asc.float32)
        asc.data_copy(xl, src[r0 * cp:], n)
        qx.enque(xl)
        xl = qx.deque(asc.float32)
        asc.add(u, xl, brow, n)
        qx.free_tensor(xl)
        asc.mul(t, u, u, n)  # t = -2 sqrt(2/pi) (u + 0.044715 u^3)
        asc.muls(t, t, 0.044715, n)
        asc.adds(t, t, 1.0, n)
        asc.mul(t, t, u, n)
        asc.muls(t, t, K_GELU, n)
        asc.exp(t, t, n)
        asc.adds(t, t, 1.0, n)
        asc.div(t, u, t, n)
        yl = qy.alloc_tensor(asc.float16)
        asc.cast(yl, t, asc.RoundMode.CAST_RINT, n)
        qy.enque(yl)
        yl = qy.deque(asc.float16)
        asc.data_copy_pad(yg[r0 * cout:], yl, asc.DataCopyExtParams(r, cout * 2, 0, 0, 0))
        qy.free_tensor(yl)


_KT = asc.runtime.config.KernelType


@asc.jit(kernel_type=_KT.AIC_ONLY)
def conv_kernel(x: asc.GlobalAddress, w: asc.GlobalAddress, u: asc.GlobalAddress, n_img: int,
                h: int, wd: int, cin: int, cout: int, kh: int, kw: int, stride: int, pad: int,
                ho: int, wo: int, cores: int):
    """Unfused, step 1 (cube cores): u = conv2d(x, w) in float32, rows of Cout padded to 16."""
    xg = asc.GlobalTensor()
    ug = asc.GlobalTensor()
    xg.set_global_buffer(x)
    ug.set_global_buffer(u)
    a1, b1, a2, b2, co1, kk, cp = cube_setup(w, cin, cout, kh, kw, wd, wo, stride)
    tiles_m = (ho * wo + BM - 1) // BM
    for tile in range(asc.get_block_idx(), n_img * tiles_m, cores):
        row0 = tile // tiles_m * ho * wo + tile % tiles_m * BM
        conv_tile(xg, a1, b1, a2, b2, co1, ug[row0 * cp:], tile, h, wd, cin, kk, cp, kh, kw,
                  stride, pad, wo, ho * wo, tiles_m, 0)


@asc.jit(kernel_type=_KT.AIV_ONLY)
def epilogue_kernel(u: asc.GlobalAddress, bias: asc.GlobalAddress, y: asc.GlobalAddress,
                    rows: int, cout: int, per_core: int):
    """Unfused, step 2 (vector cores): y = gelu(u + bias) in float16."""
    ug = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    pipe, qx, qy, work, brow, per, cp = vector_setup(bias, cout)
    r0 = asc.get_block_idx() * per_core
    ug.set_global_buffer(u + r0 * cp)
    yg.set_global_buffer(y + r0 * cout)
    gelu_rows(ug, yg, qx, qy, work, brow, per, cp, cout, min(per_core, rows - r0))


@asc.jit(kernel_type=_KT.MIX_AIC_1_2)
def fused_kernel(x: asc.GlobalAddress, w: asc.GlobalAddress, bias: asc.GlobalAddress,
                 y: asc.GlobalAddress, ws: asc.GlobalAddress, n_img: int, h: int, wd: int,
                 cin: int, cout: int, kh: int, kw: int, stride: int, pad: int, ho: int,
                 wo: int, groups: int):
    """Fused (MIX): each group's cube core writes a tile to its workspace slot and sets a
    cross-core flag; its two vector cores each finish half of the tile's rows and hand the
    slot back. One slot: the cube core loads and multiplies the next tile meanwhile and waits
    for the slot only before its fixpipe."""
    g = asc.get_block_idx() // 2 if asc.ascend_is_aiv() else asc.get_block_idx()
    cp = (cout + 15) // 16 * 16
    tiles_m = (ho * wo + BM - 1) // BM
    wsg = asc.GlobalTensor()
    wsg.set_global_buffer(ws + g * BM * cp)
    if asc.ascend_is_aic():
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        a1, b1, a2, b2, co1, kk, cp = cube_setup(w, cin, cout, kh, kw, wd, wo, stride)
        for tile in range(g, n_img * tiles_m, groups):
            # before its fixpipe, the slot must be free: both vector cores read the last tile
            conv_tile(xg, a1, b1, a2, b2, co1, wsg, tile, h, wd, cin, kk, cp, kh, kw, stride,
                      pad, wo, ho * wo, tiles_m, tile >= g + groups)
            asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_FIX)
        if g < n_img * tiles_m:
            asc.cross_core_wait_flag(1, 2, asc.PipeID.PIPE_FIX)
    if asc.ascend_is_aiv():
        yg = asc.GlobalTensor()
        pipe, qx, qy, work, brow, per, cp = vector_setup(bias, cout)
        for tile in range(g, n_img * tiles_m, groups):
            asc.cross_core_wait_flag(0, 2, asc.PipeID.PIPE_MTE2)
            tm = min(BM, ho * wo - tile % tiles_m * BM)
            half = (tm + 1) // 2
            r_lo = asc.get_block_idx() % 2 * half
            row0 = tile // tiles_m * ho * wo + tile % tiles_m * BM + r_lo
            yg.set_global_buffer(y + row0 * cout)
            gelu_rows(wsg[r_lo * cp:], yg, qx, qy, work, brow, per, cp, cout,
                      max(0, min(tm, r_lo + half) - r_lo))
            asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_MTE2)


def conv_gelu(x: np.ndarray, w5: np.ndarray, bias: np.ndarray, y: np.ndarray, stride: int,
              pad: int, fused: bool, cores: int = 24) -> list:
    """y = gelu(conv2d(x, w5) + bias), fused (one MIX launch) or not (two launches); the
    Runs. x: (N, H, W, Cin) fp16 NHWC, w5: (C1, k, k, 16, Cout) fp16, bias: (Cout,) fp32."""
    n_img, h, wd, cin = x.shape
    c1, kh, kw, _, cout = w5.shape
    ho, wo = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    w = w5.reshape(c1 * kh * kw * 16, cout)
    cp = -(-cout // 16) * 16
    tiles = n_img * -(-(ho * wo) // BM)
    groups = min(cores, tiles)
    shape = (n_img, h, wd, cin, cout, kh, kw, stride, pad, ho, wo)
    if fused:
        ws = np.zeros(groups * BM * cp, np.float32)
        return [fused_kernel[groups](x, w, bias, y, ws, *shape, groups)]
    u = np.zeros(n_img * ho * wo * cp, np.float32)
    rows = n_img * ho * wo
    per_core = -(-rows // (2 * cores))
    return [conv_kernel[groups](x, w, u, *shape, groups),
            epilogue_kernel[-(-rows // per_core)](u, bias, y, rows, cout, per_core)]
