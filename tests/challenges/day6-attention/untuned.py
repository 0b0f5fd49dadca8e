"""Reference for day 6: one attention head, o = softmax(q k^T / sqrt(d)) v, flash style.

MIX kernel: every vector core takes blocks of BQ query rows and walks the keys in tiles of
BK. Per tile its group's cube core computes s = q_blk @ k_t[:, tile] (asc.adv.Matmul, C into
UB); the vector core keeps a running row max m and row sum l (online softmax):
    m' = max(m, rowmax(s) / sqrt(d)),  alpha = exp(m - m'),  p = exp(s / sqrt(d) - m')
    l = l * alpha + rowsum(p),         acc = acc * alpha + p @ v[tile]
p goes to GM (float16) for the second Matmul; at the end o = acc / l. The row maxima, the
alphas and 1/l reach adds / muls as scalars (get_value after one V -> S flag per tile).
SLOW = True uses one group (two vector cores and one cube core)."""

import numpy as np

import ascendlab.asc as asc

SLOW = False
BQ, BK = 16, 256  # query rows per block (16-row fractals), keys per tile
E = asc.HardEvent


def tiling(bm: int, bn: int, bk: int):
    """One base block per iterate(): a bm x bn block of C over a K of bk. The kernel gives
    the real leading dimensions with set_org_shape and the tails with set_tail."""
    return asc.adv.TCubeTiling(used_core_num=1, m=bm, n=bn, k_a=bk, k_b=bk, single_core_m=bm,
                               single_core_n=bn, single_core_k=bk, base_m=bm, base_n=bn,
                               base_k=bk, depth_a1=1, depth_b1=1, step_m=1, step_n=1,
                               is_bias=0, db_l0a=1, db_l0b=1)  # two Matmuls share L0A/L0B


@asc.jit
def matmul_to_ub(mm, a, b, dst, rows: int, cols: int, k: int):
    mm.set_tensor_a(a)
    mm.set_tensor_b(b)
    mm.set_tail(rows, cols, k)
    with mm.iterate() as _:
        mm.get_tensor_c(dst)
    mm.end()


