"""Hand-written MIX kernels (runtime/sync/cross_core.py, scheduler.Lockstep.block_until): the AIC
computes a matmul tile into a GM workspace, the two AIVs of its group post-process their halves
once cross_core_wait_flag lets them; checked against numpy, with the trace's cross-core edges,
the cost model holding the AIVs, the sanitizer ordering the GM accesses by the flags (and
reporting the race without them), the deadlock error and the rules."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.analysis.sanitizer import sanitize
from ascendlab.errors import SyncError

M, K, N = 32, 32, 32  # one tile per group: A_g (M x K) @ B (K x N), fp16 in, fp32 out


def _cube_tile(a, b, ws, g):
    """AIC: ws[g] = a[g] @ b through L1 (NZ), L0A/L0B, L0C and fixpipe (one 32 x 32 tile)."""
    a_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    w_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a + g * M * K)
    b_gm.set_global_buffer(b)
    w_gm.set_global_buffer(ws + g * M * N)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, M * K)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 64 * 1024, K * N)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, N, 0, N, K, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, M * K)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, K * N)
    for i in range(K // 16):
        asc.load_data(a2[i * 256:], a1[i * (M // 16) * 256:],
                      asc.LoadData2DParams(0, M // 16, 1, 0, K // 16 - 1, False, 0))
        asc.load_data(b2[i * (N // 16) * 256:], b1,
                      asc.LoadData2DParams(i, N // 16, K // 16, 0, 0, True, 0))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
    asc.mmad(co1, a2, b2, asc.MmadParams(M, N, K))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(w_gm, co1, asc.FixpipeParamsV220(n_size=N, m_size=M, src_stride=M,
                                                 dst_stride=N))


def _vector_half(ws, out, v, scale):
    """AIV v: out rows of its half = relu(ws rows) * scale."""
    half = M // 2 * N
    w_gm = asc.GlobalTensor()
    o_gm = asc.GlobalTensor()
    w_gm.set_global_buffer(ws + v * half)
    o_gm.set_global_buffer(out + v * half)
    x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, half)
    y = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, half * 4, half)
    asc.data_copy(x, w_gm, half)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.relu(y, x, half)
    asc.muls(y, y, scale, half)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(o_gm, y, half)


@asc.jit
def mix_relu_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress,
                    out: asc.GlobalAddress, scale: float, wait: asc.ConstExpr[bool],
                    flag: asc.ConstExpr[int]):
    """out = relu(a @ b) * scale: each group's AIC makes its tile, its two AIVs finish it."""
    if asc.ascend_is_aic():
        g = asc.get_block_idx()
        _cube_tile(a, b, ws, g)
        asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_FIX)
    if asc.ascend_is_aiv():
        if wait:
            asc.cross_core_wait_flag(flag, 2, asc.PipeID.PIPE_MTE2)
        _vector_half(ws, out, asc.get_block_idx(), scale)


@asc.jit(kernel_type=asc.runtime.config.KernelType.MIX_AIC_1_2)
def mix_no_wait(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress,
                out: asc.GlobalAddress, scale: float):
    """The same without any wait: the AIVs read the workspace before the AIC wrote it."""
    if asc.ascend_is_aic():
        _cube_tile(a, b, ws, asc.get_block_idx())
    if asc.ascend_is_aiv():
        _vector_half(ws, out, asc.get_block_idx(), scale)


