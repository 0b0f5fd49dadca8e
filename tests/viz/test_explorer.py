"""explore(): sliders re-run the launcher; rejected settings show the error; history."""

from __future__ import annotations

import pytest

from ascendlab import viz

from .conftest import vadd_run


@pytest.fixture
def calls():
    return []


@pytest.fixture
def ex(calls):
    def launcher(tile, buffers):
        calls.append((tile, buffers))
        return vadd_run(n=8 * 16384, tile=tile, buffers=buffers)

    return viz.explore(launcher, tile=[1024, 4096, 65536], buffers=[1, 2])


def test_first_values_run_at_creation(ex, calls):
    assert calls == [(1024, 1)]
    m = ex.model
    assert m.values == {"tile": 1024, "buffers": 1} and m.error is None
    assert m.cycles == ex.run.cycles and m.bound == "memory"
    assert ex.timeline is not None and ex.timeline.run is ex.run


def test_sliders_rerun_and_update_readout_and_timeline(ex, calls):
    w = ex.widget
    assert {"ascendlab-view", "ascendlab-explorer"} <= set(w._dom_classes)
    before = ex.model.cycles
    assert f"{before:,} cycles" in ex._readout.value
    ex.controls["buffers"].value = 2
    assert calls[-1] == (1024, 2) and ex.model.cycles < before
    assert f"{ex.model.cycles:,} cycles" in ex._readout.value
    assert ex._body.value.startswith('<svg class="ascendlab-timeline-svg"')
    assert ex.run.scalars["buffers"] == 2
    ex.controls["tile"].value = 4096
    assert calls[-1] == (4096, 2) and ex.run.scalars["tile"] == 4096


def test_rejected_setting_shows_the_error_and_recovers(ex, calls):
    ex.widget  # noqa: B018 - build it
    ex.controls["tile"].value = 65536  # 3 queues x 128 KiB > 192 KiB of UB
    m = ex.model
    assert m.error.startswith("CapacityError: init_buffer") and m.cycles is None
    assert ex.run is None and ex.timeline is None
    assert "CapacityError" in ex._error.value and ex._body.value == ""
    assert ex._readout.value == ""
    ex.controls["tile"].value = 4096
    assert ex.model.error is None and ex._error.value == "" and ex.model.cycles > 0
    assert [t.error is not None for t in m.history] == [False, True, False]


def test_set_moves_the_sliders_without_running_twice(ex, calls):
    ex.widget  # noqa: B018
    ex.set(tile=4096, buffers=2)
    assert calls == [(1024, 1), (4096, 2)]
    assert ex.controls["tile"].value == 4096 and ex.controls["buffers"].value == 2
    with pytest.raises(ValueError, match="unknown keyword 'cores'"):
        ex.set(cores=8)


def test_bad_ranges_are_rejected():
    with pytest.raises(ValueError, match="tile must be a non-empty list"):
        viz.explore(lambda tile: None, tile=[])
    with pytest.raises(ValueError, match="at least one keyword"):
        viz.explore(lambda: None)


def test_figure_and_summary_list_the_settings_tried(ex):
    ex.set(tile=65536)
    ex.set(tile=4096)
    text = str(ex)
    assert "tile=65536, buffers=1: CapacityError" in text and "tile=4096, buffers=1:" in text
    fig = ex.figure()
    bars = fig.axes[1]
    assert [t.get_text() for t in bars.get_xticklabels()] == [
        "tile=1024, buffers=1", "tile=65536, buffers=1", "tile=4096, buffers=1"]


def test_explorer_says_when_its_timeline_shows_some_cores():
    from ascendlab import viz

    from .conftest import vadd_run

    ex = viz.explore(lambda cores: vadd_run(cores=cores, n=cores * 2048), cores=[8, 48])
    _ = ex.widget
    assert "ascendlab-cores-note" not in ex._body.value  # 8 of 8: all shown
    ex.set(cores=48)
    assert "timeline of cores 0-7 of 48" in ex._body.value
