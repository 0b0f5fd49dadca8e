"""The vector unit: every element-wise instruction against numpy, in count and repeat forms."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import (
    AlignmentError,
    CoreTypeError,
    DTypeError,
    ParamError,
    PositionError,
)
from ascendlab.runtime.vector import elementwise as vector

from .kernels import vadd_framework

N = 512  # elements staged in UB per operand


@asc.jit
def binop(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, name: asc.ConstExpr,
          count: int):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    nb = 512 * x.dtype.sizeof()
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 512)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nb, 512)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nb, 512)
    asc.data_copy(a, xg, 512)
    asc.data_copy(b, yg, 512)
    asc.data_copy(c, zg, 512)
    getattr(asc, name)(c, a, b, count)
    asc.data_copy(zg, c, 512)


def _inputs(dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-4, 4, N).astype(dtype)
        y = rng.uniform(0.5, 4, N).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min // 2, info.max // 2, N).astype(dtype)
        y = rng.integers(1, 1000, N).astype(dtype)
    return x, y


NUMPY_BINARY = {
    "add": lambda a, b, d: a + b, "sub": lambda a, b, d: a - b, "mul": lambda a, b, d: a * b,
    "div": lambda a, b, d: a / b, "max": lambda a, b, d: np.maximum(a, b),
    "min": lambda a, b, d: np.minimum(a, b), "bitwise_and": lambda a, b, d: a & b,
    "bitwise_or": lambda a, b, d: a | b,
    "add_relu": lambda a, b, d: np.maximum(a + b, 0),
    "sub_relu": lambda a, b, d: np.maximum(a - b, 0),
    "fused_mul_add": lambda a, b, d: (a.astype(np.float64) * d + b).astype(a.dtype),
    "fused_mul_add_relu": lambda a, b, d: np.maximum(
        (a.astype(np.float64) * d + b).astype(a.dtype), 0),
    "mul_add_dst": lambda a, b, d: (a.astype(np.float64) * b + d).astype(a.dtype),
}
DTYPES = {"float16": np.float16, "float32": np.float32, "int16": np.int16, "int32": np.int32,
          "uint16": np.uint16}


@pytest.mark.parametrize("name", sorted(vector.BINARY))
@pytest.mark.parametrize("count", [N, 200, 7])  # full, a tail, fewer than a block
def test_binary_ops_match_numpy(name, count):
    for dtname in sorted(vector.BINARY[name][1]):
        dtype = DTYPES[dtname]
        x, y = _inputs(dtype)
        z0 = _inputs(dtype, seed=1)[0]
        z = z0.copy()
        with np.errstate(over="ignore"):
            ascendlab.launch(binop, 1, x, y, z, name, count)
            want = NUMPY_BINARY[name](x[:count], y[:count], z0[:count])
        np.testing.assert_array_equal(z[:count], want.astype(dtype), err_msg=f"{name} {dtname}")
        np.testing.assert_array_equal(z[count:], z0[count:])  # untouched beyond count


@asc.jit
def unop(x: asc.GlobalAddress, z: asc.GlobalAddress, name: asc.ConstExpr, count: int,
         scalar: asc.ConstExpr):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 512)
    c = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, 512)
    asc.data_copy(a, xg, 512)
    asc.data_copy(c, zg, 512)
    if scalar is None:
        getattr(asc, name)(c, a, count)
    else:
        getattr(asc, name)(c, a, scalar, count)
    asc.data_copy(zg, c, 512)


NUMPY_UNARY = {
    "abs": np.abs, "exp": np.exp, "ln": np.log, "sqrt": np.sqrt,
    "rsqrt": lambda v: 1 / np.sqrt(v), "reciprocal": lambda v: 1 / v,
    "relu": lambda v: np.maximum(v, 0), "bitwise_not": np.invert,
}


@pytest.mark.parametrize("name", sorted(vector.UNARY))
def test_unary_ops_match_numpy(name):
    for dtname in sorted(vector.UNARY[name][1]):
        dtype = DTYPES[dtname]
        x = _inputs(dtype)[1] if name in ("ln", "sqrt", "rsqrt") else _inputs(dtype)[0]
        z = np.zeros_like(x)
        ascendlab.launch(unop, 1, x, z, name, 300, None)
        want = NUMPY_UNARY[name](x[:300].astype(np.float64) if x.dtype.kind == "f"
                                 else x[:300])
        np.testing.assert_array_equal(z[:300], np.asarray(want).astype(dtype),
                                      err_msg=f"{name} {dtname}")


NUMPY_SCALAR = {
    "adds": lambda v, s: v + s, "muls": lambda v, s: v * s,
    "maxs": lambda v, s: np.maximum(v, s), "mins": lambda v, s: np.minimum(v, s),
    "leaky_relu": lambda v, s: np.where(v >= 0, v, v * s),
    "shift_left": lambda v, s: np.left_shift(v, s),
    "shift_right": lambda v, s: np.right_shift(v, s),
}


@pytest.mark.parametrize("name", sorted(vector.SCALAR))
def test_scalar_ops_match_numpy_with_scalar_cast_to_dtype(name):
    for dtname in sorted(vector.SCALAR[name][1]):
        dtype = DTYPES.get(dtname, np.uint32)
        x = _inputs(dtype)[1]
        z = np.zeros_like(x)
        scalar = 3 if np.dtype(dtype).kind in "iu" else 0.1  # 0.1 is not exact in float16
        ascendlab.launch(unop, 1, x, z, name, 256, scalar)
        s = np.asarray(scalar).astype(dtype)[()]
        np.testing.assert_array_equal(z[:256], NUMPY_SCALAR[name](x[:256], s).astype(dtype),
                                      err_msg=f"{name} {dtname}")


def test_axpy_and_duplicate():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, w: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        zg = asc.GlobalTensor()
        wg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        wg.set_global_buffer(w)
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
        acc = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 256)
        fill = asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, 4096, 256)
        asc.data_copy(a, xg, 256)
        asc.duplicate(acc, 1.5, 256)
        asc.axpy(acc, a, 2.0, 256)  # float16 src accumulating into float32
        asc.data_copy(zg, acc, 256)
        asc.duplicate(fill, 7, 256)
        asc.duplicate(fill, -1, 64, 2, 1, 8)  # mask form: first 64 lanes of 2 repeats
        asc.data_copy(wg, fill, 256)

    x = np.linspace(-2, 2, 256).astype(np.float16)
    z = np.zeros(256, np.float32)
    w = np.zeros(256, np.int16)
    ascendlab.launch(k, 1, x, z, w)
    np.testing.assert_array_equal(z, x.astype(np.float32) * 2 + 1.5)
    want = np.full(256, 7, np.int16)
    want[0:64] = -1
    want[128:192] = -1
    np.testing.assert_array_equal(w, want)


# ---- repeat forms: a plain-Python reference of the repeat/mask semantics ------------------
def _repeat_ref(dst, srcs, fn, lanes, repeats, strides):
    """dst/srcs: numpy arrays; strides: (blk, rep) in 32 B blocks for dst, then srcs."""
    out = dst.copy()
    pb = 32 // dst.itemsize
    def at(r, lane, blk, rep):
        return r * rep * pb + (lane // pb) * blk * pb + lane % pb

    for r in range(repeats):
        for lane in lanes:
            vals = [s[at(r, lane, *st)] for s, st in zip(srcs, strides[1:])]
            out[at(r, lane, *strides[0])] = fn(*vals)
    return out


@asc.jit
def binop_repeat(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                 name: asc.ConstExpr, mask: asc.ConstExpr, repeats: int, params: asc.ConstExpr):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2048)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 16384, 2048)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 32768, 2048)
    asc.data_copy(a, xg, 2048)
    asc.data_copy(b, yg, 2048)
    asc.data_copy(c, zg, 2048)
    getattr(asc, name)(c, a, b, mask, repeats, asc.BinaryRepeatParams(*params))
    asc.data_copy(zg, c, 2048)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("mask, params", [
    (64, (1, 1, 1, 8, 8, 8)),  # continuous mask, contiguous repeats
    ("bits", (1, 1, 1, 8, 8, 8)),  # bit mask
    (16, (2, 1, 1, 16, 8, 8)),  # dst block stride 2, repeat stride 16
    (32, (1, 2, 1, 8, 16, 0)),  # src1 repeat stride 0 re-reads the same 256 B
])
def test_binary_repeat_form_matches_reference(dtype, mask, params):
    lanes_per_repeat = 256 // np.dtype(dtype).itemsize
    if mask == "bits":
        bits = 0x0F0F_0000_FFFF_0001
        mask = [bits, bits] if lanes_per_repeat == 128 else [bits]
        lanes = [i for i in range(lanes_per_repeat) if (bits | (bits << 64)) >> i & 1]
    else:
        lanes = list(range(mask))
    x, y = _inputs(dtype)
    x = np.resize(x, 2048)
    y = np.resize(y, 2048)
    z0 = np.resize(_inputs(dtype, 2)[0], 2048)
    z = z0.copy()
    run = ascendlab.launch(binop_repeat, 1, x, y, z, "mul", mask, 3, params)
    strides = [(params[0], params[3]), (params[1], params[4]), (params[2], params[5])]
    want = _repeat_ref(z0, [x, y], lambda a, b: a * b, lanes, 3, strides)
    np.testing.assert_array_equal(z, want)
    ev = run.events(op="mul")[0]
    assert ev.repeats == 3 and ev.count == 3 * len(lanes)


def test_counter_mode_and_external_mask():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        zg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 512)
        asc.data_copy(a, xg, 512)
        asc.duplicate(c, 0.0, 512)
        asc.set_mask_count()
        asc.adds(c, a, 1.0, 150, 1, asc.UnaryRepeatParams())  # 150 elements; repeats ignored
        asc.set_mask_norm()
        asc.set_vector_mask(0, 0b1011)  # lanes 0, 1, 3 of each repeat
        asc.muls(c[256:], a[256:], 2.0, 64, 2, asc.UnaryRepeatParams(), False)
        asc.reset_mask()
        asc.data_copy(zg, c, 512)

    x = np.arange(512, dtype=np.float32)
    z = np.zeros_like(x)
    ascendlab.launch(k, 1, x, z)
    np.testing.assert_array_equal(z[:150], x[:150] + 1)
    assert not z[150:256].any()
    for r in range(2):
        base = 256 + 64 * r
        np.testing.assert_array_equal(z[base:base + 4], [2 * x[base], 2 * x[base + 1], 0,
                                                          2 * x[base + 3]])


@asc.jit
def bad_call(x: asc.GlobalAddress, which: asc.ConstExpr):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 2048, 256)
    i = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 4096, 256)
    p = asc.BinaryRepeatParams()
    if which == "mask":
        asc.add(a, a, a, 65, 1, p)
    elif which == "repeat":
        asc.add(a, a, a, 64, 256, p)
    elif which == "dtype":
        asc.add(a, a, h, 64)
    elif which == "div_int":
        asc.div(i, i, i, 64)
    elif which == "align":
        asc.add(a[4:], a, a, 16)
    elif which == "stride":
        asc.add(a, a, a, 64, 1, asc.BinaryRepeatParams(1, 1, 1, 256, 8, 8))
    elif which == "bits":
        asc.add(a, a, a, [1, 2, 3], 1, p)
    elif which == "kw":
        asc.add(a, a, a, cnt=64)


@pytest.mark.parametrize("which, exc, words", [
    ("mask", ParamError, r"continuous mask=65 is outside \[1, 64\]"),
    ("repeat", ParamError, r"repeat_times=256 is outside \[0, 255\]"),
    ("dtype", DTypeError, "src1 is float16 but dst is float32"),
    ("div_int", DTypeError, "div: int32 is not supported"),
    ("align", AlignmentError, "starts at UB\\+16, not 32 B aligned"),
    ("stride", ParamError, r"dst_rep_stride=256 is outside \[0, 255\]"),
    ("bits", ParamError, "bit mask is \\[low64\\] or \\[low64, high64\\]"),
    ("kw", TypeError, "expected \\(count\\)"),
])
def test_vector_rules(which, exc, words):
    with pytest.raises(exc, match=words):
        ascendlab.launch(bad_call, 1, np.zeros(8, np.float32), which)


@asc.jit(kernel_type=asc.runtime.config.KernelType.AIC_ONLY)
def vector_on_cube_core(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 256)
    asc.add(a, a, a, 64)


@asc.jit
def vector_on_l1(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 256)
    asc.add(a, a, a, 64)


def test_vector_instruction_on_a_cube_core_or_position_is_rejected():
    x = np.zeros(8, np.float32)
    with pytest.raises(CoreTypeError, match=r"vector instruction on a cube \(AIC\) core"):
        ascendlab.launch(vector_on_cube_core, 1, x)
    # 310P3 is a coupled chip: one core has UB and L1, but vector ops still read only UB
    with pytest.raises(PositionError, match="dst is in A1; vector instructions read"):
        ascendlab.launch(vector_on_l1, 1, x, chip="Ascend310P3")


def test_implicit_vector_barrier_follows_auto_sync():
    @asc.jit
    def chain(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 256)
        c = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 2048, 256)
        asc.duplicate(a, 1.0, 256)
        asc.exp(b, a, 256)  # reads a: RAW on duplicate -> barrier
        asc.abs(c, a, 256)  # reads a again: no new write since the barrier -> no barrier
        asc.add(c, b, c, 256)  # reads b and c written by vector ops -> barrier

    x = np.zeros(8, np.float32)
    run = ascendlab.launch(chain, 1, x)
    ops = [e.op for e in run.trace]
    assert ops == ["duplicate", "pipe_barrier", "exp", "abs", "pipe_barrier", "add"]
    barrier = run.trace[1]
    assert barrier.sync.kind == "barrier" and barrier.sync.implicit and barrier.pipe == "V"
    run = ascendlab.launch(chain, 1, x, auto_sync=False)
    assert [e.op for e in run.trace] == ["duplicate", "exp", "abs", "add"]


def test_every_vector_op_has_a_cost_class_and_a_pyasc_name():
    for table in (vector.BINARY, vector.UNARY, vector.SCALAR):
        for name in table:
            assert name in vector.VECTOR_OPS, name
            assert callable(getattr(asc, name)), name
    assert set(vector.VECTOR_OPS.values()) <= {"elementwise", "transcendental", "reduce",
                                               "convert", "compare"}


@pytest.mark.parametrize("name", sorted(vector.BINARY))
def test_every_binary_op_in_the_repeat_form(name):
    """A bit mask, a dst block stride of 2 and src repeat strides of 16: each op's values land
    exactly on the lanes the reference computes, the rest of dst is untouched."""
    params = (2, 1, 1, 16, 16, 16)
    for dtname in sorted(vector.BINARY[name][1]):
        dtype = DTYPES[dtname]
        lanes_per_repeat = 256 // np.dtype(dtype).itemsize
        bits = 0xF0F0_00FF_0000_0F01
        mask = [bits, bits] if lanes_per_repeat == 128 else [bits]
        lanes = [i for i in range(lanes_per_repeat) if (bits | (bits << 64)) >> i & 1]
        x, y = (np.resize(a, 2048) for a in _inputs(dtype))
        z0 = np.resize(_inputs(dtype, 2)[0], 2048)
        z = z0.copy()
        with np.errstate(over="ignore"):
            ascendlab.launch(binop_repeat, 1, x, y, z, name, mask, 2, params)
            want = _repeat_ref(z0, [x, y, z0], lambda a, b, d: NUMPY_BINARY[name](
                np.array([a]), np.array([b]), np.array([d]))[0], lanes, 2,
                [(2, 16), (1, 16), (1, 16), (2, 16)])
        np.testing.assert_array_equal(z, want.astype(dtype), err_msg=f"{name} {dtname}")


@asc.jit
def unop_repeat(x: asc.GlobalAddress, z: asc.GlobalAddress, name: asc.ConstExpr,
                mask: asc.ConstExpr, repeats: int, params: asc.ConstExpr):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2048)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 32768, 2048)
    asc.data_copy(a, xg, 2048)
    asc.data_copy(c, zg, 2048)
    getattr(asc, name)(c, a, mask, repeats, asc.UnaryRepeatParams(*params))
    asc.data_copy(zg, c, 2048)


@pytest.mark.parametrize("name", sorted(vector.UNARY))
def test_every_unary_op_in_the_repeat_form(name):
    params = (1, 2, 8, 16)  # src block stride 2: reads every other 32 B block
    for dtname in sorted(vector.UNARY[name][1]):
        dtype = DTYPES[dtname]
        x = np.resize(_inputs(dtype)[1] if name in ("ln", "sqrt", "rsqrt")
                      else _inputs(dtype)[0], 2048)
        z0 = np.zeros(2048, dtype)
        z = z0.copy()
        ascendlab.launch(unop_repeat, 1, x, z, name, 40, 3, params)
        fn = NUMPY_UNARY[name]

        def ref(v, fn=fn, dtype=dtype):
            w = fn(np.array([v], np.float64 if np.dtype(dtype).kind == "f" else dtype))[0]
            return np.asarray(w).astype(dtype)

        want = _repeat_ref(z0, [x], ref, list(range(40)), 3, [(1, 8), (2, 16)])
        np.testing.assert_array_equal(z, want, err_msg=f"{name} {dtname}")


@pytest.mark.torch
@pytest.mark.parametrize("op", sorted(vector.TORCH_F16))
def test_float16_ops_on_torch_give_numpys_bits(op):
    """vector.TORCH_F16 runs on torch's CPU kernels once torch is imported: for every float16
    value against shuffled float16 values (NaN payloads included) the bits are numpy's."""
    torch = pytest.importorskip("torch")
    assert torch is not None
    every = np.arange(65536, dtype=np.uint16).view(np.float16)
    rng = np.random.default_rng(7)
    fn, _ = vector.BINARY[op]
    for _ in range(4):
        other = rng.permutation(every)
        want = np.empty_like(every)
        with np.errstate(all="ignore"):
            fn(every, other, out=want)
        got = np.empty_like(every)
        assert vector.torch_f16(op, every, other, got)
        assert np.array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.torch
def test_a_float16_add_kernel_with_torch_imported_matches_numpy():
    pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    n = 8 * 1024
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    z = np.zeros_like(x)
    vadd_framework[4, None](x, y, z, n // 4, 512, 2)
    assert np.array_equal(z.view(np.uint16), (x + y).view(np.uint16))
