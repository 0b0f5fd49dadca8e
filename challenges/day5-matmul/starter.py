"""Day 5 starter: c = a @ b on the cube cores. Tiles, flags around them and the fixpipe
are written; one K step of the cube path is yours (README.md, "Hints").
The FILL ME IN helper is a plain function so that it can raise; once it is filled in,
decorate it with @asc.jit (pyasc compiles every function a kernel calls)."""

import ascendlab.asc as asc

BM, BN, BK = 128, 128, 256
E = asc.HardEvent


def k_step(ag, bg, a1, b1, a2, b2, co1, m0: int, n0: int, k0: int, tm: int, tn: int, tk: int,
           k: int, n: int):
    """co1 (+)= a[m0:m0+tm, k0:k0+tk] @ b[k0:k0+tk, n0:n0+tn] through L1 and L0A/L0B."""
    # FILL ME IN (roughly 20 lines): wait MTE1_MTE2 (L1 free); data_copy a and b into a1 / b1
    # with Nd2NzParams; MTE2 -> MTE1 flag; wait M_MTE1 (L0 free); load_data into a2 / b2 (B
    # transposed per fractal); set MTE1_MTE2 and MTE1 -> M; wait FIX_M when k0 == 0; mmad
    # (cmatrix_init_val on the first step); set M_MTE1 (README.md: Hints).
    raise NotImplementedError("FILL ME IN (roughly 20 lines) in k_step: GM -> L1 -> L0A/L0B "
                              "-> mmad, with the flags (README.md: Hints)")


@asc.jit
def matmul_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int,
                  k: int, n: int, cores: int, bm: asc.ConstExpr[int], bn: asc.ConstExpr[int],
                  bk: asc.ConstExpr[int]):
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, bm * bk)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, bm * bk * 2, bk * bn)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, bm * bk)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, bk * bn)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, bm * bn)
    tiles_n = (n + bn - 1) // bn
    tiles = (m + bm - 1) // bm * tiles_n
    asc.set_flag(E.MTE1_MTE2, 0)  # L1, L0A/L0B and L0C start free
    asc.set_flag(E.M_MTE1, 0)
    asc.set_flag(E.FIX_M, 0)
    for tile in range(asc.get_block_idx(), tiles, cores):
        m0 = tile // tiles_n * bm
        n0 = tile % tiles_n * bn
        tm = min(bm, m - m0)
        tn = min(bn, n - n0)
        m1 = (tm + 15) // 16
        for k0 in range(0, k, bk):
            tk = min(bk, k - k0)
            k_step(ag, bg, a1, b1, a2, b2, co1, m0, n0, k0, tm, tn, tk, k, n)
        asc.set_flag(E.M_FIX, 0)
        asc.wait_flag(E.M_FIX, 0)
        asc.fixpipe(cg[m0 * n + n0:], co1, asc.FixpipeParamsV220(tn, tm, m1 * 16, n))
        asc.set_flag(E.FIX_M, 0)
    asc.wait_flag(E.MTE1_MTE2, 0)
    asc.wait_flag(E.M_MTE1, 0)
    asc.wait_flag(E.FIX_M, 0)


def launch(a, b, c, core_num):
    m, k = a.shape
    n = b.shape[1]
    tiles = -(-m // BM) * -(-n // BN)
    cores = min(core_num, tiles)
    matmul_kernel[cores, asc.lib.runtime.current_stream()](a, b, c, m, k, n, cores, BM, BN, BK)
