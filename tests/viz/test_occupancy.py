"""Buffer occupancy: reserved bytes and bytes in use per local memory, against capacity."""

from __future__ import annotations

import numpy as np

from ascendlab.viz.occupancy import occupancy_model


def _at(o, t):
    k = np.searchsorted(o.t, t, side="right") - 1
    return int(o.in_use[k]) if k >= 0 else 0


def test_double_buffered_queues_reserve_six_slots(small):
    (ub,) = occupancy_model(small, core=0)
    tile = 1024 * 2
    assert ub.space == "UB" and ub.capacity == small.chip.ub_bytes
    assert ub.peak_reserved == 3 * 2 * tile  # x, y, z queues of 2 slots
    assert 2 * tile < ub.peak_in_use <= ub.peak_reserved  # overlap: more than one tile pair
    assert ub.in_use[-1] == 0  # every slot freed at the end
    assert (np.diff(ub.t) > 0).all() and (ub.in_use >= 0).all()


def test_single_buffer_never_holds_more_than_one_tile_per_queue(single):
    (ub,) = occupancy_model(single, core=0)
    assert ub.peak_reserved == 3 * 2048 and ub.peak_in_use <= 3 * 2048


def test_static_tensors_are_reserved_from_first_use_and_live_until_last_read(matmul):
    occ = {o.space: o for o in occupancy_model(matmul, core=1)}
    assert list(occ) == ["L1", "L0A", "L0B", "L0C"]
    m, k, n = 32, 64, 48
    assert occ["L1"].peak_reserved == (m * k + k * n) * 2
    assert occ["L0A"].peak_reserved == m * k * 2 and occ["L0B"].peak_reserved == k * n * 2
    assert occ["L0C"].peak_reserved == m * n * 4
    # A1/B1 in L1 are dead once load_data has read them; CO1 until fixpipe reads it
    assert occ["L1"].in_use[-1] == 0 and occ["L0C"].in_use[-1] == 0
    assert occ["L0A"].peak_in_use == m * k * 2
    cost = matmul.cost
    mmad = next(i for i, e in enumerate(matmul.trace) if e.core == 1 and e.op == "mmad")
    assert _at(occ["L0A"], cost.start[mmad]) == m * k * 2


def test_tbuf_liveness_in_layernorm(layernorm):
    (ub,) = occupancy_model(layernorm, core=0)
    assert ub.peak_reserved == 2 * 2 * 2048 + 2048 + 64  # in/out queues + the TBuf
    assert ub.peak_in_use <= ub.peak_reserved and ub.peak_in_use > 2048


def test_flags_kernel_static_ub_tensors(flags):
    (ub,) = occupancy_model(flags, core=0)
    assert ub.peak_reserved == 3 * 2 * 256 * 4  # x, y, z: two tiles of 256 float32 each
    assert 0 < ub.peak_in_use <= ub.peak_reserved
