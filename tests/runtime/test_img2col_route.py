"""The ways into load_3d's 5HD (NC1HWC0) feature map, end to end against numpy im2col:

* NHWC in GM -> L1 with data_copy(Nd2NzParams): the (H*W, C) matrix in NZ *is* NC1HWC0 (one
  c0-column block per C1, H*W rows each), channels zero-padded to c0, on MTE2 of the cube core.
* NCHW in GM -> UB -> trans_data_to_5hd (16 channel planes -> 16 pixel rows per repeat) -> GM,
  on a vector core, then GM -> L1 with a plain data_copy.
"""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.runtime import core as _core
from tests.runtime.test_img2col import ref_im2col, to_5hd, zz

OUT: list[np.ndarray] = []


def _keep(nbytes: int) -> None:
    OUT.append(_core.current.mem("L0A")[:nbytes].copy())


@asc.jit
def nhwc_img2col(x: asc.GlobalAddress, h: int, w: int, c: int, k: int, m: int, kh: int,
                 kw: int, pad: int):
    """NHWC fp16 GM -> 5HD in A1 (ND2NZ) -> im2col rows [0, m) into L0A."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    c1 = (c + 15) // 16
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, c1 * h * w * 16)
    mr = (m + 15) // 16 * 16
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, mr * k)
    # ND (h*w rows of c) -> NZ: block j of 16 channels holds h*w rows: exactly C1 x H x W x C0
    asc.data_copy(a1, xg, asc.Nd2NzParams(1, h * w, c, 0, c, h * w, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.load_data(a2, a1, asc.LoadData3DParamsV2((pad, pad, pad, pad), h, w, c1 * 16, k, m, 0,
                                                 0, 1, 1, kw, kh, 1, 1, False, 0))
    _keep(mr * k * 2)


@pytest.mark.parametrize("c, h, w", [(3, 5, 7), (16, 4, 4), (20, 6, 3)])
def test_nhwc_through_nd2nz_is_5hd(c, h, w):
    x = np.random.default_rng(c).standard_normal((c, h, w)).astype(np.float16)
    want = ref_im2col(x, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 16)
    m, k = want.shape
    mr = -(-m // 16) * 16
    OUT.clear()
    nhwc = np.ascontiguousarray(x.transpose(1, 2, 0))
    ascendlab.launch(nhwc_img2col, 1, nhwc.reshape(-1), h, w, c, k, m, 3, 3, 1)
    full = np.zeros((mr, k), np.float16)
    full[:m] = want
    np.testing.assert_array_equal(OUT[0].view(np.float16), zz(full, 16))


@asc.jit
def nchw_to_5hd(x: asc.GlobalAddress, y: asc.GlobalAddress, c1: int, hw: int):
    """NCHW fp16 (C = 16 * c1, H*W a multiple of 16) -> NC1HWC0 through UB on a vector core."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    n = c1 * 16 * hw
    xu = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, n)
    yu = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, n * 2, n)
    asc.data_copy(xu, xg, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    # one repeat: 16 pixels of the 16 channel planes -> 16 pixel rows of 16 channels;
    # sources step 1 block (16 pixels), destinations 16 blocks (16 rows of 32 B)
    p = asc.TransDataTo5HDParams(False, False, hw // 16, 16, 1)
    for j in range(c1):
        base = j * 16 * hw
        asc.trans_data_to_5hd([yu[base + 16 * i] for i in range(16)],
                              [xu[base + hw * i] for i in range(16)], p)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(yg, yu, n)


@asc.jit
def fivehd_img2col(x: asc.GlobalAddress, n: int, h: int, w: int, c: int, k: int, m: int):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, n)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * k)
    asc.data_copy(a1, xg, n)
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.load_data(a2, a1, asc.LoadData3DParamsV2((1, 1, 1, 1), h, w, c, k, m, 0, 0, 1, 1, 3,
                                                 3, 1, 1, False, 0))
    _keep(m * k * 2)


def test_nchw_through_trans_data_to_5hd_then_img2col():
    c, h, w = 32, 4, 8
    x = np.random.default_rng(9).standard_normal((c, h, w)).astype(np.float16)
    y = np.zeros(x.size, np.float16)
    ascendlab.launch(nchw_to_5hd, 1, x.reshape(-1), y, c // 16, h * w)
    np.testing.assert_array_equal(y, to_5hd(x, 16).reshape(-1))
    want = ref_im2col(x, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 16)  # 32 x 576
    m, k = want.shape
    OUT.clear()
    ascendlab.launch(fivehd_img2col, 1, y, y.size, h, w, c, k, m)
    np.testing.assert_array_equal(OUT[0].view(np.float16), zz(want, 16))


def test_pyasc_load_data_3d_suite_runs_through_ascendlab_pyasc():
    """pyasc's test_mm load_data constructions, as a pyasc-style file (`import asc`), under
    `ascendlab pyasc -m pytest`: the L0A fractal matches numpy im2col."""
    import subprocess
    import sys
    from pathlib import Path

    suite = Path(__file__).resolve().parents[1] / "pyasc" / "load3d_suite.py"
    r = subprocess.run([sys.executable, "-m", "ascendlab", "pyasc", "-m", "pytest", str(suite),
                        "-q", "-p", "no:cacheprovider"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "2 passed" in r.stdout
