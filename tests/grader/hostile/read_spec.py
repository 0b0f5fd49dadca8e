# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: reads the challenge's spec.py from disk, runs its reference on the inputs and writes
# the answer into the output array after launching a wrong kernel.
import os

import numpy as np

import ascendlab

ref = None
base = os.path.dirname(os.path.dirname(ascendlab.__path__[0]))
for dirpath, _dirs, files in os.walk(base):
    if dirpath.endswith("mini") and "spec.py" in files:
        ns = {}
        path = os.path.join(dirpath, "spec.py")
        exec(compile(open(path).read(), path, "exec"), ns)
        ref = ns["reference"]


def launch(x, y, z, core_num):
    run(x, y, z, op="sub")
    if ref is not None:
        z[...] = ref({"x": x.astype(np.float64), "y": y.astype(np.float64)}).astype(z.dtype)
