"""Scalar-unit arithmetic (runtime/scalar/ops.py) against an independent numpy/bit-string oracle
and pyasc's documented examples."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import DTypeError, ParamError


@asc.jit
def bits(vals: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    vg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    vg.set_global_buffer(vals)
    og.set_global_buffer(out)
    for i in range(n):
        v = vg.get_value(i)
        og.set_value(6 * i, asc.scalar_get_sff_value(v, 0))
        og.set_value(6 * i + 1, asc.scalar_get_sff_value(v, 1))
        og.set_value(6 * i + 2, asc.scalar_get_count_of_value(v, 0))
        og.set_value(6 * i + 3, asc.scalar_get_count_of_value(v, 1))
        og.set_value(6 * i + 4, asc.scalar_count_leading_zero(v))
        og.set_value(6 * i + 5, asc.count_bits_cnt_same_as_sign_bit(v))


def _oracle(v: int) -> list[int]:
    """The same six values read off the 64-character bit string (MSB first)."""
    s = np.binary_repr(v, width=64)  # two's complement for negatives
    lsb = s[::-1]
    sff0 = lsb.find("0")
    sff1 = lsb.find("1")
    same = len(s[1:]) - len(s[1:].lstrip(s[0]))  # bits below the sign equal to it
    return [sff0, sff1, s.count("0"), s.count("1"), len(s) - len(s.lstrip("0")),
            -1 if same == 63 else same]


VALUES = [0, 1, 16, 28, 0xFFFF, 0x0FFFFFFFFFFFFFFF, 0x0F00000000000000, -1, -2, -(1 << 63),
          (1 << 63) - 1, 0x4000000000000000, -0x0F00000000000001]


def test_bit_counts_match_the_bit_strings():
    vals = np.array(VALUES, np.int64)
    out = np.zeros(6 * len(VALUES), np.int64)
    run = ascendlab.launch(bits, 1, vals, out, len(VALUES))
    np.testing.assert_array_equal(out.reshape(-1, 6), [_oracle(v) for v in VALUES])
    ops = {e.op for e in run.trace if e.pipe == "S" and not e.reads and not e.writes}
    assert ops == {"scalar_get_sff_value", "scalar_get_count_of_value",
                   "scalar_count_leading_zero", "count_bits_cnt_same_as_sign_bit"}


def test_pyasc_doc_examples():
    # asc.language.basic docstrings: 0xffff has 16 ones; 0x0fff... has 4 leading zeros;
    # 0x0f00... has 3 bits after the sign equal to it; 0 and -1 give -1
    vals = np.array([0xFFFF, 0x0FFFFFFFFFFFFFFF, 0x0F00000000000000, 0, -1], np.int64)
    out = np.zeros(30, np.int64)
    ascendlab.launch(bits, 1, vals, out, 5)
    got = out.reshape(5, 6)
    assert got[0, 3] == 16 and got[1, 4] == 4 and got[2, 5] == 3
    assert got[3, 5] == -1 and got[4, 5] == -1 and got[3, 1] == -1 and got[4, 0] == -1


@asc.jit
def cast(vals: asc.GlobalAddress, ints: asc.GlobalAddress, halves: asc.GlobalAddress,
         n: int, mode: asc.ConstExpr):
    vg = asc.GlobalTensor()
    ig = asc.GlobalTensor()
    hg = asc.GlobalTensor()
    vg.set_global_buffer(vals)
    ig.set_global_buffer(ints)
    hg.set_global_buffer(halves)
    for i in range(n):
        v = vg.get_value(i)
        ig.set_value(i, asc.scalar_cast(v, asc.int32, mode))
        hg.set_value(i, asc.scalar_cast(v, asc.half, asc.RoundMode.CAST_ODD))


ROUNDING = {"CAST_ROUND": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
            "CAST_RINT": np.rint, "CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil}


@pytest.mark.parametrize("mode", sorted(ROUNDING))
def test_scalar_cast_to_int32_rounds_like_numpy(mode):
    vals = np.array([2.5, -2.5, 3.5, 0.49999997, -7.25, 1e6 + 0.5, 3.0], np.float32)
    ints = np.zeros(len(vals), np.int32)
    halves = np.zeros(len(vals), np.float16)
    ascendlab.launch(cast, 1, vals, ints, halves, len(vals), asc.RoundMode[mode])
    np.testing.assert_array_equal(ints, ROUNDING[mode](vals.astype(np.float64)))


def test_scalar_cast_to_half_rounds_to_odd():
    # 1 + 2**-11 lies halfway between float16 neighbours 1 and 1 + 2**-10: to odd picks the
    # neighbour whose last mantissa bit is 1 (1 + 2**-10); exact values stay exact
    vals = np.array([1 + 2**-11, 1 + 3 * 2**-11, 0.5, 65504.0], np.float32)
    halves = np.zeros(4, np.float16)
    ascendlab.launch(cast, 1, vals, np.zeros(4, np.int32), halves, 4, asc.RoundMode.CAST_ROUND)
    np.testing.assert_array_equal(halves, np.array([1 + 2**-10, 1 + 2**-10, 0.5, 65504.0],
                                                   np.float16))


@asc.jit
def bad(which: asc.ConstExpr):
    if which == "dtype":
        asc.scalar_cast(1.5, asc.int16, asc.RoundMode.CAST_ROUND)
    elif which == "mode":
        asc.scalar_cast(1.5, asc.int32, asc.RoundMode.CAST_ODD)
    elif which == "bit":
        asc.scalar_get_sff_value(3, 2)
    else:
        asc.scalar_count_leading_zero(1 << 64)


@pytest.mark.parametrize("which, exc, words", [
    ("dtype", DTypeError, "unsupported target dtype asc.int16"),
    ("mode", ParamError, "float32 -> int32 takes CAST_CEIL, CAST_FLOOR, CAST_RINT, CAST_ROUND"),
    ("bit", ParamError, "count_value must be 0 or 1, got 2"),
    ("wide", ParamError, "does not fit 64 bits"),
])
def test_bad_arguments_are_named(which, exc, words):
    with pytest.raises(exc, match=words):
        ascendlab.launch(bad, 1, which)
