"""The precision rule (ascendlab/precision.py): thresholds per dtype, MERE/MARE boundaries,
NaN/inf positions, exact integers, the report."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.precision import (
    SMALL_VALUE,
    THRESHOLDS,
    check,
    relative_error,
    small_value,
    threshold,
)


def test_thresholds_follow_the_standard():
    assert threshold(np.float16) == 2.0**-10
    assert threshold("float32") == 2.0**-13
    assert threshold("bfloat16") == 2.0**-7
    assert threshold(asc.float16) == 2.0**-10  # a pyasc DataType
    assert threshold(np.int32) is None and threshold("uint8") is None
    assert threshold(np.bool_) is None
    with pytest.raises(ValueError, match="no threshold for dtype 'complex64'"):
        threshold(np.complex64)
    assert set(THRESHOLDS) >= {"float16", "float32", "bfloat16"}


def test_identical_outputs_pass_with_zero_errors():
    x = np.random.default_rng(0).random(1000).astype(np.float16)
    r = check(x, x.astype(np.float64))
    assert r.passed and r.mere == 0 and r.mare == 0 and r.off == 0 and r.total == 1000
    assert r.worst is None and r.reason == ""
    assert str(r).startswith("PASS (float16")


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_mere_boundary(dtype):
    t = THRESHOLDS[np.dtype(dtype).name]
    want = np.ones(1000)
    # every element off by 0.9 T: MERE 0.9 T < T, MARE 0.9 T < 10 T
    assert check((want * (1 + 0.9 * t)).astype(np.float64), want, dtype).passed
    # every element off by 1.1 T: MERE >= T fails although MARE < 10 T
    r = check(want * (1 + 1.1 * t), want, dtype)
    assert not r.passed and "MERE" in r.reason and "MARE" not in r.reason
    assert r.off == 1000


def test_mare_boundary_fails_one_bad_element_with_small_mean():
    t = THRESHOLDS["float32"]
    want = np.ones(10_000)
    got = want.copy()
    got[1234] = 1 + 11 * t  # one element over 10 T; the mean stays tiny
    r = check(got, want, np.float32)
    assert not r.passed and r.mere < t and r.mare == pytest.approx(11 * t, rel=1e-6)
    assert "MARE" in r.reason and "MERE" not in r.reason
    assert r.worst is not None and r.worst[0] == (1234,) and r.off == 1
    got[1234] = 1 + 9 * t  # under 10 T: passes, but the element is still counted as off
    r = check(got, want, np.float32)
    assert r.passed and r.off == 1


def test_relative_error_uses_the_golden_plus_epsilon():
    rel = relative_error(np.array([1.0, 0.0, 2.0]), np.array([0.0, 0.0, 1.0]))
    np.testing.assert_allclose(rel, [1 / 1e-7, 0.0, 1.0])


def test_nan_and_inf_positions_must_match():
    want = np.array([1.0, np.nan, np.inf, -np.inf, 2.0])
    got = want.copy()
    assert check(got, want, np.float32).passed  # same positions: excluded from MERE/MARE
    got[1] = 0.0  # NaN expected, a number produced
    r = check(got, want, np.float32)
    assert not r.passed and r.nonfinite_mismatch == 1 and r.worst[0] == (1,)
    assert "NaN/inf" in r.reason
    got = want.copy()
    got[2] = -np.inf  # wrong sign of inf
    assert check(got, want, np.float32).nonfinite_mismatch == 1
    got = want.copy()
    got[4] = np.nan  # NaN where a number is expected
    r = check(got, want, np.float32)
    assert not r.passed and r.off == 1


def test_integers_must_match_exactly():
    want = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert check(want.copy(), want).passed
    got = want.copy()
    got[2, 1] += 1
    r = check(got, want)
    assert not r.passed and r.threshold is None and r.off == 1
    assert r.worst == ((2, 1), 10, 9)
    assert "exact" in str(r) and "1 elements differ" in r.reason


def test_shape_mismatch_and_empty():
    r = check(np.zeros(4), np.zeros(5))
    assert not r.passed and "shape mismatch" in r.reason
    assert check(np.zeros(0, np.float16), np.zeros(0)).passed


def test_dtype_defaults_to_the_output_and_can_be_overridden():
    want = np.ones(100)
    got = (want * (1 + 2.0**-9)).astype(np.float32)  # 2^-9: over T of fp16 and fp32
    assert not check(got, want).passed  # judged as float32
    assert check(got, want, "bfloat16").passed  # T = 2^-7


def test_report_names_worst_element_and_counts():
    want = np.linspace(1, 2, 64).reshape(8, 8)
    got = want.astype(np.float16)
    got[3, 5] = 0
    text = str(check(got, want))
    assert text.startswith("FAIL (float16")
    assert "worst element [3, 5]: got 0.0" in text and "1 of 64 elements off" in text


@pytest.mark.torch
def test_torch_tensors_are_accepted():
    torch = pytest.importorskip("torch", reason="torch is optional")
    got = torch.ones(8, dtype=torch.float16)
    r = check(got, np.ones(8), got.dtype)
    assert r.passed and r.dtype == "float16"


# ---- the small-value domain (msprobe: |golden| < S judged by absolute error <= A) ----------
def _bf16(x: np.ndarray) -> np.ndarray:
    """x rounded to bfloat16 (nearest, ties to even), held in float32."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


