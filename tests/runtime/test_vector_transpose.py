"""transpose and trans_data_to_5hd (ascendlab/runtime/vector/transpose.py) against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import DTypeError, ParamError

from .vector_harness import Ref, expect, launch


@pytest.mark.parametrize("dtype", ["float16", "int16", "uint16"])
def test_transpose_16x16(dtype):
    x = (np.arange(256) * 7 % 251).astype(dtype)
    out, run = launch(asc.transpose, [("S", dtype, 256, x), ("D", dtype, 256)],
                      [Ref("D"), Ref("S")])
    np.testing.assert_array_equal(out, x.reshape(16, 16).T.ravel())
    assert [e.pipe for e in run.trace if e.op == "transpose"] == ["V"]


@pytest.mark.parametrize("kind", ["TRANSPOSE_NCHW2NHWC", "TRANSPOSE_NHWC2NCHW"])
def test_transpose_ext_permutes_4d(kind):
    n, c, h, w = 2, 16, 4, 4
    x = np.random.default_rng(1).standard_normal(n * c * h * w).astype(np.float16)
    p = asc.TransposeParamsExt(n, c, h, w, getattr(asc.TransposeType, kind))
    out, _ = launch(asc.transpose, [("S", "float16", x.size, x), ("D", "float16", x.size),
                                    ("T", "uint8", 1024)],
                    [Ref("D"), Ref("S"), Ref("T"), p])
    if kind.endswith("NHWC"):
        want = x.reshape(n, c, h, w).transpose(0, 2, 3, 1)
    else:
        want = x.reshape(n, h, w, c).transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(out, want.ravel())


def test_transpose_rules():
    x = np.zeros(256, np.float32)
    expect(DTypeError, ["transpose", "float32"], asc.transpose,
           [("S", "float32", 256, x), ("D", "float32", 256)], [Ref("D"), Ref("S")])
    p = asc.TransposeParamsExt(1, 16, 4, 4, asc.TransposeType.TRANSPOSE_ND2ND_ONLY)
    expect(NotImplementedError, ["TRANSPOSE_ND2ND_ONLY"], asc.transpose,
           [("S", "float16", 256, x.astype(np.float16)), ("D", "float16", 256),
            ("T", "uint8", 64)], [Ref("D"), Ref("S"), Ref("T"), p])


def _5hd_lists(h, w, c1, dst_stride, step):
    """A kernel-side call converting c1 groups of 16 channels, in the tensor-list form."""
    def call(d, s):
        p = asc.TransDataTo5HDParams(False, False, h * w // 16, dst_stride, 1)
        for j in range(c1):
            base = j * 16 * h * w
            asc.trans_data_to_5hd([d[base + step * i] for i in range(16)],
                                  [s[base + h * w * i] for i in range(16)], p)
    return call


def test_trans_data_to_5hd_b16_nchw_to_nc1hwc0():
    n_c, h, w = 32, 4, 16  # C = 2 x 16
    x = np.arange(n_c * h * w, dtype=np.int16)
    out, run = launch(_5hd_lists(h, w, 2, 16, 16),
                      [("S", "int16", x.size, x), ("D", "int16", x.size)], [Ref("D"), Ref("S")])
    want = x.reshape(2, 16, h, w).transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(out, want.ravel())
    assert sum(e.op == "trans_data_to_5hd" for e in run.trace) == 2


def test_trans_data_to_5hd_b32_rule_and_address_form():
    x = np.arange(16 * 8, dtype=np.float32)  # 16 source blocks of 8 elements

    def call(d, s):
        dst = [d[8 * k].get_phy_addr() for k in range(16)]
        src = [s[8 * i].get_phy_addr() for i in range(16)]
        asc.trans_data_to_5hd(dst, src, asc.TransDataTo5HDParams(False, False, 1, 0, 0))

    out, _ = launch(call, [("S", "float32", 128, x), ("D", "float32", 128)],
                    [Ref("D"), Ref("S")])
    m = x.reshape(16, 8)  # column k -> destination blocks 2k (rows 0-7) and 2k + 1 (8-15)
    np.testing.assert_array_equal(out.reshape(16, 8), m.T.reshape(16, 8))


def test_trans_data_to_5hd_b8_halves():
    x = np.arange(16 * 32, dtype=np.uint8)

    def call(d, s):
        p = asc.TransDataTo5HDParams(True, True, 1, 0, 0)
        asc.trans_data_to_5hd([d[32 * k] for k in range(16)], [s[32 * i] for i in range(16)], p)

    out, _ = launch(call, [("S", "uint8", 512, x), ("D", "uint8", 512)], [Ref("D"), Ref("S")])
    m = x.reshape(16, 32)
    got = out.reshape(16, 32)
    np.testing.assert_array_equal(got[:, 16:], m[:, 16:].T)  # upper halves, columns 16-31
    assert not got[:, :16].any()


def test_trans_data_to_5hd_unknown_address():
    def call(d, s):
        asc.trans_data_to_5hd([1024] * 16, [0] * 16, asc.TransDataTo5HDParams())

    expect(ParamError, ["get_phy_addr", "UB+1024"], call,
           [("S", "float16", 256, np.zeros(256, np.float16)), ("D", "float16", 256)],
           [Ref("D"), Ref("S")])
