"""asc.adv's element-wise math routines (ascendlab/adv/math.py) against float64 oracles (numpy,
the math module, and a digamma series written here; torch's digamma too when torch is
installed), per dtype with the CANN threshold standard; the overlap and dtype rules, the Event
each call records, and the registry."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab import precision
from ascendlab.errors import DTypeError, ParamError
from ascendlab.runtime.trace import OPS

VECCALC = asc.TPosition.VECCALC
N = 256


@asc.jit
def math_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                call: asc.ConstExpr, n: asc.ConstExpr[int], tmp_bytes: asc.ConstExpr[int]):
    """z = call(dst, x, y, tmp) on static UB tensors: x, y, z 8 KiB apart, tmp after them."""
    xl = asc.LocalTensor(x.dtype, VECCALC, 0, n)
    yl = asc.LocalTensor(y.dtype, VECCALC, 8192, n)
    zl = asc.LocalTensor(z.dtype, VECCALC, 16384, n)
    tmp = asc.LocalTensor(asc.uint8, VECCALC, 32768, tmp_bytes)
    for g_addr, local in ((x, xl), (y, yl), (z, zl)):
        g = asc.GlobalTensor()
        g.set_global_buffer(g_addr)
        asc.data_copy(local, g, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    call(zl, xl, yl, tmp if tmp_bytes else None)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    asc.data_copy(zg, zl, n)


def run(call, x, y=None, z=None, tmp_bytes=1024):
    y = np.zeros_like(x) if y is None else y
    z = np.zeros_like(x) if z is None else z
    run_ = math_kernel[1](x, y, z, call, x.size, tmp_bytes)
    return z, run_


def _elementwise(fn):
    """A float64 oracle from a scalar function of the math module."""
    return np.vectorize(fn, otypes=[np.float64])


def digamma64(x: np.ndarray) -> np.ndarray:
    """psi(x) in float64: the reflection psi(1 - x) - psi(x) = pi cot(pi x) for x < 0.5, the
    recurrence psi(x) = psi(x + 1) - 1 / x up to x >= 10, then the asymptotic series
    ln x - 1/(2x) - sum B_2k / (2k x^2k) (error below 1e-12 there); NaN at the poles."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    for i, v in np.ndenumerate(x):
        if v <= 0 and v == np.floor(v):
            out[i] = np.nan
            continue
        shift = 0.0
        if v < 0.5:  # reflection, then psi(1 - v) by the same method
            shift, v = -np.pi / np.tan(np.pi * v), 1.0 - v
        acc = 0.0
        while v < 10.0:
            acc -= 1.0 / v
            v += 1.0
        inv2 = 1.0 / (v * v)
        series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
            1 / 240 - inv2 * (1 / 132)))))
        out[i] = shift + acc + np.log(v) - 0.5 / v - series
    return out


# name -> (float64 oracle, input domain (lo, hi))
ORACLES = {
    "acos": (np.arccos, (-1, 1)), "asin": (np.arcsin, (-1, 1)),
    "acosh": (np.arccosh, (1, 8)), "asinh": (np.arcsinh, (-8, 8)),
    "atan": (np.arctan, (-8, 8)), "atanh": (np.arctanh, (-0.99, 0.99)),
    "cos": (np.cos, (-6, 6)), "sin": (np.sin, (-6, 6)), "tan": (np.tan, (-1.5, 1.5)),
    "cosh": (np.cosh, (-5, 5)), "sinh": (np.sinh, (-5, 5)), "tanh": (np.tanh, (-5, 5)),
    "erf": (_elementwise(math.erf), (-3, 3)), "erfc": (_elementwise(math.erfc), (-3, 3)),
    "log": (np.log, (0.01, 50)), "lgamma": (_elementwise(math.lgamma), (0.1, 20)),
    "digamma": (digamma64, (0.1, 20)),
    "ceil": (np.ceil, (-9, 9)), "floor": (np.floor, (-9, 9)),
    "trunc": (np.trunc, (-9, 9)), "round": (np.round, (-9, 9)),  # ties to even, as torch's
    "frac": (lambda t: t - np.trunc(t), (-9, 9)), "sign": (np.sign, (-2, 2)),
}


