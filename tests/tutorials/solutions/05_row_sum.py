"""Solution of exercise 05.row_sum (tutorials/05-reductions-precision.ipynb)."""

import ascendlab.asc as asc


@asc.jit
def row_sum_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, rows_per_core: int,
                   cols: asc.ConstExpr[int]):
    row0 = asc.get_block_idx() * rows_per_core
    x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + row0 * cols, rows_per_core * cols)
    y_gm.set_global_buffer(y + row0, rows_per_core)
    pipe = asc.TPipe()
    q_x = asc.TQue(asc.TPosition.VECIN, 2)
    wide = asc.TBuf(asc.TPosition.VECCALC)
    work = asc.TBuf(asc.TPosition.VECCALC)
    sums = asc.TBuf(asc.TPosition.VECOUT)
    pipe.init_buffer(q_x, 2, cols * 2)
    pipe.init_buffer(wide, cols * 4)
    pipe.init_buffer(work, cols * 4)
    pipe.init_buffer(sums, 64 * 4)
    w = wide.get(asc.float32)
    tmp = work.get(asc.float32)
    s = sums.get(asc.float32)
    for r in range(rows_per_core):
        x_l = q_x.alloc_tensor(x.dtype)
        asc.data_copy(x_l, x_gm[r * cols:], cols)
        q_x.enque(x_l)
        x_l = q_x.deque(x.dtype)
        asc.cast(w, x_l, asc.RoundMode.CAST_NONE, cols)   # float16 -> float32
        asc.reduce_sum(s[r:], w, tmp, cols)               # accumulate in float32
        q_x.free_tensor(x_l)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy_pad(y_gm, s, asc.DataCopyExtParams(1, rows_per_core * 4, 0, 0, 0))


def launch(x, y, core_num):
    rows, cols = x.shape
    row_sum_kernel[core_num](x, y, rows // core_num, cols)
