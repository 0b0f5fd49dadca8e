"""The tiling model: tiles per tensor and core, the grid, colours by core, hover text."""

from __future__ import annotations

import numpy as np

from ascendlab import viz
from ascendlab.viz.colors import UNTOUCHED_COLOR, core_color, shade, to_rgb
from ascendlab.viz.tiling import LIGHTER, describe_tile, tiling_model

from .conftest import vadd_run


def test_vadd_tiles_one_row_per_core_block(small):
    m = tiling_model(small)
    assert [t.name for t in m.tensors] == ["x", "y", "z"]
    for t in m.tensors:
        assert t.grid == (8, 8192) and t.cell == 1 and t.owner.shape == (8, 8192)
        assert len(t.tiles) == 64 and t.tile_elements == 1024 and t.itemsize == 2
        assert t.tiles_per_core == {c: 8 for c in range(8)}
        assert t.coverage == 1.0 and int(t.touches.max()) == 1
        for tile in t.tiles:
            assert tile.start // 8192 == tile.core  # core c copies row c
            assert tile.rects == ((tile.core, tile.start % 8192, 1, 1024),)
            assert len(tile.events) == 1 and tile.blocks == 1
    x, z = m.tensor("x"), m.tensor("z")
    assert all(t.reads == 1 and t.writes == 0 for t in x.tiles)
    assert all(t.reads == 0 and t.writes == 1 for t in z.tiles)
    assert "64 tiles of 1,024 elements (2 KiB), 8 per core" in x.caption()


def test_cells_are_coloured_by_core_with_alternating_tiles(small):
    t = tiling_model(small).tensor("x")
    rgb = t.rgb()
    assert rgb.shape == (8, 8192, 3)
    for core in range(8):
        dark, light = to_rgb(core_color(core)), to_rgb(shade(core_color(core), LIGHTER))
        np.testing.assert_allclose(rgb[core, 0], dark)  # tile 0 of core `core`
        np.testing.assert_allclose(rgb[core, 1024], light)  # its next tile
        np.testing.assert_allclose(rgb[core, 2048], dark)
    owner = t.owner
    assert [t.tiles[k].core for k in owner[:, 0]] == list(range(8))


def test_a_tile_that_skips_the_tail_leaves_cells_untouched():
    run = vadd_run(tile=3072)  # 8192 // 3072 = 2 tiles per core: 2048 elements never copied
    t = tiling_model(run).tensor("z")
    assert t.coverage == 0.75 and len(t.tiles) == 16
    assert (t.owner[:, 6144:] == -1).all()
    np.testing.assert_allclose(t.rgb()[0, 8000], to_rgb(UNTOUCHED_COLOR))
    assert "75% covered" in t.caption()


def test_matmul_shares_b_between_cores_and_keeps_2d_shape(matmul):
    m = tiling_model(matmul)
    a, b, c = m.tensor("a"), m.tensor("b"), m.tensor("c")
    assert a.grid == (64, 64) and b.grid == (64, 48) and c.grid == (64, 48)
    assert len(a.tiles) == 2 and [t.core for t in a.tiles] == [0, 1]
    assert a.tiles[1].rects == ((32, 0, 32, 64),)  # 32 strided rows merged into one rectangle
    assert a.tiles[0].blocks == 32 and a.tiles[0].stride == 64
    (shared,) = b.tiles
    assert shared.cores == (0, 1) and shared.reads == 2 and int(b.touches.max()) == 2
    assert "touched up to 2x" in b.caption()
    assert [t.writes for t in c.tiles] == [1, 1]


def test_hover_text_lists_the_copy_instructions(small, matmul):
    t = tiling_model(small).tensor("x")
    text = describe_tile(small, t, t.tiles[9])
    assert text.startswith("x tile 9 [core 1]: elements 9,216-10,239 (1,024 float16, 2 KiB)")
    assert "data_copy on MTE2, core 1: GM x -> UB que0[1], kernels.py:" in text
    b = tiling_model(matmul).tensor("b")
    text = describe_tile(matmul, b, b.tiles[0])
    assert "core 0, 1" in text and text.count("data_copy on MTE2") == 2
    assert "in 64 blocks 48 apart" in text


def test_svg_has_a_hoverable_rect_per_tile(small, large):
    view = viz.tiling(small)
    html = view.html()
    assert html.count('class="ascendlab-tiling-svg"') == 3
    assert html.count("data-tile=") == 3 * 64 and "<title>x tile 0 [core 0]" in html
    big = viz.tiling(large).html(max_tiles=1024)  # 1200 tiles per tensor: a picture instead
    assert "data-tile=" not in big and big.count("data:image/png;base64,") == 3


