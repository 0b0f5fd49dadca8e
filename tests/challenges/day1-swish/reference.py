"""Reference for day 1 (swish): y = x / (1 + exp(-beta x)) in float32, tiles of TILE elements,
double-buffered queues, every vector core.

Why it is fast. Swish is a streaming pass: every element is read once and written once, and the
vector math (a cast, five instructions, a cast) is a third of the transfer time. So the work is
split evenly over all 48 vector cores in 8 KiB transfers (16 KiB ones give the same cycles: the
port, not the transfer size, is the limit) and the queues are double-buffered, which keeps a
core's GM port busy from the first load to the last store: the kernel runs at the model's
floor, the reads plus the writes of a core through its one GM port at its share of the
sustained HBM bandwidth (MTE2 and MTE3 busy 4,358 cycles each of 9,147). The roofline bound
(4,718) is lower because it counts the HBM peak, not the sustained 76 %, and reads and writes
at once.

SLOW = True keeps the same kernel on one core (the test's "correct but below gold" variant)."""

import ascendlab.asc as asc

SLOW = False
TILE = 4096  # elements per tile: 8 KiB transfers (as fast here as 16 KiB: the port is the limit)
BUFFERS = 2


@asc.jit
def swish_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int, per_core: int,
                 beta: float, tile: asc.ConstExpr[int]):
    start = asc.get_block_idx() * per_core
    count = min(per_core, n - start)
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, BUFFERS)
    qy = asc.TQue(asc.TPosition.VECOUT, BUFFERS)
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, BUFFERS, tile * 2)
    pipe.init_buffer(qy, BUFFERS, tile * 2)
    pipe.init_buffer(work, tile * 8)
    xf = work.get_with_offset(tile, 0, asc.float32)
    t = work.get_with_offset(tile, tile * 4, asc.float32)
    for i in range((count + tile - 1) // tile):
        length = min(tile, count - i * tile)
        xl = qx.alloc_tensor(asc.float16)
        asc.data_copy_pad(xl, xg[i * tile:], asc.DataCopyExtParams(1, length * 2, 0, 0, 0),
                          asc.DataCopyPadExtParams(asc.float16, False, 0, 0, 0))
        qx.enque(xl)
        xl = qx.deque(asc.float16)
        asc.cast(xf, xl, asc.RoundMode.CAST_NONE, length)
        qx.free_tensor(xl)
        asc.muls(t, xf, -beta, length)  # exp(-beta x) in float32: float16 overflows at 11.09
        asc.exp(t, t, length)
        asc.adds(t, t, 1.0, length)
        asc.div(t, xf, t, length)
        yl = qy.alloc_tensor(asc.float16)
        asc.cast(yl, t, asc.RoundMode.CAST_RINT, length)
        qy.enque(yl)
        yl = qy.deque(asc.float16)
        asc.data_copy_pad(yg[i * tile:], yl, asc.DataCopyExtParams(1, length * 2, 0, 0, 0))
        qy.free_tensor(yl)


def launch(x, y, beta, core_num):
    n = x.size
    cores = 1 if SLOW else core_num
    per_core = ((n + cores - 1) // cores + 15) // 16 * 16  # 32 B aligned starts
    blocks = -(-n // per_core)
    swish_kernel[blocks, asc.lib.runtime.current_stream()](x, y, n, per_core, beta, TILE)
