"""Reference for day 5: c = a @ b, float16 in, float32 out, on the cube cores.

Why it is fast. The output is cut into 128 x 128 tiles, numbered down each column of tiles,
and every cube core takes one contiguous run of them: its run crosses at most one column
boundary, so it loads B's 128-column panel (all of K, in NZ) into L1 once or twice and keeps it
there across its tiles, while A's 128-row panel of each tile (all of K, one DMA of long rows)
streams through two L1 slots. Long rows and whole panels cut the DMA setup and per-burst
charges that dominate small K steps; the panels other cores also read come from the L2. Every
level is double buffered: two A slots in L1 (the next tile's panel loads while this one's
mmads run), two L0A/L0B slots (the next K step's load_data overlaps this step's mmad) and two
L0C tiles (a tile's fixpipe overlaps the next tile's mmads). Flags order MTE2 -> MTE1 -> M ->
FIX and free each slot for its next writer; each waited flag is set once before the loop and
drained at the end. What is left is the cube's own time plus the float32 output written to
HBM (its write share is close to the cube bound on this chip).
SLOW = True runs the same kernel on one cube core."""

import ascendlab.asc as asc

SLOW = False
BM, BN, BK = 128, 128, 64  # an output tile, a K step (L0A / L0B)
KA, KB = 320, 640  # K of an A slot and of a B slot in L1 (2 x 80 KiB + 2 x 160 KiB)
E = asc.HardEvent


@asc.jit
def load_l0(a2, b2, a1, b1, m1: int, n1: int, k1: int, ka: int, kb: int, kb1: int):
    """A K step of k1 fractal columns, from fractal column ka of the A panel and kb of the B
    panel (kb1 fractal rows): L1 (NZ) -> L0A (ZZ) and L0B (ZN, each fractal transposed)."""
    for i in range(k1):
        asc.load_data(a2[i * 256:], a1[(ka + i) * m1 * 256:],
                      asc.LoadData2DParams(0, m1, 1, 0, k1 - 1, False, 0))
        asc.load_data(b2[i * n1 * 256:], b1,
                      asc.LoadData2DParams(kb + i, n1, kb1, 0, 0, True, 0))


@asc.jit
def matmul_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int,
                  k: int, n: int, cores: int, bm: asc.ConstExpr[int], bn: asc.ConstExpr[int],
                  bk: asc.ConstExpr[int], ka: asc.ConstExpr[int], kb: asc.ConstExpr[int]):
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    # L1: two A slots of bm x ka, two B slots of kb x bn
    a1 = [asc.LocalTensor(asc.float16, asc.TPosition.A1, i * bm * ka * 2, bm * ka)
          for i in range(2)]
    b1 = [asc.LocalTensor(asc.float16, asc.TPosition.B1, 2 * bm * ka * 2 + i * kb * bn * 2,
                          kb * bn) for i in range(2)]
    a2 = [asc.LocalTensor(asc.float16, asc.TPosition.A2, i * bm * bk * 2, bm * bk)
          for i in range(2)]
    b2 = [asc.LocalTensor(asc.float16, asc.TPosition.B2, i * bk * bn * 2, bk * bn)
          for i in range(2)]
    co1 = [asc.LocalTensor(asc.float32, asc.TPosition.CO1, i * bm * bn * 4, bm * bn)
           for i in range(2)]
    tiles_m = (m + bm - 1) // bm
    tiles = tiles_m * ((n + bn - 1) // bn)
    keep = k <= kb  # B's whole K fits one slot: keep it across the tiles of a column
    idx = asc.get_block_idx()
    first = idx * tiles // cores
    last = (idx + 1) * tiles // cores
    for i in range(4):  # every buffer starts free
        asc.set_flag(E.MTE1_MTE2, i)
    for i in range(2):
        asc.set_flag(E.M_MTE1, i)
        asc.set_flag(E.FIX_M, i)
    held = -1  # the column of tiles whose B panel is in slot pb
    pa = 0
    pb = 1
    step = 0
    q = 0
    for tile in range(first, last):
        m0 = tile % tiles_m * bm
        n0 = tile // tiles_m * bn
        tm = min(bm, m - m0)
        tn = min(bn, n - n0)
        m1 = (tm + 15) // 16
        n1 = (tn + 15) // 16
        done_b = tile + 1 == last or (tile + 1) // tiles_m * bn != n0
        for c0 in range(0, k, ka):
            tc = min(ka, k - c0)
            if not keep or held != n0:
                pb = 1 - pb
                tb = k if keep else tc
                kb1 = (tb + 15) // 16
                asc.wait_flag(E.MTE1_MTE2, 2 + pb)
                asc.data_copy(b1[pb], bg[c0 * n + n0:],
                              asc.Nd2NzParams(1, tb, tn, 0, n, kb1 * 16, 1, 0))
                held = n0
            boff = c0 // 16 if keep else 0
            asc.wait_flag(E.MTE1_MTE2, pa)
            asc.data_copy(a1[pa], ag[m0 * k + c0:],
                          asc.Nd2NzParams(1, tm, tc, 0, k, m1 * 16, 1, 0))
            asc.set_flag(E.MTE2_MTE1, 0)
            asc.wait_flag(E.MTE2_MTE1, 0)
            for k0 in range(0, tc, bk):
                p = step % 2
                tk = min(bk, tc - k0)
                k1 = (tk + 15) // 16
                asc.wait_flag(E.M_MTE1, p)
                load_l0(a2[p], b2[p], a1[pa], b1[pb], m1, n1, k1, k0 // 16, boff + k0 // 16,
                        kb1)
                if k0 + bk >= tc:  # the chunk's last step: its L1 slots may be free
                    asc.set_flag(E.MTE1_MTE2, pa)
                    if not keep or c0 + ka >= k and done_b:
                        asc.set_flag(E.MTE1_MTE2, 2 + pb)
                asc.set_flag(E.MTE1_M, p)
                asc.wait_flag(E.MTE1_M, p)
                if c0 + k0 == 0:
                    asc.wait_flag(E.FIX_M, q)
                asc.mmad(co1[q], a2[p], b2[p], asc.MmadParams(max(tm, 2), tn, tk,
                                                              cmatrix_init_val=c0 + k0 == 0))
                asc.set_flag(E.M_MTE1, p)
                step += 1
            pa = 1 - pa
        asc.set_flag(E.M_FIX, q)
        asc.wait_flag(E.M_FIX, q)
        asc.fixpipe(cg[m0 * n + n0:], co1[q], asc.FixpipeParamsV220(tn, tm, m1 * 16, n))
        asc.set_flag(E.FIX_M, q)
        q = 1 - q
    for i in range(4):
        asc.wait_flag(E.MTE1_MTE2, i)
    for i in range(2):
        asc.wait_flag(E.M_MTE1, i)
        asc.wait_flag(E.FIX_M, i)


def launch(a, b, c, core_num):
    m, k = a.shape
    n = b.shape[1]
    tiles = -(-m // BM) * -(-n // BN)
    cores = 1 if SLOW else min(core_num, tiles)
    matmul_kernel[cores, asc.lib.runtime.current_stream()](a, b, c, m, k, n, cores, BM, BN, BK,
                                                           KA, KB)
