"""The cube path: data_copy(Nd2NzParams) -> load_data -> mmad -> fixpipe against numpy, the
fractal layouts, the rules each instruction enforces, and the trace it leaves."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.asc.runtime import config
from ascendlab.errors import (
    AlignmentError,
    CoreTypeError,
    DTypeError,
    OutOfBoundsError,
    ParamError,
    PositionError,
)
from ascendlab.runtime import core as _core
from ascendlab.runtime.cube.fixpipe import fixpipe
from ascendlab.runtime.cube.mmad import load_data, mmad

SNAPSHOTS: list[np.ndarray] = []


def snapshot(space):
    """Test hook callable from a kernel: keep a copy of the running core's `space` bytes."""
    SNAPSHOTS.append(_core.current.mem(space).copy())


@asc.jit
def matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, k: int,
           n: int, kt: int, f16_out: int):
    """c = a @ b for fp16 a (m x k), b (k x n): GM -> L1 (NZ) -> L0A/L0B -> L0C -> GM, with K
    split into mmad calls of kt (a multiple of 16) that accumulate in L0C."""
    a_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    c_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    m1 = (m + 15) // 16
    k1 = (k + 15) // 16
    n1 = (n + 15) // 16
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m1 * k1 * 256)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 256 * 1024, k1 * n1 * 256)
    # ND -> NZ: blocks of 16 columns, each m1*16 (resp. k1*16) rows tall, so L1 holds whole
    # 16x16 fractals, column-major over fractals: A's fractal (r, q) is at q*m1 + r.
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, m1 * 16, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, k, n, 0, n, k1 * 16, 1, 0))
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m1 * n1 * 256)
    kt1 = kt // 16
    for kk in range(0, k1, kt1):
        kc1 = kt1
        if kk + kc1 > k1:
            kc1 = k1 - kk
        kc = kc1 * 16
        if kk * 16 + kc > k:
            kc = k - kk * 16
        a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m1 * kc1 * 256)
        b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, kc1 * n1 * 256)
        for i in range(kc1):
            # A (ZZ: fractal (r, i) at r*kc1 + i): L1 column block kk+i holds the m1 fractals
            # (r, kk+i) one after the other; write them kc1 fractals apart (dst_gap kc1-1).
            load_data(a2[i * 256:], a1[(kk + i) * m1 * 256:],
                      asc.LoadData2DParams(0, m1, 1, 0, kc1 - 1, False, 0))
        for i in range(kc1):
            # B (ZN: fractal (i, q) at i*n1 + q, each stored transposed, n-major). In L1 the
            # fractal (kk+i, q) is at q*k1 + kk+i and row-major (k-major): start at kk+i, step
            # k1 fractals (one column block), and transpose each 16x16 fractal on the way.
            load_data(b2[i * n1 * 256:], b1,
                      asc.LoadData2DParams(kk + i, n1, k1, 0, 0, True, 0))
        mmad(co1, a2, b2, asc.MmadParams(m, n, kc, cmatrix_init_val=kk == 0))
    if f16_out:
        fixpipe(c_gm, co1, asc.FixpipeParamsV220(n, m, m1 * 16, n, asc.QuantModes.F322F16))
    else:
        fixpipe(c_gm, co1, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=m1 * 16,
                                                 dst_stride=n))


def _ints(rng, shape):
    return rng.integers(-4, 5, size=shape).astype(np.float16)


@pytest.mark.parametrize("m,k,n,kt", [(16, 16, 16, 16), (32, 48, 64, 48), (32, 48, 64, 32),
                                      (40, 24, 56, 32), (40, 24, 56, 16)])
