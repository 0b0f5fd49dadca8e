"""TBufPool (runtime/framework/tbufpool.py): stages that reuse the same UB bytes, against numpy,
and the pool's rules."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import CapacityError, ParamError, QueueStateError

N = 256  # float32 elements per stage: 1 KiB buffers


def _stage(que_in, que_out, src, dst, scalar, mul):
    """One GM -> UB -> vector -> UB -> GM pass through two queues."""
    t = que_in.alloc_tensor(asc.float32)
    asc.data_copy(t, src, N)
    que_in.enque(t)
    a = que_in.deque(asc.float32)
    o = que_out.alloc_tensor(asc.float32)
    if mul:
        asc.muls(o, a, scalar, N)
    else:
        asc.adds(o, a, scalar, N)
    que_out.enque(o)
    que_in.free_tensor(a)
    r = que_out.deque(asc.float32)
    asc.data_copy(dst, r, N)
    que_out.free_tensor(r)


@asc.jit
def two_stages(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    pool0 = asc.TBufPool(asc.TPosition.VECCALC, 4)
    pool1 = asc.TBufPool(asc.TPosition.VECCALC, 4)
    pipe.init_buf_pool(pool0, 2 * N * 4)
    pipe.init_buf_pool(pool1, 2 * N * 4, share_buf=pool0)  # the same bytes
    qi = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    pool0.init_buffer(que=qi, num=1, len=N * 4)
    pool0.init_buffer(que=qo, num=1, len=N * 4)
    _stage(qi, qo, xg, zg, 2.0, True)  # z = 2x
    pool0.reset()
    qi2 = asc.TQue(asc.TPosition.VECIN, 1)
    qo2 = asc.TQue(asc.TPosition.VECOUT, 1)
    pool1.init_buffer(que=qi2, num=1, len=N * 4)
    pool1.init_buffer(que=qo2, num=1, len=N * 4)
    _stage(qi2, qo2, yg, zg[N:], 1.0, False)  # z[N:] = y + 1


def test_two_stages_share_the_pool_bytes():
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal(N, np.float32), rng.standard_normal(N, np.float32)
    z = np.zeros(2 * N, np.float32)
    run = ascendlab.launch(two_stages, 1, x, y, z)
    np.testing.assert_array_equal(z[:N], x * np.float32(2))
    np.testing.assert_array_equal(z[N:], y + np.float32(1))
    inits = [dict(e.args) for e in run.events(op="init_buffer")]
    assert [i["addr"] for i in inits] == [0, N * 4, 0, N * 4]  # stage 2 reuses stage 1's bytes
    assert all(i["space"] == "UB" for i in inits)
    # reset waits for both freed slots' flags (VECIN: V -> MTE2, VECOUT: MTE3 -> V), as the next
    # alloc_tensor of each would, so stage 2's copies cannot overtake stage 1's reads
    waits = [(e.pipe, e.sync.kind, e.sync.src, e.sync.dst) for e in run.events(op="pool_reset")]
    assert waits == [("MTE2", "wait", "V", "MTE2"), ("V", "wait", "MTE3", "V")]


@asc.jit
def pool_rule(x: asc.GlobalAddress, case: asc.ConstExpr[str]):
    pipe = asc.TPipe()
    pool = asc.TBufPool(asc.TPosition.VECIN, 2)
    q = asc.TQue(asc.TPosition.VECIN, 1)
    if case == "no_bytes":
        pool.init_buffer(que=q, num=1, len=256)
    pipe.init_buf_pool(pool, 512)
    if case == "too_long":
        pool.init_buffer(que=q, num=2, len=512)
    if case == "too_many":
        pool.init_buffer(que=q, num=3, len=32)
    if case == "after_reset":
        pool.init_buffer(que=q, num=1, len=256)
        pool.reset()
        q.alloc_tensor(asc.float32)
    if case == "sub_pool":
        sub = asc.TBufPool(asc.TPosition.VECIN, 2)
        pool.init_buf_pool(sub, 256)
        pool.init_buffer(que=q, num=1, len=256)  # sub took both of pool's buffer ids
    if case == "share_too_long":
        other = asc.TBufPool(asc.TPosition.VECIN, 2)
        pipe.init_buf_pool(other, 1024, share_buf=pool)


@pytest.mark.parametrize("case, exc, words", [
    ("no_bytes", QueueStateError, ["holds no bytes", "init_buf_pool"]),
    ("too_long", CapacityError, ["holds 512 B"]),
    ("too_many", CapacityError, ["3 buffers exceed", "buf_id_size=2"]),
    ("after_reset", QueueStateError, ["alloc_tensor", "no buffers"]),
    ("sub_pool", CapacityError, ["3 buffers exceed"]),
    ("share_too_long", CapacityError, ["len=1024 exceeds the 512 B"]),
])
def test_pool_rules(case, exc, words):
    with pytest.raises(exc) as info:
        ascendlab.launch(pool_rule, 1, np.zeros(8, np.float32), case)
    for w in words:
        assert w in str(info.value)
    assert "test_tbufpool.py:" in str(info.value)


def test_buf_id_size_is_at_most_16():
    @asc.jit
    def big(x: asc.GlobalAddress):
        asc.TBufPool(asc.TPosition.VECIN, 17)

    with pytest.raises(ParamError, match=r"buf_id_size=17 is outside \[1, 16\]"):
        ascendlab.launch(big, 1, np.zeros(8, np.float32))
