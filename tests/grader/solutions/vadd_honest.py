"""Reference solution of challenge "vadd": double-buffered TPipe/TQue add on every vector core;
32 B multiples move with data_copy, the last partial tile with data_copy_pad."""

import ascendlab.asc as asc

TILE = 8192  # elements per tile (16 KiB of float16: full-bandwidth GM bursts)
BUFFERS = 2


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int,
                per_core: int, tile: asc.ConstExpr[int]):
    start = asc.get_block_idx() * per_core
    count = per_core
    if start + count > n:
        count = n - start
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    zg.set_global_buffer(z + start)
    size = x.dtype.sizeof()
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, BUFFERS)
    qy = asc.TQue(asc.TPosition.VECIN, BUFFERS)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFFERS)
    pipe.init_buffer(qx, BUFFERS, tile * size)
    pipe.init_buffer(qy, BUFFERS, tile * size)
    pipe.init_buffer(qz, BUFFERS, tile * size)
    for i in range((count + tile - 1) // tile):
        length = tile
        if count - i * tile < tile:
            length = count - i * tile
        xl = qx.alloc_tensor(x.dtype)
        yl = qy.alloc_tensor(y.dtype)
        if length * size % 32 == 0:
            asc.data_copy(xl, xg[i * tile:], length)
            asc.data_copy(yl, yg[i * tile:], length)
        else:
            params = asc.DataCopyExtParams(1, length * size, 0, 0, 0)
            pad = asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0)
            asc.data_copy_pad(xl, xg[i * tile:], params, pad)
            asc.data_copy_pad(yl, yg[i * tile:], params, pad)
        qx.enque(xl)
        qy.enque(yl)
        xl = qx.deque(x.dtype)
        yl = qy.deque(y.dtype)
        zl = qz.alloc_tensor(z.dtype)
        asc.add(zl, xl, yl, length)
        qz.enque(zl)
        qx.free_tensor(xl)
        qy.free_tensor(yl)
        zl = qz.deque(z.dtype)
        if length * size % 32 == 0:
            asc.data_copy(zg[i * tile:], zl, length)
        else:
            asc.data_copy_pad(zg[i * tile:], zl, asc.DataCopyExtParams(1, length * size, 0, 0, 0))
        qz.free_tensor(zl)


def ceil(a, b):
    return -(-a // b)


def launch(x, y, z, core_num):
    n = x.size
    align = 512 // x.itemsize  # every core starts on a 512 B boundary (full GM bandwidth)
    per_core = ceil(ceil(n, core_num), align) * align
    blocks = -(-n // per_core)
    vadd_kernel[blocks, asc.lib.runtime.current_stream()](x, y, z, n, per_core, TILE)
