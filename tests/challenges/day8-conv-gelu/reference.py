"""Reference for day 8: y = gelu_tanh(conv2d(x, w, stride, pad) + bias), float16 in, float32
accumulation, float16 out, as a hand-written MIX kernel (1 cube core : 2 vector cores a group).

Cube side (AIC). Output tiles are BM output pixels of one image (any rows: load_3d starts at
any m), dealt round-robin to the groups. Per tile: the input rows the tile's windows touch
come GM (NHWC) -> L1 with one data_copy(Nd2NzParams) - the NZ form of the (rows*W, Cin)
matrix is NC1HWC0, channels zero-padded to 16 - then, per BN output channels and BK columns of
K, load_data(LoadData3DParamsV2) cuts the im2col window into L0A, load_data 2D brings the
weights (whole, in B1 since the start) into L0B, mmad accumulates in L0C and fixpipe writes
the float32 tile to this group's workspace slot. L1 band, L0A/L0B and L0C have two slots each
(flags MTE2 -> MTE1 -> M -> FIX as in day 5), so loads overlap the mmads.

Vector side (AIV): the epilogue (+ bias, GELU in its tanh form u / (1 + exp(-2 sqrt(2/pi)
(u + 0.044715 u^3))), cast to float16) of the tile the group's cube core made in the previous
round, half of its rows on each vector core, double-buffered through TQues.

Handover: the group's j-th tile goes to workspace slot j % 2. After its fixpipes the cube core
sets cross-core flag 0 (mode 2, on PIPE_FIX); each vector core waits for it before reading
(PIPE_MTE2) and sets flag 1 once its reads of the slot are done; the cube core waits for flag 1
(both vector cores) before it overwrites a slot, so it runs one tile ahead of its epilogue.
The workspace rows are Cout padded to 16 floats, so every UB row is 32 B aligned.

Why it is fast. The im2col matrix never exists: load_3d cuts each window straight from the
feature map in L1, so GM sees x, w, bias and y about once; the weights stay in L1 for the whole
kernel; every level of the cube path has two slots, so MTE2, MTE1, M and FIX overlap; and the
epilogue runs on the vector cores one tile behind the cube, handed over through a two-slot
workspace with cross-core flags. What it does not win back: a tile's float32 result still goes
through GM between the cube and the vector cores (fixpipe is the only way out of L0C), and
with few tiles per group the first and last tiles do not overlap.

SLOW = True runs the same kernel with one group."""

import numpy as np

import ascendlab.asc as asc

SLOW = False
BM, BN, BK = 128, 128, 128
CHUNK = 4096  # epilogue elements per vector step (rows x padded Cout)
K_GELU = -1.5957691216057308  # -2 sqrt(2 / pi)
E = asc.HardEvent


