"""grader/replay/adv_*.py: traces of asc.adv.Matmul (cube-only and MIX, C in GM or in UB) and
adv.softmax replay to themselves; forged ones compute what they say or are refused."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.analysis.sanitizer import sanitize
from ascendlab.grader.replay import ReplayError, ReplayMismatch, replay
from tests.adv import matmul_kernels as MK
from tests.adv import test_softmax as TS
from tests.grader.test_replay import _launch


def _replay(run, start, events=None):
    opts = dict(run.options, core_kinds=getattr(run, "core_kinds", {}))
    return replay(run.trace if events is None else events, run.gm, start, run.chip,
                  run.block_num, run.core_kind, opts, kernel=run.kernel)


def _assert_same(run, start, clean=True):
    rep = _replay(run, start)
    assert rep.trace == run.trace
    for n in run.outputs:
        assert np.array_equal(rep.outputs[n].view(np.uint8), run.outputs[n].view(np.uint8)), n
    assert rep.cycles == run.cycles
    assert not sanitize(rep) if clean else sanitize(rep) == sanitize(run)
    return rep


def _cube_only(m=96, k=72, n=80, dtype="float16", bias=True):
    a, b, bz = MK.operands(m, k, n, dtype)
    t = MK.host_tiling(m, n, k, dim=4, bias=bias, ab="DT_FLOAT16" if dtype == "float16"
                       else "DT_FLOAT")
    return _launch(MK.mm_cube_only, t.used_core_num, a, b, np.zeros((m, n), np.float32), bz, t)


def _mix(m=200, k=96, n=150, groups=3):
    a, b, _ = MK.operands(m, k, n)
    t = MK.host_tiling(m, n, k, dim=2 * groups)
    return _launch(MK.mm_mix, groups, a, b, np.zeros((m, n), np.float32), t,
                   np.zeros(1 << 20, np.uint8))


@pytest.mark.parametrize("dtype,bias", [("float16", True), ("float16", False),
                                        ("float32", False)])
def test_cube_only_matmul_replays(dtype, bias):
    run, start = _cube_only(dtype=dtype, bias=bias)
    assert run.core_kind == "aic" and any(("adv", "Matmul") in e.args for e in run.trace)
    _assert_same(run, start)


def test_mix_matmul_to_gm_replays():
    run, start = _mix()
    assert run.core_kind == "mix" and any(e.op == "mm_request" for e in run.trace)
    _assert_same(run, start)


def test_mix_matmul_with_a_vector_epilogue_in_ub_replays():
    m, k, n = 256, 64, 256
    a, b, bias = MK.operands(m, k, n)
    t = MK.host_tiling(m, n, k, dim=2, bias=True, c_pos="VECCALC", fix=(128, 128, -1),
                       traverse="FIRSTM")
    run, start = _launch(MK.mm_leaky_relu, t.used_core_num // 2, a, b,
                         np.zeros((m, n), np.float32), bias, 0.01, t, np.zeros(4 << 20, np.uint8))
    assert any(("adv", "Matmul get_tensor_c") in e.args for e in run.trace)
    _assert_same(run, start)


def test_insert_sync_matmul_replays():
    m, k, n = 256, 128, 256
    a, b, bias = MK.operands(m, k, n)
    t = MK.host_tiling(m, n, k, dim=4, bias=True, c_pos="VECCALC", fix=(64, 64, -1))
    run, start = _launch(MK.mm_auto, t.used_core_num, a, b, np.zeros((m, n), np.float32), 0.1,
                         t, np.zeros(16 << 20, np.uint8), bias, 64 * 64 * 4)
    _assert_same(run, start, clean=False)  # two vector cores write each block (by design)


@pytest.mark.parametrize("dtype,red,width", [("float32", "float32", 64),
                                             ("float32", "float32", 1024),
                                             ("float16", "float16", 192),
                                             ("float16", "float32", 128)])
def test_softmax_replays(dtype, red, width):
    rows = 64
    x = TS.inputs(rows, width, dtype)
    cnt = 32 // np.dtype(red).itemsize
    run, start = _launch(TS.softmax_que, 2, x, np.zeros_like(x), np.zeros(rows * cnt, red),
                         np.zeros(rows * cnt, red), 2, 16, width, False, asc.DataType(red))
    _assert_same(run, start)


def test_softmax_with_the_free_ub_as_work_buffer_replays():
    spec = TS.Static(24, 128)
    x = TS.inputs(24, 128, "float32")
    y, s, mx = (np.zeros((24, 128), np.float32), np.zeros(24 * 8, np.float32),
                np.zeros(24 * 8, np.float32))
    run, start = _launch(TS.softmax_static, 1, x, y, s, mx, spec)
    assert TS.call_of(run)["temp_buffer"] is False
    _assert_same(run, start)


# ---- forged traces ---------------------------------------------------------------------------
def _index(trace, op, tag):
    return next(i for i, e in enumerate(trace) if e.op == op and ("adv", tag) in e.args)


def test_a_moved_matmul_operand_computes_with_what_it_moved_to():
    """The ND2NZ copy of A re-pointed at B: the replay multiplies what the trace says."""
    run, start = _cube_only(bias=False)
    ev = list(run.trace)
    i = _index(ev, "data_copy", "Matmul ND2NZ")
    src = ev[i].reads[0]
    b_base = run.gm["b"].base
    ev[i] = ev[i]._replace(reads=(src._replace(addr=b_base, name="b"),))
    rep = _replay(run, start, ev)
    assert not np.array_equal(rep.outputs["c"], run.outputs["c"])


def test_a_dropped_matmul_load_does_not_replay():
    run, start = _cube_only()
    ev = list(run.trace)
    del ev[_index(ev, "data_copy", "Matmul ND2NZ")]
    with pytest.raises(ReplayError, match="no Matmul ND2NZ copy put a tile"):
        _replay(run, start, ev)


def test_a_cheaper_mmad_does_not_replay():
    run, start = _cube_only()
    ev = list(run.trace)
    i = _index(ev, "mmad", "Matmul")
    ev[i] = ev[i]._replace(count=ev[i].count // 4, repeats=1)
    with pytest.raises(ReplayMismatch) as e:
        _replay(run, start, ev)
    assert e.value.index == i


def test_a_dropped_mmad_leaves_the_block_wrong_or_missing():
    m, k, n = 128, 192, 128
    a, b, bias = MK.operands(m, k, n)
    t = asc.adv.TCubeTiling(used_core_num=4, m=m, n=n, k_a=k, k_b=k, single_core_m=64,
                            single_core_n=64, single_core_k=k, base_m=64, base_n=64, base_k=64,
                            depth_a1=1, depth_b1=1, step_m=1, step_n=1, is_bias=1)
    run, start = _launch(MK.mm_cube_only, 4, a, b, np.zeros((m, n), np.float32), bias, t)
    _assert_same(run, start)
    ev = list(run.trace)
    i = next(i for i, e in enumerate(ev) if e.op == "mmad" and ("init", False) in e.args)
    del ev[i]
    rep = _replay(run, start, ev)
    assert not np.array_equal(rep.outputs["c"], run.outputs["c"])


def test_results_written_with_numpy_are_not_what_the_replay_computes():
    run, start = _cube_only()
    honest = _replay(run, start).outputs["c"]
    forged = dict(start, a=np.zeros_like(start["a"]))  # the trace on other data: other C
    assert not np.array_equal(_replay(run, forged).outputs["c"], honest)


def test_a_forged_matmul_message_does_not_replay():
    run, start = _mix()
    ev = list(run.trace)
    i = next(i for i, e in enumerate(ev) if e.op == "mm_serve")
    ev[i] = ev[i]._replace(args=(("adv", "Matmul"), ("from", ev[i].core)))
    with pytest.raises(ReplayError, match="mm_serve"):
        _replay(run, start, ev)


def _softmax_run():
    x = TS.inputs(32, 256, "float32")
    run, start = _launch(TS.softmax_que, 1, x, np.zeros_like(x), np.zeros(32 * 8, np.float32),
                         np.zeros(32 * 8, np.float32), 2, 16, 256, False,
                         asc.DataType("float32"))
    return run, start


def test_a_softmax_call_with_fewer_chunks_than_it_issues_does_not_replay():
    run, start = _softmax_run()
    ev = list(run.trace)
    i = next(i for i, e in enumerate(ev) if any(k == "call" for k, _ in e.args))
    args = dict(ev[i].args)
    call = dict(args["call"])
    call.update(split_m=call["split_m"] * 2, range_m=call["range_m"] // 2)
    args["call"] = tuple(call.items())
    ev[i] = ev[i]._replace(args=tuple(args.items()))
    with pytest.raises(ReplayError):
        _replay(run, start, ev)


def test_a_dropped_softmax_instruction_does_not_replay():
    run, start = _softmax_run()
    ev = list(run.trace)
    del ev[next(i for i, e in enumerate(ev) if e.op == "exp" and ("adv", "softmax") in e.args)]
    with pytest.raises(ReplayMismatch):
        _replay(run, start, ev)


def test_a_softmax_instruction_outside_its_call_does_not_replay():
    run, start = _softmax_run()
    ev = list(run.trace)
    i = next(i for i, e in enumerate(ev) if e.op == "exp" and ("adv", "softmax") in e.args)
    with pytest.raises(ReplayError, match="outside a call"):
        _replay(run, start, ev[:1] + ev[i:i + 1])


@pytest.mark.slow
def test_every_launch_of_the_adv_suite_replays():
    """tests/adv under replay_plugin: every Matmul and softmax launch replays to itself."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).parent
    env = dict(os.environ, PYTHONPATH=str(here) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "replay_plugin",
                        "-p", "no:cacheprovider", str(here.parents[1] / "tests" / "adv")],
                       cwd=here.parents[1], env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("REPLAY"))
    ok, failed = (int(v) for v in line.split()[1:3])
    assert failed == 0 and ok > 50, line


def test_adv_traces_cross_the_wire_and_replay():
    """What the sandbox sends back (wire.dump_run) of a MIX Matmul and a softmax launch loads
    strictly and replays: the wire admits the adv ops, messages and the softmax call."""
    import json

    from ascendlab.grader.wire import dump_run, load_run

    for run, start in (_mix(m=64, k=32, n=64, groups=1), _softmax_run()):
        meta, events = load_run(json.loads(json.dumps(dump_run(run))))
        assert events == run.trace
        rep = replay(events, meta.gm, start, meta.chip, meta.block_num, meta.core_kind,
                     meta.replay_options())
        assert rep.trace == run.trace
