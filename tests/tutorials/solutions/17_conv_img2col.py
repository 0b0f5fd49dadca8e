"""Solution of exercise 17.conv_img2col (tutorials/17-convolution.ipynb)."""

import ascendlab.asc as asc


@asc.jit
def conv_img2col(x: asc.GlobalAddress, w: asc.GlobalAddress, y: asc.GlobalAddress, h: int,
                 wd: int, cin: int, cout: int):
    k, stride, pad = 3, 2, 1
    ho, wo = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
    c1 = (cin + 15) // 16
    kk = c1 * 16 * k * k                # K: (c1, kh, kw, c0), channels padded to 16
    m = ho * wo                         # M: output pixels
    mm = (m + 15) // 16 * 16
    xg, wg, yg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    wg.set_global_buffer(w)
    yg.set_global_buffer(y)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, c1 * h * wd * 16)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, c1 * h * wd * 32, kk * cout)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, mm * kk)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, kk * cout)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, mm * cout)
    asc.data_copy(a1, xg, asc.Nd2NzParams(1, h * wd, cin, 0, cin, h * wd, 1, 0))  # NHWC -> 5HD
    asc.data_copy(b1, wg, asc.Nd2NzParams(1, kk, cout, 0, cout, kk, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    params = asc.LoadData3DParamsV2((pad, pad, pad, pad), h, wd, c1 * 16, kk, m, 0, 0,
                                    stride, stride, k, k, 1, 1, False, 0)
    asc.load_data(a2, a1, params)
    for i in range(kk // 16):           # the weights, transposed per fractal (lesson 07)
        asc.load_data(b2[i * cout * 16:], b1,
                      asc.LoadData2DParams(i, cout // 16, kk // 16, 0, 0, True, 0))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(co1, a2, b2, asc.MmadParams(m, cout, kk))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(yg, co1, asc.FixpipeParamsV220(cout, m, mm, cout))


def launch(x, w, y, core_num):
    h, wd, cin = x.shape
    conv_img2col[1](x, w, y, h, wd, cin, w.shape[-1])
