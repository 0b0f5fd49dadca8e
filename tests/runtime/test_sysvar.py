"""System registers and mode setters (runtime/scalar/sysvar.py): S-pipe events, values they return,
what they change (init_soc_state, set_deq_scale's packed words), and trap / missing contexts."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import OutOfBoundsError, SyncError, TrapError
from ascendlab.runtime.core import MemcheckWarning


@asc.jit
def registers(out: asc.GlobalAddress, ws: asc.GlobalAddress):
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    asc.set_sys_workspace(ws)
    asc.set_hccl_context(1, ws + 8)
    asc.get_arch_version(0)
    og.set_value(0, asc.get_program_counter())
    og.set_value(1, asc.get_system_cycle())
    og.set_value(2, asc.get_system_cycle())
    w = asc.GlobalTensor()
    w.set_global_buffer(asc.get_sys_workspace())
    og.set_value(3, w.get_value(2))
    h = asc.GlobalTensor()
    h.set_global_buffer(asc.get_hccl_context(1))
    og.set_value(4, h.get_value(0))
    asc.set_hf32_mode(True)
    asc.set_hf32_trans_mode(False)
    asc.set_mm_layout_transform(True)


def test_registers_return_what_the_kernel_set():
    out = np.zeros(8, np.int64)
    ws = np.arange(16, dtype=np.int64) * 10
    run = ascendlab.launch(registers, 1, out, ws)
    assert out[0] == run.events(op="get_program_counter")[0].line  # the source line
    assert out[2] > out[1] > 0  # a counter of issued events, growing
    assert out[3] == 20 and out[4] == 80  # ws[2] and ws[8]
    s_ops = [e.op for e in run.trace if e.pipe == "S" and e.op.startswith(("get_", "set_h"))]
    assert s_ops[:4] == ["set_hccl_context", "get_arch_version", "get_program_counter",
                         "get_system_cycle"]
    modes = {e.op: dict(e.args)["mode"] for e in run.trace if e.op.startswith("set_hf32")
             or e.op == "set_mm_layout_transform"}
    assert modes == {"set_hf32_mode": True, "set_hf32_trans_mode": False,
                     "set_mm_layout_transform": True}


@asc.jit
def soc(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """init_soc_state turns the atomic mode and the counter mask mode off."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a, xg, 64)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.set_atomic_add(asc.float32)
    asc.set_mask_count()
    asc.init_soc_state()
    asc.data_copy(zg, a, 64)


def test_init_soc_state_resets_the_atomic_mode():
    x = np.arange(64, dtype=np.float32)
    z = np.full(64, 100.0, np.float32)
    run = ascendlab.launch(soc, 1, x, z)
    np.testing.assert_array_equal(z, x)  # overwritten, not accumulated
    assert run.events(op="init_soc_state")[0].pipe == "S"


@asc.jit
def deq(out: asc.GlobalAddress):
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    v = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0, 16)
    scales = [0.5 * (i + 1) for i in range(16)]
    offsets = [i - 8 for i in range(16)]
    signs = [i % 2 == 1 for i in range(16)]
    asc.set_deq_scale(1.0)
    asc.set_deq_scale(2.0, 5, False)
    asc.set_deq_scale(v, asc.VdeqInfo(scales, offsets, signs))
    asc.set_flag(asc.HardEvent.S_MTE3, 0)
    asc.wait_flag(asc.HardEvent.S_MTE3, 0)
    asc.data_copy(og, v, 16)


def test_set_deq_scale_packs_the_vdeq_words():
    out = np.zeros(16, np.uint64)
    run = ascendlab.launch(deq, 1, out)
    i = np.arange(16)
    scale_bits = (0.5 * (i + 1)).astype(np.float32).view(np.uint32).astype(np.uint64)
    want = ((i % 2).astype(np.uint64) << 46) | (((i - 8) & 0x1FF).astype(np.uint64) << 37) \
        | scale_bits
    np.testing.assert_array_equal(out, want)
    ev = run.events(op="set_deq_scale")
    assert [e.pipe for e in ev] == ["S"] * 3
    assert dict(ev[1].args) == {"config": (5 << 37) | int(np.float32(2.0).view(np.uint32))}


@asc.jit
def faults(which: asc.ConstExpr):
    if which == "trap":
        asc.trap()
    elif which == "pipe_s":
        asc.pipe_barrier(asc.PipeID.PIPE_S)
    elif which == "workspace":
        asc.get_sys_workspace()
    else:
        asc.get_hccl_context(3)


@pytest.mark.parametrize("which, exc, words", [
    ("trap", TrapError, "kernel stops here"),
    ("pipe_s", SyncError, r"PIPE_S\) is illegal"),
    ("workspace", OutOfBoundsError, "no system workspace was set"),
    ("hccl", OutOfBoundsError, "no HCCL context 3 was set"),
])
def test_faults_raise_when_strict_and_are_findings_otherwise(which, exc, words):
    with pytest.raises(exc, match=words):
        ascendlab.launch(faults, 1, which)
    with pytest.warns(MemcheckWarning, match=words):
        run = ascendlab.launch(faults, 1, which, strict=False)
    assert len(run.findings) == 1 and run.error is None
    assert run.findings[0].kind == ("synccheck" if which == "pipe_s" else "memcheck")
