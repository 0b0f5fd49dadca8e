"""Control registers (runtime/scalar/registers.py): the cmpMask round trip through UB, the held
settings and their argument checks."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import ParamError


@asc.jit
def cmp_mask(x: asc.GlobalAddress, z: asc.GlobalAddress, set_first: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 256, 128)
    asc.data_copy(a, xg, 128)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if set_first:
        asc.set_cmp_mask(a)
    asc.get_cmp_mask(b)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, b, 64)  # the 128 B get_cmp_mask wrote


def test_cmp_mask_round_trips_128_bytes():
    x = np.arange(128, dtype=np.float16)
    z = np.zeros(128, np.float16)
    run = ascendlab.launch(cmp_mask, 1, x, z, 1, sanitize=True)
    np.testing.assert_array_equal(z[:64], x[:64])  # 128 B = 64 float16 through the register
    assert not z[64:].any()
    ev = run.events(op="set_cmp_mask")[0]
    assert ev.pipe == "V" and ev.reads[0].nbytes == 128 and not ev.writes


def test_cmp_mask_never_set_reads_as_poison():
    z = np.zeros(128, np.float16)
    ascendlab.launch(cmp_mask, 1, np.zeros(128, np.float16), z, 0, strict=False)
    assert np.isnan(z[:64]).all()


@asc.jit
def held(which: asc.ConstExpr):
    asc.set_pad_value(37, asc.TPosition.VECIN)
    asc.set_load_data_boundary(1024)
    asc.set_load_data_padding_value(2.0)
    asc.set_load_data_repeat(asc.LoadDataRepeatParam(repeat_time=4, repeat_stride=8))
    asc.set_fix_pipe_pre_quant_flag(11)
    if which == "pos":
        asc.set_pad_value(1, asc.TPosition.A1)
    elif which == "repeat":
        asc.LoadDataRepeatParam(repeat_time=256)


def test_held_registers_are_scalar_events_with_their_values():
    run = ascendlab.launch(held, 1, "ok")
    got = {e.op: dict(e.args) for e in run.trace}
    assert got == {
        "set_pad_value": {"value": 37, "pos": "VECIN"},
        "set_load_data_boundary": {"boundary": 1024},
        "set_load_data_padding_value": {"value": 2.0},
        "set_load_data_repeat": {"repeat_time": 4, "repeat_stride": 8, "repeat_mode": 0},
        "set_fix_pipe_pre_quant_flag": {"config": 11},
    }
    assert {e.pipe for e in run.trace} == {"S"}


@pytest.mark.parametrize("which, words", [
    ("pos", "pos must be one of TPosition.MAX, VECIN, VECOUT, got A1"),
    ("repeat", r"repeat_time=256 is outside \[0, 255\]"),
])
def test_bad_register_values_are_named(which, words):
    with pytest.raises(ParamError, match=words):
        ascendlab.launch(held, 1, which)
