"""The honest mini solution the hostile files start from: one tile per loop step, tails by
data_copy_pad."""

import ascendlab.asc as asc

TILE = 1024


@asc.jit
def add_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int,
               per_core: int, tile: asc.ConstExpr[int], op: asc.ConstExpr[str]):
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
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qy = asc.TQue(asc.TPosition.VECIN, 2)
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qx, 2, tile * 2)
    pipe.init_buffer(qy, 2, tile * 2)
    pipe.init_buffer(qz, 2, tile * 2)
    for i in range((count + tile - 1) // tile):
        length = tile
        if count - i * tile < tile:
            length = count - i * tile
        params = asc.DataCopyExtParams(1, length * 2, 0, 0, 0)
        pad = asc.DataCopyPadExtParams(asc.float16, False, 0, 0, 0)
        xl = qx.alloc_tensor(asc.float16)
        yl = qy.alloc_tensor(asc.float16)
        asc.data_copy_pad(xl, xg[i * tile:], params, pad)
        asc.data_copy_pad(yl, yg[i * tile:], params, pad)
        qx.enque(xl)
        qy.enque(yl)
        xl = qx.deque(asc.float16)
        yl = qy.deque(asc.float16)
        zl = qz.alloc_tensor(asc.float16)
        if op == "sub":  # the hostile files' "wrong kernel"
            asc.sub(zl, xl, yl, length)
        else:
            asc.add(zl, xl, yl, length)
        qz.enque(zl)
        qx.free_tensor(xl)
        qy.free_tensor(yl)
        zl = qz.deque(asc.float16)
        asc.data_copy_pad(zg[i * tile:], zl, params)
        qz.free_tensor(zl)


def ceil(a, b):
    return -(-a // b)


def run(x, y, z, blocks=4, op="add"):
    n = x.size
    per_core = ceil(ceil(n, blocks), 16) * 16
    add_kernel[-(-n // per_core), asc.lib.runtime.current_stream()](x, y, z, n, per_core, TILE,
                                                                     op)


def launch(x, y, z, core_num):
    run(x, y, z)
