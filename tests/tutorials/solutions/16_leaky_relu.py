"""Solution of exercise 16.leaky_relu (tutorials/16-real-npu.ipynb)."""

import ascendlab.asc as asc


@asc.jit
def leaky_relu(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int, per_core: int,
               tile: asc.ConstExpr[int]):
    """y = leaky_relu(x, 0.01), float16, any n; each core takes per_core elements."""
    start = asc.get_block_idx() * per_core
    count = n - start                      # the last cores get fewer elements, or none
    if count > per_core:
        count = per_core
    if count < 0:
        count = 0
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    pipe = asc.TPipe()
    q_in = asc.TQue(asc.TPosition.VECIN, 2)
    q_out = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(q_in, 2, tile * 2)
    pipe.init_buffer(q_out, 2, tile * 2)
    for i in range((count + tile - 1) // tile):
        length = count - i * tile          # elements in this tile; the last may be short
        if length > tile:
            length = tile
        x_l = q_in.alloc_tensor(asc.float16)
        asc.data_copy_pad(x_l, xg[i * tile:], asc.DataCopyExtParams(1, length * 2, 0, 0),
                          asc.DataCopyPadExtParams(asc.float16, False, 0, 0, 0))
        q_in.enque(x_l)
        x_l = q_in.deque(asc.float16)
        y_l = q_out.alloc_tensor(asc.float16)
        asc.leaky_relu(y_l, x_l, 0.01, length)
        q_out.enque(y_l)
        q_in.free_tensor(x_l)
        y_l = q_out.deque(asc.float16)
        asc.data_copy_pad(yg[i * tile:], y_l, asc.DataCopyExtParams(1, length * 2, 0, 0))
        q_out.free_tensor(y_l)


def launch(x, y, core_num):
    per_core = ((x.size + 47) // 48 + 15) // 16 * 16   # a multiple of 16 halves (32 B)
    leaky_relu[48](x, y, x.size, per_core, 4096)
