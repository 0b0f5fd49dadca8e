"""asc.adv.rmsnorm and RmsNormTiling (ascendlab/adv/rmsnorm.py) against the RMSNorm formula
(torch.nn.RMSNorm's, in float64 numpy) per dtype; padded H, the Event, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab import precision
from ascendlab.errors import DTypeError, ParamError

from .test_math import run


def rmsnorm64(x: np.ndarray, gamma: np.ndarray, h0: int, eps: float) -> np.ndarray:
    """x / sqrt(mean(x^2 over the first h0 columns) + eps) * gamma, in float64."""
    t = x.astype(np.float64)
    ms = (t[:, :h0] ** 2).mean(axis=1, keepdims=True)
    return t / np.sqrt(ms + eps) * gamma.astype(np.float64)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("b, s, h, h0", [(2, 4, 64, 64), (1, 3, 48, 37)])
def test_rmsnorm_matches_the_formula(dtype, b, s, h, h0):
    rng = np.random.default_rng(1)
    x = rng.uniform(-3, 3, (b * s, h)).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, h).astype(dtype)
    tiling = asc.adv.RmsNormTiling(b_length=b, s_length=s, h_length=h, original_h_length=h0,
                                   reciprocal_of_h_length=1.0 / h0)
    z, r = run(lambda d, a, g, t: asc.adv.rmsnorm(d, a, g, 1e-5, tiling, t), x.ravel(),
               np.resize(gamma, x.size))
    golden = rmsnorm64(x, gamma, h0, float(np.asarray(1e-5).astype(dtype)))
    res = precision.check(z.reshape(b * s, h), golden, dtype)
    assert res.passed, res.message
    (ev,) = [e for e in r.trace if e.op == "adv.rmsnorm"]
    assert [a.addr for a in ev.reads] == [0, 8192]  # src, gamma
    assert ev.reads[1].nbytes == h * np.dtype(dtype).itemsize


def test_rmsnorm_errors():
    x = np.ones(64, np.float32)
    with pytest.raises(ParamError, match="fill it on the host"):
        run(lambda d, a, g, t: asc.adv.rmsnorm(d, a, g, 1, asc.adv.RmsNormTiling(), t), x)
    tiling = asc.adv.RmsNormTiling(b_length=1, s_length=1, h_length=60, original_h_length=60)
    with pytest.raises(ParamError, match="not a multiple of 32 B"):
        run(lambda d, a, g, t: asc.adv.rmsnorm(d, a, g, 1, tiling, t), x)
    tiling = asc.adv.RmsNormTiling(b_length=1, s_length=1, h_length=64, original_h_length=64)
    with pytest.raises(DTypeError, match="dst and gamma"):
        run(lambda d, a, g, t: asc.adv.rmsnorm(d, a, g.reinterpret_cast(asc.float16), 1,
                                               tiling, t), x)
    with pytest.raises(TypeError, match="RmsNormTiling"):
        run(lambda d, a, g, t: asc.adv.rmsnorm(d, a, g, 1, asc.adv.SoftmaxTiling(), t), x)
