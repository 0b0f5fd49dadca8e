"""The advisor's trace-detector battery: kernels in the challenges' style, each with one
pattern a learner found by hand (issue 23) and a keyword that applies the change that fixes it.

  matmul        cube: GM -> L1 -> L0A/L0B -> mmad -> L0C -> GM; buffers=1 single-buffers every
                level, buffers=2 is the fix (a launcher keyword: the advisor re-runs it)
  matmul(m=1536, k=256, buffers=2): each core's tiles share a column block whose B is loaded
                again per tile; keep_b=True keeps it in L1 (the fix)
  bias_rows     vector: z[r, :] = x[r, :] + b, the bias loaded again for every tile (L2 hits
                the model prices at almost nothing: keep=True saves a few cycles)
  row_sums      vector: z[r] = 2 * sum(x[r, :]), one reduce_sum and one get_value per row;
                folded=True sums every row of a tile with one whole_reduce_sum (the fix)
  two_phase     vector: y = 2x to a GM workspace, sync_all, z = y + 1 read back from it;
                on_chip=True keeps y in UB across the sync_all (the fix)
  scores        MIX: the cube computes 16 x 128 score blocks for each vector core (adv.Matmul),
                the vector core exponentiates them; the sides take turns on every hand-off;
                bk=512 hands the cube one block per query block (the fix: fewer, larger
                hand-offs)

Every launcher takes keywords only and returns the Run; sizes keep each launch well under a
second.
"""

from __future__ import annotations

import numpy as np

import ascendlab
import ascendlab.asc as asc

E = asc.HardEvent
F16 = np.float16


