"""viz.sweep: one launch per size or tile, its cost as rows, time and % of roofline drawn."""

from __future__ import annotations

import pytest

from ascendlab import viz
from ascendlab.errors import CapacityError
from ascendlab.viz.sweep import row_of, sweep_model

from .conftest import vadd_run

SIZES = [8 * 1024, 8 * 4096, 8 * 16384]


@pytest.fixture(scope="module")
def size_sweep():
    return viz.sweep(lambda n: vadd_run(n=n), SIZES, name="n",
                     baseline={n: 0.001 * n for n in SIZES}, baseline_label="numpy",
                     marks={"a mark": 8 * 4096})


def test_rows_are_each_runs_cost(size_sweep, small):
    rows = size_sweep.rows
    assert [r.value for r in rows] == SIZES and all(r.ok for r in rows)
    cost, mhz = small.cost, small.chip.clock_mhz
    one = row_of(8 * 8192, small, 1.5)
    assert one.cycles == cost.cycles and one.bound_cycles == cost.bound_cycles
    assert one.kernel_us == pytest.approx(cost.cycles / mhz)
    assert one.bound_us == pytest.approx(cost.bound_cycles / mhz)
    assert one.total_us == pytest.approx(cost.time_us)  # kernel + launch overhead
    assert one.efficiency == pytest.approx(cost.efficiency) and one.baseline_us == 1.5
    assert one.gbps == pytest.approx(cost.gm_bytes / (cost.cycles / mhz) / 1e3)


def test_bigger_sizes_cost_more_and_reach_more_of_the_bound(size_sweep):
    rows = size_sweep.rows
    assert rows[0].cycles < rows[1].cycles < rows[2].cycles
    assert rows[-1].efficiency > rows[0].efficiency  # fixed costs amortised
    assert all(r.bound == "memory" for r in rows)  # an add moves 6 B per FLOP
    # these sizes take less than the 8-core launch overhead: the launch dominates
    assert all(r.kernel_us < r.launch_us for r in rows)
    assert size_sweep.model.crossover() is None
    assert size_sweep.model.best() is rows[-1]  # closest to its bound
    assert [r.baseline_us for r in rows] == [0.001 * n for n in SIZES]


def test_summary_table_and_figure(size_sweep):
    text = str(size_sweep)
    assert "sweep of vadd_framework over n" in text and "numpy us" in text
    assert "launch overhead" in text and f"{size_sweep.rows[0].cycles:,}" in text
    fig = size_sweep.figure()
    ax_t, ax_e = fig.axes
    labels = [line.get_label() for line in ax_t.lines]
    assert {"roofline bound", "launch overhead", "kernel + launch overhead", "numpy"} <= \
        set(labels)
    kernel = ax_t.lines[0]
    assert list(kernel.get_xdata()) == SIZES
    assert list(kernel.get_ydata()) == [r.kernel_us for r in size_sweep.rows]
    assert [round(y) for y in ax_e.lines[0].get_ydata()] == \
        [round(100 * r.efficiency) for r in size_sweep.rows]
    assert size_sweep.png()[:4] == b"\x89PNG"
    bundle = size_sweep._repr_mimebundle_()
    assert "image/png" in bundle and "text/plain" in bundle


def test_a_rejected_value_is_a_row_not_a_crash():
    def launch(tile):
        if tile > 4096:
            raise CapacityError(f"tile {tile} does not fit\nmore detail")
        return vadd_run(n=8 * 4096, tile=tile)

    m = sweep_model(launch, [1024, 4096, 8192], name="tile")
    assert [r.ok for r in m.rows] == [True, True, False]
    assert m.rows[2].error == "tile 8192 does not fit"
    view = viz.sweep(launch, [8192, 1024])
    assert "     8,192 rejected: tile 8192 does not fit" in view.table()
    ax_t = view.figure().axes[0]
    (x_mark,) = [line for line in ax_t.lines if line.get_label() == "rejected by the emulator"]
    assert list(x_mark.get_xdata()) == [8192]  # drawn at the foot, not as a time


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="at least one value"):
        sweep_model(lambda n: None, [])
    with pytest.raises(ValueError, match=r"positive numbers; got \[0\]"):
        sweep_model(lambda n: None, [0, 4])
    with pytest.raises(TypeError, match="must return a Run"):
        sweep_model(lambda n: 3, [4])
    with pytest.raises(ValueError, match="no value ran"):
        sweep_model(lambda n: (_ for _ in ()).throw(CapacityError("no")), [4]).best()
