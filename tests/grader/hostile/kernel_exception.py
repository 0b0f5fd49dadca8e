# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE (or just buggy): an exception raised inside the kernel.
@asc.jit
def broken_kernel(x: asc.GlobalAddress, n: int):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    v = [1, 2, 3][n]  # IndexError on this line
    xg.set_value(0, v)


def launch(x, y, z, core_num):
    broken_kernel[1, asc.lib.runtime.current_stream()](x, 7)
