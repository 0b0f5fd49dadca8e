"""Solution of exercise 07.matmul_k_loop (tutorials/07-cube-unit.ipynb)."""

import ascendlab.asc as asc


@asc.jit(matmul_cube_only=True)
def matmul_k_loop(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                  m: int, k: int, n: int, kt: int):
    m1, k1, n1, kt1 = m // 16, k // 16, n // 16, kt // 16
    ag, bg, cg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m * k)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, m * k * 2, k * n)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * kt)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, kt * n)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n)
    asc.data_copy(a1, ag, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
    asc.data_copy(b1, bg, asc.Nd2NzParams(1, k, n, 0, n, k, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.set_flag(asc.HardEvent.M_MTE1, 0)          # L0A/L0B start out free
    for kk in range(k1 // kt1):
        asc.wait_flag(asc.HardEvent.M_MTE1, 0)     # the previous mmad is done with them
        for i in range(kt1):
            asc.load_data(a2[i * 256:], a1[(kk * kt1 + i) * m1 * 256:],
                          asc.LoadData2DParams(0, m1, 1, 0, kt1 - 1, False, 0))
            asc.load_data(b2[i * n1 * 256:], b1,
                          asc.LoadData2DParams(kk * kt1 + i, n1, k1, 0, 0, True, 0))
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        asc.mmad(co1, a2, b2, asc.MmadParams(m, n, kt, cmatrix_init_val=kk == 0))
        asc.set_flag(asc.HardEvent.M_MTE1, 0)
    asc.wait_flag(asc.HardEvent.M_MTE1, 0)
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(cg, co1, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=m, dst_stride=n))


def launch(a, b, c, core_num):
    matmul_k_loop[1](a, b, c, a.shape[0], a.shape[1], b.shape[1], 32)
