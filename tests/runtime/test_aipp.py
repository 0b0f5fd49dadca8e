"""AIPP (ascendlab/runtime/dma/aipp.py): set_aipp_functions + load_image_to_local into L1 against
numpy (crop, swaps, data type conversion, area and channel padding), on MTE2."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc


@asc.jit
def aipp_kernel(img, uv, out, n: asc.ConstExpr, spec: asc.ConstExpr):
    fmt, cfg_fn, params = spec
    g, g_uv, o = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    g.set_global_buffer(img)
    g_uv.set_global_buffer(uv)
    o.set_global_buffer(out)
    cfg = cfg_fn()
    if fmt is not None:
        if fmt == asc.AippInputFormat.YUV420SP_U8:
            asc.set_aipp_functions(g, g_uv, fmt, cfg)
        else:
            asc.set_aipp_functions(g, fmt, cfg)
    l1 = asc.LocalTensor(cfg.dtype, asc.TPosition.A1, 0, n)
    asc.load_image_to_local(l1, params)
    # L1 -> UB -> GM to read it back (a plain copy in 32 B units)
    ub = asc.LocalTensor(cfg.dtype, asc.TPosition.VECIN, 0, n)
    asc.data_copy(ub, l1, n)
    asc.data_copy(o, ub, n)


def _run(img, fmt, cfg_fn, params, n, dtype, uv=None, strict=None):
    out = np.zeros(n, dtype)
    uv = np.zeros(64, np.uint8) if uv is None else uv
    # Ascend310P: one core holds both L1 and UB, so the result can come back L1 -> UB -> GM
    run = ascendlab.launch(aipp_kernel, 1, img, uv, out, n, (fmt, cfg_fn, params),
                           strict=strict, chip="Ascend310P3")
    return out, run


def test_rgb888_crop_swap_dtc_and_padding_float16():
    H, W = 6, 8
    img = np.random.default_rng(0).integers(0, 256, (H, W, 3)).astype(np.uint8)
    dtc = dict(dtc_mean_ch0=10, dtc_mean_ch1=20, dtc_mean_ch2=30, dtc_min_ch0=1.0,
               dtc_min_ch1=2.0, dtc_min_ch2=3.0, dtc_var_ch0=0.5, dtc_var_ch1=0.25,
               dtc_var_ch2=2.0)

    def cfg():
        return asc.AippParams(asc.float16, padding_params=asc.AippPaddingParams(0, 7, 8, 9),
                              swap_params=asc.AippSwapParams(is_swap_rb=True),
                              dtc_params=asc.AippDataTypeConvParams(**dtc),
                              c_padding_params=asc.AippChannelPaddingParams(0, -1.0))

    p = asc.LoadImageToLocalParams(4, 3, 2, 1, W, 1, 0, 1, 1)  # 3 x 4 crop at (1, 2)
    n = (1 + 3) * (1 + 4 + 1) * 16
    out, run = _run(img.ravel(), asc.AippInputFormat.RGB888_U8, cfg, p, n, np.float16)
    crop = img[1:4, 2:6, ::-1].astype(np.float64)  # swap R and B
    mean = np.array([10, 20, 30.0])
    conv = ((crop - mean - np.array([1, 2, 3.0])) * np.array([0.5, 0.25, 2.0]))
    want = np.full((4, 6, 16), -1.0)
    want[:, :, :3] = [7, 8, 9]  # area padding values per channel
    want[1:, 1:5, :3] = conv
    np.testing.assert_array_equal(out.reshape(4, 6, 16), want.astype(np.float16))
    (e,) = [e for e in run.trace if e.op == "load_image_to_local"]
    assert e.pipe == "MTE2" and e.reads[0].space == "GM" and e.writes[0].space == "L1"


def test_xrgb_int8_and_yuv420sp_uint8():
    img = np.arange(2 * 4 * 4, dtype=np.uint8).reshape(2, 4, 4)

    def cfg8():
        return asc.AippParams(asc.int8, swap_params=asc.AippSwapParams(is_swap_ax=True),
                              dtc_params=asc.AippDataTypeConvParams(dtc_mean_ch0=5),
                              c_padding_params=asc.AippChannelPaddingParams(1, 0))

    p = asc.LoadImageToLocalParams(4, 2, 0, 0, 4)
    out, _ = _run(img.ravel(), asc.AippInputFormat.XRGB8888_U8, cfg8, p, 32, np.int8)
    want = np.zeros((2, 4, 4), np.int64)
    want[..., :3] = img[..., 1:4]  # X moved behind: R, G, B
    want[..., 0] -= 5
    np.testing.assert_array_equal(out.reshape(2, 4, 4), want)

    y = np.arange(16, dtype=np.uint8).reshape(4, 4) + 100
    uv = np.arange(16, dtype=np.uint8)  # 2 rows of (U, V) pairs for 2 columns of pixels
    p = asc.LoadImageToLocalParams(4, 4, 0, 0, 4)
    out, _ = _run(y.ravel(), asc.AippInputFormat.YUV420SP_U8,
                  lambda: asc.AippParams(asc.uint8, swap_params=asc.AippSwapParams(
                      is_swap_uv=True)), p, 4 * 4 * 32, np.uint8, uv=np.resize(uv, 64))
    got = out.reshape(4, 4, 32)
    pairs = uv[:8].reshape(2, 2, 2)
    np.testing.assert_array_equal(got[..., 0], y)
    np.testing.assert_array_equal(got[..., 1], pairs[np.arange(4) // 2][:, np.arange(4) // 2, 1])
    np.testing.assert_array_equal(got[..., 2], pairs[np.arange(4) // 2][:, np.arange(4) // 2, 0])


def test_load_without_configuration_is_a_finding():
    p = asc.LoadImageToLocalParams(2, 2, 0, 0, 2)
    with pytest.warns(Warning, match="no set_aipp_functions"):
        _, run = _run(np.zeros(64, np.uint8), None, lambda: asc.AippParams(asc.uint8), p, 128,
                      np.uint8, strict=False)
    assert [f.kind for f in run.findings] == ["aipp"]
