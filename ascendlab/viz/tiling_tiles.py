"""The tiling model's data: a tensor's tiles as columns (`TileColumns`), the `Tile` records
built from them on demand (`Tiles`), the aggregated cell spans they paint and what is derived
from those (`TensorTiling`: owner and touch counts, colours, caption). Built by tiling.py.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, overload

import numpy as np

from .colors import UNTOUCHED_COLOR, core_color, shade, to_rgb
from .view import fmt_bytes

MAX_ELEMENTS = 1 << 20  # larger tensors are painted on cells of several elements
LIGHTER = 1.45  # shade of every other tile of a core
MAX_ROWS, MAX_COLS = 300, 1200  # cells drawn at most: about the figure's pixels at 100 dpi


class Tile(NamedTuple):
    """One GM region and the copy instructions that read or wrote it (offsets in elements)."""

    index: int  # position in TensorTiling.tiles (ordered by first element)
    core: int  # the first core that touched it (its colour)
    cores: tuple[int, ...]
    start: int  # first element
    stop: int  # one past the last element
    elements: int  # elements touched: blocks x block
    blocks: int  # 1 for a contiguous copy; rows of a strided (DataCopyParams / ND2NZ) copy
    stride: int  # elements from one block's start to the next
    reads: int  # copy instructions reading it (copy in)
    writes: int  # copy instructions writing it (copy out)
    events: tuple[int, ...]  # their Run.trace indices
    rects: tuple[tuple[int, int, int, int], ...]  # (row, col, rows, cols) in the grid
    shade: int  # 0 or 1: alternates between a core's consecutive tiles


@dataclass
class TileColumns:
    """A tensor's tiles as arrays (one entry per tile, in tile order), and two ragged lists:
    the cores of tile k are cores[core_off[k]:core_off[k + 1]] (first toucher first), its
    Run.trace indices events[event_off[k]:event_off[k + 1]] (ascending)."""

    core: np.ndarray
    start: np.ndarray
    block: np.ndarray  # elements per block
    blocks: np.ndarray
    stride: np.ndarray
    reads: np.ndarray
    writes: np.ndarray
    shade: np.ndarray
    accesses: np.ndarray  # GM accesses of copy instructions on the region
    cores: np.ndarray
    core_off: np.ndarray
    events: np.ndarray
    event_off: np.ndarray

    @property
    def stop(self) -> np.ndarray:
        return self.start + (self.blocks - 1) * self.stride + self.block

    @property
    def ncores(self) -> np.ndarray:
        return np.diff(self.core_off)


class Tiles(Sequence[Tile]):
    """The tiles of one tensor: a read-only sequence of `Tile`, each built when indexed."""

    def __init__(self, cols: TileColumns, n: int, grid_cols: int) -> None:
        self.columns = cols
        self._n, self._grid_cols = n, grid_cols

    def __len__(self) -> int:
        return len(self.columns.core)

    @overload
    def __getitem__(self, k: int) -> Tile: ...

    @overload
    def __getitem__(self, k: slice) -> list[Tile]: ...

    def __getitem__(self, k: int | slice) -> Tile | list[Tile]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if not -len(self) <= k < len(self):
            raise IndexError(f"tile {k} of {len(self)}")
        k %= len(self)
        c = self.columns
        start, block, blocks, stride = (int(v[k]) for v in (c.start, c.block, c.blocks,
                                                            c.stride))
        reads = int(c.reads[k])
        events = tuple(c.events[c.event_off[k]:c.event_off[k + 1]].tolist())
        return Tile(k, int(c.core[k]), tuple(c.cores[c.core_off[k]:c.core_off[k + 1]].tolist()),
                    start, start + (blocks - 1) * stride + block, blocks * block, blocks, stride,
                    reads, len(events) - reads, events,
                    _rects(start, blocks, block, stride, self._n, self._grid_cols),
                    int(c.shade[k]))

    def __iter__(self) -> Iterator[Tile]:
        return (self[k] for k in range(len(self)))

    def shared(self, limit: int) -> list[Tile]:
        """The first `limit` tiles that several cores touched."""
        return [self[int(k)] for k in np.flatnonzero(self.columns.ncores > 1)[:limit]]


@dataclass
class TensorTiling:
    """One GM tensor's tiles and the grid they are drawn on."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    itemsize: int
    grid: tuple[int, int]  # (rows, cols) in elements
    cell: int  # elements per cell of `owner` along a row (1 unless the tensor is huge)
    # the aggregated rectangles: (m, 4) int64 rows of (first cell, last cell + 1, tile,
    # copy instructions) over the flat (rows, cols // cell) grid; `owner`, `touches` and the
    # pictures are derived from them
    spans: np.ndarray
    tiles: Tiles

    @property
    def cells(self) -> tuple[int, int]:
        """(rows, cols // cell): the shape of `owner` and `touches`."""
        return self.grid[0], max(self.grid[1] // self.cell, 1)

    @functools.cached_property
    def disjoint(self) -> bool:
        """No cell lies in two spans (every tiling that splits a tensor)."""
        lo, hi = self.spans[:, 0], self.spans[:, 1]
        order = np.argsort(lo, kind="stable")
        return bool(np.all(lo[order][1:] >= hi[order][:-1]))

    @functools.cached_property
    def owner(self) -> np.ndarray:
        """(rows, cols // cell) int32: the first tile covering each cell, -1 untouched."""
        out = np.full(math.prod(self.cells), -1, dtype=np.int32)
        lo, hi, k = self.spans[:, 0], self.spans[:, 1], self.spans[:, 2]
        if self.disjoint:  # one scatter
            lens = hi - lo
            starts = np.repeat(lo - (np.cumsum(lens) - lens), lens)
            out[starts + np.arange(int(lens.sum()))] = np.repeat(k, lens)
        else:
            for a, b, t in zip(lo[::-1].tolist(), hi[::-1].tolist(), k[::-1].tolist()):
                out[a:b] = t  # last tile first: the first (smallest index) one stays
        return out.reshape(self.cells)

    @functools.cached_property
    def touches(self) -> np.ndarray:
        """(rows, cols // cell) int32: copy instructions covering each cell."""
        diff = np.zeros(math.prod(self.cells) + 1, dtype=np.int64)  # a difference array
        np.add.at(diff, self.spans[:, 0], self.spans[:, 3])
        np.add.at(diff, self.spans[:, 1], -self.spans[:, 3])
        return np.cumsum(diff[:-1]).astype(np.int32).reshape(self.cells)

    @property
    def max_touches(self) -> int:
        """The most copy instructions covering one cell."""
        if not len(self.spans):
            return 0
        return int(self.spans[:, 3].max()) if self.disjoint else int(self.touches.max())

    @property
    def tile_elements(self) -> int:
        """The most common tile size, in elements (the first tile's size among ties)."""
        c = self.tiles.columns
        if not len(c.core):
            return 0
        sizes, first, counts = np.unique(c.blocks * c.block, return_index=True,
                                         return_counts=True)
        best = np.flatnonzero(counts == counts.max())
        return int(sizes[best[np.argmin(first[best])]])

    @property
    def tiles_per_core(self) -> dict[int, int]:
        """core -> tiles it touched."""
        cores, n = np.unique(self.tiles.columns.cores, return_counts=True)
        return dict(zip(cores.tolist(), n.tolist()))

    @property
    def coverage(self) -> float:
        """Share of the cells some tile touched."""
        total = math.prod(self.cells)
        if self.disjoint:
            return float((self.spans[:, 1] - self.spans[:, 0]).sum() / total) if total else 0.0
        return float((self.owner >= 0).mean()) if total else 0.0

    def caption(self) -> str:
        """One line: size, grid, tile count and size, tiles per core, reuse."""
        n = math.prod(self.shape)
        per = sorted(set(self.tiles_per_core.values()))
        per_s = "/".join(str(p) for p in per)
        te = self.tile_elements
        reuse = self.max_touches
        return (f"{self.name}: {n:,} {self.dtype} as {self.grid[0]:,} x {self.grid[1]:,}; "
                f"{len(self.tiles):,} tiles of {te:,} elements ({fmt_bytes(te * self.itemsize)})"
                f", {per_s} per core" + (f"; cells touched up to {reuse}x" if reuse > 1 else "")
                + ("" if self.coverage == 1 else f"; {self.coverage:.0%} covered"))

    def rgb(self, max_rows: int | None = None, max_cols: int | None = None) -> np.ndarray:
        """(rows, cols // cell, 3) float colours: the owner tile's core colour and shade;
        with max_rows/max_cols, every k-th cell so that at most that many are drawn, looked
        up in the spans (cost ~ pixels drawn + tiles, not elements)."""
        rows, cols = self.cells
        rs = -(-rows // max_rows) if max_rows else 1  # ceil: at most max_rows
        cs = -(-cols // max_cols) if max_cols else 1
        owner = self._sampled_owner(rs, cs)
        # one colour per (core, shade), not per tile: thousands of tiles, a few dozen colours
        c = self.tiles.columns
        keys = np.append(c.core * 2 + c.shade, -1)
        uniq, inverse = np.unique(keys, return_inverse=True)
        colors = np.array([to_rgb(UNTOUCHED_COLOR) if k < 0 else
                           to_rgb(shade(core_color(int(k) // 2), LIGHTER if k % 2 else 1.0))
                           for k in uniq], dtype=np.float32)
        palette = colors[inverse.ravel()]
        return palette[np.where(owner >= 0, owner, len(self.tiles))]

    def _sampled_owner(self, rs: int, cs: int) -> np.ndarray:
        """owner[::rs, ::cs], computed from the spans alone when they are disjoint."""
        if (rs == 1 and cs == 1) or not self.disjoint or not len(self.spans):
            return self.owner[::rs, ::cs]
        rows, cols = self.cells
        idx = (np.arange(0, rows, rs)[:, None] * cols + np.arange(0, cols, cs)[None, :])
        order = np.argsort(self.spans[:, 0], kind="stable")
        lo, hi, k = (self.spans[order, j] for j in range(3))
        j = np.searchsorted(lo, idx, side="right") - 1
        jj = np.maximum(j, 0)
        return np.where((j >= 0) & (idx < hi[jj]), k[jj], -1).astype(np.int32)


@dataclass
class TilingModel:
    """The tiling of every GM tensor of a Run."""

    kernel: str
    block_num: int
    tensors: list[TensorTiling]

    def tensor(self, name: str) -> TensorTiling:
        return next(t for t in self.tensors if t.name == name)


def tile_color(t: Tile) -> str:
    """The fill colour of tile `t`: its core's colour, lighter on every other tile."""
    return shade(core_color(t.core), LIGHTER if t.shade else 1.0)


def _rects(start: int, blocks: int, block: int, stride: int, n: int,
           cols: int) -> tuple[tuple[int, int, int, int], ...]:
    """A tile's blocks as rectangles (row, col, rows, cols) of a row-major grid of `cols`,
    consecutive rows with the same columns stacked (a strided tile's rows)."""
    out: list[tuple[int, int, int, int]] = []
    for j in range(blocks):
        a = start + j * stride
        if a >= n:
            break
        for r in _segments(a, min(a + block, n), cols):
            p = out[-1] if out else None
            if p and p[1] == r[1] and p[3] == r[3] and p[0] + p[2] == r[0]:
                out[-1] = (p[0], p[1], p[2] + r[2], p[3])
            else:
                out.append(r)
    return tuple(out)


def _segments(a: int, b: int, cols: int) -> list[tuple[int, int, int, int]]:
    """Elements [a, b) of a row-major grid of `cols` as at most 3 rectangles."""
    r0, c0 = divmod(a, cols)
    r1, c1 = divmod(b - 1, cols)
    if r0 == r1:
        return [(r0, c0, 1, c1 - c0 + 1)]
    out = [(r0, c0, 1, cols - c0)]
    if r1 > r0 + 1:
        out.append((r0 + 1, 0, r1 - r0 - 1, cols))
    out.append((r1, 0, 1, c1 + 1))
    return out
