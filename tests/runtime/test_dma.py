"""data_copy (count and DataCopyParams forms) and data_copy_pad against numpy, plus memcheck."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import AlignmentError, DTypeError, OutOfBoundsError, ParamError
from ascendlab.runtime.core import MemcheckWarning


@asc.jit
def roundtrip(x: asc.GlobalAddress, z: asc.GlobalAddress, count: int, offset: int):
    """GM -> UB -> UB -> GM of `count` elements starting at element `offset`."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + offset)
    zg.set_global_buffer(z + offset)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 4096)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 32768, 4096)
    asc.data_copy(a, xg, count)
    asc.data_copy(b, a, count)
    asc.data_copy(zg, b, count)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.int8])
def test_count_form_roundtrip(dtype):
    x = (np.arange(2048) % 100).astype(dtype)
    z = np.zeros_like(x)
    run = ascendlab.launch(roundtrip, 1, x, z, 1024, 256)
    np.testing.assert_array_equal(z[256:1280], x[256:1280])
    assert not z[:256].any() and not z[1280:].any()
    pipes = [e.pipe for e in run.events(op="data_copy")]
    assert pipes == ["MTE2", "V", "MTE3"]  # GM->UB, UB->UB, UB->GM
    e = run.events(op="data_copy")[0]
    isz = np.dtype(dtype).itemsize
    assert e.reads[0].space == "GM" and e.reads[0].addr == run.gm["x"].base + 256 * isz
    assert e.writes[0].space == "UB" and e.writes[0].nbytes == 1024 * isz


def test_count_not_multiple_of_32_bytes_is_rounded_down():
    x = np.arange(64, dtype=np.float32)
    z = np.zeros_like(x)
    with pytest.raises(OutOfBoundsError, match="10 x float32 = 40 B is not a multiple of 32 B"):
        ascendlab.launch(roundtrip, 1, x, z, 10, 0)
    with pytest.warns(MemcheckWarning, match="moves only 32 B"):
        run = ascendlab.launch(roundtrip, 1, x, z, 10, 0, strict=False)
    np.testing.assert_array_equal(z[:8], x[:8])  # what the NPU really moves
    assert not z[8:].any()
    assert len(run.findings) == 3 and run.findings[0].kind == "memcheck"
    assert run.findings[0].lines[0].endswith("test_dma.py:" + str(run.trace[0].line))


def test_size_one_copy_moves_nothing_like_the_npu():
    x = np.ones(64, np.float32)
    z = np.zeros_like(x)
    with pytest.warns(MemcheckWarning):
        ascendlab.launch(roundtrip, 1, x, z, 1, 0, strict=False)
    assert not z.any()


def test_gm_overrun_is_reported_and_lands_in_the_guard():
    x = np.arange(512, dtype=np.float32)
    z = np.zeros(512, dtype=np.float32)
    canary = np.full(512, 7.0, np.float32)

    @asc.jit
    def overrun(x: asc.GlobalAddress, z: asc.GlobalAddress, c: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        zg = asc.GlobalTensor()
        xg.set_global_buffer(x + 448)
        zg.set_global_buffer(z + 448)
        a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 128)
        asc.data_copy(a, xg, 128)  # reads 64 past the end of x
        asc.data_copy(zg, a, 128)  # writes 64 past the end of z

    with pytest.raises(OutOfBoundsError, match=r"overrun the argument's 2048 B \(512 elements\)"):
        ascendlab.launch(overrun, 1, x, z, canary)
    with pytest.warns(MemcheckWarning):
        run = ascendlab.launch(overrun, 1, x, z, canary, strict=False)
    np.testing.assert_array_equal(z[448:], x[448:])
    assert (canary == 7.0).all() and (run.outputs["c"] == 7.0).all()
    assert [f.kind for f in run.findings] == ["memcheck", "memcheck"]
    assert "z" in run.findings[1].message and "core 0" in run.findings[1].message


def test_local_overrun_past_the_slot_is_reported():
    @asc.jit
    def slot_overrun(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 256)
        t = q.alloc_tensor(asc.float32)
        asc.data_copy(t, xg, 128)  # 512 B into a 256 B slot

    x = np.zeros(256, np.float32)
    with pytest.raises(OutOfBoundsError, match=r"dst bytes \[0, 512\) overrun VECIN tensor"):
        ascendlab.launch(slot_overrun, 1, x)


