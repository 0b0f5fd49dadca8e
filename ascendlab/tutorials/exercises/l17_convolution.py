"""Lesson 17, Convolution on the cube: img2col (load_data with LoadData3DParamsV2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...grader.challenge import Case
from ..exercise import Exercise, cases

K, STRIDE, PAD = 3, 2, 1


def _out_hw(case: Case) -> tuple[int, int]:
    h, w = case.shape[:2]
    return (h + 2 * PAD - K) // STRIDE + 1, (w + 2 * PAD - K) // STRIDE + 1


def _inputs(case: Case, names: tuple[str, ...]) -> Mapping[str, np.ndarray]:
    """Integer-valued x (H, W, Cin) and w (C1, 3, 3, 16, Cout), zero in the padded channels:
    every product and sum is exact in float32, so the check is exact too."""
    rng = np.random.default_rng(case.seed)
    h, w, cin, cout = case.shape
    x = rng.integers(-3, 4, (h, w, cin)).astype(np.float16)
    wt = np.zeros((-(-cin // 16), K, K, 16, cout), np.float16)
    for j in range(wt.shape[0]):
        c = min(16, cin - 16 * j)
        wt[j, :, :, :c] = rng.integers(-2, 3, (K, K, c, cout))
    return {"x": x, "w": wt}


def _conv(inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """float64 conv2d, 3 x 3, stride 2, pad 1: (Ho, Wo, Cout)."""
    x, wt = inputs["x"].astype(np.float64), inputs["w"].astype(np.float64)
    h, w, cin = x.shape
    c1, _, _, _, cout = wt.shape
    xp = np.zeros((h + 2 * PAD, w + 2 * PAD, c1 * 16))
    xp[PAD:PAD + h, PAD:PAD + w, :cin] = x
    ho, wo = (h + 2 * PAD - K) // STRIDE + 1, (w + 2 * PAD - K) // STRIDE + 1
    out = np.zeros((ho, wo, cout))
    for a in range(K):
        for b in range(K):
            patch = xp[a:a + STRIDE * (ho - 1) + 1:STRIDE, b:b + STRIDE * (wo - 1) + 1:STRIDE]
            for j in range(c1):
                out += patch[..., 16 * j:16 * j + 16] @ wt[j, a, b]
    return out


def _in_spec(case: Case) -> dict[str, Any]:
    h, w, cin, cout = case.shape
    return {"x": ((h, w, cin), "float16"), "w": ((-(-cin // 16), K, K, 16, cout), "float16")}


def _out_spec(case: Case) -> dict[str, Any]:
    return {"y": ((*_out_hw(case), case.shape[3]), "float32")}


EXERCISES = (
    Exercise(
        id="17.conv_img2col", lesson=17,
        title="A strided, padded convolution on the cube: the LoadData3DParamsV2 of it",
        inputs=("x", "w"), outputs=("y",), reference=_conv,
        make_inputs=_inputs, input_spec=_in_spec, output_spec=_out_spec,
        cases=cases((8, 8, 3, 16), (9, 7, 5, 32), (12, 10, 16, 16), perf=2),
        requires=frozenset({"load_data_3d", "mmad", "fixpipe"}),
        block_num=(1, 1), core_kind="aic",
        concept="load_3d reads the window of every output pixel straight from the feature map "
                "in L1: its parameters describe the input (height, width, channels padded to "
                "c0), the kernel window, the padding and the strides",
        api="asc.LoadData3DParamsV2's fields (pad_list, l1_h, l1_w, channel_size, "
            "k_extension, m_extension, stride_w, stride_h, filter_w, filter_h)",
        hint="channel_size is Cin padded to 16; K = channel_size * 3 * 3; M = Ho * Wo (it may "
             "end inside a fractal); pad_list is (left, right, top, bottom) and the strides "
             "come w first",
    ),
)