@asc.jit
def attention_kernel(q: asc.GlobalAddress, k_t: asc.GlobalAddress, v: asc.GlobalAddress,
                     o: asc.GlobalAddress, ws: asc.GlobalAddress, ws2: asc.GlobalAddress,
                     pbuf: asc.GlobalAddress,
                     s_q: int, s_k: int, d: int, scale: float, workers: int,
                     t1: asc.adv.TCubeTiling, t2: asc.adv.TCubeTiling,
                     bq: asc.ConstExpr[int], bk: asc.ConstExpr[int]):
    me = asc.get_block_idx()  # this vector core (MIX: 2 per group)
    qg = asc.GlobalTensor()
    kg = asc.GlobalTensor()
    vg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    pg = asc.GlobalTensor()
    qg.set_global_buffer(q)
    kg.set_global_buffer(k_t)
    vg.set_global_buffer(v)
    og.set_global_buffer(o)
    pg.set_global_buffer(pbuf + me * bq * bk)
    pipe = asc.TPipe()
    f16 = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16)
    ub32 = asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, asc.float32)
    mm1 = asc.adv.Matmul(a=f16, b=f16, c=ub32)
    mm2 = asc.adv.Matmul(a=f16, b=f16, c=ub32)
    asc.adv.register_matmul(pipe, ws, mm1, t1)
    asc.adv.register_matmul(pipe, ws2, mm2, t2)  # its own: the C slots differ in size
    mm1.set_org_shape(s_q, s_k, d)  # ld(q) = d, ld(k_t) = s_k
    mm2.set_org_shape(bq, d, bk, s_k)  # ld(p) = bk, ld(v) = d
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(work, bq * bk * 6 + bq * d * 8 + bq * 8 * 4 * 5 + bk * 4)
    s = work.get_with_offset(bq * bk, 0, asc.float32)
    p16 = work.get_with_offset(bq * bk, bq * bk * 4, asc.float16)
    at = bq * bk * 6
    pv = work.get_with_offset(bq * d, at, asc.float32)
    acc = work.get_with_offset(bq * d, at + bq * d * 4, asc.float32)
    at = at + bq * d * 8
    mx = work.get_with_offset(bq * 8, at, asc.float32)  # one 32 B slot per row
    m = work.get_with_offset(bq * 8, at + bq * 32, asc.float32)
    al = work.get_with_offset(bq * 8, at + bq * 64, asc.float32)
    rs = work.get_with_offset(bq * 8, at + bq * 96, asc.float32)
    lsum = work.get_with_offset(bq * 8, at + bq * 128, asc.float32)
    tmp = work.get_with_offset(bk, at + bq * 160, asc.float32)
    for qb in range(me, (s_q + bq - 1) // bq, workers):
        q0 = qb * bq
        rows = min(bq, s_q - q0)
        asc.duplicate(m, -60000.0, bq * 8)
        asc.duplicate(lsum, 0.0, bq * 8)
        asc.duplicate(acc, 0.0, bq * d)
        asc.duplicate(mx, 0.0, bq * 8)
        asc.duplicate(rs, 0.0, bq * 8)
        if s_k % bk:  # a key tile shorter than bk: p's padding columns go to GM too, so zero it
            asc.duplicate(p16, 0.0, bq * bk)
        for k0 in range(0, s_k, bk):
            kt = min(bk, s_k - k0)
            matmul_to_ub(mm1, qg[q0 * d:], kg[k0:], s, rows, kt, d)
            for i in range(rows):
                asc.reduce_max(mx[i * 8:], s[i * bk:], tmp, kt)
            asc.muls(mx, mx, scale, rows * 8)
            asc.max(mx, mx, m, rows * 8)  # m' = max(m, rowmax / sqrt(d))
            asc.sub(al, m, mx, rows * 8)
            asc.exp(al, al, rows * 8)  # alpha = exp(m - m')
            asc.adds(m, mx, 0.0, rows * 8)
            asc.set_flag(E.V_S, 0)
            asc.wait_flag(E.V_S, 0)
            mrow = [m.get_value(i * 8) for i in range(rows)]
            arow = [al.get_value(i * 8) for i in range(rows)]
            asc.set_flag(E.S_V, 0)
            asc.wait_flag(E.S_V, 0)
            if kt == bk:  # whole tiles: one instruction for all rows where no max is needed
                asc.muls(s, s, scale, rows * bk)
            for i in range(rows):
                if kt < bk:
                    asc.muls(s[i * bk:], s[i * bk:], scale, kt)
                asc.adds(s[i * bk:], s[i * bk:], -mrow[i], kt)
                if kt < bk:
                    asc.exp(s[i * bk:], s[i * bk:], kt)
                    asc.cast(p16[i * bk:], s[i * bk:], asc.RoundMode.CAST_RINT, kt)
                asc.muls(acc[i * d:], acc[i * d:], arow[i], d)
            if kt == bk:
                asc.exp(s, s, rows * bk)
                asc.cast(p16, s, asc.RoundMode.CAST_RINT, rows * bk)
            for i in range(rows):
                asc.reduce_sum(rs[i * 8:], s[i * bk:], tmp, kt)
            asc.mul(lsum, lsum, al, rows * 8)
            asc.add(lsum, lsum, rs, rows * 8)
            asc.set_flag(E.V_MTE3, 0)
            asc.wait_flag(E.V_MTE3, 0)
            asc.data_copy(pg, p16, rows * bk)
            # p is in GM before the cube core is asked to read it (the request leaves from
            # S the first time, from MTE2 after a block came back through the workspace)
            asc.set_flag(E.MTE3_S, 0)
            asc.wait_flag(E.MTE3_S, 0)
            asc.set_flag(E.MTE3_MTE2, 0)
            asc.wait_flag(E.MTE3_MTE2, 0)
            matmul_to_ub(mm2, pg, vg[k0 * d:], pv, rows, d, kt)
            # the cube core has read p (its result came back, on S): the next p may be written
            asc.set_flag(E.S_MTE3, 0)
            asc.wait_flag(E.S_MTE3, 0)
            asc.add(acc, acc, pv, rows * d)
        asc.maxs(lsum, lsum, 1e-30, rows * 8)  # lane 0 is >= 1; lanes 1-7 of a slot are 0
        asc.reciprocal(lsum, lsum, rows * 8)
        asc.set_flag(E.V_S, 0)
        asc.wait_flag(E.V_S, 0)
        inv = [lsum.get_value(i * 8) for i in range(rows)]
        asc.set_flag(E.S_V, 0)
        asc.wait_flag(E.S_V, 0)
        for i in range(rows):
            asc.muls(acc[i * d:], acc[i * d:], inv[i], d)
        asc.cast(p16, acc, asc.RoundMode.CAST_RINT, rows * d)
        asc.set_flag(E.V_MTE3, 0)
        asc.wait_flag(E.V_MTE3, 0)
        asc.data_copy_pad(og[q0 * d:], p16, asc.DataCopyExtParams(1, rows * d * 2, 0, 0, 0))
        asc.set_flag(E.MTE3_V, 0)
        asc.wait_flag(E.MTE3_V, 0)


def launch(q, k_t, v, o, core_num):
    s_q, d = q.shape
    s_k = v.shape[0]
    blocks = -(-s_q // BQ)
    groups = 1 if SLOW else max(1, min(core_num, -(-blocks // 2)))  # core_num: MIX groups
    bk = BK if d <= 64 else BK // 2  # both Matmuls' d x bk L0B tiles fit 64 KiB
    t1 = tiling(BQ, bk, d)  # s = q_blk @ k_t[:, tile]
    t2 = tiling(BQ, d, bk)  # pv = p @ v[tile]
    ws = np.zeros(2 * groups * BQ * bk * 4, np.uint8)  # one C slot per vector core
    ws2 = np.zeros(2 * groups * BQ * d * 4, np.uint8)
    pbuf = np.zeros(2 * groups * BQ * bk, np.float16)
    attention_kernel[groups, asc.lib.runtime.current_stream()](
        q, k_t, v, o, ws, ws2, pbuf, s_q, s_k, d, 1.0 / d ** 0.5, 2 * groups, t1, t2, BQ, bk)
