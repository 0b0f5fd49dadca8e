"""The GM address x time heatmaps: bytes are conserved, reuse and stride are visible."""

from __future__ import annotations

import numpy as np
import pytest

from ascendlab import viz
from ascendlab.viz.access import _spread, heat_model


def test_every_gm_byte_lands_in_the_heatmap(small, matmul, layernorm):
    for run in (small, matmul, layernorm):
        heats = {h.name: h for h in heat_model(run)}
        gm_read = sum(b for r, b in run.bytes_moved.items() if r.startswith("GM->"))
        gm_write = sum(b for r, b in run.bytes_moved.items() if r.endswith("->GM"))
        assert sum(h.read_bytes for h in heats.values()) == gm_read
        assert sum(h.write_bytes for h in heats.values()) == gm_write
        assert all((h.reads >= 0).all() and (h.writes >= 0).all() for h in heats.values())


def test_vadd_reads_each_input_byte_once_and_writes_z(small):
    heats = {h.name: h for h in heat_model(small, time_bins=100, addr_bins=64)}
    x, z = heats["x"], heats["z"]
    assert x.reads.shape == (64, 100) and x.time_edges[-1] >= small.cycles
    assert x.read_bytes == 2 * 65536 and x.write_bytes == 0 and x.reuse == pytest.approx(1.0)
    assert z.write_bytes == 2 * 65536 and z.read_bytes == 0
    assert x.step == 1024  # each core's next copy starts one tile further
    assert x.traffic() == "read 1x" and z.traffic() == "written 1x"
    # every address bin is read exactly its share of the tensor: 64 bins of 2 KiB
    np.testing.assert_allclose(x.reads.sum(axis=1), 2 * 65536 / 64)
    # core 0's block (first 8 bins) is read before the last of its tiles is written
    t_first_read = np.flatnonzero(x.reads[:8].sum(axis=0))[0]
    t_first_write = np.flatnonzero(z.writes[:8].sum(axis=0))[0]
    assert t_first_read < t_first_write


def test_matmul_b_is_read_twice(matmul):
    heats = {h.name: h for h in heat_model(matmul)}
    assert heats["b"].reuse == pytest.approx(2.0) and heats["a"].reuse == pytest.approx(1.0)
    assert "read 2x" in heats["b"].caption()


def test_spread_is_exact_over_fractional_bins():
    # 4 address bins of 10 elements; one block [5, 25) of 200 bytes at time bin 1
    grid = _spread(np.array([5.0]), np.array([25.0]), np.array([200.0]), np.array([1]),
                   10.0, 4, 3)
    np.testing.assert_allclose(grid[:, 1], [50, 100, 50, 0])
    assert grid[:, [0, 2]].sum() == 0


def test_rgb_is_white_where_nothing_happens(small):
    h = heat_model(small)[0]
    rgb = h.rgb()
    assert rgb.shape == h.reads.shape + (3,)
    quiet = (h.reads == 0) & (h.writes == 0)
    assert quiet.any() and np.allclose(rgb[quiet], 1.0)
    assert (rgb[h.reads > 0][:, 2] > rgb[h.reads > 0][:, 0]).all()  # reads are blue


def test_memory_view_summary_widget_and_figure(matmul):
    view = viz.memory_access(matmul)
    text = str(view)
    assert "b (3,072 float16): read 2x" in text and "core 0 L0A" in text
    w = view.widget
    assert "ascendlab-memory" in w._dom_classes
    view.controls["core"].value = 1
    assert view.model.core == 1 and all(o.core == 1 for o in view.model.occupancy)
    assert "core 1 L1" in view._text.value
    fig = view.figure()
    assert len(fig.axes) == 3 + 4  # three tensors, four local memories
