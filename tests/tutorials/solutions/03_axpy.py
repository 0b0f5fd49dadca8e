"""Solution of exercise 03.axpy (tutorials/03-double-buffering.ipynb)."""

import ascendlab.asc as asc

BUFFER_NUM = 2
TILE = 4096


@asc.jit
def axpy_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, a: float,
                block_length: int, tile: asc.ConstExpr[int], buffers: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    pipe = asc.TPipe()
    q_x = asc.TQue(asc.TPosition.VECIN, buffers)
    q_y = asc.TQue(asc.TPosition.VECIN, buffers)
    q_z = asc.TQue(asc.TPosition.VECOUT, buffers)
    pipe.init_buffer(q_x, buffers, tile * x.dtype.sizeof())
    pipe.init_buffer(q_y, buffers, tile * x.dtype.sizeof())
    pipe.init_buffer(q_z, buffers, tile * x.dtype.sizeof())
    for i in range(block_length // tile):
        x_l = q_x.alloc_tensor(x.dtype)
        y_l = q_y.alloc_tensor(x.dtype)
        asc.data_copy(x_l, x_gm[i * tile:], tile)
        asc.data_copy(y_l, y_gm[i * tile:], tile)
        q_x.enque(x_l)
        q_y.enque(y_l)
        x_l = q_x.deque(x.dtype)
        y_l = q_y.deque(x.dtype)
        z_l = q_z.alloc_tensor(x.dtype)
        asc.muls(z_l, x_l, a, tile)
        asc.add(z_l, z_l, y_l, tile)
        q_z.enque(z_l)
        q_x.free_tensor(x_l)
        q_y.free_tensor(y_l)
        z_l = q_z.deque(x.dtype)
        asc.data_copy(z_gm[i * tile:], z_l, tile)
        q_z.free_tensor(z_l)


def launch(x, y, z, a, core_num):
    axpy_kernel[core_num](x, y, z, a, x.size // core_num, TILE, BUFFER_NUM)
