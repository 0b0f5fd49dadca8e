# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: a kernel that writes its result into the input x as well as into z.
@asc.jit
def overwrite_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                     n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, n * 6 + 96)
    xl = buf.get_with_offset(n, 0, asc.float16)
    yl = buf.get_with_offset(n, (n * 2 + 31) // 32 * 32, asc.float16)
    zl = buf.get_with_offset(n, 2 * ((n * 2 + 31) // 32 * 32), asc.float16)
    params = asc.DataCopyExtParams(1, n * 2, 0, 0, 0)
    pad = asc.DataCopyPadExtParams(asc.float16, False, 0, 0, 0)
    asc.data_copy_pad(xl, xg, params, pad)
    asc.data_copy_pad(yl, yg, params, pad)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(zl, xl, yl, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy_pad(zg, zl, params)
    asc.data_copy_pad(xg, zl, params)


def launch(x, y, z, core_num):
    overwrite_kernel[1, asc.lib.runtime.current_stream()](x, y, z, x.size)
