"""compare(): the verdict is precision.check's; the heatmap, histogram and worst elements."""

from __future__ import annotations

import numpy as np

from ascendlab import viz
from ascendlab.precision import check
from ascendlab.viz.compare import FLOOR, MISMATCH, compare_model

from .conftest import vadd_run


def test_correct_vadd_passes(small):
    x, y, z = (small.outputs[k] for k in "xyz")
    want = x.astype(np.float64) + y
    m = compare_model(want, z)
    assert m.result == check(z, want) and m.result.passed
    assert m.grid == (256, 256) and m.heat.shape == (64, 128) and m.pool == (4, 2)
    assert m.exact + int(m.hist_counts.sum()) == z.size
    assert m.worst and m.worst[0].rel == max(w.rel for w in m.worst)
    assert m.worst[0].rel == m.result.mare


def test_skipped_tail_fails_with_the_errors_where_they_are():
    run = vadd_run(tile=3072)  # the last 2048 elements of each 8192-element block stay 0
    x, y, z = (run.outputs[k] for k in "xyz")
    m = compare_model((x.astype(np.float64) + y).reshape(8, 8192), z.reshape(8, 8192),
                      max_cells=(8, 64))
    assert not m.result.passed and m.result.off == 8 * 2048
    assert m.heat.shape == (8, 64) and m.pool == (1, 128)
    np.testing.assert_allclose(m.heat[:, 48:], 0, atol=1e-6)  # relative error 1: log10 0
    assert (m.heat[:, :48] < -2).all()
    assert all(w.index[1] >= 6144 and w.got == 0 for w in m.worst)


def test_nan_mismatch_is_drawn_at_the_top_of_the_scale():
    want = np.ones((4, 4))
    got = want.astype(np.float32)
    got[1, 2] = np.nan
    m = compare_model(want, got, max_cells=(4, 4))
    assert m.heat[1, 2] == MISMATCH and m.heat[0, 0] == FLOOR
    assert m.worst[0].index == (1, 2) and m.worst[0].rel == np.inf
    assert not m.result.passed


def test_shape_mismatch_gives_only_the_verdict():
    m = compare_model(np.zeros(3), np.zeros(4))
    assert not m.result.passed and m.heat.size == 0 and not m.worst


def test_view_html_widget_figure(small):
    x, y, z = (small.outputs[k] for k in "xyz")
    view = viz.compare(x.astype(np.float64) + y, z)
    assert view.result.passed and str(view).startswith("PASS")
    html = view.html()
    assert "class='ascendlab-verdict' data-passed='true'" in html
    assert "<table class='ascendlab-worst'>" in html
    assert "ascendlab-compare" in view.widget._dom_classes
    fig = view.figure()
    assert fig.get_suptitle().startswith("PASS")
    bad = z.copy()
    bad[7] = 5
    fail = viz.compare(x.astype(np.float64) + y, bad)
    assert "data-passed='false'" in fail.html() and fail.figure().get_suptitle().startswith("FAIL")