# ---- cube: a tiled matmul with one or two buffers at every level -----------------------------
@asc.jit
def matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, k: int,
           n: int, cores: int, bm: asc.ConstExpr[int], bn: asc.ConstExpr[int],
           bk: asc.ConstExpr[int], nbuf: asc.ConstExpr[int], keep_b: asc.ConstExpr[bool]):
    """c = a @ b (float16 in, float32 out): output tiles round-robin over the cube cores, K in
    steps of bk through `nbuf` L1, L0A/L0B and L0C slots (flags free each slot). keep_b: every
    tile of a core has the same column block (cores a multiple of the column tiles), so its B
    block (k x bn) is loaded into L1 once, with the first tile, and kept."""
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    a1 = [asc.LocalTensor(asc.float16, asc.TPosition.A1, i * bm * bk * 2, bm * bk)
          for i in range(nbuf)]
    b1 = [asc.LocalTensor(asc.float16, asc.TPosition.B1, (nbuf + i) * bm * bk * 2, bk * bn)
          for i in range(nbuf)]
    a2 = [asc.LocalTensor(asc.float16, asc.TPosition.A2, i * bm * bk * 2, bm * bk)
          for i in range(nbuf)]
    b2 = [asc.LocalTensor(asc.float16, asc.TPosition.B2, i * bk * bn * 2, bk * bn)
          for i in range(nbuf)]
    co1 = [asc.LocalTensor(asc.float32, asc.TPosition.CO1, i * bm * bn * 4, bm * bn)
           for i in range(nbuf)]
    b_all = asc.LocalTensor(asc.float16, asc.TPosition.B1, 2 * nbuf * bm * bk * 2, k * bn)
    first = True
    m1 = bm // 16
    n1 = bn // 16
    k1 = bk // 16
    tiles_n = n // bn
    for i in range(nbuf):
        asc.set_flag(E.MTE1_MTE2, i)
        asc.set_flag(E.M_MTE1, i)
        asc.set_flag(E.FIX_M, i)
    step = 0
    q = 0
    for tile in range(asc.get_block_idx(), m // bm * tiles_n, cores):
        m0 = tile // tiles_n * bm
        n0 = tile % tiles_n * bn
        for k0 in range(0, k, bk):
            p = step % nbuf
            asc.wait_flag(E.MTE1_MTE2, p)
            asc.data_copy(a1[p], ag[m0 * k + k0:], asc.Nd2NzParams(1, bm, bk, 0, k, bm, 1, 0))
            bs = b_all[k0 * bn:] if keep_b else b1[p]
            if first or not keep_b:
                asc.data_copy(bs, bg[k0 * n + n0:], asc.Nd2NzParams(1, bk, bn, 0, n, bk, 1, 0))
            asc.set_flag(E.MTE2_MTE1, p)
            asc.wait_flag(E.MTE2_MTE1, p)
            asc.wait_flag(E.M_MTE1, p)
            for i in range(k1):
                asc.load_data(a2[p][i * 256:], a1[p][i * m1 * 256:],
                              asc.LoadData2DParams(0, m1, 1, 0, k1 - 1, False, 0))
                asc.load_data(b2[p][i * n1 * 256:], bs,
                              asc.LoadData2DParams(i, n1, k1, 0, 0, True, 0))
            asc.set_flag(E.MTE1_MTE2, p)
            asc.set_flag(E.MTE1_M, p)
            asc.wait_flag(E.MTE1_M, p)
            if k0 == 0:
                asc.wait_flag(E.FIX_M, q)
            asc.mmad(co1[q], a2[p], b2[p], asc.MmadParams(bm, bn, bk, cmatrix_init_val=k0 == 0))
            asc.set_flag(E.M_MTE1, p)
            step += 1
        first = False
        asc.set_flag(E.M_FIX, q)
        asc.wait_flag(E.M_FIX, q)
        asc.fixpipe(cg[m0 * n + n0:], co1[q], asc.FixpipeParamsV220(bn, bm, bm, n))
        asc.set_flag(E.FIX_M, q)
        q = (q + 1) % nbuf
    for i in range(nbuf):
        asc.wait_flag(E.MTE1_MTE2, i)
        asc.wait_flag(E.M_MTE1, i)
        asc.wait_flag(E.FIX_M, i)


def launch_matmul(*, buffers: int = 1, cores: int = 24, m: int = 384, k: int = 512,
                  n: int = 256, tile: int = 64, keep_b: bool = False):
    """matmul of m x k by k x n on `cores` cube cores, tile x tile output blocks."""
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(F16)
    b = rng.uniform(-1, 1, (k, n)).astype(F16)
    c = np.zeros((m, n), np.float32)
    run = ascendlab.launch(matmul, cores, a, b, c, m, k, n, cores, tile, tile, tile, buffers,
                           keep_b)
    np.testing.assert_allclose(run.outputs["c"], a.astype(np.float32) @ b.astype(np.float32),
                               rtol=2e-2, atol=2e-2)
    return run


# ---- vector: a bias loaded again for every tile ----------------------------------------------
@asc.jit
def bias_rows(x: asc.GlobalAddress, bias: asc.GlobalAddress, z: asc.GlobalAddress, rows: int,
              width: asc.ConstExpr[int], per_tile: asc.ConstExpr[int],
              keep: asc.ConstExpr[bool]):
    """z[r, :] = x[r, :] + bias over this core's `rows` rows, per_tile rows per tile, double-
    buffered; the bias comes from GM with every tile (keep=False) or once (keep=True)."""
    row0 = asc.get_block_idx() * rows
    xg = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + row0 * width)
    bg.set_global_buffer(bias)
    zg.set_global_buffer(z + row0 * width)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    kept = asc.TBuf(asc.TPosition.VECCALC)
    tile = per_tile * width
    pipe.init_buffer(qx, 2, (tile + width) * 2)  # a tile and (keep=False) its bias
    pipe.init_buffer(qz, 2, tile * 2)
    pipe.init_buffer(kept, width * 2)
    b = kept.get(asc.float16)
    if keep:
        asc.data_copy(b, bg, width)
        asc.set_flag(E.MTE2_V, 0)
        asc.wait_flag(E.MTE2_V, 0)
    for t0 in range(0, rows, per_tile):
        xl = qx.alloc_tensor(asc.float16)
        asc.data_copy(xl, xg[t0 * width:], tile)
        if not keep:
            asc.data_copy(xl[tile:], bg, width)
        qx.enque(xl)
        xl = qx.deque(asc.float16)
        zl = qz.alloc_tensor(asc.float16)
        src = b if keep else xl[tile:]
        for r in range(per_tile):
            asc.add(zl[r * width:], xl[r * width:], src, width)
        qz.enque(zl)
        qx.free_tensor(xl)
        zl = qz.deque(asc.float16)
        asc.data_copy(zg[t0 * width:], zl, tile)
        qz.free_tensor(zl)


def launch_bias(*, keep: bool = False, cores: int = 48, rows: int = 16, width: int = 2048,
                per_tile: int = 2):
    x = np.linspace(-1, 1, cores * rows * width).astype(F16).reshape(cores * rows, width)
    bias = np.linspace(0, 1, width).astype(F16)
    z = np.zeros_like(x)
    run = ascendlab.launch(bias_rows, cores, x, bias, z, rows, width, per_tile, keep)
    np.testing.assert_allclose(run.outputs["z"], x + bias, rtol=1e-2, atol=1e-2)
    return run


