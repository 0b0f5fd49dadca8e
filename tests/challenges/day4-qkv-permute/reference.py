"""Reference for day 4: q, k, v = qkv.reshape(b, s, 3, h, d).permute(2, 0, 3, 1, 4).

No arithmetic: each work item is one (tensor, batch, head) and a run of rows; one strided
data_copy_pad gathers the rows (d elements every 3*h*d) into UB, padded to 32 B, and one
data_copy_pad writes them back contiguous. A TQueBind(VECIN -> VECOUT) of depth BUFFERS lets
the next gather overlap this scatter. Work items are spread over every vector core.

Why it is fast. There is no arithmetic, so the kernel is the data movement and nothing else:
one strided gather and one contiguous scatter per work item, ROWS rows each (long enough to
amortise the DMA setup), with the TQueBind double-buffered so the port never waits for a
flag. The time is the model's floor for a pure copy: every byte read once and written once
through the core's one GM port at its share of the sustained HBM bandwidth (MTE2 and MTE3
busy about 15 k cycles each of 29.4 k); the roofline bound (14,155) counts the HBM peak and
reads and writes at once.

SLOW = True uses one buffer (the gather waits for the scatter)."""

import ascendlab.asc as asc

SLOW = False
BUFFERS = 1 if SLOW else 2
ROWS = 96  # rows per transfer


@asc.jit
def qkv_kernel(qkv: asc.GlobalAddress, q: asc.GlobalAddress, k: asc.GlobalAddress,
               v: asc.GlobalAddress, b: int, s: int, h: int, d: int, items_per_core: int,
               rows: asc.ConstExpr[int], buffers: asc.ConstExpr[int]):
    chunks = (s + rows - 1) // rows
    total = 3 * b * h * chunks
    first = asc.get_block_idx() * items_per_core
    last = min(first + items_per_core, total)
    src = asc.GlobalTensor()
    src.set_global_buffer(qkv)
    outs = [asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()]
    outs[0].set_global_buffer(q)
    outs[1].set_global_buffer(k)
    outs[2].set_global_buffer(v)
    width = (d + 15) // 16 * 16
    pipe = asc.TPipe()
    que = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, buffers)
    pipe.init_buffer(que, buffers, rows * width * 2)
    pad = asc.DataCopyPadExtParams(asc.float16, False, 0, 0, 0)
    row_len = 3 * h * d
    for item in range(first, last):
        c = item % chunks  # item = ((which * b + bi) * h + hi) * chunks + c
        hi = item // chunks % h
        bi = item // (chunks * h) % b
        which = item // (chunks * h * b)
        r0 = c * rows
        n = min(rows, s - r0)
        t = que.alloc_tensor(asc.float16)
        asc.data_copy_pad(t, src[(bi * s + r0) * row_len + (which * h + hi) * d:],
                          asc.DataCopyExtParams(n, d * 2, (row_len - d) * 2, 0, 0), pad)
        que.enque(t)
        t = que.deque(asc.float16)
        asc.data_copy_pad(outs[which][((bi * h + hi) * s + r0) * d:], t,
                          asc.DataCopyExtParams(n, d * 2, 0, 0, 0))
        que.free_tensor(t)


def launch(qkv, q, k, v, h, d, core_num):
    b, s = qkv.shape[:2]
    total = 3 * b * h * -(-s // ROWS)
    per_core = -(-total // core_num)
    blocks = -(-total // per_core)
    qkv_kernel[blocks, asc.lib.runtime.current_stream()](qkv, q, k, v, b, s, h, d, per_core,
                                                         ROWS, BUFFERS)
