"""gather, gatherb, scatter and bilinear_interpolation (ascendlab/runtime/vector/gather.py)
against numpy: byte offsets, masks and strides, blocks, and the composed interpolation."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import AlignmentError, DTypeError, OutOfBoundsError

from .vector_harness import Ref, expect, launch


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_gather_count_form_uses_byte_offsets(dtype):
    isz = np.dtype(dtype).itemsize
    x = np.arange(256).astype(dtype)
    pick = np.random.default_rng(0).integers(0, 200, 64)
    offs = (pick * isz).astype(np.uint32)
    out, run = launch(asc.gather, [("S", dtype, 256, x), ("O", "uint32", 64, offs),
                                   ("D", dtype, 64)], [Ref("D"), Ref("S"), Ref("O"), 8 * isz, 64])
    np.testing.assert_array_equal(out, x[pick + 8])  # src_base is in bytes too
    assert [e.pipe for e in run.trace if e.op == "gather"] == ["V"]


def test_gather_mask_form_repeats_and_dst_stride():
    x = np.arange(512, dtype=np.float16)
    offs = (np.arange(256)[::-1] * 2).astype(np.uint32)  # reversed, 128 per repeat
    out, _ = launch(asc.gather, [("S", "float16", 512, x), ("O", "uint32", 256, offs),
                                 ("D", "float16", 512)],
                    [Ref("D"), Ref("S"), Ref("O"), 0, 64, 2, 16])
    want = np.zeros(512, np.float16)
    for r in range(2):
        want[r * 256:r * 256 + 64] = x[offs[r * 128:r * 128 + 64] // 2]
    np.testing.assert_array_equal(out, want)


def test_gatherb_copies_blocks():
    x = np.arange(256, dtype=np.uint16)  # 16 blocks of 16
    order = np.array([3, 0, 7, 7, 1, 15, 2, 9], np.uint32)
    out, _ = launch(asc.gatherb, [("S", "uint16", 256, x), ("O", "uint32", 8, order * 32),
                                  ("D", "uint16", 256)],
                    [Ref("D"), Ref("S"), Ref("O"), 1, asc.GatherRepeatParams(2, 8)])
    want = np.zeros((16, 16), np.uint16)
    want[0::2][:8] = x.reshape(16, 16)[order]  # dst_blk_stride 2: every other block
    np.testing.assert_array_equal(out.reshape(16, 16), want)


def test_gather_rules():
    x = np.zeros(64, np.float32)
    expect(AlignmentError, ["multiples of 4"], asc.gather,
           [("S", "float32", 64, x), ("O", "uint32", 8, np.full(8, 2, np.uint32)),
            ("D", "float32", 8)], [Ref("D"), Ref("S"), Ref("O"), 0, 8])
    expect(OutOfBoundsError, ["leaves UB"], asc.gather,
           [("S", "float32", 64, x), ("O", "uint32", 8, np.full(8, 2**31, np.uint32)),
            ("D", "float32", 8)], [Ref("D"), Ref("S"), Ref("O"), 0, 8])


def test_scatter_on_310p_and_910b():
    src = np.arange(16, dtype=np.float16) + 1
    offs = (np.arange(16)[::-1] * 2).astype(np.uint32)
    out, _ = launch(asc.scatter, [("S", "float16", 16, src), ("O", "uint32", 16, offs),
                                  ("D", "float16", 16)], [Ref("D"), Ref("S"), Ref("O"), 0, 16],
                    chip="Ascend310P3")
    np.testing.assert_array_equal(out, src[::-1])
    with pytest.warns(Warning, match="scatter is not supported on Ascend910B"):
        out, _ = launch(asc.scatter, [("S", "float16", 16, src), ("O", "uint32", 16, offs),
                                      ("D", "float16", 16)],
                        [Ref("D"), Ref("S"), Ref("O"), 0, 16], strict=False)
    assert not out.any()


@pytest.mark.parametrize("repeat_mode", [False, True])
def test_bilinear_interpolation_matches_numpy(repeat_mode):
    h, v = 3, 2
    rng = np.random.default_rng(4)
    src0 = rng.uniform(-4, 4, 1024).astype(np.float16)
    blocks = rng.permutation(64)[:h * v * 8].astype(np.uint32)
    src1 = rng.uniform(-2, 2, 64).astype(np.float16)
    out, run = launch(
        asc.bilinear_interpolation,
        [("S", "float16", 1024, src0), ("O", "uint32", h * v * 8, blocks * 32),
         ("Y", "float16", 64, src1), ("D", "float16", 256),
         ("T", "uint8", 2 * (h * v + 64) * 128)],
        [Ref("D"), Ref("S"), Ref("O"), Ref("Y"), 128, h, repeat_mode, 1, 128, v, Ref("T")])
    g = src0.reshape(64, 16)[blocks].reshape(h * v, 128)  # the gathered repeats
    scale = (src1[:h * v * 8].reshape(h * v, 8).repeat(16, 1) if repeat_mode
             else src1[:h * v, None])
    prod = (g * scale).astype(np.float16)
    want = np.zeros((v, 128), np.float16)
    for i in range(v):
        acc = prod[i * h]
        for j in range(1, h):
            acc = (prod[i * h + j] + acc).astype(np.float16)
        want[i] = acc
    np.testing.assert_array_equal(out.reshape(2, 128), want)
    ops = [e.op for e in run.trace if e.pipe == "V" and e.op != "pipe_barrier"]
    assert ops == ["gatherb", "brcb", "mul"] + ["add"] * (v * (h - 1)) + ["adds"]


@pytest.mark.parametrize("pattern", [1, 2, 3, 6, 7])
def test_gather_mask_builtin_patterns(pattern):
    x = np.arange(256, dtype=np.float16)
    every, lane = {1: (2, 0), 2: (2, 1), 3: (4, 0), 6: (4, 3), 7: (1, 0)}[pattern]
    seen = []

    def call(d, s):
        seen.append(asc.gather_mask(d, s, pattern, False, 0, asc.GatherMaskParams(1, 2, 8, 0)))
        seen.append(asc.get_gather_mask_remain_count())

    out, run = launch(call, [("S", "float16", 256, x), ("D", "float16", 256)],
                      [Ref("D"), Ref("S")])
    want = x[np.arange(256) % every == lane]
    np.testing.assert_array_equal(out[:len(want)], want)
    assert seen == [len(want), len(want)] and not out[len(want):].any()
    assert [e.pipe for e in run.trace if e.op == "gather_mask"] == ["V"]


def test_gather_mask_tensor_pattern_with_strides():
    x = np.arange(128, dtype=np.float32) + 1  # 2 repeats of 64 lanes
    bits = np.random.default_rng(6).integers(0, 2, (2, 64)).astype(bool)
    words = np.zeros(16, np.uint32)  # repeat r's 2 words at 8 * r (src1_repeat_stride = 1)
    for r in range(2):
        for w in range(2):
            words[8 * r + w] = int("".join("1" if b else "0" for b in bits[r, 32 * w:][:32][::-1]),
                                   2)
    seen = []

    def call(d, s, p):
        seen.append(asc.gather_mask(d, s, p, False, 0, asc.GatherMaskParams(1, 2, 8, 1)))

    out, _ = launch(call, [("S", "float32", 128, x), ("P", "uint32", 16, words),
                           ("D", "float32", 128)], [Ref("D"), Ref("S"), Ref("P")])
    want = x.reshape(2, 64)[bits]
    np.testing.assert_array_equal(out[:len(want)], want)
    assert seen == [len(want)]
    expect(DTypeError, ["src1_pattern", "uint32"], asc.gather_mask,
           [("S", "float32", 64, x[:64]), ("P", "uint16", 16, np.zeros(16, np.uint16)),
            ("D", "float32", 64)], [Ref("D"), Ref("S"), Ref("P"), False, 0,
                                    asc.GatherMaskParams()])
