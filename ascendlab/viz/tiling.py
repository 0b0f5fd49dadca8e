"""tiling_model(run): each GM tensor as a grid of its elements, coloured by the core and tile
that copied it (the view is tiling_view.py).

A tile is one GM region a copy instruction (data_copy, data_copy_pad, fixpipe: the MTE2, MTE3
and FIX pipes) reads or writes; instructions touching exactly the same region share a tile
(matmul's B, read by every block, is one tile with several cores). A 2-D tensor keeps its
shape; a 1-D tensor is wrapped into rows, one core's block per row when the cores split it
into equal contiguous blocks. Each cell takes the colour of the first tile that touched it:
the core's colour, alternately lighter and darker from tile to tile; untouched cells are grey.

The model is built from columns, not per-event objects: one pass over the trace collects the
GM accesses of copy instructions as rows of integers, numpy groups them into tiles (a lexsort
on the region), and each tensor keeps its tiles as arrays (`TileColumns`) and its painted
area as aggregated spans of cells (tiling_tiles.py holds those data classes). `Tile`
records are made on demand when one is indexed.
"""

from __future__ import annotations

import math

import numpy as np

from ..runtime.trace import GMArg, Run
from .tiling_tiles import (
    LIGHTER,
    MAX_COLS,
    MAX_ELEMENTS,
    MAX_ROWS,
    TensorTiling,
    Tile,
    TileColumns,
    Tiles,
    TilingModel,
    tile_color,
)
from .view import fmt_bytes, short_file

COPY_PIPES = frozenset({"MTE2", "MTE3", "FIX"})
__all__ = ["LIGHTER", "MAX_COLS", "MAX_ROWS", "TensorTiling", "Tile", "TileColumns", "Tiles",
           "TilingModel", "describe_tile", "tile_color", "tiling_model"]


def tiling_model(run: Run) -> TilingModel:
    """Group the copy instructions of `run` by the GM region they touch, per tensor."""
    rows = _copy_accesses(run)
    return TilingModel(run.kernel, run.block_num,
                       [_tensor(run.gm[name], r) for name, r in rows.items()])


def _copy_accesses(run: Run) -> dict[str, np.ndarray]:
    """tensor -> (m, 7) int64 rows of (event, core, reads GM, byte offset, blocks, bytes per
    block, stride in bytes): the GM accesses of copy instructions, in trace order (the one
    pass over the trace)."""
    rows: dict[str, list[tuple[int, ...]]] = {name: [] for name in run.gm}
    gm, arg_at = run.gm, run.arg_at
    for i, e in enumerate(run.trace):
        if e.pipe not in COPY_PIPES:
            continue
        for reading, accesses in ((1, e.reads), (0, e.writes)):
            for a in accesses:
                if a.space != "GM":
                    continue
                arg = gm.get(a.name) or arg_at(a.addr)
                if arg is not None:
                    rows[arg.name].append((i, e.core, reading, a.addr - arg.base, a.count,
                                           a.nbytes, a.stride))
    return {name: np.array(r, dtype=np.int64).reshape(-1, 7) for name, r in rows.items()}


