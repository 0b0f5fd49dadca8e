# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: allocates without bound.
import numpy as np


def launch(x, y, z, core_num):
    keep = []
    while True:
        keep.append(np.ones(50_000_000))