def test_matmul_fp32_out_exact(m, k, n, kt):
    rng = np.random.default_rng(m * k * n + kt)
    a, b = _ints(rng, (m, k)), _ints(rng, (k, n))
    c = np.zeros((m, n), np.float32)
    run = ascendlab.launch(matmul, 1, a, b, c, m, k, n, kt, 0)
    assert run.core_kind == "aic"
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    assert len(run.events(op="mmad")) == -(-k // kt)


@pytest.mark.parametrize("m,k,n", [(32, 48, 64), (40, 24, 56)])
def test_matmul_fp16_out_and_random_floats(m, k, n):
    rng = np.random.default_rng(7)
    a, b = _ints(rng, (m, k)), _ints(rng, (k, n))
    c16 = np.zeros((m, n), np.float16)
    ascendlab.launch(matmul, 1, a, b, c16, m, k, n, 16, 1)
    np.testing.assert_array_equal(c16, (a.astype(np.float32) @ b.astype(np.float32))
                                  .astype(np.float16))
    a = rng.random((m, k)).astype(np.float16)
    b = rng.random((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    ascendlab.launch(matmul, 1, a, b, c, m, k, n, 16, 0)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-6)


def test_trace_pipes_counts_and_accesses():
    m, k, n = 32, 48, 64
    rng = np.random.default_rng(1)
    a, b, c = _ints(rng, (m, k)), _ints(rng, (k, n)), np.zeros((m, n), np.float32)
    run = ascendlab.launch(matmul, 1, a, b, c, m, k, n, 32, 0)
    assert [e.pipe for e in run.trace] == ["MTE2"] * 2 + ["MTE1"] * 4 + ["M"] \
        + ["MTE1"] * 2 + ["M", "FIX"]
    cp = run.events(op="data_copy")
    assert [e.count for e in cp] == [m * k, k * n]
    r = cp[0].reads[0]  # one burst of k halves per row, rows k halves apart
    assert (r.space, r.addr, r.nbytes, r.count, r.stride) == ("GM", run.gm["a"].base, 96, 32, 96)
    w = cp[0].writes[0]  # 3 column blocks of 32 rows x 32 B
    assert (w.space, w.addr, w.nbytes) == ("L1", 0, 3 * 32 * 32)
    ld = run.events(op="load_data")
    assert ld[0].repeats == 2 and ld[0].writes[0].stride == 2 * 512  # A: m1 = 2, dst_gap 1
    assert ld[2].reads[0].stride == 3 * 512 and ld[2].count == 4 * 256  # B: step k1, n1 = 4
    mm = run.events(op="mmad")
    assert [e.count for e in mm] == [m * n * 32, m * n * 16]
    assert [e.repeats for e in mm] == [2 * 4 * 2, 2 * 4 * 1]
    assert [dict(e.args)["init"] for e in mm] == [True, False]
    assert [r.space for r in mm[0].reads] == ["L0A", "L0B"]
    assert [r.space for r in mm[1].reads] == ["L0A", "L0B", "L0C"]  # accumulation reads C
    assert mm[0].writes[0].nbytes == 2 * 4 * 1024 and mm[0].dtype == "float16"
    fx = run.events(pipe="FIX")[0]
    assert fx.count == m * n and fx.dtype == "float32"
    g = fx.writes[0]
    assert (g.space, g.addr, g.nbytes, g.count, g.stride) == ("GM", run.gm["c"].base, 256, 32,
                                                             256)
    assert fx.reads[0].count == 4 and fx.reads[0].stride == 32 * 16 * 4


@asc.jit  # no cube instruction, but A1/B1 positions: runs on cube cores
def nd2nz_probe(x: asc.GlobalAddress):
    """Copy a 3 x 10 fp16 matrix into L1 and snapshot L1."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 1024, 1024)
    asc.data_copy(a1, xg, asc.Nd2NzParams(1, 3, 10, 0, 10, 16, 1, 0))
    snapshot("L1")


def test_nd2nz_layout_zero_fills_the_row_tail_and_leaves_padding_rows():
    SNAPSHOTS.clear()
    x = np.arange(1, 31, dtype=np.float16).reshape(3, 10)
    ascendlab.launch(nd2nz_probe, 1, x)
    l1 = SNAPSHOTS.pop().view(np.float16)[512:512 + 256].reshape(16, 16)
    np.testing.assert_array_equal(l1[:3, :10], x)
    assert not l1[:3, 10:].any()  # the rest of each row's 32 B unit is zero-filled
    assert np.isnan(l1[3:]).all()  # rows 3..15 of the fractal are not written (poison)


@asc.jit
def mmad_from_gm(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int,
                 k: int, n: int, fa: int, fb: int, nz_relu: int):
    """Fractal-ordered a (ZZ, or ND when m == 1) and b (ZN) straight from GM into L0A/L0B."""
    a_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    c_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    esz = a.dtype.sizeof()
    m1 = (m + 15) // 16
    n1 = (n + 15) // 16
    a2 = asc.LocalTensor(a.dtype, asc.TPosition.A2, 0, fa * 512 // esz)
    b2 = asc.LocalTensor(a.dtype, asc.TPosition.B2, 0, fb * 512 // esz)
    co1 = asc.LocalTensor(c.dtype, asc.TPosition.CO1, 0, m1 * n1 * 256)
    load_data(a2, a_gm, asc.LoadData2DParams(0, fa, 1, 0, 0, False, 0))
    load_data(b2, b_gm, asc.LoadData2DParams(0, fb, 1, 0, 0, False, 0))
    mmad(co1, a2, b2, asc.MmadParams(m, n, k))
    if nz_relu:
        fixpipe(c_gm, co1, asc.FixpipeParamsV220(n, m, m1 * 16, m * 16 * 4 // 32,
                                                 relu_en=True), asc.FixpipeConfig.cfg_nz)
    else:
        fixpipe(c_gm, co1, asc.FixpipeParamsV220(n, m, m1 * 16, n))


def _zz(a, c0):
    m, k = a.shape
    m1, k1 = -(-m // 16), -(-k // c0)
    p = np.zeros((m1 * 16, k1 * c0), a.dtype)
    p[:m, :k] = a
    return p.reshape(m1, 16, k1, c0).transpose(0, 2, 1, 3).reshape(-1)


def _zn(b, c0):
    k, n = b.shape
    k1, n1 = -(-k // c0), -(-n // 16)
    p = np.zeros((k1 * c0, n1 * 16), b.dtype)
    p[:k, :n] = b
    return p.reshape(k1, c0, n1, 16).transpose(0, 2, 3, 1).reshape(-1)


@pytest.mark.parametrize("dt,ct,m,k,n", [(np.float32, np.float32, 32, 24, 48),
                                         (np.int8, np.int32, 20, 64, 32),
                                         (np.float16, np.float32, 1, 40, 32)])
def test_mmad_layouts_per_dtype_and_gemv(dt, ct, m, k, n):
    rng = np.random.default_rng(3)
    a = rng.integers(-8, 9, size=(m, k)).astype(dt)
    b = rng.integers(-8, 9, size=(k, n)).astype(dt)
    c0 = 32 // np.dtype(dt).itemsize
    if m == 1:  # GEMV: A is read from L0A as a plain row (ADK Mmad.md)
        az = np.zeros(512 // np.dtype(dt).itemsize, dt)
        az[:k] = a[0]
    else:
        az = _zz(a, c0)
    bz = _zn(b, c0)
    c = np.zeros((m, n), ct)
    run = ascendlab.launch(mmad_from_gm, 1, az, bz, c, m, k, n, az.nbytes // 512,
                           bz.nbytes // 512, 0)
    ref = a.astype(np.int64) @ b.astype(np.int64)
    np.testing.assert_array_equal(c, ref.astype(ct))
    assert [e.pipe for e in run.events(op="load_data")] == ["MTE2", "MTE2"]  # GM -> L0A/L0B
    e = run.events(op="mmad")[0]
    assert dict(e.args)["rate"] == {np.float32: 0.25, np.int8: 2.0, np.float16: 1.0}[dt]
    assert e.repeats == -(-m // 16) * -(-n // 16) * -(-k // c0)


def test_fixpipe_nz_output_with_relu():
    m, k, n = 24, 16, 32
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 5, size=(m, k)).astype(np.float16)
    b = rng.integers(-4, 5, size=(k, n)).astype(np.float16)
    out = np.zeros((n // 16, m, 16), np.float32)
    ascendlab.launch(mmad_from_gm, 1, _zz(a, 16), _zn(b, 16), out, m, k, n, 2, 2, 1)
    ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    np.testing.assert_array_equal(out, ref.reshape(m, n // 16, 16).transpose(1, 0, 2))


@asc.jit
def misuse(x: asc.GlobalAddress, y: asc.GlobalAddress, case: int):
    """One misuse of the cube API per case (x is float32, y float16, both 256 elements)."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 4096)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 4096)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 4096)
    b2f = asc.LocalTensor(asc.float32, asc.TPosition.B2, 0, 2048)
    b1f = asc.LocalTensor(asc.float32, asc.TPosition.B1, 8192, 2048)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 4096)
    p = asc.LoadData2DParams(0, 1, 0, 0, 0, False, 0)
    mp = asc.MmadParams(16, 16, 16)
    if case == 0:
        load_data(a2[16:], a1, p)
    if case == 1:
        mmad(co1[128:], a2, b2, mp)
    if case == 2:
        mmad(co1, b2, b2, mp)
    if case == 3:
        load_data(b2, a1, p)
    if case == 4:
        mmad(co1, a2, b2f, mp)
    if case == 5:
        asc.data_copy(a1, xg, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
    if case == 6:
        mmad(co1, a2, b2, asc.MmadParams(4096, 16, 16))
    if case == 7:
        fixpipe(yg, co1, asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.DEQF16))
    if case == 8:
        fixpipe(yg, co1, asc.FixpipeParamsV220(16, 16, 16, 16))
    if case == 9:
        mmad(co1, a2, b2, co1, mp)
    if case == 10:
        load_data(b2f, b1f, asc.LoadData2DParams(0, 1, 0, 0, 0, True, 0))
    if case == 11:
        asc.data_copy(a1, yg, asc.Nd2NzParams(1, 32, 16, 0, 16, 32, 1, 0))
    if case == 12:
        load_data(a2, a1, asc.LoadData2DParams(0, 256, 0, 0, 0, False, 0))


@pytest.mark.parametrize("case,exc,words", [
    (0, AlignmentError, r"dst A2 tensor .* starts at L0A\+32, not 512 B aligned"),
    (1, AlignmentError, r"mmad: dst .* L0C\+512, not 1024 B aligned \(256 elements\)"),
    (2, PositionError, r"mmad: fm must be in A2, got B2 tensor"),
    (3, PositionError, r"A1 -> B2 is not a load_data route"),
    (4, DTypeError, r"fm float16 x filter float32 -> dst float32 is not supported"),
    (5, DTypeError, r"dst is float16 but src is float32"),
    (6, ParamError, r"MmadParams.m=4096 is outside \[0, 4095\]"),
    (7, NotImplementedError, r"quant_pre=DEQF16 is not emulated"),
    (8, DTypeError, r"NoQuant keeps float32 but dst is float16"),
    (9, NotImplementedError, r"mmad with a bias tensor"),
    (10, DTypeError, r"if_transpose needs a 2-byte type"),
    (11, OutOfBoundsError, r"GM bytes \[0, 1024\) of y .* overrun"),
    (12, ParamError, r"repeat_times=256 is outside \[0, 255\]"),
])
def test_rules(case, exc, words):
    x = np.zeros(256, np.float32)
    y = np.zeros(256, np.float16)
    with pytest.raises(exc, match=words) as info:
        ascendlab.launch(misuse, 1, x, y, case)
    assert "test_cube.py:" in str(info.value)  # ends with [core 0, file:line]


@asc.jit(kernel_type=config.KernelType.AIV_ONLY)
def mmad_on_vector_core():
    mmad(asc.LocalTensor(asc.float32), asc.LocalTensor(asc.float16),
         asc.LocalTensor(asc.float16), asc.MmadParams(16, 16, 16))


def test_mmad_on_a_vector_core_kernel():
    with pytest.raises(CoreTypeError, match=r"mmad: L0C exists only on cube \(AIC\) cores"):
        ascendlab.launch(mmad_on_vector_core, 1)


@asc.jit
def zero_k(c: asc.GlobalAddress):
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
    mmad(co1, a2, b2, asc.MmadParams(16, 16, 0))


def test_zero_dimension_skips_mmad_but_records_it():
    run = ascendlab.launch(zero_k, 1, np.zeros(4, np.float32))
    e = run.events(op="mmad")[0]
    assert e.pipe == "M" and e.count == 0 and e.reads == () and e.writes == ()