def _itemsize(arg: GMArg) -> int:
    n = math.prod(arg.shape) or 1
    return max(arg.nbytes // n, 1)


def _grid(arg: GMArg, spans: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(rows, cols): a 2-D+ tensor's own; a 1-D one wrapped, one core's block per row when the
    cores' first elements are equally spaced (or their spans equally long)."""
    n = math.prod(arg.shape)
    if len(arg.shape) >= 2:
        return n // arg.shape[-1], arg.shape[-1]
    starts = sorted(a for a, _ in spans.values())
    steps = {b - a for a, b in zip(starts, starts[1:])}
    if len(steps) == 1:  # cores start equal blocks apart: one block per row
        block = steps.pop()
    else:
        lengths = {b - a for a, b in spans.values()}
        block = lengths.pop() if len(lengths) == 1 else 0
    if 0 < block <= 65536 and n % block == 0 and n // block <= 4096:
        return n // block, block
    cols = 1 << max(int(math.ceil(math.log2(max(math.sqrt(n), 1)))), 0)
    return max(math.ceil(n / cols), 1), cols


def _tensor(arg: GMArg, acc: np.ndarray) -> TensorTiling:
    """One tensor's tiles (accesses grouped by region, numpy) and the spans they paint."""
    n = math.prod(arg.shape)
    isz = _itemsize(arg)
    cols = _group(acc, isz)
    per_core = _core_spans(cols)
    rows, gcols = _grid(arg, per_core)
    cell = max(1, math.ceil(n / MAX_ELEMENTS))
    spans = _cell_spans(cols, n, gcols, cell)
    return TensorTiling(arg.name, arg.dtype, arg.shape, isz, (rows, gcols), cell, spans,
                        Tiles(cols, n, gcols))


def _group(acc: np.ndarray, isz: int) -> TileColumns:
    """The accesses grouped by region (start, blocks, block, stride in elements), the regions
    in ascending order: one tile each."""
    ev, core, reading = acc[:, 0], acc[:, 1], acc[:, 2]
    start, blocks = acc[:, 3] // isz, acc[:, 4]
    block, stride = np.maximum(acc[:, 5] // isz, 1), acc[:, 6] // isz
    order = np.lexsort((stride, block, blocks, start))
    keys = np.stack([start, blocks, block, stride])[:, order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = np.any(keys[:, 1:] != keys[:, :-1], axis=0)
    tile = np.empty(len(order), dtype=np.int64)
    tile[order] = np.cumsum(new) - 1  # the tile of each access
    first = order[new]  # an access of each tile
    ntiles = len(first)
    # cores of each tile, first toucher first: distinct (tile, core) pairs by first access
    pair_tile, pair_core, _ = _distinct(tile, core, np.arange(len(tile)))
    core_off = _offsets(pair_tile, ntiles)
    first_core = pair_core[core_off[:-1]] if ntiles else pair_core
    # its instructions: distinct (tile, event) pairs, events ascending; and those reading GM
    ev_tile, events, _ = _distinct(tile, ev, ev)
    read_tile = _distinct(tile[reading == 1], ev[reading == 1], ev[reading == 1])[0]
    reads = np.bincount(read_tile, minlength=ntiles)
    event_off = _offsets(ev_tile, ntiles)
    return TileColumns(first_core, start[first], block[first], blocks[first], stride[first],
                       reads, np.diff(event_off) - reads, _alternate(first_core),
                       np.bincount(tile, minlength=ntiles), pair_core, core_off, events,
                       event_off)


def _distinct(group: np.ndarray, value: np.ndarray,
              rank: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (group, value) pairs, ordered by group, then by the smallest `rank` of
    the pair's occurrences: (groups, values, ranks)."""
    if not len(group):
        return group, value, rank
    order = np.lexsort((rank, value, group))
    g, v, r = group[order], value[order], rank[order]
    new = np.ones(len(g), dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (v[1:] != v[:-1])
    g, v, r = g[new], v[new], r[new]  # the first (smallest rank) of each pair
    by_rank = np.lexsort((r, g))
    return g[by_rank], v[by_rank], r[by_rank]


def _offsets(sorted_groups: np.ndarray, n: int) -> np.ndarray:
    """Start offsets (n + 1) of groups 0..n-1 in a sorted group array."""
    out = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(sorted_groups, minlength=n), out=out[1:])
    return out


def _alternate(first_core: np.ndarray) -> np.ndarray:
    """0, 1, 0, ... over each core's tiles in tile order: the shade of each tile."""
    order = np.argsort(first_core, kind="stable")
    c = first_core[order]
    new = np.ones(len(c), dtype=bool)
    new[1:] = c[1:] != c[:-1]
    pos = np.arange(len(c))
    rank = pos - np.maximum.accumulate(np.where(new, pos, 0))
    out = np.empty(len(c), dtype=np.int64)
    out[order] = rank % 2
    return out


def _core_spans(cols: TileColumns) -> dict[int, tuple[int, int]]:
    """core -> (first, last + 1) element of the tiles it touched."""
    tile_of = np.repeat(np.arange(len(cols.core)), cols.ncores)
    starts, stops = cols.start[tile_of], cols.stop[tile_of]
    out = {}
    for c in np.unique(cols.cores).tolist():
        mine = cols.cores == c
        out[c] = (int(starts[mine].min()), int(stops[mine].max()))
    return out


def _blocks(cols: TileColumns, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tile, a, b): every block's elements [a, b) inside the tensor, in tile then block
    order; a tile's blocks stop at the first one that starts past the end."""
    first = np.cumsum(cols.blocks) - cols.blocks  # each tile's first block
    tile = np.repeat(np.arange(len(cols.core)), cols.blocks)
    a = cols.start[tile] + (np.arange(len(tile)) - first[tile]) * cols.stride[tile]
    past = a >= n
    seen = np.cumsum(past)
    keep = seen == (seen - past)[first[tile]]  # no block of this tile started past the end
    tile, a = tile[keep], a[keep]
    return tile, a, np.minimum(a + cols.block[tile], n)


def _cell_spans(cols: TileColumns, n: int, gcols: int, cell: int) -> np.ndarray:
    """(m, 4) rows (first cell, last cell + 1, tile, copy instructions) painted by the tiles'
    blocks on the flat (rows, gcols // cell) grid; a cell belongs to its first element."""
    tile, a, b = _blocks(cols, n)
    if cell > 1:  # one span per grid row a block crosses
        ccols = max(gcols // cell, 1)
        r0, r1 = a // gcols, (b - 1) // gcols
        per = r1 - r0 + 1
        pick = np.repeat(np.arange(len(a)), per)
        r = r0[pick] + np.arange(len(pick)) - np.repeat(np.cumsum(per) - per, per)
        c0 = np.where(r == r0[pick], a[pick] - r * gcols, 0)
        c1 = np.where(r == r1[pick], b[pick] - r * gcols, gcols)
        a = r * ccols + -(-c0 // cell)
        b = r * ccols + np.minimum(-(-c1 // cell), ccols)
        keep = b > a
        tile, a, b = tile[pick][keep], a[keep], b[keep]
    return np.stack([a, b, tile, cols.accesses[tile]], axis=1).astype(np.int64).reshape(-1, 4)


def describe_tile(run: Run, t: TensorTiling, tile: Tile, limit: int = 8) -> str:
    """Hover text: the tile's region and its copy instructions."""
    lines = [f"{t.name} tile {tile.index} [core {', '.join(map(str, tile.cores))}]: elements "
             f"{tile.start:,}-{tile.stop - 1:,} ({tile.elements:,} {t.dtype}, "
             f"{fmt_bytes(tile.elements * t.itemsize)})"
             + (f" in {tile.blocks} blocks {tile.stride:,} apart" if tile.blocks > 1 else "")]
    for i in tile.events[:limit]:
        e = run.trace[i]
        src = ",".join(f"{a.space} {a.name}" for a in e.reads)
        dst = ",".join(f"{a.space} {a.name}" for a in e.writes)
        lines.append(f"{e.op} on {e.pipe}, core {e.core}: {src} -> {dst}, "
                     f"{short_file(e.file)}:{e.line}")
    if len(tile.events) > limit:
        lines.append(f"... {len(tile.events) - limit} more")
    return "\n".join(lines)
