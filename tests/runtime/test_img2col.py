"""load_data with LoadData3DParamsV1 / V2 / V2Pro (img2col, runtime/cube/img2col.py) against an
independent numpy im2col over many shapes, fp16 / int8 / fp32; the registers the loads read and
write; the errors; the MTE1 event and its cost."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import AlignmentError, DTypeError, ParamError, PositionError
from ascendlab.runtime import core as _core

OUT: list[np.ndarray] = []
CALLS: list = []  # (params, ...) the kernel issues, set by each test


def _keep_l0a(nbytes: int) -> None:
    OUT.append(_core.current.mem("L0A")[:nbytes].copy())


def to_5hd(x: np.ndarray, c0: int) -> np.ndarray:
    """(C, H, W) -> (C1, H, W, c0), channels zero-padded to a multiple of c0."""
    c, h, w = x.shape
    c1 = -(-c // c0)
    out = np.zeros((c1 * c0, h, w), x.dtype)
    out[:c] = x
    return np.ascontiguousarray(out.reshape(c1, c0, h, w).transpose(0, 2, 3, 1))


def ref_im2col(x: np.ndarray, kh: int, kw: int, stride: tuple, pad: tuple, dil: tuple,
               c0: int, pad_value=0) -> np.ndarray:
    """The im2col matrix (Ho*Wo, C1*kh*kw*c0) with columns ordered (c1, kh, kw, c0), written
    with plain loops over the padded map (independent of the emulator's index algebra)."""
    c, h, w = x.shape
    pl, pr, pt, pb = pad
    xp = np.full((c, h + pt + pb, w + pl + pr), pad_value, x.dtype)
    xp[:, pt:pt + h, pl:pl + w] = x
    c1 = -(-c // c0)
    xc = np.zeros((c1 * c0,) + xp.shape[1:], x.dtype)
    xc[:c] = xp
    if c1 * c0 > c:  # channel padding reads as the zeros the 5HD copy holds there
        xc[c:, pt:pt + h, pl:pl + w] = 0
        xc[c:] = np.where(np.pad(np.ones((h, w), bool), ((pt, pb), (pl, pr))), 0, pad_value)
    ho = (h + pt + pb - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (w + pl + pr - dil[1] * (kw - 1) - 1) // stride[1] + 1
    rows = []
    for i in range(ho):
        for j in range(wo):
            row = []
            for cb in range(c1):
                for a in range(kh):
                    for b in range(kw):
                        hh, ww = i * stride[0] + a * dil[0], j * stride[1] + b * dil[1]
                        row.extend(xc[cb * c0:(cb + 1) * c0, hh, ww])
            rows.append(row)
    return np.array(rows, x.dtype)


def zz(mat: np.ndarray, c0: int) -> np.ndarray:
    """(m, k) with m % 16 == 0, k % c0 == 0 -> L0A's ZZ fractal order, flat."""
    m, k = mat.shape
    return mat.reshape(m // 16, 16, k // c0, c0).transpose(0, 2, 1, 3).reshape(-1)


@asc.jit
def img2col_kernel(x: asc.GlobalAddress, n: int, code: int, l0a_bytes: int):
    """GM (5HD map) -> A1 -> load_3d per CALLS -> keep L0A's first l0a_bytes."""
    dt = (asc.float16, asc.int8, asc.float32)[code]
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a1 = asc.LocalTensor(dt, asc.TPosition.A1, 0, n)
    a2 = asc.LocalTensor(dt, asc.TPosition.A2, 0, l0a_bytes // dt.itemsize)
    asc.data_copy(a1, xg, n)
    for call in CALLS:
        if callable(call):
            call()
        else:
            asc.load_data(a2, a1, call)
    _keep_l0a(l0a_bytes)


DTYPES = {"float16": (np.float16, 0), "int8": (np.int8, 1), "float32": (np.float32, 2)}


def _run(fmap5: np.ndarray, np_dt, calls: list, l0a_bytes: int) -> tuple[np.ndarray, object]:
    OUT.clear()
    CALLS[:] = calls
    flat = np.ascontiguousarray(fmap5.reshape(-1))
    pad = (-flat.size) % (32 // flat.itemsize)
    flat = np.concatenate([flat, np.zeros(pad, flat.dtype)])
    run = ascendlab.launch(img2col_kernel, 1, flat, flat.size, DTYPES[np_dt.__name__][1],
                           l0a_bytes)
    return OUT[0].view(np_dt), run


def _data(rng, shape, np_dt):
    if np_dt == np.int8:
        return rng.integers(-100, 100, shape).astype(np.int8)
    return rng.standard_normal(shape).astype(np_dt)


CASES = [  # (C, H, W, kh, kw, stride (h, w), pad (l, r, t, b), dilation (h, w))
    (16, 5, 5, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1)),
    (16, 7, 6, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1)),
    (32, 6, 9, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1)),
    (16, 9, 9, 3, 3, (1, 1), (2, 2, 2, 2), (2, 2)),
    (3, 8, 7, 3, 2, (1, 2), (0, 1, 1, 0), (1, 1)),
    (20, 11, 5, 5, 3, (2, 1), (2, 1, 2, 2), (1, 2)),
    (48, 4, 4, 2, 2, (2, 2), (0, 0, 0, 0), (1, 1)),
    (16, 13, 3, 3, 1, (3, 1), (0, 0, 1, 1), (1, 1)),
]


@pytest.mark.parametrize("np_dt", [np.float16, np.int8, np.float32])
@pytest.mark.parametrize("case", CASES)
def test_v2_whole_matrix_matches_numpy_im2col(case, np_dt):
    cin, h, w, kh, kw, st, pad, dil = case
    c0 = 32 // np.dtype(np_dt).itemsize
    rng = np.random.default_rng(hash(case) % 2**32)
    x = _data(rng, (cin, h, w), np_dt)
    want = ref_im2col(x, kh, kw, st, pad, dil, c0, pad_value=0)
    m, k = want.shape
    c1 = -(-cin // c0)
    mr = -(-m // 16) * 16
    p = asc.LoadData3DParamsV2(pad, h, w, c1 * c0, k, m, 0, 0, st[1], st[0], kw, kh, dil[1],
                               dil[0], False, 0)
    got, run = _run(to_5hd(x, c0), np_dt, [p], mr * k * np.dtype(np_dt).itemsize)
    full = np.zeros((mr, k), np_dt)
    full[:m] = want
    np.testing.assert_array_equal(got, zz(full, c0))
    ev = [e for e in run.trace if e.op == "load_data_3d"]
    assert len(ev) == 1 and ev[0].pipe == "MTE1"
    assert ev[0].writes[0].space == "L0A"
    assert ev[0].writes[0].nbytes == mr * k * np.dtype(np_dt).itemsize


def test_v2_window_with_start_points_and_pad_value():
    cin, h, w, kh, kw = 32, 9, 10, 3, 3
    rng = np.random.default_rng(3)
    x = rng.standard_normal((cin, h, w)).astype(np.float16)
    want = ref_im2col(x, kh, kw, (1, 1), (1, 1, 1, 1), (1, 1), 16, pad_value=-2.5)
    m, k = want.shape  # 90 x 288
    p = asc.LoadData3DParamsV2((1, 1, 1, 1), h, w, cin, 64, 32, 160, 48, 1, 1, kw, kh, 1, 1,
                               False, -2.5)
    got, _ = _run(to_5hd(x, 16), np.float16, [p], 32 * 64 * 2)
    np.testing.assert_array_equal(got, zz(want[48:80, 160:224], 16))
    # the tail window: 90 - 80 = 10 rows, the rest of the last fractal is padding
    p = asc.LoadData3DParamsV2((1, 1, 1, 1), h, w, cin, 32, 10, 0, 80, 1, 1, kw, kh, 1, 1,
                               False, -2.5)
    got, _ = _run(to_5hd(x, 16), np.float16, [p], 16 * 32 * 2)
    tail = np.full((16, 32), -2.5, np.float16)
    tail[:10] = want[80:90, :32]
    np.testing.assert_array_equal(got, zz(tail, 16))


def test_v2_en_transpose_writes_the_transposed_window():
    cin, h, w = 16, 8, 8
    rng = np.random.default_rng(4)
    x = rng.standard_normal((cin, h, w)).astype(np.float16)
    want = ref_im2col(x, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 16)  # 64 x 144
    p = asc.LoadData3DParamsV2((1, 1, 1, 1), h, w, cin, 48, 32, 16, 16, 1, 1, 3, 3, 1, 1, True, 0)
    got, _ = _run(to_5hd(x, 16), np.float16, [p], 48 * 32 * 2)
    np.testing.assert_array_equal(got, zz(want[16:48, 16:64].T.copy(), 16))


def test_v2pro_reads_the_fmatrix_and_padding_registers():
    cin, h, w, kh, kw = 16, 7, 7, 3, 3
    rng = np.random.default_rng(5)
    x = rng.standard_normal((cin, h, w)).astype(np.float16)
    want = ref_im2col(x, kh, kw, (2, 2), (1, 0, 1, 0), (1, 1), 16, pad_value=7)  # 9 x 144
    ext = 144 | 9 << 16 | 0 << 32 | 0 << 48
    flt = 2 | 2 << 8 | kw << 16 | kh << 24 | 1 << 32 | 1 << 40
    calls = [lambda: asc.set_fmatrix(h, w, (1, 0, 1, 0), asc.FmatrixMode.FMATRIX_LEFT),
             lambda: asc.set_load_data_padding_value(7),
             asc.LoadData3DParamsV2Pro(cin, False, False, False, False, False, ext, flt)]
    got, run = _run(to_5hd(x, 16), np.float16, calls, 16 * 144 * 2)
    full = np.full((16, 144), 7, np.float16)
    full[:9] = want
    np.testing.assert_array_equal(got, zz(full, 16))
    ops = [e.op for e in run.trace]
    assert ops.index("set_fmatrix") < ops.index("load_data_3d")


def test_v2pro_without_fmatrix_says_which_register():
    p = asc.LoadData3DParamsV2Pro(16, False, False, False, False, True, 16 | 1 << 16)
    with pytest.raises(ParamError, match="FMATRIX_B, which no set_fmatrix"):
        _run(np.zeros((1, 4, 4, 16), np.float16), np.float16, [p], 512)


@pytest.mark.parametrize("mode", [0, 1])
def test_v1_fractals_per_repeat(mode):
    cin, h, w = 32, 6, 6
    rng = np.random.default_rng(6)
    x = rng.standard_normal((cin, h, w)).astype(np.float16)
    want = ref_im2col(x, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 16, pad_value=1)  # 36 x 288
    # window top-left (-1, -1) = pixel 0; c1 1, tap (0, 1); 2 repeats, 3 fractals apart
    p = asc.LoadData3DParamsV1((1, 1, 1, 1), h, w, 1, 1, 0, -1, -1, 1, 1, 3, 3, 1, 1, 3, mode,
                               2, 0, 1)
    got, _ = _run(to_5hd(x, 16), np.float16, [p], 4 * 512)
    got = got.reshape(4, 16, 16)
    tap = 9 + 1
    if mode == 0:
        frac = [want[0:16, tap * 16:(tap + 1) * 16], want[0:16, (tap + 1) * 16:(tap + 2) * 16]]
    else:
        frac = [want[0:16, tap * 16:(tap + 1) * 16], want[16:32, tap * 16:(tap + 1) * 16]]
    np.testing.assert_array_equal(got[0], frac[0])
    np.testing.assert_array_equal(got[3], frac[1])


@pytest.mark.parametrize("params, exc, match", [
    (asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 8, 16), AlignmentError,
     "k_extension=8 must be multiples of c0=16"),
    (asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 16, 8), AlignmentError,
     "m_extension=8 must be a multiple of 16"),
    (asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 32, 16), ParamError,
     r"columns \[0, 32\) overrun K"),
    (asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 16, 32), ParamError,
     r"rows \[0, 32\) overrun M"),
    (asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 16, 16, stride_w=64), ParamError,
     r"stride_w=64 is outside \[1, 63\]"),
    (asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 8, 16, 16), NotImplementedError,
     "channel_size=8 is not a positive multiple of c0=16"),
    (asc.LoadData3DParamsV2((0, 0, 0, 0), 2, 2, 16, 16, 16, filter_w=3, filter_h=3), ParamError,
     "does not fit"),
])
def test_v2_errors_name_the_field_and_limit(params, exc, match):
    with pytest.raises(exc, match=match):
        _run(np.zeros((1, 4, 4, 16), np.float16), np.float16, [params], 16 * 512)


