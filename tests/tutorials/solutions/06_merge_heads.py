"""Solution of exercise 06.merge_heads (tutorials/06-data-movement.ipynb)."""

import ascendlab.asc as asc


@asc.jit
def merge_heads(x: asc.GlobalAddress, y: asc.GlobalAddress, s: int, h: int,
                d: asc.ConstExpr[int], seq_tile: asc.ConstExpr[int]):
    """(b, h, s, d) -> (b, s, h*d). Block idx = bi * h + hi moves head hi of batch bi."""
    idx = asc.get_block_idx()
    bi = idx // h
    hi = idx % h
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + idx * s * d)
    yg.set_global_buffer(y + bi * s * h * d + hi * d)
    pipe = asc.TPipe()
    q = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 2)
    pipe.init_buffer(q, 2, seq_tile * d * 2)
    for t in range(s // seq_tile):
        ub = q.alloc_tensor(asc.float16)
        asc.data_copy(ub, xg[t * seq_tile * d:], seq_tile * d)
        q.enque(ub)
        ub = q.deque(asc.float16)
        params = asc.DataCopyParams(seq_tile, d * 2 // 32, 0, (h - 1) * d * 2 // 32)
        asc.data_copy(yg[t * seq_tile * h * d:], ub, repeat_params=params)
        q.free_tensor(ub)


def launch(x, y, core_num):
    b, h, s, d = x.shape
    merge_heads[b * h](x, y, s, h, d, 32)
