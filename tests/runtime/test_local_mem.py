"""LocalMemAllocator (runtime/framework/local_mem.py): static tensors placed one after another,
against numpy, and its placement rules."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import AlignmentError, CapacityError, PositionError

N = 256


@asc.jit
def add_static(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
               a: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    ag = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    ag.set_global_buffer(a)
    alloc = asc.LocalMemAllocator()
    ag.set_value(0, alloc.get_cur_addr())
    xl = alloc.alloc(asc.TPosition.VECIN, asc.float32, N)
    yl = alloc.alloc(asc.TPosition.VECIN, asc.float32, N)
    zl = alloc.alloc(asc.TPosition.VECOUT, asc.float32, N)
    ag.set_value(1, alloc.get_cur_addr())
    ag.set_value(2, zl.get_phy_addr())
    asc.data_copy(xl, xg, N)
    asc.data_copy(yl, yg, N)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.add(zl, xl, yl, N)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, zl, N)


def test_tensors_follow_each_other():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(N, np.float32), rng.standard_normal(N, np.float32)
    z = np.zeros(N, np.float32)
    addrs = np.zeros(4, np.int32)
    ascendlab.launch(add_static, 1, x, y, z, addrs)
    np.testing.assert_array_equal(z, x + y)
    assert addrs[:3].tolist() == [0, 3 * N * 4, 2 * N * 4]


@asc.jit
def alloc_rule(x: asc.GlobalAddress, case: asc.ConstExpr[str]):
    alloc = asc.LocalMemAllocator(asc.Hardware.UB)
    if case == "too_big":
        alloc.alloc(asc.TPosition.VECIN, asc.float32, 1 << 20)
    if case == "unaligned":
        alloc.alloc(asc.TPosition.VECIN, asc.float16, 7)
        alloc.alloc(asc.TPosition.VECIN, asc.float16, 16)
    if case == "wrong_memory":
        alloc.alloc(asc.TPosition.GM, asc.float16, 16)


@pytest.mark.parametrize("case, exc, words", [
    ("too_big", CapacityError, ["need bytes up to 4194304", "196608 B"]),
    ("unaligned", AlignmentError, ["UB+14 is not 32 B aligned"]),
    ("wrong_memory", PositionError, ["position GM is not in UB"]),
])
def test_alloc_rules(case, exc, words):
    with pytest.raises(exc) as info:
        ascendlab.launch(alloc_rule, 1, np.zeros(8, np.float32), case)
    for w in words:
        assert w in str(info.value)
    assert "test_local_mem.py:" in str(info.value)


def test_unemulated_memories_say_so():
    @asc.jit
    def bias(x: asc.GlobalAddress):
        asc.LocalMemAllocator(asc.Hardware.BIAS)

    with pytest.raises(NotImplementedError, match="BIAS"):
        ascendlab.launch(bias, 1, np.zeros(8, np.float32))
