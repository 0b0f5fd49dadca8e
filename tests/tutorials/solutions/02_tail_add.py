"""Solution of exercise 02.tail_add (tutorials/02-tiling.ipynb)."""

import ascendlab.asc as asc


@asc.jit
def vadd_tiled(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
               n: int, per_core: int, tile: asc.ConstExpr[int]):
    start = asc.get_block_idx() * per_core
    count = per_core
    if start + count > n:
        count = n - start
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + start, count)
    y_gm.set_global_buffer(y + start, count)
    z_gm.set_global_buffer(z + start, count)
    size = x.dtype.sizeof()
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    y_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, tile * size, tile)
    z_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * tile * size, tile)
    full = count // tile
    for i in range(full):
        asc.data_copy(x_ub, x_gm[i * tile:], tile)
        asc.data_copy(y_ub, y_gm[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.add(z_ub, x_ub, y_ub, tile)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm[i * tile:], z_ub, tile)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
    tail = count - full * tile
    if tail > 0:
        params = asc.DataCopyExtParams(1, tail * size, 0, 0, 0)
        pad = asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0)
        asc.data_copy_pad(x_ub, x_gm[full * tile:], params, pad)
        asc.data_copy_pad(y_ub, y_gm[full * tile:], params, pad)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.add(z_ub, x_ub, y_ub, tail)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy_pad(z_gm[full * tile:], z_ub, params)


TILE = 2048


def launch(x, y, z, core_num):
    n = x.size
    align = 32 // x.itemsize  # each core's block starts on a 32 B boundary
    per_core = -(-n // core_num)
    per_core = -(-per_core // align) * align
    blocks = -(-n // per_core)
    vadd_tiled[blocks](x, y, z, n, per_core, TILE)
