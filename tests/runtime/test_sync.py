"""set_flag/wait_flag, pipe_barrier and sync_all: trace edges, rules, cross-core barrier."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import SyncError

X = np.zeros(8, np.float32)


@asc.jit
def flags(x: asc.GlobalAddress, which: asc.ConstExpr):
    if which == "ok":
        asc.set_flag(asc.HardEvent.MTE2_V, 3)
        asc.wait_flag(asc.HardEvent.MTE2_V, 3)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    elif which == "id":
        asc.set_flag(asc.HardEvent.MTE2_V, 8)
    elif which == "pipe_s":
        asc.pipe_barrier(asc.PipeID.PIPE_S)
    elif which == "cube_pipe":
        asc.set_flag(asc.HardEvent.MTE1_M, 0)


def test_flag_and_barrier_events():
    run = ascendlab.launch(flags, 1, X, "ok")
    got = [(e.op, e.pipe, e.sync.kind, e.sync.src, e.sync.dst, e.sync.key) for e in run.trace]
    assert got == [
        ("set_flag", "MTE2", "set", "MTE2", "V", ("flag", 3)),
        ("wait_flag", "V", "wait", "MTE2", "V", ("flag", 3)),
        ("pipe_barrier", "V", "barrier", "V", "V", ("barrier",)),
        ("pipe_barrier", "S", "barrier", "ALL", "ALL", ("barrier",)),
    ]
    assert dict(run.trace[0].args) == {"event": "MTE2_V", "event_id": 3}


@pytest.mark.parametrize("which, words", [
    ("id", r"event_id must be in \[0, 7\]"),
    ("pipe_s", "PIPE_S\\) is illegal"),
    ("cube_pipe", "vector \\(AIV\\) core of Ascend910B2 has no MTE1 pipe"),
])
def test_sync_rules(which, words):
    with pytest.raises(SyncError, match=words):
        ascendlab.launch(flags, 1, X, which)


@asc.jit
def neighbours(x: asc.GlobalAddress, out: asc.GlobalAddress, barrier: asc.ConstExpr[int]):
    """Each core publishes its index, then reads its right neighbour's."""
    i = asc.get_block_idx()
    n = asc.get_block_num()
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(out)
    xg.set_value(i, i + 100)
    if barrier:
        asc.sync_all()
    og.set_value(i, xg.get_value((i + 1) % n))


def test_sync_all_orders_cores():
    x = np.zeros(4, np.int32)
    out = np.zeros(4, np.int32)
    run = ascendlab.launch(neighbours, 4, x, out, 1)
    assert list(out) == [101, 102, 103, 100]
    # phases: every core's set_value comes before any core's post-barrier get_value
    ops = [(e.core, e.op) for e in run.trace if e.op in ("set_value", "get_value", "sync_all")]
    first_get = next(k for k, (_, op) in enumerate(ops) if op == "get_value")
    assert all(op != "get_value" for _, op in ops[:first_get])
    assert {c for c, op in ops[:first_get] if op == "set_value"} == {0, 1, 2, 3}
    # without the barrier, sequential cores see a neighbour that has not run yet
    out[:] = 0
    x[:] = 0
    ascendlab.launch(neighbours, 4, x, out, 0)
    assert list(out) == [0, 0, 0, 100]


@asc.jit
def uneven(x: asc.GlobalAddress):
    if asc.get_block_idx() != 1:
        asc.sync_all()


def test_sync_all_a_core_never_reaches_is_a_hang():
    with pytest.raises(SyncError, match="core 1 finished without reaching the sync_all"):
        ascendlab.launch(uneven, 3, X)


def test_block_idx_and_core_type_queries():
    @asc.jit
    def who(out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        i = asc.get_block_idx()
        g.set_value(3 * i, i)
        g.set_value(3 * i + 1, asc.ascend_is_aiv())
        g.set_value(3 * i + 2, asc.ascend_is_aic() * 10 + asc.get_data_block_size_in_bytes())

    out = np.zeros(6, np.int32)
    ascendlab.launch(who, 2, out)
    assert list(out) == [0, 1, 32, 1, 1, 32]
