"""Solution of exercise 10.matmul_bias_relu: the Matmul's block comes into UB, the vector
core adds the bias (loaded and widened once) row by row and applies ReLU."""

import numpy as np

import ascendlab.asc as asc

E = asc.HardEvent


@asc.jit
def matmul_epilogue(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress,
                    c: asc.GlobalAddress, ws: asc.GlobalAddress, m: int, k: int, n: int,
                    tiling: asc.adv.TCubeTiling, bm: asc.ConstExpr[int]):
    me, workers = asc.get_block_idx(), asc.get_block_num() * 2
    ag, bg, cg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    for g, address in ((ag, a), (bg, b), (cg, c)):
        g.set_global_buffer(address)
    pipe = asc.TPipe()
    f16 = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16)
    ub32 = asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, asc.float32)
    mm = asc.adv.Matmul(a=f16, b=f16, c=ub32)
    asc.adv.register_matmul(pipe, ws, mm, tiling)
    mm.set_org_shape(m, n, k)
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, bm * n * 4 + n * 6)
    blk = buf.get_with_offset(bm * n, 0, asc.float32)
    b32 = buf.get_with_offset(n, bm * n * 4, asc.float32)
    b16 = buf.get_with_offset(n, bm * n * 4 + n * 4, asc.float16)
    bs = asc.GlobalTensor()
    bs.set_global_buffer(bias)
    asc.data_copy(b16, bs, n)  # the bias once per core, widened to float32
    asc.set_flag(E.MTE2_V, 0)
    asc.wait_flag(E.MTE2_V, 0)
    asc.cast(b32, b16, asc.RoundMode.CAST_NONE, n)
    for r0 in range(me * bm, m, workers * bm):
        rows = min(bm, m - r0)
        mm.set_tensor_a(ag[r0 * k:])
        mm.set_tensor_b(bg)
        mm.set_tail(rows, n, k)
        with mm.iterate() as _:
            mm.get_tensor_c(blk)
        mm.end()
        for i in range(rows):  # the epilogue on the vector core: + bias, then ReLU
            asc.add(blk[i * n:], blk[i * n:], b32, n)
        asc.relu(blk, blk, rows * n)
        asc.set_flag(E.V_MTE3, 0)
        asc.wait_flag(E.V_MTE3, 0)
        asc.data_copy(cg[r0 * n:], blk, rows * n)


def launch(a, b, bias, c, core_num, bm=32):
    (m, k), n = a.shape, b.shape[1]
    groups = max(1, min(core_num, -(-m // (2 * bm))))
    ws = np.zeros(2 * groups * bm * n * 4, np.uint8)  # the C blocks on their way to UB
    t = asc.adv.TCubeTiling(used_core_num=1, m=bm, n=n, k_a=k, k_b=k, single_core_m=bm,
                            single_core_n=n, single_core_k=k, base_m=bm, base_n=n, base_k=k,
                            depth_a1=1, depth_b1=1, step_m=1, step_n=1, is_bias=0)
    matmul_epilogue[groups](a, b, bias, c, ws, m, k, n, t, bm)