def test_widget_picks_a_tile_and_shows_its_instructions(small):
    view = viz.tiling(small)
    w = view.widget
    assert "ascendlab-tiling" in w._dom_classes
    c = view.controls
    c["tensor"].value = "z"
    c["tile"].value = 10
    assert "z tile 10 [core 1]" in view._details.value
    assert "UB que2[" in view._details.value and "GM z" in view._details.value
    assert 'stroke="#000"' in view._maps.value  # the picked tile is outlined


def test_figure_has_one_panel_per_tensor(small):
    fig = viz.tiling(small).figure()
    assert len(fig.axes) == 3
    assert fig.axes[0].get_title(loc="left").startswith("x: 65,536 float16 as 8 x 8,192")


def _per_event_reference(run, name):
    """Each copy instruction's GM access painted element by element: (touches per element,
    first region in region order per element, region -> (cores in order, events))."""
    arg = run.gm[name]
    n = int(np.prod(arg.shape))
    isz = arg.nbytes // n
    touches = np.zeros(n, dtype=np.int64)
    regions: dict[tuple, tuple[list, list]] = {}
    for i, e in enumerate(run.trace):
        if e.pipe not in ("MTE2", "MTE3", "FIX"):
            continue
        for a in e.reads + e.writes:
            if a.space != "GM" or a.name != name:
                continue
            key = ((a.addr - arg.base) // isz, a.count, a.nbytes // isz, a.stride // isz)
            cores, events = regions.setdefault(key, ([], []))
            cores.append(e.core)
            events.append(i)
            for lo, hi in a.ranges():
                touches[(lo - arg.base) // isz:(hi - arg.base) // isz] += 1
    first = np.full(n, -1, dtype=np.int64)
    for k, (start, count, block, stride) in reversed(list(enumerate(sorted(regions)))):
        for j in range(count):
            first[start + j * stride:start + j * stride + block] = k
    return touches, first, {k: regions[k] for k in sorted(regions)}


def test_aggregated_tiles_match_the_per_event_picture(small, matmul):
    for run, name in [(small, "x"), (small, "z"), (vadd_run(tile=3072), "z"),
                      (matmul, "a"), (matmul, "b"), (matmul, "c")]:
        t = tiling_model(run).tensor(name)
        touches, first, regions = _per_event_reference(run, name)
        assert t.cell == 1
        np.testing.assert_array_equal(t.touches.ravel(), touches)
        np.testing.assert_array_equal(t.owner.ravel(), first)
        assert len(t.tiles) == len(regions)
        rows, cols = t.grid
        for tile, (key, (cores, events)) in zip(t.tiles, regions.items()):
            assert (tile.start, tile.blocks, tile.elements // tile.blocks, tile.stride) == key
            assert tile.cores == tuple(dict.fromkeys(cores))
            assert tile.events == tuple(sorted(set(events)))
            painted = np.zeros((rows, cols), dtype=bool)  # the tile's rectangles ...
            for r, c, nr, nc in tile.rects:
                painted[r:r + nr, c:c + nc] = True
            mine = np.zeros(rows * cols, dtype=bool)  # ... cover exactly its elements
            for j in range(tile.blocks):
                s = tile.start + j * tile.stride
                mine[s:s + tile.elements // tile.blocks] = True
            np.testing.assert_array_equal(painted.ravel(), mine)


def test_huge_tensor_cells_aggregate_several_elements():
    n = 8 * (1 << 17) + 8 * 4096  # over MAX_ELEMENTS (1 Mi): cells of 2 elements
    run = vadd_run(n=n, tile=4096 * 3)
    t = tiling_model(run).tensor("x")
    touches, _, regions = _per_event_reference(run, "x")
    assert t.cell == 2 and len(t.tiles) == len(regions)
    rows, cols = t.grid
    per_cell = touches[: rows * cols].reshape(rows, cols)[:, ::t.cell]  # a cell's 1st element
    np.testing.assert_array_equal(t.touches, per_cell[:, : t.cells[1]])
    assert t.coverage == float((per_cell[:, : t.cells[1]] > 0).mean())


def test_figure_draws_images_and_one_collection_per_hatch_colour(matmul):
    """No artist per tile: each tensor is one image; shared tiles one hatched collection per
    colour whose quads are the tiles' rectangles."""
    fig = viz.tiling(matmul).figure()
    a_ax, b_ax, c_ax = fig.axes
    assert [len(ax.images) for ax in fig.axes] == [1, 1, 1]
    assert not a_ax.collections and not c_ax.collections and not b_ax.patches
    (hatched,) = b_ax.collections  # B is shared by cores 0 and 1
    (quad,) = hatched.get_paths()
    np.testing.assert_array_equal(quad.vertices[:4], [[0, 0], [48, 0], [48, 64], [0, 64]])
