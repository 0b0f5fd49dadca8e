"""mini, wrong in a way memcheck reports: the count form of data_copy on a tail that is not a
multiple of 32 B (the NPU moves fewer bytes than asked)."""

import ascendlab.asc as asc


@asc.jit
def add_count(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
              n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, 2 * n * 2 + 64)
    pipe.init_buffer(qz, 1, n * 2 + 32)
    xl = qx.alloc_tensor(asc.float16)
    asc.data_copy(xl, xg, n)
    asc.data_copy(xl[n:], yg, n)
    qx.enque(xl)
    xl = qx.deque(asc.float16)
    zl = qz.alloc_tensor(asc.float16)
    asc.add(zl, xl, xl[n:], n)
    qz.enque(zl)
    qx.free_tensor(xl)
    zl = qz.deque(asc.float16)
    asc.data_copy(zg, zl, n)
    qz.free_tensor(zl)


def launch(x, y, z, core_num):
    add_count[1, asc.lib.runtime.current_stream()](x, y, z, x.size)
