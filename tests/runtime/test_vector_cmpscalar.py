"""compare_scalar (runtime/vector/cmpscalar.py) against numpy: count and repeat forms, every
CMPMODE, and its rules."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import DTypeError, ParamError

N = 256


@asc.jit
def cmp_scalar(x: asc.GlobalAddress, z: asc.GlobalAddress, s: float, mode: asc.ConstExpr[int],
               form: asc.ConstExpr[str]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    m = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 4096, N // 8)
    asc.data_copy(a, xg, N)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    if form == "count":
        asc.compare_scalar(m, a, s, asc.CMPMODE(mode), N)
    else:
        lanes = 256 // x.dtype.sizeof()
        params = asc.UnaryRepeatParams(1, 1, 8, 8)
        asc.compare_scalar(m, a, s, cmp_mode=asc.CMPMODE(mode), mask=1,  # mask: no effect on A2
                           repeat_times=N // lanes, repeat_params=params)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, m, N // 8)


NUMPY = {asc.CMPMODE.LT: np.less, asc.CMPMODE.GT: np.greater, asc.CMPMODE.EQ: np.equal,
         asc.CMPMODE.LE: np.less_equal, asc.CMPMODE.GE: np.greater_equal,
         asc.CMPMODE.NE: np.not_equal}


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("mode", list(asc.CMPMODE))
@pytest.mark.parametrize("form", ["count", "repeat"])
def test_compare_scalar_matches_numpy(dtype, mode, form):
    rng = np.random.default_rng(int(mode) + 7)
    x = rng.integers(-4, 5, N).astype(dtype)  # small ints: EQ and NE hit both ways
    z = np.zeros(N // 8, np.uint8)
    ascendlab.launch(cmp_scalar, 1, x, z, 1.0, int(mode), form)
    want = np.packbits(NUMPY[mode](x, dtype(1.0)), bitorder="little")
    np.testing.assert_array_equal(z, want)


def test_int32_only_compares_for_equality():
    x = np.arange(N, dtype=np.int32) % 5
    z = np.zeros(N // 8, np.uint8)
    ascendlab.launch(cmp_scalar, 1, x, z, 3, int(asc.CMPMODE.EQ), "count")
    np.testing.assert_array_equal(z, np.packbits(x == 3, bitorder="little"))
    with pytest.raises(DTypeError, match="only CMPMODE.EQ"):
        ascendlab.launch(cmp_scalar, 1, x, z, 3, int(asc.CMPMODE.LT), "count")


def test_count_must_fill_whole_repeats():
    @asc.jit
    def short(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
        m = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 4096, N // 8)
        asc.compare_scalar(m, a, 0.0, asc.CMPMODE.LT, 100)

    with pytest.raises(ParamError, match="count=100 x 2 B = 200 B is not a multiple of 256 B"):
        ascendlab.launch(short, 1, np.zeros(8, np.float16))
