"""The profiler's battery: kernels with one known bottleneck each, and launchers whose keywords
(tile, buffers, cores, rows) the advisor's findings may change.

Every launcher takes keyword arguments only and returns the Run; sizes are small enough that
the whole battery emulates in a few seconds.
"""

from __future__ import annotations

import numpy as np

import ascendlab
import ascendlab.asc as asc

CORES = 48  # all AIV cores of the default chip: no "idle cores" finding hides the bottleneck
F16 = np.float16


@asc.jit
def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block: int,
         tile: asc.ConstExpr[int], buffers: asc.ConstExpr[int], passes: asc.ConstExpr[int]):
    """z = x + y (+ y again, `passes` times) through TQue queues with `buffers` slots each."""
    off = asc.get_block_idx() * block
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + off, block)
    yg.set_global_buffer(y + off, block)
    zg.set_global_buffer(z + off, block)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, buffers)
    qy = asc.TQue(asc.TPosition.VECIN, buffers)
    qz = asc.TQue(asc.TPosition.VECOUT, buffers)
    pipe.init_buffer(qx, buffers, tile * x.dtype.sizeof())
    pipe.init_buffer(qy, buffers, tile * y.dtype.sizeof())
    pipe.init_buffer(qz, buffers, tile * z.dtype.sizeof())
    for i in range(block // tile):
        xl = qx.alloc_tensor(x.dtype)
        yl = qy.alloc_tensor(y.dtype)
        asc.data_copy(xl, xg[i * tile:], tile)
        asc.data_copy(yl, yg[i * tile:], tile)
        qx.enque(xl)
        qy.enque(yl)
        xl = qx.deque(x.dtype)
        yl = qy.deque(y.dtype)
        zl = qz.alloc_tensor(z.dtype)
        asc.add(zl, xl, yl, tile)
        for _ in range(passes):
            asc.add(zl, zl, yl, tile)
        qz.enque(zl)
        qx.free_tensor(xl)
        qy.free_tensor(yl)
        zl = qz.deque(z.dtype)
        asc.data_copy(zg[i * tile:], zl, tile)
        qz.free_tensor(zl)


def launch_vadd(*, tile: int, buffers: int = 2, cores: int = CORES, block: int = 8192,
                passes: int = 0, dtype: type = F16):
    """vadd over cores x block elements."""
    n = cores * block
    x = np.linspace(-1, 1, n, dtype=dtype)
    z = np.zeros_like(x)
    return ascendlab.launch(vadd, cores, x, x, z, block, tile, buffers, passes)


@asc.jit
def row_scale(x: asc.GlobalAddress, z: asc.GlobalAddress, block: int, width: asc.ConstExpr[int],
              rows: asc.ConstExpr[int]):
    """z = 2 x over rows of `width`, one vector instruction per `rows` rows (scratch in a TBuf,
    double-buffered queues for the data)."""
    off = asc.get_block_idx() * block
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + off, block)
    zg.set_global_buffer(z + off, block)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    tmp = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qx, 2, block * 2)
    pipe.init_buffer(qz, 2, block * 2)
    pipe.init_buffer(tmp, block * 2)
    scratch = tmp.get(x.dtype)
    xl = qx.alloc_tensor(x.dtype)
    asc.data_copy(xl, xg, block)
    qx.enque(xl)
    xl = qx.deque(x.dtype)
    zl = qz.alloc_tensor(z.dtype)
    for r in range(block // (width * rows)):
        asc.muls(scratch[r * width * rows:], xl[r * width * rows:], 2.0, width * rows)
        asc.adds(zl[r * width * rows:], scratch[r * width * rows:], 0.0, width * rows)
    qz.enque(zl)
    qx.free_tensor(xl)
    zl = qz.deque(z.dtype)
    asc.data_copy(zg, zl, block)
    qz.free_tensor(zl)


def launch_rows(*, rows: int = 1, cores: int = CORES, block: int = 2048, width: int = 16):
    """row_scale: `rows` rows of `width` float16 per vector instruction."""
    x = np.linspace(-1, 1, cores * block, dtype=F16)
    z = np.zeros_like(x)
    return ascendlab.launch(row_scale, cores, x, z, block, width, rows)


@asc.jit
def vadd_flags(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block: int,
               tile: asc.ConstExpr[int]):
    """z = x + y with static tensors and flags, each wait right after its set: every stage of
    every tile waits for the one before (no queue is single-buffered: there are none)."""
    off = asc.get_block_idx() * block
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    yg.set_global_buffer(y + off)
    zg.set_global_buffer(z + off)
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, tile * 2, tile)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, tile * 4, tile)
    for i in range(block // tile):
        asc.data_copy(xl, xg[i * tile:], tile)
        asc.data_copy(yl, yg[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.add(zl, xl, yl, tile)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(zg[i * tile:], zl, tile)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


@asc.jit
def vadd_flags_pingpong(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                        block: int, tile: asc.ConstExpr[int]):
    """vadd_flags with the advisor's fix: two buffers with alternating event ids; a buffer's
    MTE3 -> MTE2 wait comes right before it is loaded again, so tile i+1 loads while tile i
    computes and stores."""
    off = asc.get_block_idx() * block
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    yg.set_global_buffer(y + off)
    zg.set_global_buffer(z + off)
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2 * tile)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, tile * 4, 2 * tile)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, tile * 8, 2 * tile)
    n = block // tile
    for i in range(n):
        b = i % 2
        if i >= 2:
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, b)
        asc.data_copy(xl[b * tile:], xg[i * tile:], tile)
        asc.data_copy(yl[b * tile:], yg[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.add(zl[b * tile:], xl[b * tile:], yl[b * tile:], tile)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(zg[i * tile:], zl[b * tile:], tile)
        if i + 2 < n:
            asc.set_flag(asc.HardEvent.MTE3_MTE2, b)


def launch_flags(*, tile: int = 2048, cores: int = CORES, block: int = 16384,
                 pingpong: bool = False):
    x = np.linspace(-1, 1, cores * block, dtype=F16)
    z = np.zeros_like(x)
    kernel = vadd_flags_pingpong if pingpong else vadd_flags
    return ascendlab.launch(kernel, cores, x, x, z, block, tile)


@asc.jit
def scalar_fill(z: asc.GlobalAddress, block: int, tile: asc.ConstExpr[int],
                vector: asc.ConstExpr[bool]):
    """Each tile of z filled with its tile number: element by element with set_value on UB
    (vector=False), or with one duplicate (vector=True, the advisor's fix)."""
    off = asc.get_block_idx() * block
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z + off, block)
    pipe = asc.TPipe()
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qz, 2, tile * 4)
    for t in range(block // tile):
        zl = qz.alloc_tensor(z.dtype)
        if vector:
            asc.duplicate(zl, 1.0 * t, tile)
        else:
            for k in range(tile):
                zl.set_value(k, 1.0 * t)
        qz.enque(zl)
        zl = qz.deque(z.dtype)
        asc.data_copy(zg[t * tile:], zl, tile)
        qz.free_tensor(zl)


def launch_scalar(*, tile: int = 64, cores: int = CORES, block: int = 256,
                  vector: bool = False):
    z = np.zeros(cores * block, dtype=np.float32)
    return ascendlab.launch(scalar_fill, cores, z, block, tile, vector)


# name -> (launcher, its configuration, the bottleneck the profile must name first); the
# hypotheses' fixes (no launcher keyword expresses them) are in FIXES
BATTERY = {
    "memory-bound": (launch_vadd, {"tile": 4096, "buffers": 2, "cores": CORES,
                                   "block": 32768}, "memory-bound"),
    "vector-fixed-cost": (launch_rows, {"rows": 1}, "vector-fixed-cost"),
    # one static buffer per tensor, flags set and waited at once: single buffering, the cause
    # the generic sync-stall rule would only describe
    "flags-single-buffer": (launch_flags, {"tile": 2048}, "single-buffer"),
    "single-buffer": (launch_vadd, {"tile": 2048, "buffers": 1, "block": 16384},
                      "single-buffer"),
    "tile-too-small": (launch_vadd, {"tile": 256, "buffers": 2, "block": 8192},
                       "tile-too-small"),
    "tile-too-large": (launch_vadd, {"tile": 8192, "buffers": 2, "block": 8192, "passes": 6,
                                     "dtype": np.float32}, "tile-too-large"),
    "scalar-bound": (launch_scalar, {"tile": 64}, "scalar-bound"),
}

# bottleneck -> the configuration that applies the advisor's (hypothesis) fix
FIXES = {
    "flags-single-buffer": {"tile": 2048, "pingpong": True},
    "scalar-bound": {"tile": 64, "vector": True},
}
