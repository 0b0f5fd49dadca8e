"""Solution of exercise 01.vadd (tutorials/01-first-kernel.ipynb)."""

import ascendlab.asc as asc


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                block_length: int):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    nbytes = block_length * x.dtype.sizeof()
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, block_length)
    y_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nbytes, block_length)
    z_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nbytes, block_length)
    asc.data_copy(x_ub, x_gm, block_length)
    asc.data_copy(y_ub, y_gm, block_length)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(z_ub, x_ub, y_ub, block_length)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, z_ub, block_length)


def launch(x, y, z, core_num):
    vadd_kernel[8](x, y, z, x.size // 8)
