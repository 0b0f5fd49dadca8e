"""The grader re-executes the per-row vector instructions a kernel writes itself
(runtime/vector/rows.py: block_reduce_sum / max / min, pair_reduce_sum, repeat_reduce_sum,
brcb; replay/rows.py): honest traces replay to themselves, the replay computes them from the
grader's own inputs (numpy agrees), and a forged argument does not slip through."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.grader.replay import REPLAYABLE_OPS, ReplayMismatch
from ascendlab.runtime.trace import OPS

from .test_replay import _assert_same, _launch, _replay

ROW_OPS = ("block_reduce_sum", "block_reduce_max", "block_reduce_min", "pair_reduce_sum",
           "repeat_reduce_sum", "brcb")
N = 512  # float32 elements in, and out


@asc.jit
def _rows(x: asc.GlobalAddress, y: asc.GlobalAddress):
    """Each per-row instruction once or twice, with masks, strides, and is_set_mask=False."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, N)
    o = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, N)
    asc.data_copy(a, xg, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.duplicate(o, 0.0, N)
    asc.block_reduce_sum(o, a, 2, 64, 1, 1, 8)  # o[0:16]
    asc.block_reduce_max(o[16:], a, 2, [0x00FF00FF00FF00FF, 0], 2, 1, 8)  # o[16:24], [32:40]
    asc.block_reduce_min(o[48:], a[64:], 1, 32, 1, 1, 8)  # o[48:56]
    asc.pair_reduce_sum(o[64:], a, 2, 64, 1, 1, 8)  # o[64:128]
    asc.repeat_reduce_sum(o[128:], a, 3, 40, 0, 1, 2, 8)  # o[128], [130], [132]
    asc.set_vector_mask(0, 0x5555)  # lanes 0, 2, .., 14
    asc.repeat_reduce_sum(o[136:], a, 2, 0, 0, 1, 1, 8, False)  # o[136:138]
    asc.reset_mask()
    asc.brcb(o[256:], a[192:], 2, asc.BrcbRepeatParams(1, 8))  # o[256:384]
    asc.brcb(o[384:], a[208:], 1, asc.BrcbRepeatParams(2, 16))  # every other block
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(yg, o, N)


def _tree(rows):
    x = rows.astype(np.float32)
    while x.shape[-1] > 1:
        x = x[..., 0::2] + x[..., 1::2]
    return x[..., 0]


def _numpy(x):
    """What _rows writes, from numpy (float32: the tree and numpy's pairwise sums agree only
    up to rounding, so sums are compared with a tolerance)."""
    y = np.zeros(N, np.float32)
    y[0:16] = x[:128].reshape(16, 8).sum(1)
    blocks = x[:128].reshape(16, 8)
    y[16:24], y[32:40] = blocks[:8].max(1), blocks[8:].max(1)
    # mask 0x00FF.. keeps blocks 0, 2, 4, 6 of each repeat; the others get -inf
    y[[17, 19, 21, 23, 33, 35, 37, 39]] = -np.inf
    y[48:52] = x[64:96].reshape(4, 8).min(1)
    y[52:56] = np.inf
    y[64:128] = x[:128:2] + x[1:128:2]
    for i in range(3):
        y[128 + 2 * i] = x[64 * i:64 * i + 40].sum()
    for i in range(2):
        y[136 + i] = x[64 * i:64 * i + 16:2].sum()
    y[256:384] = np.repeat(x[192:208], 8)
    blk = np.zeros((16, 8), np.float32)
    blk[0::2] = x[208:216, None]
    y[384:512] = blk.ravel()
    return y


def _run(seed=0):
    x = np.random.default_rng(seed).uniform(-2, 2, N).astype(np.float32)
    return _launch(_rows, 1, x, np.zeros(N, np.float32))


def test_the_row_ops_are_re_issued_not_refused():
    assert set(ROW_OPS) <= REPLAYABLE_OPS
    assert all(OPS[op].replayable for op in ROW_OPS)


def test_a_kernel_using_every_row_op_replays_to_itself():
    run, start = _run()
    assert {e.op for e in run.trace} >= set(ROW_OPS)
    np.testing.assert_allclose(run.outputs["y"], _numpy(start["x"]), rtol=1e-6, atol=1e-6)
    _assert_same(run, start)


def test_the_replay_computes_the_rows_from_the_graders_inputs():
    run, start = _run()
    fresh = np.random.default_rng(7).uniform(-2, 2, N).astype(np.float32)
    rep = _replay(run, {"x": fresh, "y": start["y"]})
    got = rep.outputs["y"].view(np.float32)
    np.testing.assert_allclose(got, _numpy(fresh), rtol=1e-6, atol=1e-6)
    assert not np.allclose(got, run.outputs["y"])


@pytest.mark.parametrize("op,arg,delta", [("block_reduce_sum", "src_rep_stride", 1),
                                          ("pair_reduce_sum", "dst_rep_stride", 1),
                                          ("repeat_reduce_sum", "repeat_time", -1),
                                          ("brcb", "dst_rep_stride", 8)])
def test_a_forged_row_argument_is_caught(op, arg, delta):
    run, start = _run()
    events = list(run.trace)
    i = next(k for k, e in enumerate(events) if e.op == op)
    args = tuple((k, v + delta if k == arg else v) for k, v in events[i].args)
    events[i] = events[i]._replace(args=args)
    with pytest.raises(ReplayMismatch) as info:
        _replay(run, start, events)
    assert info.value.index == i
