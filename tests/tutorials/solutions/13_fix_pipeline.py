"""Solution of exercise 13.fix_pipeline (tutorials/13-debugging.ipynb)."""

import ascendlab.asc as asc

T = 256  # float32 elements per tile


@asc.jit
def relu_double(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    start = asc.get_block_idx() * tiles * T
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    zg.set_global_buffer(z + start)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 2 * T)       # 2 buffers
    zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 8 * T, 2 * T)  # 2 buffers
    for i in range(tiles):
        b = i % 2
        if i >= 2:
            asc.wait_flag(asc.HardEvent.V_MTE2, b)    # buffer b's last adds is done
        asc.data_copy(xl[b * T:], xg[i * T:], T)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.relu(zl[b * T:], xl[b * T:], T)
        asc.muls(zl[b * T:], zl[b * T:], 2.0, T)
        if i + 2 < tiles:
            asc.set_flag(asc.HardEvent.V_MTE2, b)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(zg[i * T:], zl[b * T:], T)
        asc.set_flag(asc.HardEvent.MTE3_V, b)
        asc.wait_flag(asc.HardEvent.MTE3_V, b)


def launch(x, z, core_num):
    relu_double[8](x, z, x.size // 8 // T)
