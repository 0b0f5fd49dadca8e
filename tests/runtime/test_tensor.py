"""GlobalTensor and LocalTensor: views, addresses, scalar access, placement rules."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import AlignmentError, CapacityError, OutOfBoundsError, PositionError
from ascendlab.runtime.core import MemcheckWarning


def test_views_share_storage_and_report_addresses():
    @asc.jit
    def views(x: asc.GlobalAddress, out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        o = asc.GlobalTensor()
        g.set_global_buffer(x, 64)
        o.set_global_buffer(out)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 256, 64)
        asc.data_copy(t, g, 64)
        v = t[8:]
        w = t[8]  # an int index is a view too (pyasc)
        o.set_value(0, v.get_value(0))
        o.set_value(1, w.get_value(1))
        o.set_value(2, v.get_phy_addr())
        o.set_value(3, v.get_phy_addr(2))
        o.set_value(4, v.get_size())
        o.set_value(5, t.get_length())
        o.set_value(6, t.get_position() == asc.TPosition.VECCALC)
        o.set_value(7, g[10].get_value(0))
        o.set_value(8, g.get_size())
        o.set_value(9, g[16:].get_size())
        v.set_value(0, -1.5)
        o.set_value(10, t.get_value(8))
        u = t.reinterpret_cast(asc.int32)
        o.set_value(11, u.get_size())
        o.set_value(12, u.get_value(9))  # x[9] = 9.0 seen as int32 bits

    x = np.arange(64, dtype=np.float32)
    out = np.zeros(16, dtype=np.float64)
    run = ascendlab.launch(views, 1, x, out)
    assert list(out[:12]) == [8, 9, 256 + 32, 256 + 40, 56, 256, 1, 10, 64, 48, -1.5, 64]
    assert out[12] == np.float32(9).view(np.int32)
    sets = run.events(op="set_value")
    assert {e.pipe for e in sets} == {"S"}


def test_static_tensor_placement_rules():
    @asc.jit
    def place(x: asc.GlobalAddress, which: asc.ConstExpr):
        if which == "capacity":
            asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 196608 - 64, 32)
        elif which == "align":
            asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 48, 32)
        elif which == "gm":
            asc.LocalTensor(asc.float32, asc.TPosition.GM, 0, 32)

    @asc.jit(kernel_type=asc.runtime.config.KernelType.AIV_ONLY)
    def l1_on_aiv(x: asc.GlobalAddress):
        asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 32)

    x = np.zeros(8, np.float32)
    with pytest.raises(CapacityError, match=r"bytes \[196544, 196672\) exceed UB \(196608 B\)"):
        ascendlab.launch(place, 1, x, "capacity")
    with pytest.raises(AlignmentError, match="UB addresses must be 32 B aligned"):
        ascendlab.launch(place, 1, x, "align")
    with pytest.raises(PositionError, match="GM has no emulated local memory"):
        ascendlab.launch(place, 1, x, "gm")
    with pytest.raises(Exception, match="L1 exists only on cube \\(AIC\\) cores"):
        ascendlab.launch(l1_on_aiv, 1, x)


def test_fresh_local_memory_is_poisoned():
    @asc.jit
    def peek(x: asc.GlobalAddress, out: asc.GlobalAddress):
        o = asc.GlobalTensor()
        o.set_global_buffer(out)
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 16)
        o.set_value(0, t.get_value(0))
        i = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 64, 16)
        o.set_value(1, i.get_value(0))

    out = np.zeros(2, np.float32)
    ascendlab.launch(peek, 1, np.zeros(8, np.float32), out)
    assert np.isnan(out[0]) and out[1] == -1


def test_scalar_access_rules():
    @asc.jit
    def scalar(x: asc.GlobalAddress, which: asc.ConstExpr):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        if which == "gm_oob":
            g.set_value(8, 1.0)
        elif which == "local_oob":
            t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
            t.get_value(8)
        elif which == "slice":
            g[0:4]

    x = np.zeros(8, np.float32)
    with pytest.raises(OutOfBoundsError, match=r"element x\[8\] is outside x \(8 elements\)"):
        ascendlab.launch(scalar, 1, x, "gm_oob")
    with pytest.warns(MemcheckWarning):
        run = ascendlab.launch(scalar, 1, x, "gm_oob", strict=False)
    assert not x.any() and run.findings and run.outputs["x"].shape == (8,)
    with pytest.raises(OutOfBoundsError, match="element 8 is outside VECIN tensor"):
        ascendlab.launch(scalar, 1, x, "local_oob")
    with pytest.raises(RuntimeError, match="stop and step is not supported"):
        ascendlab.launch(scalar, 1, x, "slice")


def test_set_global_buffer_needs_an_address():
    @asc.jit
    def bad(x: asc.GlobalAddress, n: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(n)

    with pytest.raises(ValueError, match="needs a typed GlobalAddress"):
        ascendlab.launch(bad, 1, np.zeros(8, np.float32), 3)


def test_unemulated_tensor_methods_say_so():
    @asc.jit
    def k(x: asc.GlobalAddress, which: asc.ConstExpr):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
        if which == "print":
            t.print(8)
        elif which == "typo":
            t.get_valu(0)

    x = np.zeros(8, np.float32)
    with pytest.raises(NotImplementedError, match="LocalTensor.print is part of pyasc"):
        ascendlab.launch(k, 1, x, "print")
    with pytest.raises(AttributeError, match="no attribute 'get_valu'"):
        ascendlab.launch(k, 1, x, "typo")


@asc.jit
def add_first_element(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                      n: asc.ConstExpr[int]):
    """pyasc's insert_sync/test_vadd_scalar: a scalar read from a LocalTensorAuto."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    xl = asc.LocalTensorAuto(x.dtype, n)
    yl = asc.LocalTensorAuto(y.dtype, n)
    asc.data_copy(xl, xg, n)
    asc.data_copy(yl, yg, n)
    val = yl.get_value(0)
    yl0 = asc.LocalTensorAuto(y.dtype, n)
    asc.duplicate(yl0, val, n)
    zl = asc.LocalTensorAuto(z.dtype, n)
    asc.add(zl, xl, yl0, n)
    asc.data_copy(zg, zl, n)


def test_scalar_read_of_a_local_tensor_auto():
    rng = np.random.default_rng(5)
    x, y = rng.random(64, dtype=np.float32), rng.random(64, dtype=np.float32)
    z = np.zeros_like(x)
    run = add_first_element[1](x, y, z, 64)
    np.testing.assert_array_equal(z, x + y[0])
    reads = [e for e in run.trace if e.op == "get_value"]
    assert len(reads) == 1 and "LocalTensorAuto auto@" in reads[0].reads[0].name


@asc.jit
def call_views(x: asc.GlobalAddress, out: asc.GlobalAddress):
    """pyasc's call operator t(i) and GlobalTensor's shape info / cache hint."""
    g = asc.GlobalTensor()
    o = asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(out)
    g.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, [4, 16])))
    g.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE, asc.CacheRwMode.READ)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
    asc.data_copy(t, g, 64)
    o.set_value(0, g(5).get_value(0))  # x[5]
    o.set_value(1, t(7).get_value(1))  # x[8]
    o.set_value(2, asc.get_shape_size(g(3).get_shape_info()))  # a view keeps it: 64
    o.set_value(3, asc.get_shape_size(asc.ShapeInfo()))  # no dims: 1


def test_call_operator_views_and_global_shape_info():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(4, np.float32)
    ascendlab.launch(call_views, 1, x, out)
    assert out.tolist() == [5.0, 8.0, 64.0, 1.0]
