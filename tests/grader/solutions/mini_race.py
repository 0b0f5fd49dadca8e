"""mini, with a race: static tensors and explicit flags, but the MTE2 -> V wait is missing, so
the add may read x before the copy lands (the emulator runs in order, so the numbers are
right here; racecheck judges by happens-before and reports it)."""

import ascendlab.asc as asc


@asc.jit
def add_racy(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
             n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    nb = (n * 2 + 31) // 32 * 32
    xl = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, n)
    yl = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, nb, n)
    zl = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2 * nb, n)
    params = asc.DataCopyExtParams(1, n * 2, 0, 0, 0)
    pad = asc.DataCopyPadExtParams(asc.float16, False, 0, 0, 0)
    asc.data_copy_pad(xl, xg, params, pad)
    asc.data_copy_pad(yl, yg, params, pad)
    asc.add(zl, xl, yl, n)  # no set_flag/wait_flag(MTE2_V) before this line
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy_pad(zg, zl, params)


def launch(x, y, z, core_num):
    add_racy[1, asc.lib.runtime.current_stream()](x, y, z, x.size)
