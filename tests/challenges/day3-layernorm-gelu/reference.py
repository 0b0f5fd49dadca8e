"""Reference for day 3: y = gelu_tanh(layernorm(x) * gamma + beta) over the last axis, float16
in and out, float32 inside.

Why it is fast. The time is the vector unit's, so the kernel gives it as few and as long
instructions as it can, and as few waits. Rows are split evenly over the 48 vector cores; a
tile is R whole rows (one strided data_copy_pad). A row sum is not one reduce_sum per row (a
multi-round reduction each) but a fold: the row's 64-lane chunks are added pairwise, every
instruction covering all R rows with the repeat form, into compact chunks of a scratch buffer,
so the instructions of one level write disjoint ranges and only a new level waits at an
implicit PIPE_V barrier (the barrier compares address ranges: folding in place over interleaved
rows would put one before every instruction); the squares of the variance enter the first level
directly (mul, then mul_add_dst), and one whole_reduce_sum gives all R sums. The mean and
1/sigma go back to the rows as vectors: brcb spreads one value per row over a 32 B block that
sub / mul read for every lane of the row (a source repeat stride of one block): no V -> S flag,
no get_value. Two passes (rows carry offsets), gamma and beta cast once per core and applied
with one fused_mul_add per row, the GeLU chain once over the tile with its constants folded.
One buffer each for x and y is enough (x is free once cast, y long stored before the next tile
needs it), with a short first and last tile so the vector unit starts early and little is left
to store at the end. What is left: each tile's chain of dependent levels pays the pipeline
latency, and the port carries every core's reads and writes.

SLOW = True runs the same kernel on one core."""

import ascendlab.asc as asc

SLOW = False
TILE = 10240  # elements per tile (R rows of the padded width)
BUFFERS = 1  # x is free after its cast, y is stored long before the next tile's: one each
EDGE = 2  # rows of the first and the last tile
K = -1.5957691216057308  # -2 sqrt(2 / pi)


@asc.jit
def gelu_tile(t, u, n: int):
    """t = gelu_tanh(u) = u / (1 + exp(-2 sqrt(2/pi) (u + 0.044715 u^3))) over n elements."""
    asc.mul(t, u, u, n)
    asc.muls(t, t, K * 0.044715, n)
    asc.adds(t, t, K, n)
    asc.mul(t, t, u, n)
    asc.exp(t, t, n)
    asc.adds(t, t, 1.0, n)
    asc.div(t, u, t, n)


