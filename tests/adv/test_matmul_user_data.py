"""Matmul.set_self_define_data / set_user_def_info (adv/matmul.py): the callback data is kept
on the object and returned, as pyasc returns the address."""

from __future__ import annotations

import numpy as np

import ascendlab.asc as asc

SEEN: list = []


@asc.jit
def user_data_kernel(a: asc.GlobalAddress, workspace: asc.GlobalAddress):
    pipe = asc.TPipe()
    t = asc.adv.MatmulType(position=asc.TPosition.GM, format=asc.CubeFormat.ND,
                           dtype=asc.float16)
    mm = asc.adv.Matmul(t, t, t)
    asc.adv.register_matmul(pipe, workspace, mm)
    SEEN.append((mm.set_self_define_data(a), mm.self_define_data,
                 mm.set_user_def_info(a), mm.user_def_info, a))


def test_matmul_user_data_is_kept_and_returned():
    SEEN.clear()
    user_data_kernel[1](np.zeros(16, np.float16), np.zeros(1024, np.uint8))
    for got, kept, info, kept_info, a in SEEN:
        assert got is kept is info is kept_info is a
    assert SEEN
