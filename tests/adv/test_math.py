"""asc.adv's element-wise math routines (ascendlab/adv/math.py) against torch / numpy float64
oracles, per dtype with the CANN threshold standard; the overlap and dtype rules, the Event each
call records, and the registry."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

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


# name -> (float64 oracle, input domain (lo, hi))
ORACLES = {
    "acos": (torch.acos, (-1, 1)), "asin": (torch.asin, (-1, 1)),
    "acosh": (torch.acosh, (1, 8)), "asinh": (torch.asinh, (-8, 8)),
    "atan": (torch.atan, (-8, 8)), "atanh": (torch.atanh, (-0.99, 0.99)),
    "cos": (torch.cos, (-6, 6)), "sin": (torch.sin, (-6, 6)), "tan": (torch.tan, (-1.5, 1.5)),
    "cosh": (torch.cosh, (-5, 5)), "sinh": (torch.sinh, (-5, 5)), "tanh": (torch.tanh, (-5, 5)),
    "erf": (torch.erf, (-3, 3)), "erfc": (torch.erfc, (-3, 3)), "log": (torch.log, (0.01, 50)),
    "lgamma": (torch.lgamma, (0.1, 20)), "digamma": (torch.digamma, (0.1, 20)),
    "ceil": (torch.ceil, (-9, 9)), "floor": (torch.floor, (-9, 9)),
    "trunc": (torch.trunc, (-9, 9)), "round": (torch.round, (-9, 9)),
    "frac": (lambda t: t - torch.trunc(t), (-9, 9)), "sign": (torch.sign, (-2, 2)),
}


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("name", sorted(ORACLES))
def test_unary_math_matches_torch(name, dtype):
    oracle, (lo, hi) = ORACLES[name]
    rng = np.random.default_rng(7)
    x = rng.uniform(lo, hi, N).astype(dtype)
    if name == "sign":
        x[:8] = 0
    fn = getattr(asc.adv, name)
    z, _ = run(lambda d, a, b, t: fn(d, a, count=N, temp_buffer=t), x)
    golden = oracle(torch.from_numpy(x.astype(np.float64))).numpy()
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
    golden = torch.digamma(torch.from_numpy(x.astype(np.float64))).numpy()
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
        golden = torch.pow(torch.from_numpy(x.astype(np.float64)),
                           torch.from_numpy(y.astype(np.float64))).numpy()
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

