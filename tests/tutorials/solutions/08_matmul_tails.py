"""Solution of exercise 08.matmul_tails: fractal counts rounded up, the ND -> NZ copies pad
to whole fractals, mmad runs at least two rows (m = 1 would be GEMV mode), fixpipe writes
the real m x n from the padded L0C."""

import ascendlab.asc as asc

E = asc.HardEvent


@asc.jit(matmul_cube_only=True)
def matmul_tile(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                m: int, k: int, n: int):
    """c = a @ b for one tile that fits L0A/L0B/L0C, any m, k, n (m = 1 included)."""
    m1, k1, n1 = (m + 15) // 16, (k + 15) // 16, (n + 15) // 16   # whole fractals, rounded up
    ag, bg, cg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m1 * k1 * 256)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 64 * 1024, k1 * n1 * 256)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m1 * k1 * 256)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, k1 * n1 * 256)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m1 * n1 * 256)
    # ND -> NZ, each column of fractals m1*16 (k1*16) rows tall: the padding rows are zeros
    asc.data_copy(a1, ag, asc.Nd2NzParams(1, m, k, 0, k, m1 * 16, 1, 0))
    asc.data_copy(b1, bg, asc.Nd2NzParams(1, k, n, 0, n, k1 * 16, 1, 0))
    asc.set_flag(E.MTE2_MTE1, 0)
    asc.wait_flag(E.MTE2_MTE1, 0)
    for i in range(k1):
        asc.load_data(a2[i * 256:], a1[i * m1 * 256:],
                      asc.LoadData2DParams(0, m1, 1, 0, k1 - 1, False, 0))
        asc.load_data(b2[i * n1 * 256:], b1, asc.LoadData2DParams(i, n1, k1, 0, 0, True, 0))
    asc.set_flag(E.MTE1_M, 0)
    asc.wait_flag(E.MTE1_M, 0)
    # m == 1 would switch the cube to GEMV mode (A read as a plain ND row); A is in
    # fractals here, so compute two rows and let fixpipe write only the first
    asc.mmad(co1, a2, b2, asc.MmadParams(max(m, 2), n, k))
    asc.set_flag(E.M_FIX, 0)
    asc.wait_flag(E.M_FIX, 0)
    asc.fixpipe(cg, co1, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=m1 * 16,
                                                          dst_stride=n))


def launch(a, b, c, core_num):
    matmul_tile[1](a, b, c, a.shape[0], a.shape[1], b.shape[1])