def test_the_digamma_oracle_matches_known_values_and_torch_when_present():
    """The hand-written oracle is checked itself: psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2,
    psi(x + 1) = psi(x) + 1/x, NaN at the poles, and torch.digamma when torch is installed."""
    euler = 0.5772156649015329
    np.testing.assert_allclose(digamma64(np.array([1.0, 0.5])),
                               [-euler, -euler - 2 * math.log(2)], rtol=1e-13)
    x = np.linspace(-3.7, 19.3, 101)
    np.testing.assert_allclose(digamma64(x + 1), digamma64(x) + 1 / x, rtol=1e-10, atol=1e-12)
    assert np.isnan(digamma64(np.array([0.0, -1.0, -2.0]))).all()
    try:
        import torch
    except ImportError:
        return
    np.testing.assert_allclose(digamma64(x), torch.digamma(torch.from_numpy(x)).numpy(),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("name", sorted(ORACLES))
def test_unary_math_matches_a_float64_oracle(name, dtype):
    oracle, (lo, hi) = ORACLES[name]
    rng = np.random.default_rng(7)
    x = rng.uniform(lo, hi, N).astype(dtype)
    if name == "sign":
        x[:8] = 0
    fn = getattr(asc.adv, name)
    z, _ = run(lambda d, a, b, t: fn(d, a, count=N, temp_buffer=t), x)
    golden = oracle(x.astype(np.float64))
    result = precision.check(z, golden, dtype)
    assert result.passed, (name, dtype, result.message)


def test_round_ties_to_even_and_frac_keeps_the_sign():
    x = np.array([0.5, 1.5, 2.5, -2.5, -3.4, 3.5, -7.25, 7.75] * 2, dtype=np.float32)
    z, _ = run(lambda d, a, b, t: asc.adv.round(d, a, 16, t), x)
    np.testing.assert_array_equal(z[:8], [0, 2, 2, -2, -3, 4, -7, 8])
    z, _ = run(lambda d, a, b, t: asc.adv.frac(d, a, 16, t), x)
    np.testing.assert_array_equal(z[:8], [0.5, 0.5, 0.5, -0.5, np.float32(-3.4) + 3, 0.5,
                                          -0.25, 0.75])


def test_outside_the_domain_is_nan_without_numpy_warnings(recwarn):
    x = np.array([2.0, -2.0, 0.5, 1.0] * 4, dtype=np.float32)
    z, _ = run(lambda d, a, b, t: asc.adv.acos(d, a, 16, t), x)
    assert np.isnan(z[:2]).all() and z[3] == 0
    z, _ = run(lambda d, a, b, t: asc.adv.log(d, a, 16, t), -x)
    assert np.isnan(z[[0, 2]]).all()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_digamma_satisfies_its_recurrence_and_poles():
    x = np.linspace(-3.7, 9.3, N).astype(np.float32)
    z, _ = run(lambda d, a, b, t: asc.adv.digamma(d, a, N, t), x)
    golden = digamma64(x)
    np.testing.assert_allclose(z, golden, rtol=1e-5, atol=1e-5)
    z, _ = run(lambda d, a, b, t: asc.adv.digamma(d, a, 16, t),
               np.array([1.0, 0.0, -1.0, -2.0] * 4, dtype=np.float32))
    assert z[0] == np.float32(-0.5772156649015329) and np.isnan(z[1:4]).all()


@pytest.mark.parametrize("level", [0, 3, 8])
def test_exp_with_taylor_levels(level):
    x = np.linspace(-4, 4, N).astype(np.float32)
    z, _ = run(lambda d, a, b, t: asc.adv.exp(d, a, N, level, t), x)
    f = x.astype(np.float64) - np.trunc(x)
    poly = sum(f ** k / math.factorial(k) for k in range(level + 1)) if level else np.exp(f)
    golden = np.exp(np.trunc(x.astype(np.float64))) * poly
    assert precision.check(z, golden, "float32").passed
    if level == 3:  # a short expansion is visibly less accurate than the exponential
        assert not precision.check(z, np.exp(x.astype(np.float64)), "float32").passed


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_power(dtype):
    rng = np.random.default_rng(3)
    if dtype == "int32":
        x, y = rng.integers(-6, 7, N).astype(dtype), rng.integers(0, 6, N).astype(dtype)
        golden = np.power(x.astype(np.int64), y.astype(np.int64))
    else:
        x, y = rng.uniform(0.1, 4, N).astype(dtype), rng.uniform(-2, 2, N).astype(dtype)
        golden = np.power(x.astype(np.float64), y.astype(np.float64))
    z, _ = run(lambda d, a, b, t: asc.adv.power(d, a, b, N, t), x, y)
    assert precision.check(z, golden, dtype).passed


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_xor(dtype):
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    x, y = (rng.integers(info.min, info.max, N, endpoint=True).astype(dtype) for _ in range(2))
    z, _ = run(lambda d, a, b, t: asc.adv.xor(d, a, b, None, t), x, y)
    np.testing.assert_array_equal(z, x ^ y)


@pytest.mark.parametrize("src_dt, dst_dt", [("float16", "float16"), ("float32", "float32")])
def test_axpy_is_muls_then_add(src_dt, dst_dt):
    rng = np.random.default_rng(9)
    x = rng.uniform(-4, 4, N).astype(src_dt)
    acc = rng.uniform(-4, 4, N).astype(dst_dt)
    z, _ = run(lambda d, a, b, t: asc.adv.axpy(d, a, 1.7, N, t), x, z=acc.copy())
    s = np.dtype(src_dt).type(1.7)
    want = (x * s).astype(dst_dt) + acc  # two roundings, as Muls then Add
    np.testing.assert_array_equal(z, want)


def test_one_event_per_call_with_its_temp_buffer():
    x = np.linspace(-1, 1, N).astype(np.float32)
    _, r = run(lambda d, a, b, t: asc.adv.tanh(d, a, N, t), x)
    (ev,) = [e for e in r.trace if e.op == "adv.tanh"]
    assert ev.pipe == "V" and ev.count == N and ev.dtype == "float32"
    assert [a.addr for a in ev.reads] == [0]
    assert [(a.addr, a.nbytes) for a in ev.writes] == [(16384, N * 4), (32768, 1024)]
    assert OPS["adv.tanh"].cost_class == "transcendental" and not OPS["adv.tanh"].replayable
    assert r.cost.cycles > 0
    _, r = run(lambda d, a, b, t: asc.adv.tanh(d, a), x, tmp_bytes=0)
    (ev,) = [e for e in r.trace if e.op == "adv.tanh"]
    assert ev.count == N and len(ev.writes) == 1  # count None: src's size


def test_rules_dtype_and_overlap():
    x = np.ones(N, dtype=np.int32)
    with pytest.raises(DTypeError, match="adv.sin: int32 is not supported"):
        run(lambda d, a, b, t: asc.adv.sin(d, a, N, t), x)
    xf = np.ones(N, dtype=np.float32)
    with pytest.raises(ParamError, match="adv.sin: dst UB .* overlaps src"):
        run(lambda d, a, b, t: asc.adv.sin(a, a, N, t), xf)
    with pytest.raises(ParamError, match="temp_buffer UB .* overlaps src"):
        run(lambda d, a, b, t: asc.adv.sin(d, a, N, a.reinterpret_cast(asc.uint8)), xf)
    with pytest.raises(DTypeError, match="temp_buffer must be a uint8"):
        run(lambda d, a, b, t: asc.adv.sin(d, a, N, b), xf)
    with pytest.raises(DTypeError, match="adv.axpy: src float32 -> dst float16"):
        run(lambda d, a, b, t: asc.adv.axpy(d.reinterpret_cast(asc.float16), a, 2.0, N, t), xf)


def test_the_registry_covers_the_routines():
    from ascendlab.adv.math import UNARY_MATH
    from ascendlab.runtime.adv_ops import UNARY_MATH_OPS

    assert set(UNARY_MATH) == set(UNARY_MATH_OPS)
    for name in (*UNARY_MATH, "exp", "power", "xor", "axpy", "quant", "rmsnorm"):
        assert OPS[f"adv.{name}"].pipe == "V" and hasattr(asc.adv, name)

