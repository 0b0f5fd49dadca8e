"""pyasc's data-copy / cube parameter structs and init_const_value, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import OutOfBoundsError, PositionError
from ascendlab.runtime import core as _core

SNAP: list[np.ndarray] = []


def snapshot(space):
    SNAP.append(_core.current.mem(space).copy())


@asc.jit
def fill(pos: asc.ConstExpr, rep: int, blocks: int, gap: int, value: asc.ConstExpr):
    t = asc.LocalTensor(asc.float16, pos, 0, 4096)
    asc.init_const_value(t, asc.InitConstValueParams(rep, blocks, gap, value))
    snapshot("L1" if pos in (asc.TPosition.A1, asc.TPosition.B1) else
             ("L0A" if pos == asc.TPosition.A2 else "L0B"))


@pytest.mark.parametrize("pos, unit, pipe", [(asc.TPosition.A1, 32, "MTE2"),
                                             (asc.TPosition.B2, 512, "MTE1")])
def test_init_const_value_fills_iterations_with_gaps(pos, unit, pipe):
    SNAP.clear()
    run = ascendlab.launch(fill, 1, pos, 3, 2, 1, np.float16(2.2), chip="Ascend910B1")
    got = SNAP[0][:3 * 3 * unit].view(np.float16)
    want = got.copy()
    for r in range(3):  # 2 blocks written, then 1 block of gap
        want[r * 3 * unit // 2:(r * 3 + 2) * unit // 2] = np.float16(2.2)
    np.testing.assert_array_equal(got, want)
    assert (got[:unit] == np.float16(2.2)).all() and not (got[2 * unit // 2:3 * unit // 2]
                                                          == np.float16(2.2)).all()
    (ev,) = run.events(op="init_const_value")
    assert ev.pipe == pipe and ev.count == 3 * 2 * unit // 2


def test_init_const_value_rules():
    with pytest.raises(OutOfBoundsError, match="past dst"):
        ascendlab.launch(fill, 1, asc.TPosition.A1, 300, 1, 0, np.float16(1), chip="Ascend910B1")
    with pytest.raises(PositionError, match="A1, B1, A2 or B2"):
        ascendlab.launch(fill, 1, asc.TPosition.CO1, 1, 1, 0, np.float16(1), chip="Ascend910B1")


def test_structs_have_pyasc_fields_and_defaults():
    assert asc.SliceInfo() == (0, 31, 0, 32, 0)
    e = asc.DataCopyEnhancedParams()
    assert e.block_mode is asc.BlockMode.BLOCK_MODE_NORMAL and e.deq_scale is asc.DeqScale.DEQ_NONE
    assert e.pad_mode_in is asc.pad_t.PAD_NONE and e.pad_value_in == 0
    nz = asc.Nz2NdParamsFull(1, 32, 32, 1, 32, 32, 1)
    assert nz.dst_nd_matrix_stride == 1 and len(nz) == 7
    co = asc.DataCopyCO12DstParams(16, 1, 16, 1)
    assert co.quant_pre is asc.QuantModes.NoQuant and co.nz2nd_en is False
    assert asc.InitConstValueParams() == (0, 0, 0, 0)
