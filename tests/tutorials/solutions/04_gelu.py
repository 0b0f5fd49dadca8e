"""Solution of exercise 04.gelu (tutorials/04-vector-instructions.ipynb)."""

import math

import ascendlab.asc as asc

TILE = 2048
C = math.sqrt(2.0 / math.pi)  # GELU's tanh form: 0.5 x (1 + tanh(C (x + 0.044715 x^3)))


@asc.jit
def gelu_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, block_length: int,
                tile: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    pipe = asc.TPipe()
    q_x = asc.TQue(asc.TPosition.VECIN, 2)
    q_y = asc.TQue(asc.TPosition.VECOUT, 2)
    tmp = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(q_x, 2, tile * x.dtype.sizeof())
    pipe.init_buffer(q_y, 2, tile * x.dtype.sizeof())
    pipe.init_buffer(tmp, tile * x.dtype.sizeof())
    u = tmp.get(x.dtype)
    for i in range(block_length // tile):
        x_l = q_x.alloc_tensor(x.dtype)
        asc.data_copy(x_l, x_gm[i * tile:], tile)
        q_x.enque(x_l)
        x_l = q_x.deque(x.dtype)
        y_l = q_y.alloc_tensor(x.dtype)
        asc.mul(u, x_l, x_l, tile)            # x^2
        asc.mul(u, u, x_l, tile)              # x^3
        asc.muls(u, u, 0.044715, tile)
        asc.add(u, u, x_l, tile)              # x + 0.044715 x^3
        asc.muls(u, u, -2.0 * C, tile)        # -2 C (...)
        asc.exp(u, u, tile)
        asc.adds(u, u, 1.0, tile)             # 1 + exp(-2 C (...))
        asc.div(y_l, x_l, u, tile)            # x sigmoid(2 C (...)) = gelu(x)
        q_y.enque(y_l)
        q_x.free_tensor(x_l)
        y_l = q_y.deque(x.dtype)
        asc.data_copy(y_gm[i * tile:], y_l, tile)
        q_y.free_tensor(y_l)


def launch(x, y, core_num):
    gelu_kernel[core_num](x, y, x.size // core_num, TILE)
