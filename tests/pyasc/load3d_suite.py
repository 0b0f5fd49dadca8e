"""A pyasc-style pytest file: the LoadData3DParamsV1 / V2 / V2Pro constructions of pyasc's
test_mm.py::test_load_data (the same positional arguments), issued on a real route (A1 -> A2;
pyasc's mock test uses VECIN -> VECOUT, which no chip has a load_3d for), the L0A fractal read
back through mmad with an identity filter and fixpipe, and checked against numpy im2col.
Run through `ascendlab pyasc -m pytest` (tests/runtime/test_img2col_route.py)."""

import numpy as np

import asc

E = asc.HardEvent


@asc.jit
def kernel_load_3d(x: asc.GlobalAddress, eye: asc.GlobalAddress, y: asc.GlobalAddress,
                   form: int) -> None:
    x_gm = asc.GlobalTensor()
    e_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    e_gm.set_global_buffer(eye)
    y_gm.set_global_buffer(y)
    a1 = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.A1, addr=0, tile_size=4096)
    b1 = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.B1, addr=8192, tile_size=256)
    a2 = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.A2, addr=0, tile_size=256)
    b2 = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.B2, addr=0, tile_size=256)
    co1 = asc.LocalTensor(dtype=asc.float32, pos=asc.TPosition.CO1, addr=0, tile_size=256)
    asc.data_copy(a1, x_gm, 4096)
    asc.data_copy(b1, e_gm, 256)
    asc.set_flag(E.MTE2_MTE1, 0)
    asc.wait_flag(E.MTE2_MTE1, 0)
    # the constructions of pyasc's python/test/unit/language/basic/test_mm.py::test_load_data
    params_3d_v1 = asc.LoadData3DParamsV1((0, 0, 0, 0), 16, 16, 0, 0, 0, 0, 0, 1, 1, 3, 3, 1, 1,
                                          1, 0, 1, 0, 0)
    params_3d_v2 = asc.LoadData3DParamsV2((0, 0, 0, 0), 16, 16, 16, 16, 16, 0, 0, 1, 1, 3, 3, 1,
                                          1, False, 0, False, False, False)
    params_3d_v2_pro = asc.LoadData3DParamsV2Pro(16, False, False, False, False, False, 0,
                                                 0x10101010101)
    if form == 1:
        asc.load_data(a2, a1, params_3d_v1)
    else:
        asc.load_data(a2, a1, params_3d_v2)
        asc.load_data(a2, a1, params_3d_v2_pro)  # ext_config 0: moves nothing
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 1, 0, 0, 0, False, 0))
    asc.set_flag(E.MTE1_M, 0)
    asc.wait_flag(E.MTE1_M, 0)
    asc.mmad(co1, a2, b2, asc.MmadParams(16, 16, 16))
    asc.set_flag(E.M_FIX, 0)
    asc.wait_flag(E.M_FIX, 0)
    asc.fixpipe(y_gm, co1, asc.FixpipeParamsV220(16, 16, 16, 16))


def _run(form):
    fmap = np.random.default_rng(form).uniform(-1, 1, (16, 16, 16)).astype(np.float16)
    y = np.zeros((16, 16), np.float32)
    run = kernel_load_3d[1](fmap, np.eye(16, dtype=np.float16), y, form)
    # im2col rows 0-15 (output pixels (0, 0..13), (1, 0..1)) at tap (0, 0): 16 channels each
    want = np.array([fmap[m // 14, m % 14] for m in range(16)], np.float32)
    return y, want, run


def test_v1_fractal_matches_im2col():
    y, want, run = _run(1)
    np.testing.assert_array_equal(y, want)
    assert [e.pipe for e in run.trace if e.op == "load_data_3d"] == ["MTE1"]


def test_v2_window_matches_im2col_and_v2pro_defaults_move_nothing():
    y, want, run = _run(2)
    np.testing.assert_array_equal(y, want)
    loads = [e for e in run.trace if e.op == "load_data_3d"]
    assert len(loads) == 2 and loads[1].writes == () and loads[1].count == 0