@asc.jit
def strided(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, cols: int, width: int):
    """Copy a rows x cols block out of a rows x width matrix and back, with DataCopyParams."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, rows * cols)
    gap = (width - cols) * x.dtype.sizeof() // 32
    asc.data_copy(t, xg, repeat_params=asc.DataCopyParams(rows, cols * x.dtype.sizeof() // 32,
                                                          gap, 0))
    asc.data_copy(zg, t, asc.DataCopyParams(rows, cols * x.dtype.sizeof() // 32, 0, gap))


def test_strided_copy_params_form():
    x = np.arange(16 * 64, dtype=np.float16).reshape(16, 64)
    z = np.zeros_like(x)
    run = ascendlab.launch(strided, 1, x, z, 16, 32, 64)
    np.testing.assert_array_equal(z[:, :32], x[:, :32])
    assert not z[:, 32:].any()
    rd = run.events(op="data_copy")[0].reads[0]
    assert (rd.count, rd.nbytes, rd.stride) == (16, 64, 128)
    assert run.events(op="data_copy")[0].repeats == 16


def test_copy_params_ranges_and_alignment():
    @asc.jit
    def bad_params(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, xg, asc.DataCopyParams(4096, 1, 0, 0))

    @asc.jit
    def misaligned(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t[1:], xg, 16)

    @asc.jit
    def mixed(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, xg, 16)

    x = np.zeros(64, np.float32)
    with pytest.raises(ParamError, match=r"block_count=4096 is outside \[0, 4095\]"):
        ascendlab.launch(bad_params, 1, x)
    with pytest.raises(AlignmentError, match="UB\\+4, not 32 B aligned"):
        ascendlab.launch(misaligned, 1, x)
    with pytest.raises(DTypeError, match="dst is float16 but src is float32"):
        ascendlab.launch(mixed, 1, x)


@asc.jit
def pad_roundtrip(x: asc.GlobalAddress, z: asc.GlobalAddress, u: asc.GlobalAddress,
                  rows: int, cols: int, left: int, right: int, is_pad: int):
    """Each row of `cols` (unaligned) elements GM->UB with padding, then UB->GM exactly."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    ug = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    ug.set_global_buffer(u)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 1024)
    isz = x.dtype.sizeof()
    asc.data_copy_pad(t, xg, asc.DataCopyExtParams(rows, cols * isz, 0, 0, 0),
                      asc.DataCopyPadExtParams(x.dtype, is_pad == 1, left, right, -1))
    row = ((left + cols + right) * isz + 31) // 32 * 32 // isz
    asc.data_copy(ug, t, rows * row)  # the padded UB image
    asc.data_copy_pad(zg, t, asc.DataCopyExtParams(rows, (left + cols) * isz, 0, 0, 0))


def test_data_copy_pad_padding_and_dummy_fill():
    rows, cols = 3, 10  # 20 B rows of float16: each pads to a 32 B UB block
    x = np.arange(1, rows * cols + 1, dtype=np.float16)
    z = np.zeros(rows * cols, np.float16)
    u = np.zeros(rows * 16, np.float16)
    ascendlab.launch(pad_roundtrip, 1, x, z, u, rows, cols, 0, 0, 0)
    img = u.reshape(rows, 16)
    np.testing.assert_array_equal(img[:, :cols], x.reshape(rows, cols))
    # no padding requested: the dummy bytes repeat each burst's first element
    np.testing.assert_array_equal(img[:, cols:], np.repeat(x.reshape(rows, cols)[:, :1], 6, 1))
    # left padding of 2 elements with value -1 (the rest of the 32 B block is padding too)
    z2 = np.zeros(rows * (cols + 2), np.float16)
    ascendlab.launch(pad_roundtrip, 1, x, z2, u, rows, cols, 2, 0, 1)
    img = u.reshape(rows, 16)
    assert (img[:, :2] == -1).all() and (img[:, 12:] == -1).all()
    np.testing.assert_array_equal(img[:, 2:12], x.reshape(rows, cols))
    np.testing.assert_array_equal(z2.reshape(rows, cols + 2), img[:, :cols + 2])


def test_data_copy_pad_unaligned_write_back_is_exact():
    # a row of 10 float16 written back lands exactly: the 11th element stays untouched
    rows, cols = 1, 10
    x = np.arange(1, 17, dtype=np.float16)
    z = np.full(16, 9, np.float16)
    u = np.zeros(16, np.float16)
    ascendlab.launch(pad_roundtrip, 1, x, z, u, rows, cols, 0, 0, 0)
    np.testing.assert_array_equal(z[:10], x[:10])
    assert (z[10:] == 9).all()


def test_data_copy_into_l0_is_a_position_error():
    @asc.jit(kernel_type=asc.runtime.config.KernelType.AIC_ONLY)
    def to_l0a(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        t = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        asc.data_copy(t, xg, 256)

    from ascendlab.errors import PositionError
    with pytest.raises(PositionError, match="cannot move GM -> L0A: L0A/L0B are filled by "
                                            "load_data"):
        ascendlab.launch(to_l0a, 1, np.zeros(256, np.float16))
