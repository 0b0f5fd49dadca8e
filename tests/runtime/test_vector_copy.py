"""asc.copy (ascendlab/runtime/vector/copy.py) against numpy: strides, masks, dtypes, rules."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import DTypeError, ParamError
from ascendlab.runtime.trace import OPS

from .vector_harness import Ref, expect, launch


def _strided(x, dst_len, mask_lanes, R, dblk, sblk, drep, srep):
    """numpy: the lanes of each repeat moved block by block with the given strides."""
    epb = 32 // x.itemsize
    out = np.zeros(dst_len, x.dtype)
    for r in range(R):
        for lane in mask_lanes:
            b, e = divmod(lane, epb)
            out[r * drep * epb + b * dblk * epb + e] = x[r * srep * epb + b * sblk * epb + e]
    return out


@pytest.mark.parametrize("dtype", ["float16", "float32", "int16", "int32", "uint16"])
def test_copy_continuous_mask_matches_numpy(dtype):
    L = 256 // np.dtype(dtype).itemsize
    x = (np.arange(4 * L) % 97).astype(dtype)
    out, run = launch(asc.copy, [("S", dtype, 4 * L, x), ("D", dtype, 4 * L)],
                      [Ref("D"), Ref("S"), L // 2, 4, asc.CopyRepeatParams(1, 1, 8, 8)])
    want = _strided(x, 4 * L, range(L // 2), 4, 1, 1, 8, 8)
    np.testing.assert_array_equal(out, want)
    (e,) = [e for e in run.trace if e.op == "copy"]
    assert e.pipe == "V" and OPS["copy"].cost_class == "elementwise" and e.repeats == 4


def test_copy_bit_mask_and_strides():
    x = np.arange(1024, dtype=np.float16)
    mask = [0x5555_5555_5555_5555, 1]  # even lanes 0..62 and lane 64
    lanes = [i for i in range(64) if i % 2 == 0] + [64]
    out, _ = launch(asc.copy, [("S", "float16", 1024, x), ("D", "float16", 1024)],
                    [Ref("D"), Ref("S"), mask, 2, asc.CopyRepeatParams(2, 1, 16, 8)])
    np.testing.assert_array_equal(out, _strided(x, 1024, lanes, 2, 2, 1, 16, 8))


def test_copy_rules():
    x = np.zeros(128, np.float16)
    expect(DTypeError, ["copy", "int8"], asc.copy,
           [("S", "int8", 256, np.zeros(256, np.int8)), ("D", "int8", 256)],
           [Ref("D"), Ref("S"), 64, 1, asc.CopyRepeatParams(1, 1, 8, 8)])
    expect(ParamError, ["copy", "mask=200", "128"], asc.copy,
           [("S", "float16", 128, x), ("D", "float16", 128)],
           [Ref("D"), Ref("S"), 200, 1, asc.CopyRepeatParams(1, 1, 8, 8)])
    expect(TypeError, ["CopyRepeatParams"], asc.copy,
           [("S", "float16", 128, x), ("D", "float16", 128)],
           [Ref("D"), Ref("S"), 64, 1, asc.UnaryRepeatParams()])
