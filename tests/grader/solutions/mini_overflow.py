"""A kernel whose muls overflows float16 on every core (the warning-path test)."""

import ascendlab.asc as asc


@asc.jit
def scale_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, per_core: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * per_core)
    zg.set_global_buffer(z + asc.get_block_idx() * per_core)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, per_core * 2)
    t = q.alloc_tensor(asc.float16)
    asc.data_copy(t, xg, per_core)
    q.enque(t)
    t = q.deque(asc.float16)
    asc.muls(t, t, 300.0, per_core)
    asc.muls(t, t, 300.0, per_core)  # OVERFLOW_LINE: |x| > 0.73 passes 65504
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, t, per_core)
    q.free_tensor(t)


def launch(x, y, z, core_num):
    scale_kernel[4](x, z, x.size // 4)