@asc.jit
def fold_sums(dst, f, src, r: int, cols: int, width: int, square: bool):
    """dst[j] = the sum of row j of src, or of its squares (r rows, width apart). The row's
    64-lane chunks are added pairwise, level by level, into f, a scratch of compact chunks
    (r x 64 each, one after the other): every instruction covers all r rows (the repeat form)
    and the instructions of a level write disjoint ranges, so only a new level waits for the
    one before (an implicit PIPE_V barrier compares address ranges). One whole_reduce_sum."""
    rs = width // 8  # a row, in 32 B blocks
    pin = asc.BinaryRepeatParams(1, 1, 1, 8, rs, rs)  # compact dst, row-strided sources
    m = r * 64  # floats of one compact chunk
    n = cols // 64  # whole chunks
    lanes = 64
    if n == 0:
        lanes = cols
        if square:
            asc.mul(f, src, src, cols, r, pin)
        else:
            asc.adds(f, src, 0.0, cols, r, asc.UnaryRepeatParams(1, 1, 8, rs))
    else:
        h = (n + 1) // 2
        for i in range(h):  # level 1: chunk i (and chunk i + h) into compact chunk i
            if square:
                asc.mul(f[i * m:], src[i * 64:], src[i * 64:], 64, r, pin)
            elif i + h < n:
                asc.add(f[i * m:], src[i * 64:], src[(i + h) * 64:], 64, r, pin)
            else:
                asc.adds(f[i * m:], src[i * 64:], 0.0, 64, r, asc.UnaryRepeatParams(1, 1, 8, rs))
        if square:
            for i in range(n // 2):
                asc.mul_add_dst(f[i * m:], src[(i + h) * 64:], src[(i + h) * 64:], 64, r, pin)
        k = h
        while k > 1:  # compact chunks: count-form adds, each level's writes disjoint
            k2 = (k + 1) // 2
            for i in range(k // 2):
                asc.add(f[i * m:], f[i * m:], f[(i + k2) * m:], m)
            k = k2
        if cols % 64:  # the last, partial chunk
            if square:
                asc.mul_add_dst(f, src[n * 64:], src[n * 64:], cols % 64, r, pin)
            else:
                asc.add(f, f, src[n * 64:], cols % 64, r,
                        asc.BinaryRepeatParams(1, 1, 1, 8, 8, rs))
    asc.whole_reduce_sum(dst, f, lanes, r, 1, 1, 8)


@asc.jit
def row_sums(dst, f, src, r: int, cols: int, width: int, square: bool):
    """fold_sums over all r rows, or one row at a time when a row is wider than a repeat
    stride can reach (255 blocks)."""
    if width > 255 * 8:
        for j in range(r):
            fold_sums(dst[j:], f, src[j * width:], 1, cols, 16, square)
    else:
        fold_sums(dst, f, src, r, cols, width, square)


@asc.jit
def per_row(u, b, r: int, cols: int, width: int, is_mul: bool):
    """u[j, :] -= b[j] or u[j, :] *= b[j] (b: a 32 B block per row, from brcb): one
    instruction per row, its 64-lane chunks as repeats that all read the row's block."""
    n = cols // 64
    p = asc.BinaryRepeatParams(1, 1, 0, 8, 8, 0)
    for j in range(r):
        for c0, lanes, reps in ((0, 64, n), (n * 64, cols % 64, 1)):
            if lanes and reps:
                if is_mul:
                    asc.mul(u[j * width + c0:], u[j * width + c0:], b[j * 8:], lanes, reps, p)
                else:
                    asc.sub(u[j * width + c0:], u[j * width + c0:], b[j * 8:], lanes, reps, p)


@asc.jit
def ln_gelu_kernel(x: asc.GlobalAddress, gamma: asc.GlobalAddress, beta: asc.GlobalAddress,
                   y: asc.GlobalAddress, rows: int, cols: int, cores: int, eps: float,
                   tile: asc.ConstExpr[int]):
    idx = asc.get_block_idx()
    row0 = idx * rows // cores
    my_rows = (idx + 1) * rows // cores - row0
    width = (cols + 15) // 16 * 16  # a row in UB, padded to 32 B
    per_tile = min(64, max(1, tile // width))
    span = per_tile * width
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    gg = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    xg.set_global_buffer(x + row0 * cols)
    yg.set_global_buffer(y + row0 * cols)
    gg.set_global_buffer(gamma)
    bg.set_global_buffer(beta)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, BUFFERS)
    qy = asc.TQue(asc.TPosition.VECOUT, BUFFERS)
    work = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, BUFFERS, span * 2)
    pipe.init_buffer(qy, BUFFERS, span * 2)
    pipe.init_buffer(work, span * 8 + width * 12 + 256 + 64 * 32)
    u = work.get_with_offset(span, 0, asc.float32)
    t = work.get_with_offset(span, span * 4, asc.float32)
    gf = work.get_with_offset(width, span * 8, asc.float32)  # gamma, beta in float32
    bf = work.get_with_offset(width, span * 8 + width * 4, asc.float32)
    at = span * 8 + width * 8
    half = work.get_with_offset(2 * width, at, asc.float16)
    at = at + width * 4
    st = work.get_with_offset(64, at, asc.float32)  # a value per row
    bb = work.get_with_offset(64 * 8, at + 256, asc.float32)  # a block per row
    pad = asc.DataCopyPadExtParams(asc.float16, False, 0, 0, 0)
    one_row = asc.DataCopyExtParams(1, cols * 2, 0, 0, 0)
    asc.data_copy_pad(half, gg, one_row, pad)
    asc.data_copy_pad(half[width:], bg, one_row, pad)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.duplicate(st, 0.0, 64)  # brcb reads whole groups of 8 rows
    asc.cast(gf, half, asc.RoundMode.CAST_NONE, width)
    asc.cast(bf, half[width:], asc.RoundMode.CAST_NONE, width)
    groups = (per_tile + 7) // 8
    r0 = 0
    while r0 < my_rows:
        # a short first tile (the vector unit starts early) and a short last one (little
        # left to store at the end); whole tiles between
        left = my_rows - r0
        r = min(per_tile, left)
        if r0 == 0:
            r = min(EDGE, left)
        elif left > per_tile and left - per_tile < EDGE:
            r = left - EDGE
        xl = qx.alloc_tensor(asc.float16)
        asc.data_copy_pad(xl, xg[r0 * cols:], asc.DataCopyExtParams(r, cols * 2, 0, 0, 0), pad)
        qx.enque(xl)
        xl = qx.deque(asc.float16)
        asc.cast(u, xl, asc.RoundMode.CAST_NONE, r * width)
        qx.free_tensor(xl)
        row_sums(st, t, u, r, cols, width, False)
        asc.muls(st, st, 1.0 / cols, 64)  # the means
        asc.brcb(bb, st, groups, asc.BrcbRepeatParams(1, 8))
        per_row(u, bb, r, cols, width, False)  # centred
        row_sums(st, t, u, r, cols, width, True)  # the centred squares
        asc.muls(st, st, 1.0 / cols, 64)  # rstd = 1 / sqrt(var + eps), all rows at once
        asc.adds(st, st, eps, 64)
        asc.rsqrt(st, st, 64)
        asc.brcb(bb, st, groups, asc.BrcbRepeatParams(1, 8))
        per_row(u, bb, r, cols, width, True)
        for j in range(r):  # u * gamma + beta, a row each (the rows are independent)
            asc.fused_mul_add(u[j * width:], gf, bf, width)
        gelu_tile(t, u, r * width)
        yl = qy.alloc_tensor(asc.float16)
        asc.cast(yl, t, asc.RoundMode.CAST_RINT, r * width)
        qy.enque(yl)
        yl = qy.deque(asc.float16)
        asc.data_copy_pad(yg[r0 * cols:], yl, asc.DataCopyExtParams(r, cols * 2, 0, 0, 0))
        qy.free_tensor(yl)
        r0 += r


def launch(x, gamma, beta, y, eps, core_num):
    rows, cols = x.shape
    cores = 1 if SLOW else min(core_num, rows)
    ln_gelu_kernel[cores, asc.lib.runtime.current_stream()](x, gamma, beta, y, rows, cols,
                                                            cores, eps, TILE)
