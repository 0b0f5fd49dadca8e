"""cast: round modes, saturation, the supported-pair table, the count and mask/repeat forms."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import AlignmentError, DTypeError, ParamError, PositionError
from ascendlab.runtime.vector import elementwise as _vec
from ascendlab.runtime.vector.cast import SUPPORTED, cast

from .vector_harness import Ref, expect, launch

R = asc.RoundMode
D5 = (R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC)
ALL = D5 + (R.CAST_ODD, R.CAST_NONE)


# ---- an independent reference for float -> float16 ---------------------------------------
_H = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16)  # finite non-negative halves
_HALVES = np.concatenate([-_H[:0:-1], _H])  # sorted, one (+0) zero
_HMAX = 65504.0


def ref_to_half(x: np.ndarray, mode) -> np.ndarray:
    x = x.astype(np.float64)
    v = _HALVES.astype(np.float64)
    i = np.clip(np.searchsorted(v, x, "right") - 1, 0, len(v) - 1)
    lo, hi = _HALVES[i], _HALVES[np.minimum(i + 1, len(v) - 1)]
    lo64, hi64 = lo.astype(np.float64), hi.astype(np.float64)
    exact = lo64 == x
    dl, dh = x - lo64, hi64 - x
    lo_even = (lo.view(np.uint16) & 1) == 0
    if mode == R.CAST_FLOOR:
        r = lo
    elif mode == R.CAST_CEIL:
        r = hi
    elif mode == R.CAST_TRUNC:
        r = np.where(x > 0, lo, hi)
    elif mode == R.CAST_ODD:
        r = np.where(lo_even, hi, lo)
    elif mode == R.CAST_ROUND:
        r = np.where(dl < dh, lo, np.where(dh < dl, hi, np.where(x > 0, hi, lo)))
    else:  # RINT / NONE
        r = np.where(dl < dh, lo, np.where(dh < dl, hi, np.where(lo_even, lo, hi)))
    r = np.where(exact, lo, r)
    r = np.where(x > _HMAX, np.float16(_HMAX), np.where(x < -_HMAX, np.float16(-_HMAX), r))
    r = np.where(np.isinf(x), x, r).astype(np.float16)
    return np.where(r == 0, np.copysign(np.float16(0), x), r).astype(np.float16)


def cast_count(src: np.ndarray, dst_dtype: str, mode, count: int | None = None,
               dst_init: np.ndarray | None = None):
    n = src.size
    dst_init = np.zeros(n, dst_dtype) if dst_init is None else dst_init
    out, run = launch(cast, [("S", src.dtype.name, n, src), ("D", dst_dtype, n, dst_init)],
                      [Ref("D"), Ref("S"), mode, n if count is None else count])
    return out, run


def pad32(a: np.ndarray, fill=0) -> np.ndarray:
    """a padded so that both a float16 and a float32/int32 copy are whole 32 B blocks."""
    n = -(-a.size // 64) * 64
    out = np.full(n, fill, dtype=a.dtype)
    out[:a.size] = a
    return out


def halfway_values() -> np.ndarray:
    """float32 values exactly halfway between neighbouring halves (even and odd low neighbour,
    normal and subnormal), one float32 ulp either side, exact halves, negatives, overflow."""
    h = np.array([1.0, 1.0009765625, 2.5, 1000.0, 1001.0, 3.0517578125e-05, 6.0e-08,
                  1.2e-07, 65472.0, 0.333251953125], dtype=np.float16)
    lo = h.astype(np.float64)
    hi = np.nextafter(h, np.float16(np.inf)).astype(np.float64)
    mid = ((lo + hi) / 2).astype(np.float32)
    vals = np.concatenate([mid, np.nextafter(mid, np.float32(np.inf)),
                           np.nextafter(mid, np.float32(-np.inf)), lo.astype(np.float32),
                           np.array([0.5 + 2**-12, 65504, 65505, 65519.99, 65520, 1e10,
                                     2**-25, 3 * 2**-26, 0.0], np.float32)])
    return np.concatenate([vals, -vals]).astype(np.float32)


# ---- float32 -> float16 -------------------------------------------------------------------
@pytest.mark.parametrize("mode", ALL, ids=lambda m: m.name)
def test_f32_to_f16_every_mode_at_and_around_halfway(mode):
    x = pad32(halfway_values())
    out, _ = cast_count(x, "float16", mode)
    want = ref_to_half(x, mode)
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))


def test_f32_to_f16_doc_example():
    # Cast.md: 0.5 + 2**-12 -> RINT/FLOOR/TRUNC 0.5, CEIL/ROUND/ODD 0.5 + 2**-11
    x = pad32(np.array([0.5 + 2**-12, -(0.5 + 2**-12)], np.float32))
    up = np.float16(0.5 + 2**-11)
    for mode, want in ((R.CAST_RINT, 0.5), (R.CAST_FLOOR, 0.5), (R.CAST_TRUNC, 0.5),
                       (R.CAST_CEIL, up), (R.CAST_ROUND, up), (R.CAST_ODD, up)):
        out, _ = cast_count(x, "float16", mode)
        assert out[0] == np.float16(want), mode
    out, _ = cast_count(x, "float16", R.CAST_FLOOR)
    assert out[1] == -up  # floor of a negative value goes away from zero


def test_f32_to_f16_saturates_instead_of_inf():
    x = pad32(np.array([70000, -70000, 1e30, 65519, np.inf, -np.inf, np.nan], np.float32))
    for mode in (R.CAST_RINT, R.CAST_CEIL, R.CAST_FLOOR):
        out, _ = cast_count(x, "float16", mode)
        assert list(out[:4]) == [65504, -65504, 65504, 65504]
        assert np.isposinf(out[4]) and np.isneginf(out[5]) and np.isnan(out[6])


def test_f16_to_f32_exact_and_f32_round_to_integral():
    h = pad32(np.array([1.5 - 2**-10, -0.0, 65504, 6e-8], np.float16))
    out, _ = cast_count(h, "float32", R.CAST_NONE)
    np.testing.assert_array_equal(out, h.astype(np.float32))
    x = pad32(np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.7, -2.7, 1e20], np.float32))
    want = {R.CAST_RINT: [0, 2, 2, -0.0, -2, -2, 3, -3, 1e20],
            R.CAST_FLOOR: [0, 1, 2, -1, -2, -3, 2, -3, 1e20],
            R.CAST_CEIL: [1, 2, 3, -0.0, -1, -2, 3, -2, 1e20],
            R.CAST_ROUND: [1, 2, 3, -1, -2, -3, 3, -3, 1e20],
            R.CAST_TRUNC: [0, 1, 2, -0.0, -1, -2, 2, -2, 1e20]}
    for mode, w in want.items():
        out, _ = cast_count(x, "float32", mode)
        np.testing.assert_array_equal(out[:9], np.array(w, np.float32))


# ---- float -> integer ----------------------------------------------------------------------
HALFWAY = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, -0.51, 7.0, -7.0])
HALFWAY_WANT = {
    R.CAST_RINT: [0, 2, 2, 0, -2, -2, 0, -1, 7, -7],
    R.CAST_FLOOR: [0, 1, 2, -1, -2, -3, 0, -1, 7, -7],
    R.CAST_CEIL: [1, 2, 3, 0, -1, -2, 1, 0, 7, -7],
    R.CAST_ROUND: [1, 2, 3, -1, -2, -3, 0, -1, 7, -7],
    R.CAST_TRUNC: [0, 1, 2, 0, -1, -2, 0, 0, 7, -7],
}


@pytest.mark.parametrize("src", ["float16", "float32"])
@pytest.mark.parametrize("dst", ["int32", "int16"])
@pytest.mark.parametrize("mode", D5, ids=lambda m: m.name)
def test_float_to_int_halfway_points(src, dst, mode):
    x = pad32(HALFWAY.astype(src))
    out, _ = cast_count(x, dst, mode)
    np.testing.assert_array_equal(out[:10], HALFWAY_WANT[mode])


def test_float_to_int_doc_examples_and_saturation():
    # Cast.md: float 2**22 + 0.5 -> int32; half -1.5 -> int32; half 2**7 - 0.5 -> int16 / int8
    x = pad32(np.array([2**22 + 0.5, 3e9, -3e9, np.nan, np.inf, -np.inf], np.float32))
    for mode, first in ((R.CAST_RINT, 2**22), (R.CAST_FLOOR, 2**22), (R.CAST_CEIL, 2**22 + 1),
                        (R.CAST_ROUND, 2**22 + 1), (R.CAST_TRUNC, 2**22)):
        out, _ = cast_count(x, "int32", mode)
        assert list(out[:6]) == [first, 2**31 - 1, -2**31, 0, 2**31 - 1, -2**31]
    out, _ = cast_count(x, "int16", R.CAST_RINT)
    assert list(out[:3]) == [32767, 32767, -32768]
    h = pad32(np.array([127.5, -1.5, 300, -300, 1.75, -3], np.float16))
    for mode, w8, wu8 in ((R.CAST_RINT, [127, -2, 127, -128], [128, 0, 255, 0, 2, 0]),
                          (R.CAST_FLOOR, [127, -2, 127, -128], [127, 0, 255, 0, 1, 0]),
                          (R.CAST_CEIL, [127, -1, 127, -128], [128, 0, 255, 0, 2, 0]),
                          (R.CAST_ROUND, [127, -2, 127, -128], [128, 0, 255, 0, 2, 0]),
                          (R.CAST_TRUNC, [127, -1, 127, -128], [127, 0, 255, 0, 1, 0]),
                          (R.CAST_NONE, [127, -2, 127, -128], [128, 0, 255, 0, 2, 0])):
        out, _ = cast_count(h, "int8", mode)
        assert list(out[:4]) == w8, mode
        out, _ = cast_count(h, "uint8", mode)
        assert list(out[:6]) == wu8, mode


# ---- integer -> float ----------------------------------------------------------------------
def test_int32_to_f32_rounds_per_mode():
    # Cast.md: 2**25 + 3 -> RINT/CEIL/ROUND 2**25 + 4, FLOOR/TRUNC 2**25; 2**25 + 2 is a tie
    x = pad32(np.array([2**25 + 3, 2**25 + 2, -(2**25 + 2), 2**31 - 1, 7], np.int32))
    want = {R.CAST_RINT: [2**25 + 4, 2**25, -2**25, 2**31, 7],
            R.CAST_NONE: [2**25 + 4, 2**25, -2**25, 2**31, 7],
            R.CAST_FLOOR: [2**25, 2**25, -(2**25 + 4), 2**31 - 128, 7],
            R.CAST_CEIL: [2**25 + 4, 2**25 + 4, -2**25, 2**31, 7],
            R.CAST_ROUND: [2**25 + 4, 2**25 + 4, -(2**25 + 4), 2**31, 7],
            R.CAST_TRUNC: [2**25, 2**25, -2**25, 2**31 - 128, 7]}
    for mode, w in want.items():
        out, _ = cast_count(x, "float32", mode)
        np.testing.assert_array_equal(out[:5], np.array(w, np.float64).astype(np.float32))


def test_small_ints_to_half_and_int16_rounding():
    # Cast.md: int16 2**12 + 2 -> RINT/FLOOR/TRUNC 2**12, CEIL/ROUND 2**12 + 4
    x = pad32(np.array([2**12 + 2, 2**12 + 6, -(2**12 + 2), 32767, -32768], np.int16))
    want = {R.CAST_RINT: [4096, 4104, -4096, 32768, -32768],
            R.CAST_FLOOR: [4096, 4100, -4100, 32752, -32768],
            R.CAST_CEIL: [4100, 4104, -4096, 32768, -32768],
            R.CAST_ROUND: [4100, 4104, -4100, 32768, -32768],
            R.CAST_TRUNC: [4096, 4100, -4096, 32752, -32768]}
    for mode, w in want.items():
        out, _ = cast_count(x, "float16", mode)
        np.testing.assert_array_equal(out[:5], np.array(w, np.float16))
    out, _ = cast_count(x, "float32", R.CAST_NONE)
    np.testing.assert_array_equal(out, x.astype(np.float32))
    for t in ("int8", "uint8"):
        v = pad32(np.arange(-128, 128).astype(t))
        out, _ = cast_count(v, "float16", R.CAST_NONE)
        np.testing.assert_array_equal(out, v.astype(np.float16))


def test_int_to_int_saturates_and_int64_pairs():
    x = pad32(np.array([70000, -70000, 123, -5], np.int32))
    out, _ = cast_count(x, "int16", R.CAST_NONE)
    assert list(out[:4]) == [32767, -32768, 123, -5]
    out, _ = cast_count(x, "int64", R.CAST_NONE)
    assert list(out[:4]) == [70000, -70000, 123, -5]
    big = pad32(np.array([2**40, -2**40, 5, 2**62 + 2**38, 2**62 + 2**38 + 1], np.int64))
    out, _ = cast_count(big, "int32", R.CAST_NONE)
    assert list(out[:3]) == [2**31 - 1, -2**31, 5]
    out, _ = cast_count(big, "float32", R.CAST_RINT)  # 2**62 + 2**38 is a float32 tie
    assert list(out[3:5].astype(np.float64)) == [2.0**62, 2.0**62 + 2**39]
    f = pad32(np.array([2.5, -2.5, 1e19, -1e19, 3e9], np.float32))
    out, _ = cast_count(f, "int64", R.CAST_ROUND)
    assert list(out[:5]) == [3, -3, 2**63 - 1, -2**63, 3000000000]


# ---- forms: count tails, masks, repeats, strides -------------------------------------------
def test_count_tail_leaves_the_rest_untouched():
    x = pad32(np.linspace(-3, 3, 128).astype(np.float32))
    init = np.full(128, 7, np.float16)
    out, run = cast_count(x, "float16", R.CAST_TRUNC, count=100, dst_init=init)
    want = ref_to_half(x[:100], R.CAST_TRUNC)
    np.testing.assert_array_equal(out[:100].view(np.uint16), want.view(np.uint16))
    assert (out[100:] == 7).all()
    (ev,) = run.events(op="cast")
    assert ev.count == 100 and ev.dtype == "float16" and ev.repeats == 2
    assert ("round_mode", "CAST_TRUNC") in ev.args and ("src_dtype", "float32") in ev.args
    assert ev.reads[0].nbytes == 400 and ev.writes[0].nbytes == 200


def test_mask_form_f32_to_f16_continuous_mask_and_strides():
    x = (np.arange(256, dtype=np.float32) * 8.03125)
    init = np.full(256, -1, np.float16)
    # 2 repeats of 64 lanes, 40 active; src repeats 16 blocks apart (every other 256 B),
    # dst repeats 4 blocks apart (64 halves, contiguous)
    p = asc.UnaryRepeatParams(1, 1, 4, 16)
    out, run = launch(cast, [("S", "float32", 256, x), ("D", "float16", 256, init)],
                      [Ref("D"), Ref("S"), R.CAST_FLOOR, 40, 2, p])
    want = init.copy()
    want[:40] = ref_to_half(x[:40], R.CAST_FLOOR)
    want[64:104] = ref_to_half(x[128:168], R.CAST_FLOOR)
    np.testing.assert_array_equal(out, want)
    (ev,) = run.events(op="cast")
    assert ev.count == 80 and ev.repeats == 2


def test_mask_form_bit_mask_f16_to_f32_and_keywords():
    x = np.arange(128, dtype=np.float16)
    init = np.full(128, -1, np.float32)
    mask = [(1 << 63) | 0b1011, 0]  # lanes 0, 1, 3, 63; a float32 side: 64 lanes per repeat
    p = asc.UnaryRepeatParams(1, 1, 8, 4)
    out, _ = launch(cast, [("S", "float16", 128, x), ("D", "float32", 128, init)],
                    [Ref("D"), Ref("S")],
                    {"round_mode": R.CAST_NONE, "mask": mask, "repeat_times": 2,
                     "repeat_params": p})
    want = init.copy()
    for r in range(2):
        for lane in (0, 1, 3, 63):
            want[r * 64 + lane] = x[r * 64 + lane]
    np.testing.assert_array_equal(out, want)


def test_mask_form_block_stride_int32_to_f32():
    x = np.arange(128, dtype=np.int32) * 3 + 2**25
    init = np.zeros(128, np.float32)
    p = asc.UnaryRepeatParams(1, 2, 8, 8)  # src blocks 2 apart: blocks 0, 2, 4, 6 of 8 ints
    out, _ = launch(cast, [("S", "int32", 128, x), ("D", "float32", 128, init)],
                    [Ref("D"), Ref("S"), R.CAST_CEIL, 32, 1, p])
    src_idx = np.concatenate([np.arange(8) + 16 * b for b in range(4)])
    want = init.copy()
    want[:32] = [np.float32(v) if int(np.float32(v)) >= v else np.nextafter(np.float32(v),
                 np.float32(np.inf)) for v in x[src_idx].astype(np.int64)]
    np.testing.assert_array_equal(out, want)


def test_counter_mode_uses_mask_as_total_count():
    x = np.linspace(-50, 50, 256).astype(np.float32)
    init = np.full(256, 9, np.float16)
    p = asc.UnaryRepeatParams(1, 1, 4, 8)
    out, _ = launch(cast, [("S", "float32", 256, x), ("D", "float16", 256, init)],
                    [Ref("D"), Ref("S"), R.CAST_ROUND, 150, 1, p],
                    pre=(asc.set_mask_count,))
    want = init.copy()
    want[:150] = ref_to_half(x[:150], R.CAST_ROUND)
    np.testing.assert_array_equal(out, want)


# ---- rules ---------------------------------------------------------------------------------
def test_unsupported_pair_lists_supported_ones():
    expect(DTypeError, ["float32 -> int8", "not supported", "supported pairs", "float32->int32",
                         "[core 0, vector_harness.py:"],
            cast, [("S", "float32", 64, np.zeros(64, np.float32)), ("D", "int8", 64)],
            [Ref("D"), Ref("S"), R.CAST_RINT, 64])
    expect(NotImplementedError, ["int32 -> float16", "set_deq_scale"],
            cast, [("S", "int32", 64, np.zeros(64, np.int32)), ("D", "float16", 64)],
            [Ref("D"), Ref("S"), R.CAST_NONE, 64])


def test_unsupported_round_mode_for_pair():
    expect(ParamError, ["CAST_ODD", "float32 -> int32", "supported: CAST_RINT"],
            cast, [("S", "float32", 64, np.zeros(64, np.float32)), ("D", "int32", 64)],
            [Ref("D"), Ref("S"), R.CAST_ODD, 64])
    expect(ParamError, ["CAST_NONE", "float32 -> int32"],
            cast, [("S", "float32", 64, np.zeros(64, np.float32)), ("D", "int32", 64)],
            [Ref("D"), Ref("S"), R.CAST_NONE, 64])
    expect(ParamError, ["count=-4", ">= 0"],
            cast, [("S", "float32", 64, np.zeros(64, np.float32)), ("D", "float16", 64)],
            [Ref("D"), Ref("S"), R.CAST_RINT, -4])
    expect(ParamError, ["round_mode=9", "RoundMode"],
            cast, [("S", "float32", 64, np.zeros(64, np.float32)), ("D", "float16", 64)],
            [Ref("D"), Ref("S"), 9, 64])


def test_mask_range_uses_the_wider_type():
    # float16 -> float32: 64 lanes per repeat, so mask=128 is out of range
    expect(ParamError, ["mask=128", "[1, 64]"],
            cast, [("S", "float16", 128, np.zeros(128, np.float16)), ("D", "float32", 128)],
            [Ref("D"), Ref("S"), R.CAST_NONE, 128, 1, asc.UnaryRepeatParams(1, 1, 8, 4)])


def test_alignment_and_position_rules():
    expect(AlignmentError, ["dst", "not 32 B aligned"],
            cast, [("S", "float32", 64, np.zeros(64, np.float32)), ("D", "float16", 64)],
            [Ref("D", 8), Ref("S"), R.CAST_RINT, 16])
    expect(PositionError, ["src", "A1"],
            cast, [("S", "float32", 64, None, asc.TPosition.A1), ("D", "float16", 64)],
            [Ref("D"), Ref("S"), R.CAST_RINT, 16], chip="Ascend310P3")


def test_registered_cost_class_and_table():
    assert _vec.VECTOR_OPS["cast"] == "convert"
    assert R.CAST_ODD in SUPPORTED[("float32", "float16")]
    assert ("float32", "int8") not in SUPPORTED