# ---- vector: per-row reductions read back one scalar at a time -------------------------------
@asc.jit
def row_sums(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int,
             per_tile: asc.ConstExpr[int], folded: asc.ConstExpr[bool]):
    """z[r] = 2 * sum(x[r, 0:64]) (float32 rows of 64, one repeat each): per row a reduce_sum
    and a get_value / set_value round trip (folded=False), or one whole_reduce_sum over the
    rows of a tile and one muls (folded=True)."""
    width = 64
    row0 = asc.get_block_idx() * rows
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + row0 * width)
    zg.set_global_buffer(z + row0)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, 2, per_tile * width * 4)
    pipe.init_buffer(qz, 2, per_tile * 4)
    pipe.init_buffer(work, per_tile * 32 + width * 4)
    acc = work.get_with_offset(per_tile * 8, 0, asc.float32)
    tmp = work.get_with_offset(width, per_tile * 32, asc.float32)
    for t0 in range(0, rows, per_tile):
        xl = qx.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[t0 * width:], per_tile * width)
        qx.enque(xl)
        xl = qx.deque(asc.float32)
        zl = qz.alloc_tensor(asc.float32)
        if folded:
            asc.whole_reduce_sum(zl, xl, width, per_tile, 1, 1, width // 8)
            asc.muls(zl, zl, 2.0, per_tile)
        else:
            for r in range(per_tile):
                asc.reduce_sum(acc[r * 8:], xl[r * width:], tmp, width)
            asc.set_flag(E.V_S, 0)
            asc.wait_flag(E.V_S, 0)
            for r in range(per_tile):
                zl.set_value(r, acc.get_value(r * 8) * 2.0)
            asc.set_flag(E.S_V, 0)
            asc.wait_flag(E.S_V, 0)
        qz.enque(zl)
        qx.free_tensor(xl)
        zl = qz.deque(asc.float32)
        asc.data_copy(zg[t0:], zl, per_tile)
        qz.free_tensor(zl)


def launch_sums(*, folded: bool = False, cores: int = 48, rows: int = 128, per_tile: int = 32):
    x = np.linspace(-1, 1, cores * rows * 64).astype(np.float32).reshape(cores * rows, 64)
    z = np.zeros(cores * rows, np.float32)
    run = ascendlab.launch(row_sums, cores, x, z, rows, per_tile, folded)
    np.testing.assert_allclose(run.outputs["z"], 2 * x.sum(axis=1), rtol=1e-4, atol=1e-4)
    return run


# ---- vector: an intermediate through GM across a sync_all ------------------------------------
@asc.jit
def two_phase(x: asc.GlobalAddress, ws: asc.GlobalAddress, z: asc.GlobalAddress, block: int,
              on_chip: asc.ConstExpr[bool]):
    """Phase 1: y = 2x; sync_all; phase 2: z = y + 1. y goes to the GM workspace and is read
    back after the sync_all (on_chip=False), or stays in UB (on_chip=True)."""
    off = asc.get_block_idx() * block
    xg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    wg.set_global_buffer(ws + off)
    zg.set_global_buffer(z + off)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, block * 4)
    y = buf.get_with_offset(block, 0, asc.float16)
    t = buf.get_with_offset(block, block * 2, asc.float16)
    asc.data_copy(t, xg, block)
    asc.set_flag(E.MTE2_V, 0)
    asc.wait_flag(E.MTE2_V, 0)
    asc.muls(y, t, 2.0, block)
    if not on_chip:
        asc.set_flag(E.V_MTE3, 0)
        asc.wait_flag(E.V_MTE3, 0)
        asc.data_copy(wg, y, block)
    asc.sync_all()
    if not on_chip:
        asc.data_copy(y, wg, block)
        asc.set_flag(E.MTE2_V, 0)
        asc.wait_flag(E.MTE2_V, 0)
    asc.adds(t, y, 1.0, block)
    asc.set_flag(E.V_MTE3, 0)
    asc.wait_flag(E.V_MTE3, 0)
    asc.data_copy(zg, t, block)


def launch_two_phase(*, on_chip: bool = False, cores: int = 48, block: int = 16384):
    x = np.linspace(-1, 1, cores * block).astype(F16)
    ws = np.zeros_like(x)
    z = np.zeros_like(x)
    run = ascendlab.launch(two_phase, cores, x, ws, z, block, on_chip)
    np.testing.assert_allclose(run.outputs["z"], 2 * x.astype(np.float32) + 1, atol=1e-2)
    return run


# ---- MIX: the cube computes score blocks, the vector cores post-process them -----------------
def _tiling(bm: int, bn: int, bk: int):
    return asc.adv.TCubeTiling(used_core_num=1, m=bm, n=bn, k_a=bk, k_b=bk, single_core_m=bm,
                               single_core_n=bn, single_core_k=bk, base_m=bm, base_n=bn,
                               base_k=bk, depth_a1=1, depth_b1=1, step_m=1, step_n=1,
                               is_bias=0, db_l0a=1, db_l0b=1)


