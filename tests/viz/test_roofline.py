"""The roofline model: roofs from the chip and the cycle model, each run's point."""

from __future__ import annotations

import pytest

from ascendlab import viz
from ascendlab.viz.roofline import roofline_model, run_label


def test_chip_roofs_from_chip_spec(small):
    m = roofline_model(small)
    chip = small.chip
    roofs = {r.name: r for r in m.roofs}
    assert roofs["HBM, all cores"].value == chip.hbm_gbps
    ghz = chip.clock_mhz / 1e3
    assert roofs["vector fp32 FMA, all cores"].value == pytest.approx(48 * 64 * 2 * ghz)
    assert roofs["cube fp16, all cores"].value == pytest.approx(24 * 4096 * 2 * ghz)
    launch = [r for r in m.roofs if r.scope == "launch"]
    assert {r.kind for r in launch} == {"memory", "compute"}
    cost = small.cost
    mem = next(r for r in launch if r.kind == "memory")
    assert mem.value == pytest.approx(cost.gm_bytes / cost.memory_cycles * ghz)
    assert mem.value < chip.hbm_gbps  # 8 cores' ports are the limit, not HBM


def test_point_is_flops_per_byte_and_modelled_performance(small):
    (p,) = roofline_model(small).points
    cost = small.cost
    ghz = small.chip.clock_mhz / 1e3
    assert p.intensity == pytest.approx(cost.flops / cost.gm_bytes) == pytest.approx(1 / 6)
    assert p.gflops == pytest.approx(cost.flops / cost.cycles * ghz)
    assert p.bound_gflops == pytest.approx(cost.flops / cost.bound_cycles * ghz)
    assert p.gflops < p.bound_gflops and p.efficiency == pytest.approx(cost.efficiency)
    # the bound of a memory-bound run sits on this launch's memory roof
    m = roofline_model(small)
    assert p.bound_gflops == pytest.approx(m.attainable(p.intensity, "launch"), rel=0.01)
    assert p.gflops < m.attainable(p.intensity, "chip")


def test_earlier_runs_are_extra_points(small, single, layernorm, matmul):
    m = roofline_model(small, single, layernorm, labels=["double", "single"])
    assert [p.label for p in m.points][:2] == ["double", "single"]
    assert m.points[2].label == run_label(layernorm).strip()
    assert m.points[1].gflops < m.points[0].gflops  # single buffering is slower
    assert m.points[2].bound == "vector" and m.points[2].intensity > m.points[0].intensity
    assert len({p.color for p in m.points}) == 3
    mm = roofline_model(matmul)
    assert mm.points[0].intensity > 1 and any("cube" in r.name for r in mm.roofs)


def test_view_text_widget_and_figure(small, single):
    view = viz.roofline(small, single)
    assert "GFLOP/s" in str(view) and "memory-bound" in str(view)
    assert "ascendlab-roofline" in view.widget._dom_classes
    ax = view.figure().axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert len(ax.get_legend().get_texts()) == 2
