"""insert_sync: pipe syncs derived from the data dependencies (runtime/autosync.py)."""

from __future__ import annotations

import numpy as np

import ascendlab.asc as asc
from ascendlab.analysis.sanitizer import sanitize

from .kernels import vadd_framework


def _tile_add(x, y, z, tile, tiles):
    """Single-buffered x + y with static UB tensors and no flags at all."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, tile)
    yl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, tile * 4, tile)
    zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, tile * 8, tile)
    for i in range(tiles):
        asc.data_copy(xl, xg[i * tile:], tile)
        asc.data_copy(yl, yg[i * tile:], tile)
        asc.add(zl, xl, yl, tile)
        asc.data_copy(zg[i * tile:], zl, tile)


@asc.jit(insert_sync=True)
def add_auto(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
             tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int]):
    _tile_add(x, y, z, tile, tiles)


@asc.jit
def add_unsynced(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                 tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int]):
    _tile_add(x, y, z, tile, tiles)


@asc.jit
def add_local_auto(x: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int],
                   tiles: asc.ConstExpr[int]):
    """LocalTensorAuto in a loop: insert_sync is forced on; one place per call site."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    base = asc.get_block_idx() * tile * tiles
    for i in range(tiles):
        xl = asc.LocalTensorAuto(x.dtype, tile)
        zl = asc.LocalTensorAuto(x.dtype, tile)
        asc.data_copy(xl, xg[base + i * tile:], tile)
        asc.muls(zl, xl, 2.0, tile)
        asc.data_copy(zg[base + i * tile:], zl, tile)


def _data(n):
    rng = np.random.default_rng(3)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def test_inserted_syncs_make_an_unsynchronised_kernel_race_free():
    tile, tiles = 256, 4
    x, y = _data(tile * tiles)
    z1 = np.zeros_like(x)
    z2 = np.zeros_like(x)
    bare = add_unsynced[1](x, y, z1, tile, tiles)
    auto = add_auto[1](x, y, z2, tile, tiles)
    np.testing.assert_array_equal(z1, x + y)  # sequential emulation: same numbers either way
    np.testing.assert_array_equal(z2, x + y)
    assert {f.kind for f in sanitize(bare)} == {"racecheck"}
    assert sanitize(auto) == []
    inserted = [e for e in auto.trace if e.sync is not None and e.sync.key == ("auto",)]
    pairs = [dict(e.args)["event"] for e in inserted if e.sync.kind == "set"]
    # per tile: MTE2 -> V (inputs loaded), V -> MTE3 (sum ready); from the 2nd tile on,
    # V -> MTE2 (inputs consumed before they are overwritten), MTE3 -> V (z copied out)
    assert pairs.count("MTE2_V") == tiles and pairs.count("V_MTE3") == tiles
    assert pairs.count("V_MTE2") == tiles - 1 and pairs.count("MTE3_V") == tiles - 1
    for e in inserted:
        assert e.sync.implicit and e.file.endswith("test_autosync.py")
    # each wait sits right before the instruction that needed it
    for i, e in enumerate(auto.trace):
        if e in inserted and e.sync.kind == "wait":
            nxt = auto.trace[i + 1]
            assert nxt.sync is None or nxt.sync.key == ("auto",)


def test_existing_syncs_are_not_duplicated():
    """A queue-synchronised kernel gets no extra edges from insert_sync."""
    n = 8 * 1024
    x, y = _data(n)
    z = np.zeros_like(x)
    run = vadd_framework[1](x, y, z, n, 1024, 2, insert_sync=True)
    np.testing.assert_array_equal(z, x + y)
    assert not [e for e in run.trace if e.sync is not None and e.sync.key == ("auto",)]


def test_local_tensor_auto_reuses_one_place_per_call_site():
    tile, tiles = 512, 3
    x, _ = _data(2 * tile * tiles)
    z = np.zeros_like(x)
    run = add_local_auto[2](x, z, tile, tiles)
    np.testing.assert_array_equal(z, 2 * x)
    assert run.options["kernel_options"] == {}
    addrs = {a.addr for e in run.trace if e.op == "muls" and e.core == 0 for a in e.reads}
    assert len(addrs) == 1  # the same bytes every iteration
    assert sanitize(run) == []
    assert any(e.sync is not None and e.sync.key == ("auto",) for e in run.trace)