@asc.jit
def scores(q: asc.GlobalAddress, k_t: asc.GlobalAddress, o: asc.GlobalAddress,
           ws: asc.GlobalAddress, s_q: int, s_k: int, d: int, workers: int, step: int,
           t1: asc.adv.TCubeTiling, bq: asc.ConstExpr[int], bk: asc.ConstExpr[int]):
    """o = exp(q @ k_t / 8) in float16, by blocks of bq query rows x bk keys: the group's
    cube core computes each block into this vector core's UB (asc.adv.Matmul), the vector core
    scales, exponentiates and stores it. Vector core `me` takes query blocks me, me + step, ...
    while me < workers (step = 2 * groups; workers < step leaves the second core of each group
    idle)."""
    me = asc.get_block_idx()
    qg = asc.GlobalTensor()
    kg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    qg.set_global_buffer(q)
    kg.set_global_buffer(k_t)
    og.set_global_buffer(o)
    pipe = asc.TPipe()
    f16 = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16)
    ub32 = asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, asc.float32)
    mm = asc.adv.Matmul(a=f16, b=f16, c=ub32)
    asc.adv.register_matmul(pipe, ws, mm, t1)
    mm.set_org_shape(s_q, s_k, d)
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(work, bq * bk * 6)
    s = work.get_with_offset(bq * bk, 0, asc.float32)
    h = work.get_with_offset(bq * bk, bq * bk * 4, asc.float16)
    if me < workers:
        for qb in range(me, s_q // bq, step):
            for k0 in range(0, s_k, bk):
                mm.set_tensor_a(qg[qb * bq * d:])
                mm.set_tensor_b(kg[k0:])
                mm.set_tail(bq, bk, d)
                with mm.iterate() as _:
                    mm.get_tensor_c(s)
                mm.end()
                asc.muls(s, s, 0.125, bq * bk)
                asc.exp(s, s, bq * bk)
                asc.cast(h, s, asc.RoundMode.CAST_RINT, bq * bk)
                asc.set_flag(E.V_MTE3, 0)
                asc.wait_flag(E.V_MTE3, 0)
                asc.data_copy_pad(og[qb * bq * s_k + k0:], h,
                                  asc.DataCopyExtParams(bq, bk * 2, 0, (s_k - bk) * 2, 0))
                asc.set_flag(E.MTE3_V, 0)
                asc.wait_flag(E.MTE3_V, 0)


def launch_scores(*, clients: int = 2, cores: int = 4, s_q: int = 256, s_k: int = 512,
                  d: int = 64, bk: int = 128):
    """scores on `cores` MIX groups (block_num: one cube and two vector cores each), key
    blocks of bk; clients=2: both vector cores of a group take 16-row blocks; clients=1: one
    vector core per group takes 32-row blocks (the other stays idle)."""
    groups = cores
    bq = 32 // clients
    rng = np.random.default_rng(0)
    q = rng.uniform(-1, 1, (s_q, d)).astype(F16)
    k_t = rng.uniform(-1, 1, (d, s_k)).astype(F16)
    o = np.zeros((s_q, s_k), F16)
    ws = np.zeros(2 * groups * bq * bk * 4, np.uint8)
    workers = 2 * groups if clients == 2 else groups
    run = ascendlab.launch(scores, groups, q, k_t, o, ws, s_q, s_k, d, workers, workers,
                           _tiling(bq, bk, d), bq, bk)
    ref = np.exp(q.astype(np.float32) @ k_t.astype(np.float32) / 8)
    np.testing.assert_allclose(run.outputs["o"].astype(np.float32), ref, rtol=2e-2, atol=2e-2)
    return run


# name -> (launcher, configuration, the kind the advisor's top finding must have,
#          the configuration that applies the fix)
BATTERY = {
    "cube-single-buffer": (launch_matmul, {"buffers": 1}, "single-buffer", {"buffers": 2}),
    "cube-reuse": (launch_matmul, {"buffers": 2, "m": 1536, "k": 256}, "reuse",
                   {"buffers": 2, "m": 1536, "k": 256, "keep_b": True}),
    "row-reductions": (launch_sums, {}, "serial-reduction", {"folded": True}),
    "gm-round-trip": (launch_two_phase, {}, "gm-round-trip", {"on_chip": True}),
    "mix-handoffs": (launch_scores, {"cores": 4}, "mix-balance", {"cores": 4, "bk": 512}),
}
