"""A pyasc-style script: vector add with static tensors and explicit set_flag/wait_flag."""

import argparse

import numpy as np

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config

CORES = 4
TILE = 256


@asc.jit
def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block: int):
    start = asc.get_block_idx() * block
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + start, block)
    yg.set_global_buffer(y + start, block)
    zg.set_global_buffer(z + start, block)
    size = TILE * x.dtype.sizeof()
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, size, TILE)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * size, TILE)
    for i in range(block // TILE):
        asc.data_copy(xl, xg[i * TILE:], TILE)
        asc.data_copy(yl, yg[i * TILE:], TILE)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.add(zl, xl, yl, TILE)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(zg[i * TILE:], zl, TILE)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def main(backend, platform, n):
    config.set_platform(backend, platform)
    x = np.random.default_rng(1).random(n).astype(np.float16)
    y = np.random.default_rng(2).random(n).astype(np.float16)
    z = np.zeros_like(x)
    vadd[CORES, rt.current_stream()](x, y, z, n // CORES)
    assert np.array_equal(z, x + y), "vadd mismatch"
    print(f"vadd ok: {n} elements on {rt.current_platform()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-r", default="Model", help="backend")
    parser.add_argument("-v", default=None, help="platform")
    parser.add_argument("-n", type=int, default=4 * 1024)
    args = parser.parse_args()
    main(config.Backend(args.r), None if args.v is None else config.Platform(args.v), args.n)
