"""Solution of exercise 12.column_sums: each core sums a slice of the rows into float32
partials, writes them to its slot of a GM workspace; after sync_all core 0 adds the partials."""

import numpy as np

import ascendlab.asc as asc

E = asc.HardEvent
TILE = 64  # rows per tile


@asc.jit
def column_sums(x: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress, rows: int,
                cols: int, tile: asc.ConstExpr[int]):
    me = asc.get_block_idx()
    cores = asc.get_block_num()
    per = (rows + cores - 1) // cores
    r0 = me * per
    mine = max(0, min(per, rows - r0))
    xg, yg, wg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    wg.set_global_buffer(ws)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(qx, 2, tile * cols * 2)
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(work, tile * cols * 4 + cols * 4 + cores * cols * 4)
    t = work.get_with_offset(tile * cols, 0, asc.float32)
    acc = work.get_with_offset(cols, tile * cols * 4, asc.float32)
    parts = work.get_with_offset(cores * cols, tile * cols * 4 + cols * 4, asc.float32)
    asc.duplicate(acc, 0.0, cols)
    for t0 in range(r0, r0 + mine, tile):
        r = min(tile, r0 + mine - t0)
        xl = qx.alloc_tensor(asc.float16)
        asc.data_copy(xl, xg[t0 * cols:], r * cols)
        qx.enque(xl)
        xl = qx.deque(asc.float16)
        asc.cast(t, xl, asc.RoundMode.CAST_NONE, r * cols)
        qx.free_tensor(xl)
        while r > 1:  # pairwise: add the bottom half of the rows onto the top half
            half = r // 2
            asc.add(t, t, t[(r - half) * cols:], half * cols)
            r = r - half
        asc.add(acc, acc, t, cols)
    asc.set_flag(E.V_MTE3, 0)
    asc.wait_flag(E.V_MTE3, 0)
    asc.data_copy(wg[me * cols:], acc, cols)
    asc.sync_all()  # every core's partial is in GM before core 0 reads them
    if me == 0:
        asc.data_copy(parts, wg, cores * cols)
        asc.set_flag(E.MTE2_V, 0)
        asc.wait_flag(E.MTE2_V, 0)
        c = cores
        while c > 1:  # the partials pairwise too: log2(cores) adds, not cores - 1
            half = c // 2
            asc.add(parts, parts, parts[(c - half) * cols:], half * cols)
            c = c - half
        asc.set_flag(E.V_MTE3, 0)
        asc.wait_flag(E.V_MTE3, 0)
        asc.data_copy(yg, parts, cols)


def launch(x, y, core_num):
    rows, cols = x.shape
    cores = max(1, min(core_num, rows // 8))
    ws = np.zeros(cores * cols, np.float32)
    column_sums[cores](x, y, ws, rows, cols, TILE)