def _inputs(groups):
    rng = np.random.default_rng(groups)
    a = rng.integers(-3, 4, (groups * M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    return a, b, np.zeros((groups * M, N), np.float32), np.zeros((groups * M, N), np.float32)


@pytest.mark.parametrize("groups", [1, 2])
def test_aic_matmul_then_aiv_relu_matches_numpy(groups):
    a, b, ws, out = _inputs(groups)
    run = mix_relu_matmul[groups](a, b, ws, out, 0.5, True, 0)
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0) * 0.5
    np.testing.assert_array_equal(out, want)
    assert run.core_kind == "mix"
    kinds = run.core_kinds
    assert sorted(k for k, v in kinds.items() if v == "aic") == list(range(2 * groups,
                                                                            3 * groups))
    assert not sanitize(run)
    # one xset per receiving AIV, one xwait on each AIV, keyed (setter, waiter, mode, flag)
    sets = [e for e in run.trace if e.op == "cross_core_set_flag"]
    waits = [e for e in run.trace if e.op == "cross_core_wait_flag"]
    assert len(sets) == len(waits) == 2 * groups
    assert {e.sync.key for e in sets} == {e.sync.key for e in waits}
    assert all(e.pipe == "FIX" and e.sync.kind == "xset" for e in sets)
    assert all(e.pipe == "S" and e.sync.kind == "xwait" and e.sync.src == "FIX" for e in waits)
    assert dict(waits[0].args) == {"flag_id": 0, "mode_id": 2, "pipe": "MTE2",
                                   "from": 2 * groups}


def test_the_cost_model_holds_the_aivs_until_the_fixpipe():
    a, b, ws, out = _inputs(1)
    run = mix_relu_matmul[1](a, b, ws, out, 1.0, True, 0)
    cost = run.cost
    fix = next(i for i, e in enumerate(run.trace) if e.op == "fixpipe")
    for v in (0, 1):
        load = next(i for i, e in enumerate(run.trace) if e.core == v and e.op == "data_copy")
        assert cost.start[load] >= cost.end[fix]
    # without the flags the AIVs would start at once: their loads begin before the fixpipe ends
    run2 = mix_no_wait[1](a, b, np.zeros_like(ws), np.zeros_like(out), 1.0)
    load2 = next(i for i, e in enumerate(run2.trace) if e.core == 0 and e.op == "data_copy")
    fix2 = next(i for i, e in enumerate(run2.trace) if e.op == "fixpipe")
    assert run2.cost.start[load2] < run2.cost.end[fix2]


def test_without_the_flags_the_sanitizer_reports_the_gm_race():
    a, b, ws, out = _inputs(1)
    run = mix_no_wait[1](a, b, ws, out, 1.0)
    assert not out.any()  # the AIVs ran first and read the zero workspace
    found = sanitize(run)
    assert found and any("ws" in f.message for f in found)


def test_a_wait_without_its_set_is_a_deadlock_error():
    a, b, ws, out = _inputs(1)
    with pytest.raises(SyncError, match=r"deadlock: core 0 \(AIV\) waits at "
                       r"cross_core_wait_flag\(flag_id=3, mode_id=2\).*from core\(s\) 2"):
        mix_relu_matmul[1](a, b, ws, out, 1.0, True, 3)


@asc.jit(kernel_type=asc.runtime.config.KernelType.MIX_AIC_1_2)
def aiv_ring(x: asc.GlobalAddress, mode: asc.ConstExpr[int]):
    """Mode 0 / 1 on the vector cores of a MIX kernel: every AIV sets, then waits."""
    if asc.ascend_is_aiv():
        asc.cross_core_set_flag(1, mode, asc.PipeID.PIPE_MTE3)
        asc.cross_core_wait_flag(1, mode, asc.PipeID.PIPE_S)


@pytest.mark.parametrize("mode, per_wait", [(0, 4), (1, 2)])
def test_modes_0_and_1_wait_for_every_peer(mode, per_wait):
    run = aiv_ring[2](np.zeros(8, np.float32), mode)
    waits = [e for e in run.trace if e.op == "cross_core_wait_flag"]
    assert len(waits) == 4 * per_wait  # 4 AIVs, one xwait per sender
    assert {dict(e.args)["from"] for e in waits if e.core == 1} == (
        {0, 1, 2, 3} if mode == 0 else {0, 1})


@asc.jit(kernel_type=asc.runtime.config.KernelType.MIX_AIC_1_2)
def bad_flag(x: asc.GlobalAddress, case: asc.ConstExpr[int]):
    if asc.ascend_is_aiv():
        if case == 0:
            asc.cross_core_set_flag(11, 2, asc.PipeID.PIPE_V)
        if case == 1:
            asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_FIX)
        if case == 2:
            for _ in range(16):
                asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_V)
        if case == 3:
            asc.cross_core_wait_flag(0, 3, asc.PipeID.PIPE_V)


@pytest.mark.parametrize("case, words", [(0, "flag_id=11 is outside"), (1, "has no FIX pipe"),
                                         (2, "already holds 15 sets"),
                                         (3, "mode_id=3 is not")])
def test_rules(case, words):
    with pytest.raises(SyncError, match=words):
        bad_flag[1](np.zeros(8, np.float32), case)


@asc.jit(kernel_type=asc.runtime.config.KernelType.AIV_ONLY)
def aiv_only_mode2(x: asc.GlobalAddress):
    asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_V)


def test_mode_2_needs_a_mix_kernel():
    with pytest.raises(SyncError, match="needs a MIX kernel"):
        aiv_only_mode2[1](np.zeros(8, np.float32))


def test_the_launch_is_a_run_the_package_returns():
    a, b, ws, out = _inputs(1)
    run = ascendlab.launch(mix_relu_matmul, 1, a, b, ws, out, 2.0, True, 0)
    assert run.block_num == 1 and run.cycles > 0


@asc.jit
def mix_then_sync_all(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress,
                      out: asc.GlobalAddress, cube_sync: asc.ConstExpr[bool]):
    """The AIVs finish their halves, sync_all among themselves, and AIV 0 of group 0 doubles
    row 0 of the other half; the AIC never calls sync_all (is_aiv_only)."""
    if asc.ascend_is_aic():
        _cube_tile(a, b, ws, asc.get_block_idx())
        asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_FIX)
        if cube_sync:
            asc.sync_all()
    if asc.ascend_is_aiv():
        asc.cross_core_wait_flag(0, 2, asc.PipeID.PIPE_MTE2)
        v = asc.get_block_idx()
        _vector_half(ws, out, v, 1.0)
        asc.sync_all()
        if v == 0:
            o = asc.GlobalTensor()
            o.set_global_buffer(out)
            row = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
            asc.data_copy(row, o[M // 2 * N:], N)
            asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
            asc.data_copy(o, row, N)


def test_sync_all_in_a_mix_kernel_holds_the_vector_cores():
    a, b, ws, out = _inputs(1)
    run = mix_then_sync_all[1](a, b, ws, out, False)
    assert not sanitize(run)
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    want[0] = want[M // 2]
    np.testing.assert_array_equal(out, want)
    with pytest.raises(SyncError, match="sync_all on core 2, a cube"):
        mix_then_sync_all[1](a, b, ws, out, True)


def test_a_compile_only_launch_skips_a_deadlocked_wait(monkeypatch):
    from ascendlab.asc.runtime import launcher
    from ascendlab.errors import CompileOnlyWarning

    monkeypatch.setattr(launcher.Launcher, "run", lambda *a, **k: None)
    a, b, ws, out = _inputs(1)
    with pytest.warns(CompileOnlyWarning, match="deadlock"):
        mix_relu_matmul[1](a, b, ws, out, 1.0, True, 3)
