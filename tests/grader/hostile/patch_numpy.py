# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: a wrong kernel (z = x - y) that patches numpy's comparisons so that an in-process
# checker would say "equal". The grader compares in its own process.
import numpy as np

np.allclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.shape(a), bool)


def launch(x, y, z, core_num):
    run(x, y, z, op="sub")