@pytest.mark.parametrize("params, exc, match", [
    (asc.LoadData3DParamsV1((0, 0, 0, 0), 4, 4, 0, 3, 0, 0, 0, 1, 1, 3, 3), ParamError,
     "fetch_filter_w=3 is not a tap of a filter of size 3"),
    (asc.LoadData3DParamsV1((0, 0, 0, 0), 4, 4, 0, 0, 0, 0, 0, 1, 1, 3, 3, c_size=1),
     NotImplementedError, "c_size=1"),
    (asc.LoadData3DParamsV1((0, 0, 0, 0), 4, 4, 0, 0, 0, 1, 0, 2, 1, 3, 3), ParamError,
     "not the top-left of a window"),
    (asc.LoadData3DParamsV1((0, 0, 0, 0), 4, 4, 0, 2, 2, 0, 0, 1, 1, 3, 3, repeat_time=2),
     ParamError, "repeat 1 moves past the last tap"),
])
def test_v1_errors(params, exc, match):
    with pytest.raises(exc, match=match):
        _run(np.zeros((1, 4, 4, 16), np.float16), np.float16, [params], 4 * 512)


def test_l0a_capacity_is_checked():
    # a 160 x 1024 fp16 window is 320 KiB: more than the dst tensor (and L0A's 64 KiB)
    p = asc.LoadData3DParamsV2((0, 0, 0, 0), 16, 16, 64, 1024, 160, 0, 0, 1, 1, 4, 4, 1, 1)
    with pytest.raises(Exception, match="dst") as e:
        _run(np.zeros((4, 16, 16, 16), np.float16), np.float16, [p], 512)
    assert "L0A" in str(e.value)