@asc.jit
def conv_side(x, w, ws, n_img: int, h: int, wd: int, cin: int, cout: int, kh: int, kw: int,
              stride: int, pad: int, ho: int, wo: int, groups: int):
    """The AIC's part: conv tiles into the workspace, two slots, flags to the AIVs."""
    xg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    wsg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    wg.set_global_buffer(w)
    wsg.set_global_buffer(ws)
    g = asc.get_block_idx()
    c1 = (cin + 15) // 16
    kk = c1 * kh * kw * 16  # K
    k1 = kk // 16
    cp = (cout + 15) // 16 * 16  # Cout padded to 16
    m_img = ho * wo
    tiles_m = (m_img + BM - 1) // BM
    tiles = n_img * tiles_m
    band_max = ((BM - 1) // wo + 2) * stride + kh  # input rows a tile can touch
    band_elems = c1 * band_max * wd * 16
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 0, kk * cp)
    a1 = [asc.LocalTensor(asc.float16, asc.TPosition.A1, (kk * cp + i * band_elems) * 2,
                          band_elems) for i in range(2)]
    a2 = [asc.LocalTensor(asc.float16, asc.TPosition.A2, i * BM * BK * 2, BM * BK)
          for i in range(2)]
    b2 = [asc.LocalTensor(asc.float16, asc.TPosition.B2, i * BK * BN * 2, BK * BN)
          for i in range(2)]
    co1 = [asc.LocalTensor(asc.float32, asc.TPosition.CO1, i * BM * BN * 4, BM * BN)
           for i in range(2)]
    # the weights (K x Cout, already in (c1, kh, kw, c0) row order) -> B1 as NZ, once
    asc.data_copy(b1, wg, asc.Nd2NzParams(1, kk, cout, 0, cout, kk, 1, 0))
    for i in range(2):  # every slot starts free
        asc.set_flag(E.MTE1_MTE2, i)
        asc.set_flag(E.M_MTE1, i)
        asc.set_flag(E.FIX_M, i)
    asc.set_flag(E.MTE2_MTE1, 2)
    asc.wait_flag(E.MTE2_MTE1, 2)
    a = 0
    p = 0
    q = 0
    j = 0
    for tile in range(g, tiles, groups):
        if j >= 2:  # slot j % 2 is free once both AIVs have read tile j - 2
            asc.cross_core_wait_flag(1, 2, asc.PipeID.PIPE_FIX)
        b = tile // tiles_m
        m0 = tile % tiles_m * BM
        tm = min(BM, m_img - m0)
        ro0 = m0 // wo  # the tile's first and last output rows
        ro1 = (m0 + tm - 1) // wo
        i0 = ro0 * stride - pad  # the input rows their windows touch
        i1 = ro1 * stride - pad + kh
        lo = max(i0, 0)
        band = min(i1, h) - lo
        pt = lo - i0
        pb = i1 - lo - band
        asc.wait_flag(E.MTE1_MTE2, a)
        asc.data_copy(a1[a], xg[(b * h + lo) * wd * cin:],
                      asc.Nd2NzParams(1, band * wd, cin, 0, cin, band * wd, 1, 0))
        asc.set_flag(E.MTE2_MTE1, a)
        asc.wait_flag(E.MTE2_MTE1, a)
        mm = (tm + 15) // 16 * 16
        slot = (g * 2 + j % 2) * BM * cp
        for n0 in range(0, cp, BN):
            tn = min(BN, cp - n0)
            n1 = tn // 16
            asc.wait_flag(E.FIX_M, q)
            for k0 in range(0, kk, BK):
                tk = min(BK, kk - k0)
                asc.wait_flag(E.M_MTE1, p)
                asc.load_data(a2[p], a1[a], asc.LoadData3DParamsV2(
                    (pad, pad, pt, pb), band, wd, c1 * 16, tk, tm, k0, m0 - ro0 * wo,
                    stride, stride, kw, kh, 1, 1, False, 0))
                for i in range(tk // 16):
                    asc.load_data(b2[p][i * n1 * 256:], b1, asc.LoadData2DParams(
                        n0 // 16 * k1 + k0 // 16 + i, n1, k1, 0, 0, True, 0))
                asc.set_flag(E.MTE1_M, p)
                asc.wait_flag(E.MTE1_M, p)
                # m == 1 is GEMV (A read as an ND row): compute 2 rows, keep 1
                asc.mmad(co1[q], a2[p], b2[p], asc.MmadParams(
                    2 if tm == 1 else tm, tn, tk, cmatrix_init_val=k0 == 0))
                asc.set_flag(E.M_MTE1, p)
                p = 1 - p
            asc.set_flag(E.M_FIX, q)
            asc.wait_flag(E.M_FIX, q)
            asc.fixpipe(wsg[slot + n0:], co1[q], asc.FixpipeParamsV220(tn, tm, mm, cp))
            asc.set_flag(E.FIX_M, q)
            q = 1 - q
        asc.set_flag(E.MTE1_MTE2, a)
        a = 1 - a
        asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_FIX)  # tile j is in slot j % 2
        j += 1
    for _ in range(min(j, 2)):  # the last reads of the AIVs
        asc.cross_core_wait_flag(1, 2, asc.PipeID.PIPE_FIX)
    for i in range(2):
        asc.wait_flag(E.MTE1_MTE2, i)
        asc.wait_flag(E.M_MTE1, i)
        asc.wait_flag(E.FIX_M, i)


@asc.jit
def epilogue_side(ws, bias, y, n_img: int, cout: int, ho: int, wo: int, groups: int):
    """The AIVs' part: + bias, GELU, float16, half of each of the group's tiles."""
    wsg = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    wsg.set_global_buffer(ws)
    bg.set_global_buffer(bias)
    yg.set_global_buffer(y)
    v = asc.get_block_idx()
    g = v // 2
    s = v % 2
    cp = (cout + 15) // 16 * 16
    m_img = ho * wo
    tiles_m = (m_img + BM - 1) // BM
    tiles = n_img * tiles_m
    per = max(1, CHUNK // cp)  # rows per step
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qy = asc.TQue(asc.TPosition.VECOUT, 2)
    work = asc.TBuf(asc.TPosition.VECCALC)
    span = per * cp
    pipe.init_buffer(qx, 2, span * 4)
    pipe.init_buffer(qy, 2, span * 2)
    pipe.init_buffer(work, span * 12)
    u = work.get_with_offset(span, 0, asc.float32)
    t = work.get_with_offset(span, span * 4, asc.float32)
    brow = work.get_with_offset(span, span * 8, asc.float32)  # bias repeated per row
    asc.duplicate(brow, 0.0, cp)  # the padding columns: defined values
    asc.set_flag(E.V_MTE2, 0)
    asc.wait_flag(E.V_MTE2, 0)
    asc.data_copy_pad(brow, bg, asc.DataCopyExtParams(1, cout * 4, 0, 0, 0),
                      asc.DataCopyPadExtParams(asc.float32, False, 0, 0, 0))
    asc.set_flag(E.MTE2_V, 0)
    asc.wait_flag(E.MTE2_V, 0)
    for r in range(1, per):
        asc.adds(brow[r * cp:], brow, 0.0, cp)
    j = 0
    for tile in range(g, tiles, groups):
        asc.cross_core_wait_flag(0, 2, asc.PipeID.PIPE_MTE2)
        b = tile // tiles_m
        m0 = tile % tiles_m * BM
        tm = min(BM, m_img - m0)
        half = (tm + 1) // 2
        r_lo = s * half
        r_hi = min(tm, r_lo + half)
        slot = (g * 2 + j % 2) * BM * cp
        for r0 in range(r_lo, r_hi, per):
            r = min(per, r_hi - r0)
            n = r * cp
            xl = qx.alloc_tensor(asc.float32)
            asc.data_copy(xl, wsg[slot + r0 * cp:], n)
            if r0 + per >= r_hi:  # the last read of the slot: hand it back
                asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_MTE2)
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
            asc.data_copy_pad(yg[(b * m_img + m0 + r0) * cout:], yl,
                              asc.DataCopyExtParams(r, cout * 2, 0, 0, 0))
            qy.free_tensor(yl)
        if r_lo >= r_hi:  # no rows for this core (a 1-row tile)
            asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_MTE2)
        j += 1


@asc.jit(kernel_type=asc.runtime.config.KernelType.MIX_AIC_1_2)
def conv_gelu_kernel(x: asc.GlobalAddress, w: asc.GlobalAddress, bias: asc.GlobalAddress,
                     y: asc.GlobalAddress, ws: asc.GlobalAddress, n_img: int, h: int, wd: int,
                     cin: int, cout: int, kh: int, kw: int, stride: int, pad: int, ho: int,
                     wo: int, groups: int):
    if asc.ascend_is_aic():
        conv_side(x, w, ws, n_img, h, wd, cin, cout, kh, kw, stride, pad, ho, wo, groups)
    if asc.ascend_is_aiv():
        epilogue_side(ws, bias, y, n_img, cout, ho, wo, groups)


def launch(x, w, bias, y, stride, pad, core_num):
    n_img, h, wd, cin = x.shape
    c1, kh, kw, _, cout = w.shape
    ho = (h + 2 * pad - kh) // stride + 1
    wo = (wd + 2 * pad - kw) // stride + 1
    tiles = n_img * -(-(ho * wo) // BM)
    groups = 1 if SLOW else min(core_num, tiles)
    cp = -(-cout // 16) * 16
    ws = np.zeros(groups * 2 * BM * cp, np.float32)
    return conv_gelu_kernel[groups, asc.lib.runtime.current_stream()](
        x, w.reshape(c1 * kh * kw * 16, cout), bias, y, ws, n_img, h, wd, cin, cout, kh, kw,
        stride, pad, ho, wo, groups)
