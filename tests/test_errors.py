"""ascendlab/errors.py: inside a kernel, every AscendlabError ends with "[core N, file:line]" of
the kernel line that called into ascendlab, whether or not the raise site wrote it."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import DTypeError, ParamError


@asc.jit
def _axpy_int(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 256)
    t = buf.get(asc.int32)
    asc.axpy(t, t, 2, 64)  # int32 is not an axpy type: the raise site names no core or line


def test_the_base_class_adds_the_core_and_kernel_line():
    with pytest.raises(DTypeError) as info:
        _axpy_int[1, None](np.zeros(8, np.float32))
    src = Path(__file__).read_text().splitlines()
    line = next(i for i, t in enumerate(src, 1) if t.strip().startswith("asc.axpy(t, t, 2, 64)"))
    msg = str(info.value)
    assert msg.startswith("axpy: src int32 -> dst int32 is not supported")
    assert msg.endswith(f" [core 0, test_errors.py:{line}]") and msg.count("[core ") == 1


def test_no_suffix_outside_a_kernel_and_none_added_twice():
    assert str(ParamError("bad value")) == "bad value"
    e = ParamError("x [core 2, k.py:3]")
    assert str(e) == "x [core 2, k.py:3]"
    assert str(pickle.loads(pickle.dumps(e))) == str(e)
