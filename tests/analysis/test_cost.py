"""The cycle model: properties over many kernels and tilings, the ladders every kernel author
expects, the HBM roofline, the timeline export, the golden reference cycles, profile/advisor
and autotune."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import ascendlab
from ascendlab.analysis.cost import MODEL_VERSION, PIPES, simulate

from ..runtime.kernels import vadd_flags, vadd_framework
from .cost_kernels import layernorm_gelu, layernorm_gelu_reference, matmul_tile

GOLDEN = Path(__file__).with_name("golden_cycles.json")


def add_run(cores=8, n=8 * 8192, tile=1024, buffers=2, chip="Ascend910B2", dtype=np.float16):
    x = np.ones(n, dtype)
    return ascendlab.launch(vadd_framework, cores, x, x, np.zeros_like(x), n // cores, tile,
                            buffers, chip=chip)


def ln_run(stage, x, cores=8, chip="Ascend910B2"):
    y = np.zeros_like(x)
    run = ascendlab.launch(layernorm_gelu, cores, x, y, x.shape[0], x.shape[1], stage, chip=chip)
    return run, y


def matmul_run(blocks=2, m=32, k=64, n=48):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((blocks * m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((blocks * m, n), np.float32)
    run = ascendlab.launch(matmul_tile, blocks, a, b, c, m, k, n)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5,
                               atol=1e-3)
    return run


CASES = [
    *[("add", dict(cores=c, tile=t, buffers=b, chip=chip))
      for c in (1, 3, 8) for t in (256, 2048) for b in (1, 2)
      for chip in ("Ascend910B2", "Ascend310P3")],
    ("add", dict(cores=64, n=64 * 1024, tile=1024, buffers=2)),  # more blocks than cores
    ("flags", {}),
    ("ln", dict(stage="fused")),
    ("ln", dict(stage="ln")),
    ("matmul", {}),
]


def make(case):
    name, kw = case
    if name == "add":
        return add_run(**kw)
    if name == "flags":
        x = np.arange(8 * 2048, dtype=np.float32)
        return ascendlab.launch(vadd_flags, 8, x, x, np.zeros_like(x), 2048, 256)
    if name == "ln":
        x = np.random.default_rng(1).standard_normal((16, 512)).astype(np.float32)
        return ln_run(kw["stage"], x, cores=4)[0]
    return matmul_run()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{'-'.join(map(str, c[1].values()))}")
def test_model_between_roofline_and_serial_and_deterministic(case):
    run = make(case)
    cost = run.cost
    assert cost.bound_cycles <= cost.cycles <= cost.serial_cycles, (
        cost.bound_cycles, cost.cycles, cost.serial_cycles)
    assert 0 < run.efficiency <= 1
    again = make(case)
    assert again.cycles == run.cycles and again.cost.start == cost.start
    assert simulate(run).end == cost.end  # the same trace, modelled twice
    for e, s, t in zip(run.trace, cost.start, cost.end):
        assert 0 <= s <= t, e


def test_run_attributes_and_units():
    run = add_run(cores=8, n=8 * 8192, tile=1024, buffers=2)
    assert isinstance(run.cycles, int)
    # launch overhead of 8 of 48 vector cores, isolated: 10 + 10.5 * 7 / 47 us (chips.py)
    assert run.time_us == pytest.approx(run.cycles / 1800 + 10.0 + 10.5 * 7 / 47)
    assert run.bytes_moved == {"GM->UB": 2 * 2 * 8 * 8192, "UB->GM": 2 * 8 * 8192}
    assert run.flops == 8 * 8192  # one add per element
    assert set(run.pipe_busy) == set(PIPES)
    assert run.pipe_busy["MTE2"] > run.pipe_busy["MTE3"] > run.pipe_busy["V"] > 0
    assert run.pipe_busy["M"] == 0 and run.pipe_busy["MTE1"] == 0
    assert run.efficiency == pytest.approx(run.bound_cycles / run.cycles)
    assert run.cost.bound == "memory"
    mm = matmul_run()
    assert mm.bytes_moved.keys() == {"GM->L1", "L1->L0A", "L1->L0B", "L0C->GM"}
    assert mm.flops == 2 * 2 * 32 * 64 * 48
    assert mm.pipe_busy["M"] > 0 and mm.pipe_busy["FIX"] > 0 and mm.pipe_busy["MTE1"] > 0


# ---- ladders --------------------------------------------------------------------------------
def test_double_buffering_beats_single_buffering():
    for cores in (1, 8, 48):
        single = add_run(cores=cores, n=cores * 65536, tile=4096, buffers=1)
        double = add_run(cores=cores, n=cores * 65536, tile=4096, buffers=2)
        assert single.cycles > double.cycles * 1.1, (cores, single.cycles, double.cycles)


def test_more_cores_beat_one_core_on_large_inputs():
    n = 48 * 65536
    one = add_run(cores=1, n=n, tile=4096)
    eight = add_run(cores=8, n=n, tile=4096)
    all48 = add_run(cores=48, n=n, tile=4096)
    assert one.cycles > 4 * eight.cycles > 4 * all48.cycles


def test_right_sized_tiles_beat_tiny_tiles():
    tiny = add_run(cores=8, n=8 * 65536, tile=128)
    right = add_run(cores=8, n=8 * 65536, tile=4096)
    assert tiny.cycles > 2 * right.cycles


def test_fused_layernorm_gelu_beats_two_kernels():
    x = np.random.default_rng(0).standard_normal((64, 1024)).astype(np.float32)
    fused, y = ln_run("fused", x)
    ln, t = ln_run("ln", x)
    ge, y2 = ln_run("gelu", t)
    want = layernorm_gelu_reference(x)
    np.testing.assert_allclose(y, want, atol=1e-5)
    np.testing.assert_allclose(y2, want, atol=1e-5)
    assert ln.cycles + ge.cycles > fused.cycles
    # and a second launch overhead
    assert ln.time_us + ge.time_us > fused.time_us + ge.cost.launch_overhead_us


def test_double_buffered_add_reaches_the_hbm_roofline_on_910b2():
    run = add_run(cores=48, n=48 * 65536, tile=4096, buffers=2, chip="Ascend910B2")
    assert run.cost.bound == "memory"
    # the roofline is the HBM peak; streaming sustains hbm_sustained_fraction of it
    assert run.efficiency >= 0.9 * run.chip.hbm_sustained_fraction, run.efficiency
    assert run.cost.active_cores == 48


def test_missing_set_is_never_priced():
    import ascendlab.asc as asc
    from ascendlab.errors import DeadlockError

    @asc.jit
    def hang(x: asc.GlobalAddress):
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        asc.wait_flag(asc.HardEvent.MTE2_V, 1)
        asc.duplicate(t, 1.0, 64)

    with pytest.raises(DeadlockError, match=r"wait_flag\(MTE2_V, 1\) on pipe V"):
        ascendlab.launch(hang, 1, np.zeros(8, np.float32))
    run = ascendlab.last_run()  # the partial trace of the failed launch: no cycle count
    with pytest.raises(DeadlockError, match="never satisfied"):
        run.cost  # noqa: B018


# ---- timeline export --------------------------------------------------------------------------
def test_chrome_trace_is_valid_trace_event_json(tmp_path):
    run = add_run(cores=3, n=3 * 4096, tile=1024)
    path = tmp_path / "trace.json"
    doc = run.to_chrome_trace(path)
    loaded = json.loads(path.read_text())
    assert loaded == json.loads(json.dumps(doc))
    events = loaded["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    assert len(spans) == len(run.trace)
    for e in spans:
        assert {"name", "pid", "tid", "ts", "dur", "cat"} <= e.keys()
        assert e["dur"] >= 0 and e["ts"] >= 0
    # one named track per core x pipe
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    assert len(names) == 3 * len(PIPES)
    assert {names[(e["pid"], e["tid"])] for e in spans} == {"MTE2", "V", "MTE3", "S"}
    flows = [e for e in events if e["ph"] in "sf"]
    assert flows and len(flows) % 2 == 0
    assert loaded["otherData"]["cycles"] == run.cycles


# ---- golden reference cycles --------------------------------------------------------------------
def _golden_runs():
    x = np.random.default_rng(1).standard_normal((16, 512)).astype(np.float32)
    flags_x = np.arange(8 * 2048, dtype=np.float32)
    return {
        "add_1core_single": add_run(cores=1, n=16384, tile=1024, buffers=1),
        "add_8core_double": add_run(cores=8, n=8 * 16384, tile=2048, buffers=2),
        "add_48core_double_large": add_run(cores=48, n=48 * 65536, tile=4096, buffers=2),
        "add_flags": ascendlab.launch(vadd_flags, 8, flags_x, flags_x, np.zeros_like(flags_x),
                                      2048, 256),
        "layernorm_gelu_fused": ln_run("fused", x, cores=4)[0],
        "matmul_tile": matmul_run(),
    }


def test_golden_cycles_of_reference_kernels():
    """A model change must show: the reference kernels' cycles are pinned for MODEL_VERSION.
    After a deliberate change, bump MODEL_VERSION and regenerate with
    ASCENDLAB_UPDATE_GOLDEN=1 python -m pytest tests/runtime/test_cost.py -k golden"""
    got = {name: run.cycles for name, run in _golden_runs().items()}
    if os.environ.get("ASCENDLAB_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps({"model_version": MODEL_VERSION, "cycles": got},
                                     indent=2) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert golden["model_version"] == MODEL_VERSION, (
        "MODEL_VERSION changed: regenerate tests/analysis/golden_cycles.json")
    assert got == golden["cycles"]


# ---- profile / advisor / autotune ------------------------------------------------------------
def test_profile_renders_text_and_html():
    run = add_run(cores=8, n=8 * 8192, tile=1024, buffers=2)
    p = ascendlab.profile(run)
    text = str(p)
    assert "modelled cycles" in text and f"{run.cycles:,}" in text
    assert "memory-bound" in text and "MTE2" in text and "GM->UB" in text
    html = p._repr_html_()
    assert "ascendlab-profile" in html and "<table>" in html and "MTE2" in html


def test_advisor_findings_come_with_evidence_and_fix():
    """(The battery in tests/tools/test_profile.py checks each finding's trigger and effect.)"""
    single = add_run(cores=48, n=48 * 16384, tile=4096, buffers=1)
    kinds = [a.kind for a in ascendlab.profile(single).advice]
    assert "single-buffer" in kinds, kinds
    small = add_run(cores=8, n=8 * 8192, tile=256, buffers=2)
    advice = ascendlab.profile(small).advice
    by_kind = {a.kind: a for a in advice}
    assert by_kind["tile-too-small"].title.startswith("tiles too small: GM transfers of 0.5 KiB")
    assert by_kind["idle-cores"].title == "40 of 48 cores idle"
    for a in advice:
        assert a.evidence and a.fix and a.label
    good = add_run(cores=48, n=48 * 65536, tile=8192, buffers=2)
    assert "single-buffer" not in [a.kind for a in ascendlab.profile(good).advice]


def test_autotune_finds_the_best_and_reports_invalid_configurations():
    x = np.ones(8 * 16384, np.float16)
    z = np.zeros_like(x)
    calls = []

    def launcher(tile, buffers):
        calls.append((tile, buffers))
        return ascendlab.launch(vadd_framework, 8, x, x, z, 16384, tile, buffers,
                                chip="Ascend910B2")

    result = ascendlab.autotune(launcher, {"tile": [256, 2048, 65536], "buffers": [1, 2]},
                                progress=False)
    assert len(calls) == 6 and len(result.trials) == 6
    assert result.best == {"tile": 2048, "buffers": 2}
    valid = [t for t in result.trials if not t.skipped]
    assert result.best_cycles == min(t.cycles for t in valid)
    assert len(result.skipped) == 2
    assert all("CapacityError" in t.skipped for t in result.skipped)
    assert "skipped" in result.table() and "best {'tile': 2048" in str(result)

    def check(run):
        assert run.scalars["tile"] != 2048, "rejected on purpose"

    checked = ascendlab.autotune(launcher, {"tile": [1024, 2048], "buffers": [2]}, check=check,
                                 progress=False)
    assert checked.best == {"tile": 1024, "buffers": 2}
    assert "AssertionError: rejected on purpose" in checked.skipped[0].skipped
    with pytest.raises(ValueError, match="space\\['tile'\\] must be a non-empty list"):
        ascendlab.autotune(launcher, {"tile": []})
