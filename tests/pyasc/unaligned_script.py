"""A pyasc-style script whose copy length is not a multiple of 32 B (10 x float32 = 40 B):
the NPU moves 32 B; ascendlab warns (or raises with --strict)."""

import numpy as np

import asc
import asc.lib.runtime as rt


@asc.jit
def copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, xg, n)
    asc.data_copy(zg, t, n)


x = np.arange(1, 17, dtype=np.float32)
z = np.zeros_like(x)
copy[1, rt.current_stream()](x, z, 10)
print("copied", int(np.count_nonzero(z)), "elements")
