"""asc.adv.quant (ascendlab/adv/quant.py) against numpy: AscendQuant's half arithmetic, ties to
even, saturation, QuantConfig and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import DTypeError, ParamError

from .test_math import run

N = 256


def numpy_quant(x: np.ndarray, scale: float, offset: float) -> np.ndarray:
    h = x.astype(np.float16)
    y = (h * np.float16(scale) + np.float16(offset)).astype(np.float64)
    return np.clip(np.round(y), -128, 127).astype(np.int8)  # np.round: half to even


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_quant_matches_numpy(dtype):
    rng = np.random.default_rng(11)
    x = rng.uniform(-80, 80, N).astype(dtype)
    z, r = run(lambda d, a, b, t: asc.adv.quant(d, a, 2.0, 0.9, N, t), x,
               z=np.zeros(N, np.int8))
    np.testing.assert_array_equal(z, numpy_quant(x, 2.0, 0.9))
    assert (z == 127).any() and (z == -128).any()  # saturated both ways
    (ev,) = [e for e in r.trace if e.op == "adv.quant"]
    assert ev.dtype == "int8" and ev.count == N and ("scale", 2.0) in ev.args


def test_ties_go_to_even_after_the_half_arithmetic():
    x = np.array([0.25, 0.75, 1.25, -0.25, -1.25, 1.75, 2.25, 0.0] * 4, dtype=np.float32)
    z, _ = run(lambda d, a, b, t: asc.adv.quant(d, a, 2.0, 0.0, 32, t), x,
               z=np.zeros(32, np.int8))
    np.testing.assert_array_equal(z[:8], [0, 2, 2, 0, -2, 4, 4, 0])


def test_config_count_and_errors():
    x = np.ones(N, dtype=np.float16)
    cfg = asc.adv.QuantConfig(32, 0, 0, 512)
    z, _ = run(lambda d, a, b, t: asc.adv.quant(d, a, 3.0, 0.0, temp_buffer=t, config=cfg), x,
               z=np.zeros(N, np.int8))
    assert (z[:32] == 3).all() and (z[32:] == 0).all()
    with pytest.raises(ParamError, match="calc_count=-1"):
        asc.adv.QuantConfig(-1)
    with pytest.raises(DTypeError, match="dst is float16; it must be int8"):
        run(lambda d, a, b, t: asc.adv.quant(d, a, 1.0, 0.0, N, t), x)
    with pytest.raises(NotImplementedError, match="per-channel"):
        run(lambda d, a, b, t: asc.adv.quant(d, a, b, 0.0, N, t), x, z=np.zeros(N, np.int8))
