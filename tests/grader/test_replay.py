"""grader/replay/: honest traces replay to themselves (same events, same outputs); forged
traces are caught (a mismatch, an invalid instruction, or a sanitizer finding)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.analysis.sanitizer import sanitize
from ascendlab.grader.replay import REPLAYABLE_OPS, ReplayError, ReplayMismatch, replay
from ascendlab.runtime.trace import Access, Event, Sync
from ascendlab.runtime.vector.elementwise import VECTOR_OPS
from tests.analysis import cost_kernels as CK
from tests.runtime import kernels as K

REPO = Path(__file__).resolve().parents[2]


def _launch(kernel, block_num, *args, **kw):
    """(Run, initial contents of every memory argument)."""
    start = {}
    names = list(kernel.signature.parameters)
    for name, a in zip(names, args):
        if isinstance(a, np.ndarray):
            start[name] = a.copy()
    run = ascendlab.launch(kernel, block_num, *args, **kw)
    return run, start


def _replay(run, start, events=None):
    return replay(run.trace if events is None else events, run.gm, start, run.chip,
                  run.block_num, run.core_kind, run.options, kernel=run.kernel)


def _assert_same(run, start):
    rep = _replay(run, start)
    assert rep.trace == run.trace
    for n in run.outputs:
        assert np.array_equal(rep.outputs[n].view(np.uint8), run.outputs[n].view(np.uint8)), n
    assert rep.cycles == run.cycles
    return rep


def _vadd(kernel, *extra, n=8 * 1024, blocks=8, chip=None):
    rng = np.random.default_rng(0)
    x = rng.random(n).astype(np.float16)
    y = rng.random(n).astype(np.float16)
    z = np.zeros_like(x)
    return _launch(kernel, blocks, x, y, z, n // blocks, *extra, chip=chip)


@pytest.mark.parametrize("buffers", [1, 2])
def test_framework_kernel_replays(buffers):
    _assert_same(*_vadd(K.vadd_framework, 256, buffers))


def test_flags_kernel_replays_on_a_coupled_chip():
    _assert_same(*_vadd(K.vadd_flags, 128, chip="Ascend310P3"))


@pytest.mark.parametrize("stage", ["ln", "gelu", "fused"])
def test_cost_kernels_replay(stage):
    rows, cols = 8, 256
    x = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float32)
    _assert_same(*_launch(CK.layernorm_gelu, 4, x, np.zeros_like(x), rows, cols, stage))


def test_matmul_replays():
    m = k = n = 32
    rng = np.random.default_rng(2)
    a = rng.random(2 * m * k).astype(np.float16)
    b = rng.random(k * n).astype(np.float16)
    _assert_same(*_launch(CK.matmul_tile, 2, a, b, np.zeros(2 * m * n, np.float32), m, k, n))


@asc.jit
def _forms(x: asc.GlobalAddress, y: asc.GlobalAddress):
    """Repeat forms, counter mode, masks, casts, reductions, compare/select, scalar access."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 512)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, 512)
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 8192, 512)
    m = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 12288, 256)
    w = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 16384, 512)
    asc.data_copy(a, xg, 512)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(b, a, 2.0, 40, 3, asc.UnaryRepeatParams(1, 1, 8, 8))
    asc.add(b[64:], a, b, [0x0F0F, 0], 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.set_mask_count()
    asc.exp(w, b, 100, 1, asc.UnaryRepeatParams(1, 1, 8, 8))
    asc.set_mask_norm()
    asc.cast(h, a, asc.RoundMode.CAST_ROUND, 64, 2, asc.UnaryRepeatParams(1, 1, 4, 8))
    asc.axpy(a, h, 0.5, 128)
    asc.duplicate(w[128:], 3.0, 16, 2, 1, 8)
    asc.compare(m, a, b, asc.CMPMODE.LT, 128)
    asc.select(w, m, a, b, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 128)
    asc.select(b, m, a, 7.0, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 64)
    asc.reduce_max(w[256:], a, w[320:], 256, True)
    asc.whole_reduce_sum(b[256:], a, 64, 2, 1, 1, 8)
    asc.set_flag(asc.HardEvent.V_S, 0)
    asc.wait_flag(asc.HardEvent.V_S, 0)
    v = w.get_value(256)
    w.set_value(257, v)
    yg.set_value(1, xg.get_value(2))
    asc.set_flag(asc.HardEvent.S_MTE3, 0)
    asc.wait_flag(asc.HardEvent.S_MTE3, 0)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(yg[8:], w, 504)


def test_every_form_replays():
    x = np.random.default_rng(3).standard_normal(512).astype(np.float32)
    run, start = _launch(_forms, 1, x, np.zeros(512, np.float32))
    ops = {e.op for e in run.trace}
    assert {"muls", "add", "exp", "cast", "axpy", "duplicate", "compare", "select",
            "reduce_max", "whole_reduce_sum", "get_value", "set_value"} <= ops
    _assert_same(run, start)


def test_the_table_covers_the_runtimes_instructions():
    from ascendlab.runtime.vector import cast as vector_cast
    from ascendlab.runtime.vector import cmpsel as vector_cmpsel
    from ascendlab.runtime.vector import elementwise as vector
    from ascendlab.runtime.vector import reduce as vector_reduce

    runtime_ops = (set(vector.BINARY) | set(vector.UNARY) | set(vector.SCALAR)
                   | {"axpy", "duplicate"} | set(vector_cast.vector_ops)
                   | set(vector_reduce.vector_ops) | set(vector_cmpsel.vector_ops))
    assert runtime_ops <= REPLAYABLE_OPS, runtime_ops - REPLAYABLE_OPS
    assert {"data_copy", "data_copy_pad", "load_data", "mmad", "fixpipe", "set_flag",
            "wait_flag", "pipe_barrier", "sync_all", "get_value", "set_value", "init_buffer",
            "alloc_tensor", "enque", "deque", "free_tensor"} <= REPLAYABLE_OPS
    from ascendlab.grader.replay import LIBRARY_OPS, RECORDABLE_OPS

    # no runtime instruction: only adv.softmax's regenerated stream records it
    assert "copy" in VECTOR_OPS and "copy" not in REPLAYABLE_OPS and "copy" in LIBRARY_OPS
    assert {"mm_request", "mm_wait_result"} <= LIBRARY_OPS <= RECORDABLE_OPS
    from ascendlab.runtime.trace import OPS

    # the op registry's ops without a pyasc-facing form are exactly what the library replays;
    # the per-row ops the softmax records (brcb, block_reduce_*) have one and are re-issued
    assert {"brcb", "block_reduce_max", "block_reduce_sum"} <= REPLAYABLE_OPS
    # instructions of the pyasc-compatibility wave not re-issued yet: scalar-unit, registers,
    # block sync (py-common); data movement, gather and sort (py-move); the adv math family
    # (py-adv); the cmpMask register forms, fused casts,
    # init_const_value and the sparse matmul (py-rest)
    later = {n for n, i in OPS.items() if i.module.removeprefix("ascendlab.runtime.") in (
        "dma.atomic", "scalar.ops", "scalar.sysvar", "scalar.hints", "sync.block",
        "scalar.registers", "vector.transpose", "vector.sort", "vector.proposal",
        "vector.gather", "dma.aipp", "adv_ops", "vector.cmpreg",
        "vector.fused_cast", "vector.cast_deq", "dma.params_more", "cube.sparse")}
    assert LIBRARY_OPS | later == {n for n, i in OPS.items() if not i.replayable}
    assert RECORDABLE_OPS <= set(OPS), RECORDABLE_OPS - set(OPS)


# ---- forged traces ---------------------------------------------------------------------------
def _framework_run():
    return _vadd(K.vadd_framework, 256, 2, n=2048, blocks=2)


def _first(trace, op, pred=lambda e: True):
    return next(i for i, e in enumerate(trace) if e.op == op and pred(e))


def test_a_changed_count_does_not_replay():
    run, start = _framework_run()
    ev = list(run.trace)
    i = _first(ev, "data_copy")
    ev[i] = ev[i]._replace(args=(("count", 512),))  # more than the recorded bytes
    with pytest.raises(ReplayMismatch) as e:
        _replay(run, start, ev)
    assert e.value.index == i and "does not match what the instruction does" in str(e.value)


def test_a_copy_the_emulator_cannot_issue_does_not_replay():
    run, start = _framework_run()
    ev = list(run.trace)
    i = _first(ev, "data_copy")
    gm = ev[i].reads[0]
    ev.insert(i, ev[i]._replace(writes=(gm,)))  # GM -> GM
    with pytest.raises(ReplayError, match="does not replay"):
        _replay(run, start, ev)


def test_a_vector_op_on_a_dma_pipe_does_not_replay():
    run, start = _framework_run()
    ev = list(run.trace)
    i = _first(ev, "add")
    ev[i] = ev[i]._replace(pipe="MTE2")
    with pytest.raises(ReplayError, match="does not run on MTE2"):
        _replay(run, start, ev)


def test_a_dropped_implicit_barrier_does_not_replay():
    x = np.random.default_rng(3).standard_normal(512).astype(np.float32)
    run, start = _launch(_forms, 1, x, np.zeros(512, np.float32))
    ev = list(run.trace)
    i = _first(ev, "pipe_barrier", lambda e: e.sync.implicit)
    del ev[i]
    with pytest.raises(ReplayMismatch, match="implicit PIPE_V barrier"):
        _replay(run, start, ev)


def test_cores_out_of_order_do_not_replay():
    run, start = _framework_run()
    ev = sorted(run.trace, key=lambda e: -e.core)
    with pytest.raises(ReplayError, match="out of the order"):
        _replay(run, start, ev)


def test_a_deque_of_nothing_does_not_replay():
    run, start = _framework_run()
    ev = list(run.trace)
    i = _first(ev, "enque")
    del ev[i]
    with pytest.raises(ReplayError, match="was not enqueued"):
        _replay(run, start, ev)


def test_an_alloc_that_skips_its_wait_does_not_replay():
    run, start = _framework_run()
    ev = list(run.trace)
    i = _first(ev, "alloc_tensor", lambda e: e.sync is not None)
    ev[i] = ev[i]._replace(sync=None)
    with pytest.raises(ReplayError, match="alloc_tensor"):
        _replay(run, start, ev)


def test_a_dropped_wait_flag_is_a_race_for_the_sanitizer():
    run, start = _vadd(K.vadd_flags, 128, n=1024, blocks=2)
    assert not sanitize(run)
    ev = list(run.trace)
    i = _first(ev, "wait_flag", lambda e: dict(e.args)["event"] == "MTE2_V")
    j = max(k for k in range(i) if ev[k].op == "set_flag")
    del ev[i]
    del ev[j]
    rep = _replay(run, start, ev)  # it replays: the instructions are real
    found = sanitize(rep)
    assert any(f.kind == "racecheck" for f in found), found


def test_a_moved_operand_computes_what_it_says():
    """Forging an address consistently is a different (real) instruction: it runs, and the
    outputs are what that instruction computes, not what the forger wanted."""
    run, start = _framework_run()
    ev = list(run.trace)
    i = _first(ev, "add")
    e = ev[i]
    moved = e.reads[1]._replace(addr=e.reads[0].addr, name=e.reads[0].name)  # x + x
    ev[i] = e._replace(reads=(e.reads[0], moved))
    rep = _replay(run, start, ev)
    assert not np.array_equal(rep.outputs["z"], run.outputs["z"])


def test_replay_rejects_a_layout_that_is_not_the_runtimes():
    run, start = _framework_run()
    gm = list(run.gm.values())
    bad = [gm[0]._replace(base=gm[0].base + 64)] + gm[1:]
    with pytest.raises(ValueError, match="not at the runtime's base"):
        replay(run.trace, bad, start, run.chip, run.block_num, run.core_kind)


def test_an_event_made_up_from_nothing_is_rejected():
    run, start = _framework_run()
    fake = Event(0, "V", "add", (Access("UB", 10**9, 64, "t", 1, 0),) * 2,
                 (Access("UB", 0, 64, "t", 1, 0),), 32, "float16", 1, "k.py", 1, None,
                 (("count", 32),))
    with pytest.raises(ReplayError):
        _replay(run, start, [fake] + list(run.trace))
    flag = Event(0, "S", "set_flag", (), (), 0, "", 0, "k.py", 1,
                 Sync("set", "V", "MTE3", ("flag", 9), False),
                 (("event", "V_MTE3"), ("event_id", 9)))
    with pytest.raises(ReplayError, match="event_id"):
        _replay(run, start, [flag] + list(run.trace))


@pytest.mark.slow
def test_every_launch_of_the_runtime_suite_replays(tmp_path):
    """Run tests/runtime with a hook that replays every successful launch and compares its
    trace and outputs (tests/grader/replay_plugin.py)."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent) + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "replay_plugin",
                        "-p", "no:cacheprovider", str(REPO / "tests" / "runtime")],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("REPLAY"))
    ok, failed = (int(v) for v in line.split()[1:3])
    assert failed == 0 and ok > 400, line