@asc.jit
def bad_route(x: asc.GlobalAddress, which: int):
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 0, 256)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 512)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
    i8 = asc.LocalTensor(asc.int8, asc.TPosition.A2, 0, 512)
    p = asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 16, 16)
    if which == 0:
        asc.load_data(b2, b1, p)
    elif which == 1:
        asc.load_data(b2, a1, p)
    elif which == 2:
        asc.load_data(a2[16:], a1, p)  # 32 B into L0A
    else:
        asc.load_data(i8, a1, p)


@pytest.mark.parametrize("which, exc, match", [
    (0, NotImplementedError, "B1 -> B2 .img2col into L0B. is not emulated"),
    (1, PositionError, "A1 -> B2 is not a load_3d route"),
    (2, AlignmentError, "not 512 B aligned"),
    (3, DTypeError, "dst is int8 but src is float16"),
])
def test_route_alignment_and_type_errors(which, exc, match):
    with pytest.raises(exc, match=match):
        ascendlab.launch(bad_route, 1, np.zeros(16, np.float16), which)


def test_repeat_register_above_one_is_refused():
    p = asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 16, 16)
    calls = [lambda: asc.set_load_data_repeat(asc.LoadDataRepeatParam(2, 0, 0)), p]
    with pytest.raises(NotImplementedError, match="repeat_time=2"):
        _run(np.zeros((1, 4, 4, 16), np.float16), np.float16, calls, 512)


