"""Vector add in pyasc's style, on the emulator: `ascendlab pyasc examples/vadd.py`.

The same file runs with pyasc itself on an Ascend NPU (Backend.NPU). It prints what the
emulator recorded: the instruction counts per pipe and the first few events of core 0.
"""

import argparse

import numpy as np

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config

BUFFER_NUM = 2  # 1: single buffer, 2: double buffer


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                block_length: int, tile_length: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    pipe = asc.TPipe()
    in_x = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    in_y = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    out_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(in_x, BUFFER_NUM, tile_length * x.dtype.sizeof())
    pipe.init_buffer(in_y, BUFFER_NUM, tile_length * y.dtype.sizeof())
    pipe.init_buffer(out_z, BUFFER_NUM, tile_length * z.dtype.sizeof())
    for i in range(block_length // tile_length):
        copy_in(i, x_gm, y_gm, in_x, in_y, tile_length)
        compute(z_gm, in_x, in_y, out_z, tile_length)
        copy_out(i, z_gm, out_z, tile_length)


@asc.jit
def copy_in(i: int, x_gm: asc.GlobalTensor, y_gm: asc.GlobalTensor, in_x: asc.TQue,
            in_y: asc.TQue, tile_length: asc.ConstExpr[int]):
    x_local = in_x.alloc_tensor(x_gm.dtype)
    y_local = in_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile_length:], tile_length)
    asc.data_copy(y_local, y_gm[i * tile_length:], tile_length)
    in_x.enque(x_local)
    in_y.enque(y_local)


@asc.jit
def compute(z_gm: asc.GlobalTensor, in_x: asc.TQue, in_y: asc.TQue, out_z: asc.TQue,
            tile_length: asc.ConstExpr[int]):
    x_local = in_x.deque(z_gm.dtype)
    y_local = in_y.deque(z_gm.dtype)
    z_local = out_z.alloc_tensor(z_gm.dtype)
    asc.add(z_local, x_local, y_local, tile_length)
    out_z.enque(z_local)
    in_x.free_tensor(x_local)
    in_y.free_tensor(y_local)


@asc.jit
def copy_out(i: int, z_gm: asc.GlobalTensor, out_z: asc.TQue, tile_length: asc.ConstExpr[int]):
    z_local = out_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile_length:], z_local, tile_length)
    out_z.free_tensor(z_local)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=8)
    parser.add_argument("--size", type=int, default=8 * 8192, help="elements")
    parser.add_argument("--tile", type=int, default=1024, help="elements per tile")
    parser.add_argument("--platform", default="Ascend910B2")
    args = parser.parse_args()
    config.set_platform(config.Backend.Model, config.Platform(args.platform))
    x = np.random.default_rng(0).random(args.size).astype(np.float16)
    y = np.random.default_rng(1).random(args.size).astype(np.float16)
    z = np.zeros_like(x)
    vadd_kernel[args.cores, rt.current_stream()](x, y, z, args.size // args.cores, args.tile)
    assert np.array_equal(z, x + y), "result mismatch"
    print(f"z = x + y on {args.cores} cores of {rt.current_platform()}: correct")
    try:  # the Run record exists only on ascendlab
        import ascendlab
    except ImportError:
        return
    run = ascendlab.last_run()
    print(run.summary())
    for event in run.events(core=0)[:8]:
        sync = f"  {event.sync.kind} {event.sync.src}->{event.sync.dst}" if event.sync else ""
        print(f"  {event.pipe:>4} {event.op:<13} line {event.line}{sync}")


if __name__ == "__main__":
    main()
