"""Fused binary + cast instructions and cast_deq, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import DTypeError, ParamError
from ascendlab.runtime.vector.cast_deq import cast_deq
from ascendlab.runtime.vector.fused_cast import (
    add_deq_relu,
    add_relu_cast,
    mul_cast,
    sub_relu_cast,
)

from .vector_harness import Ref, expect, launch

RNG = np.random.default_rng(7)


def _sat(x, dtype):
    info = np.iinfo(dtype)
    return np.clip(x, info.min, info.max).astype(dtype)


def test_add_relu_cast_f16_to_int8_count_form():
    a = (RNG.standard_normal(256) * 80).astype(np.float16)
    b = (RNG.standard_normal(256) * 80).astype(np.float16)
    out, run = launch(add_relu_cast, [("A", "float16", 256, a), ("B", "float16", 256, b),
                                      ("D", "int8", 256)], [Ref("D"), Ref("A"), Ref("B"), 256])
    want = _sat(np.rint(np.maximum(a + b, 0).astype(np.float64)), np.int8)
    np.testing.assert_array_equal(out, want)
    (ev,) = run.events(op="add_relu_cast")
    assert ev.pipe == "V" and ev.count == 256 and ev.repeats == 2  # 256 x 2 B of source


def test_sub_relu_cast_f32_to_f16_repeat_form_keeps_masked_out_lanes():
    a = RNG.standard_normal(128).astype(np.float32)
    b = RNG.standard_normal(128).astype(np.float32)
    init = np.full(128, 9, np.float16)
    out, _ = launch(sub_relu_cast, [("A", "float32", 128, a), ("B", "float32", 128, b),
                                    ("D", "float16", 128, init)],
                    [Ref("D"), Ref("A"), Ref("B"), 40, 2,
                     asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8)])
    want = init.copy()
    for r in range(2):  # 40 of 64 lanes; the f16 dst advances 4 blocks (64 elements) a repeat
        want[r * 64:r * 64 + 40] = np.maximum(a[r * 64:r * 64 + 40] - b[r * 64:r * 64 + 40],
                                              0).astype(np.float16)
    np.testing.assert_array_equal(out, want)


def test_add_relu_cast_int16_saturates_to_int8():
    a = np.array([100, 50, -7, 30000] * 64, np.int16)
    b = np.array([100, -60, 3, 1] * 64, np.int16)
    out, _ = launch(add_relu_cast, [("A", "int16", 256, a), ("B", "int16", 256, b),
                                    ("D", "int8", 256)], [Ref("D"), Ref("A"), Ref("B"), 256])
    np.testing.assert_array_equal(out[:4], [127, 0, 0, 127])


def test_mul_cast_f16_to_uint8_rounds_half_even_and_clamps():
    a = np.array([1.25, 2.5, -3.0, 40.0] * 64, np.float16)
    b = np.array([2.0, 1.0, 1.0, 10.0] * 64, np.float16)
    out, _ = launch(mul_cast, [("A", "float16", 256, a), ("B", "float16", 256, b),
                               ("D", "uint8", 256)], [Ref("D"), Ref("A"), Ref("B"), 256])
    np.testing.assert_array_equal(out[:4], [2, 2, 0, 255])


def test_add_deq_relu_scales_by_the_half_deq_scale():
    a = RNG.integers(-1000, 1000, 128).astype(np.int32)
    b = RNG.integers(-1000, 1000, 128).astype(np.int32)
    out, _ = launch(add_deq_relu, [("A", "int32", 128, a), ("B", "int32", 128, b),
                                   ("D", "float16", 128)], [Ref("D"), Ref("A"), Ref("B"), 128],
                    pre=(lambda: asc.set_deq_scale(0.25),))
    want = np.maximum((a + b).astype(np.float32) * np.float32(0.25), 0).astype(np.float16)
    np.testing.assert_array_equal(out, want)


def test_add_deq_relu_without_a_scale_and_bad_pairs_are_errors():
    i = np.zeros(64, np.int32)
    expect(ParamError, ["DEQSCALE", "nothing"], add_deq_relu,
           [("A", "int32", 64, i), ("B", "int32", 64, i), ("D", "float16", 64)],
           [Ref("D"), Ref("A"), Ref("B"), 64])
    f = np.zeros(64, np.float32)
    expect(DTypeError, ["float32 -> int8", "supported"], mul_cast,
           [("A", "float32", 64, f), ("B", "float32", 64, f), ("D", "int8", 64)],
           [Ref("D"), Ref("A"), Ref("B"), 64])


@pytest.mark.parametrize("half", [True, False])
def test_cast_deq_scalar_params_and_half_block(half):
    x = RNG.integers(-600, 600, 32).astype(np.int16)
    init = np.full(64, 5, np.int8)
    out, _ = launch(cast_deq, [("X", "int16", 32, x), ("D", "int8", 64, init)],
                    [Ref("D"), Ref("X"), 32], {"is_vec_deq": False, "half_block": half},
                    pre=(lambda: asc.set_deq_scale(0.5, -3, True),))
    got = _sat(np.rint(x.astype(np.float32) * np.float32(0.5)).astype(np.int64) - 3, np.int8)
    want = init.copy()
    for blk in range(2):  # 16 results per 32 B dst block, in its lower or upper half
        o = blk * 32 + (0 if half else 16)
        want[o:o + 16] = got[blk * 16:blk * 16 + 16]
    np.testing.assert_array_equal(out, want)


def _vdeq(d, x, v):
    info = asc.VdeqInfo([0.5 + k for k in range(16)], list(range(16)), [False] * 16)
    asc.set_deq_scale(v, info)
    cast_deq(d, x, 16)


def test_cast_deq_vector_params_cycle_over_16_elements():
    x = np.arange(16, dtype=np.int16) * 3
    out, _ = launch(_vdeq, [("X", "int16", 16, x), ("V", "uint64", 16), ("D", "uint8", 32)],
                    [Ref("D"), Ref("X"), Ref("V")])
    k = np.arange(16)
    want = _sat(np.rint(x * (0.5 + k).astype(np.float32)).astype(np.int64) + k, np.uint8)
    np.testing.assert_array_equal(out[:16], want)