def test_boundary_register_is_refused():
    p = asc.LoadData3DParamsV2((0, 0, 0, 0), 4, 4, 16, 16, 16)
    calls = [lambda: asc.set_load_data_boundary(1024), p]
    with pytest.raises(NotImplementedError, match=r"set_load_data_boundary\(1024\)"):
        _run(np.zeros((1, 4, 4, 16), np.float16), np.float16, calls, 512)


def test_cost_uses_the_l1_to_l0a_rate():
    """The load's MTE1 busy time is bytes / the chip's L1->L0A rate, as for load_data 2D."""
    x = np.zeros((1, 8, 8, 16), np.float16)
    p = asc.LoadData3DParamsV2((1, 1, 1, 1), 8, 8, 16, 144, 64, 0, 0, 1, 1, 3, 3, 1, 1)
    _, run = _run(x, np.float16, [p], 64 * 144 * 2)
    nbytes = 64 * 144 * 2
    assert run.bytes_moved.get("L1->L0A") == nbytes
    want = nbytes / run.chip.l1_to_l0a_bytes_per_cycle
    assert run.pipe_busy["MTE1"] == pytest.approx(want, abs=1)


def test_grader_replays_v1_v2_and_v2pro_loads():
    """The grader re-derives a load_3d from its event (v2pro replays as the v2 load it
    resolved to) and gets the same trace and cycles."""
    from ascendlab.grader.replay import replay

    x = np.random.default_rng(8).standard_normal((1, 6, 6, 16)).astype(np.float16)
    calls = [asc.LoadData3DParamsV2((1, 1, 1, 1), 6, 6, 16, 144, 36, 0, 0, 1, 1, 3, 3, 1, 1,
                                    False, 0.5),
             asc.LoadData3DParamsV2Pro(16, False, False, False, False, False,
                                       32 | 16 << 16 | 16 << 32 | 16 << 48,
                                       1 | 1 << 8 | 3 << 16 | 3 << 24 | 1 << 32 | 1 << 40),
             asc.LoadData3DParamsV1((1, 1, 1, 1), 6, 6, 0, 2, 1, -1, -1, 1, 1, 3, 3, 1, 1, 2, 0,
                                    3, 0, 0.5),
             asc.LoadData3DParamsV2Pro(16)]  # pyasc's default ext_config 0: a no-op
    _, run = _run(x, np.float16, calls, 64 * 144 * 2)
    flat = np.ascontiguousarray(x.reshape(-1))
    rep = replay(run.trace, run.gm, {"x": flat}, run.chip, run.block_num, run.core_kind,
                 run.options, kernel=run.kernel)
    assert rep.trace == run.trace
    assert rep.cycles == run.cycles
    loads = [e for e in run.trace if e.op == "load_data_3d"]
    assert len(loads) == 4 and loads[3].writes == () and loads[3].count == 0
