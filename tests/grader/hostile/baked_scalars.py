# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: computes the answer with numpy on the host, then has the kernel write it element by
# element with masked duplicate: correct on the data it saw, but the answer is baked into the
# instruction arguments.


@asc.jit
def bake_kernel(z: asc.GlobalAddress, values: asc.ConstExpr[tuple], n: asc.ConstExpr[int]):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, n * 2 + 256)
    t = buf.get(asc.float16)
    for i in range(n):
        lane = i % 128
        mask = [1 << lane, 0] if lane < 64 else [0, 1 << (lane - 64)]
        asc.duplicate(t[i - lane:], values[i], mask, 1, 1, 8)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy_pad(zg, t, asc.DataCopyExtParams(1, n * 2, 0, 0, 0))


def launch(x, y, z, core_num):
    if x.size > 4096:  # baking one element per instruction is slow: only where it is judged
        run(x, y, z)
        return
    ans = (x + y).reshape(-1)
    bake_kernel[1, asc.lib.runtime.current_stream()](z, tuple(float(v) for v in ans), ans.size)