def _crossing_zero() -> dict[str, np.ndarray]:
    """float64 goldens of functions whose outputs cross zero densely (LayerNorm, GeLU, sin)."""
    x = np.linspace(-4, 4, 200_001)
    gelu = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    ln = (x - x.mean()) / x.std()
    return {"gelu": gelu, "layernorm": ln, "sin": np.sin(50 * x), "tiny": x * 1e-7}


@pytest.mark.parametrize("name", ["gelu", "layernorm", "sin", "tiny"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_correctly_rounded_outputs_crossing_zero_pass(name, dtype):
    want = _crossing_zero()[name]
    got = _bf16(want) if dtype == "bfloat16" else want.astype(dtype)
    r = check(got, want, dtype)
    assert r.passed, str(r)
    lim, tol = SMALL_VALUE[dtype]
    assert r.small == int((np.abs(want) < lim).sum()) > 0
    assert r.max_abs_small <= tol


def test_the_old_rule_failed_them():
    """Without the small-value domain, a correctly rounded float16 GeLU near zero fails: the
    relative error of 2.4e-6 rounded to float16 (a subnormal) is about 0.012 > 10 T."""
    want = np.array([40.5 * 2.0**-24, 1.0])
    got = want.astype(np.float16)
    assert relative_error(got, want)[0] > 10 * THRESHOLDS["float16"]
    assert check(got, want).passed


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_a_real_error_near_zero_still_fails(dtype):
    want = _crossing_zero()["gelu" if dtype == "float16" else "tiny"]
    lim, tol = SMALL_VALUE[dtype]
    got = want.astype(dtype)
    i = int(np.argmin(np.abs(np.abs(want) - lim / 3)))  # a small-domain element
    got[i] = 0  # a kernel that flushes it to zero
    r = check(got, want, dtype)
    assert not r.passed and r.small_off == 1 and r.worst[0] == (i,)
    assert "|golden| <" in r.reason and f"{tol:.3g}" in r.reason
    got = want.astype(dtype)
    got[i] = -got[i]  # a wrong sign
    assert not check(got, want, dtype).passed


def test_small_domain_edges_and_limits():
    assert small_value("float16") == (2.0**-10, 2.0**-16)
    assert small_value("float32") == (2.0**-20, 2.0**-30)
    assert small_value("int32") is None
    lim, tol = SMALL_VALUE["float16"]
    want = np.array([lim, lim * 0.99])  # at S: judged relatively; just under: absolutely
    got = want + [0.0, 2 * tol]
    r = check(got, want, "float16")
    assert not r.passed and r.small == 1 and r.small_off == 1 and r.mare == 0
    got = want * (1 + 11 * THRESHOLDS["float16"])  # 11 T relative: MARE fails at S only
    r = check(got, want, "float16")
    assert not r.passed and r.small_off == 0 and "MARE" in r.reason


def test_accumulative_standard_judges_matmul_outputs_near_zero_absolutely():
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (64, 512)).astype(np.float16)
    b = rng.uniform(-1, 1, (512, 64)).astype(np.float16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    got = a.astype(np.float32) @ b.astype(np.float32)  # float32 accumulation, as the cube
    assert check(got, want, standard="accumulative").passed
    got[3, 5] += 2.0**-9  # a real error near zero
    r = check(got, want, standard="accumulative")
    assert not r.passed and r.worst[0] == (3, 5) and r.standard == "accumulative"
    with pytest.raises(ValueError, match="standard"):
        check(got, want, standard="loose")


def test_scalars_are_judged_as_one_element():
    assert check(np.float32(1.0), np.float32(1.0)).passed
    r = check(np.float16(0.5), np.float16(0.7))
    assert not r.passed and r.total == 1 and r.off == 1
    assert check(np.int32(3), np.int32(3)).passed
    assert not check(np.int32(3), np.int32(4)).passed
