"""Small kernels shared by the runtime tests (module level, so @asc.jit can read their source)."""

from __future__ import annotations

import ascendlab.asc as asc

BUFFER_NUM = 2


@asc.jit
def vadd_framework(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                   block_length: int, tile: asc.ConstExpr[int], buffers: asc.ConstExpr[int]):
    """z = x + y with TPipe/TQue double (or single) buffering; tile divides block_length."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    pipe = asc.TPipe()
    q_x = asc.TQue(asc.TPosition.VECIN, buffers)
    q_y = asc.TQue(asc.TPosition.VECIN, buffers)
    q_z = asc.TQue(asc.TPosition.VECOUT, buffers)
    pipe.init_buffer(q_x, buffers, tile * x.dtype.sizeof())
    pipe.init_buffer(q_y, buffers, tile * y.dtype.sizeof())
    pipe.init_buffer(q_z, buffers, tile * z.dtype.sizeof())
    for i in range(block_length // tile):
        x_l = q_x.alloc_tensor(x.dtype)
        y_l = q_y.alloc_tensor(y.dtype)
        asc.data_copy(x_l, x_gm[i * tile:], tile)
        asc.data_copy(y_l, y_gm[i * tile:], tile)
        q_x.enque(x_l)
        q_y.enque(y_l)
        add_tile(q_x, q_y, q_z, z.dtype, tile)
        z_l = q_z.deque(z.dtype)
        asc.data_copy(z_gm[i * tile:], z_l, tile)
        q_z.free_tensor(z_l)


@asc.jit
def add_tile(q_x, q_y, q_z, dtype, tile: asc.ConstExpr[int]):
    """The compute stage, as a nested @asc.jit helper."""
    x_l = q_x.deque(dtype)
    y_l = q_y.deque(dtype)
    z_l = q_z.alloc_tensor(dtype)
    asc.add(z_l, x_l, y_l, tile)
    q_z.enque(z_l)
    q_x.free_tensor(x_l)
    q_y.free_tensor(y_l)


@asc.jit
def vadd_flags(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
               block_length: int, tile: asc.ConstExpr[int]):
    """z = x + y with static LocalTensors placed by address and explicit set/wait flags."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    z_gm.set_global_buffer(z + offset)
    nbytes = 2 * tile * x.dtype.sizeof()
    x_l = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2 * tile)
    y_l = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nbytes, 2 * tile)
    z_l = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nbytes, 2 * tile)
    for i in range(block_length // tile):
        b = i % 2
        asc.data_copy(x_l[b * tile:], x_gm[i * tile:], tile)
        asc.data_copy(y_l[b * tile:], y_gm[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.add(z_l[b * tile:], x_l[b * tile:], y_l[b * tile:], tile)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * tile:], z_l[b * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, b)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, b)
