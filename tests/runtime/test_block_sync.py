"""ib_set / ib_wait and wait_pre_block / notify_next_block (runtime/sync/block.py): the GM flag
protocol, the cross-core edges the sanitizer orders by (paired with the unsynchronised twin),
and the waits the emulator cannot satisfy."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import SanitizerError, SyncError


@asc.jit
def chain(acc: asc.GlobalAddress, ws: asc.GlobalAddress, ordered: asc.ConstExpr[int]):
    """Each block adds (its index + 1) * 10 to acc[0]: read, add, write back, in block order."""
    ag = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    ag.set_global_buffer(acc)
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 256)
    if ordered:
        asc.wait_pre_block(wg, ub)
    v = ag.get_value(0)
    ag.set_value(0, v + (asc.get_block_idx() + 1) * 10)
    if ordered:
        asc.notify_next_block(wg, ub)


def test_block_order_chain_is_ordered_and_race_free():
    acc = np.zeros(8, np.int32)
    ws = np.zeros(256, np.int32)
    run = ascendlab.launch(chain, 4, acc, ws, 1, sanitize=True)  # strict: no finding
    assert acc[0] == 10 + 20 + 30 + 40
    waits = run.events(op="wait_pre_block")
    assert waits[0].sync is None  # block 0, round 0 waits for nothing
    assert [w.sync.key for w in waits[1:]] == [
        ("xcore", k - 1, k, ("block_order", 0)) for k in (1, 2, 3)]
    sets = {e.sync.key for e in run.events(op="notify_next_block")}
    assert {w.sync.key for w in waits[1:]} <= sets
    with pytest.raises(SanitizerError, match="racecheck"):
        ascendlab.launch(chain, 4, np.zeros(8, np.int32), ws, 0, sanitize=True)


@asc.jit
def handoff(data: asc.GlobalAddress, out: asc.GlobalAddress, ws: asc.GlobalAddress,
            synced: asc.ConstExpr[int]):
    """Block 0 writes data[0]; block 1 copies it to out[0] after ib_wait on block 0."""
    dg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    dg.set_global_buffer(data)
    og.set_global_buffer(out)
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 8)
    if asc.get_block_idx() == 0:
        dg.set_value(0, 1234)
        if synced:
            asc.ib_set(wg, ub, block_idx=0, event_id=1)
    else:
        if synced:
            asc.ib_wait(wg, ub, block_idx=0, event_id=1)
        og.set_value(0, dg.get_value(0))


def test_ib_set_wait_moves_the_flag_and_orders_the_cores():
    data = np.zeros(8, np.int32)
    out = np.zeros(8, np.int32)
    ws = np.full(64, 7, np.int32)
    ws[2 * 8 * 1 + 0 * 8] = 0  # the flag of (block 0, event 1) with 2 blocks starts clear
    run = ascendlab.launch(handoff, 2, data, out, ws, 1, sanitize=True)
    assert out[0] == 1234
    assert ws[16] == 0 and (np.delete(ws, 16) == 7).all()  # set, consumed; nothing else touched
    xset = [e for e in run.events(op="ib_set") if e.sync.kind == "xset"][0]
    xwait = run.events(op="ib_wait")[0]
    assert xset.sync.key == xwait.sync.key and xset.core == 0 and xwait.core == 1
    assert [e.sync.kind for e in run.events(op="ib_set")] == ["barrier", "xset"]
    with pytest.raises(SanitizerError, match="racecheck"):
        ascendlab.launch(handoff, 2, data, out, ws, 0, sanitize=True)


@asc.jit
def bad_wait(ws: asc.GlobalAddress, which: asc.ConstExpr):
    wg = asc.GlobalTensor()
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 8)
    if which == "later":  # block 0 waits for block 1, which the emulator runs afterwards
        if asc.get_block_idx() == 0:
            asc.ib_wait(wg, ub, 1, 0)
        else:
            asc.ib_set(wg, ub, 1, 0)
    elif which == "self":  # the last block waits for a flag nobody sets: the chip hangs
        asc.ib_wait(wg, ub, 0, 0)
    else:  # two sets with no wait between: the second spins on the chip
        asc.ib_set(wg, ub, 0, 0)
        asc.ib_set(wg, ub, 0, 0)


def test_unsatisfiable_waits_are_named():
    ws = np.zeros(64, np.int32)
    with pytest.raises(NotImplementedError, match="cores 1..1 run after core 0"):
        ascendlab.launch(bad_wait, 2, ws, "later")
    with pytest.raises(SyncError, match="no core is left to set it: the chip hangs"):
        ascendlab.launch(bad_wait, 1, ws, "self")
    with pytest.raises(SyncError, match="the flag is 1, not 0"):
        ascendlab.launch(bad_wait, 1, np.zeros(64, np.int32), "twice")
