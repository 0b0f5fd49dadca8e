"""Solution of exercise 00.double (tutorials/00-welcome.ipynb)."""

import ascendlab.asc as asc


@asc.jit
def double(x: asc.GlobalAddress, y: asc.GlobalAddress, block_length: int):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, block_length)
    y_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, block_length * x.dtype.sizeof(),
                           block_length)
    asc.data_copy(x_ub, x_gm, block_length)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(y_ub, x_ub, 2.0, block_length)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, y_ub, block_length)


def launch(x, y, core_num):
    double[8](x, y, x.size // 8)
