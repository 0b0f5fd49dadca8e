"""tiling(run): each GM tensor as a grid of its elements, coloured by the core and tile that
copied it.

A tile is one GM region a copy instruction (data_copy, data_copy_pad, fixpipe: the MTE2, MTE3
and FIX pipes) reads or writes; instructions touching exactly the same region share a tile
(matmul's B, read by every block, is one tile with several cores). A 2-D tensor keeps its
shape; a 1-D tensor is wrapped into rows, one core's block per row when the cores split it
into equal contiguous blocks. Each cell takes the colour of the first tile that touched it:
the core's colour, alternately lighter and darker from tile to tile; untouched cells are grey.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..runtime.trace import GMArg, Run
from . import svg
from .colors import UNTOUCHED_COLOR, core_color, shade, to_rgb
from .view import View, fmt_bytes, new_figure, short_file

COPY_PIPES = frozenset({"MTE2", "MTE3", "FIX"})
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
    tiles: list[Tile] = field(default_factory=list)

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
        """The most common tile size, in elements."""
        return Counter(t.elements for t in self.tiles).most_common(1)[0][0] if self.tiles else 0

    @property
    def tiles_per_core(self) -> dict[int, int]:
        """core -> tiles it touched."""
        out: dict[int, int] = {}
        for t in self.tiles:
            for c in t.cores:
                out[c] = out.get(c, 0) + 1
        return dict(sorted(out.items()))

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
        keys = np.array([t.core * 2 + t.shade for t in self.tiles] + [-1], dtype=np.int64)
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


def _tile_color(t: Tile) -> str:
    return shade(core_color(t.core), LIGHTER if t.shade else 1.0)


def tiling_model(run: Run) -> TilingModel:
    """Group the copy instructions of `run` by the GM region they touch, per tensor."""
    # tensor -> region (start, count, block, stride in elements) -> [(event, core, reads GM)]
    regions: dict[str, dict[tuple, list[tuple[int, int, bool]]]] = {name: {} for name in run.gm}
    gm, arg_at = run.gm, run.arg_at
    sizes: dict[str, int] = {}
    for i, e in enumerate(run.trace):  # the one pass over the trace
        if e.pipe not in COPY_PIPES:
            continue
        for reading, accesses in ((True, e.reads), (False, e.writes)):
            for a in accesses:
                if a.space != "GM":
                    continue
                arg = gm.get(a.name) or arg_at(a.addr)
                if arg is None:
                    continue
                isz = sizes.get(arg.name) or sizes.setdefault(arg.name, _itemsize(arg))
                key = ((a.addr - arg.base) // isz, a.count, max(a.nbytes // isz, 1),
                       a.stride // isz)
                regions[arg.name].setdefault(key, []).append((i, e.core, reading))
    return TilingModel(run.kernel, run.block_num,
                       [_tensor(run.gm[name], regs) for name, regs in regions.items()])


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


def _tensor(arg: GMArg, regs: dict[tuple, list[tuple[int, int, bool]]]) -> TensorTiling:
    n = math.prod(arg.shape)
    isz = _itemsize(arg)
    spans: dict[int, tuple[int, int]] = {}  # core -> (first, last + 1) element touched
    cores_of: dict[tuple, tuple[int, ...]] = {}  # region -> its cores, first toucher first
    for key, evs in regs.items():
        start, count, block, stride = key
        stop = start + (count - 1) * stride + block
        cores_of[key] = tuple(dict.fromkeys(c for _, c, _ in evs))
        for c in cores_of[key]:
            a, b = spans.get(c, (start, stop))
            spans[c] = (min(a, start), max(b, stop))
    rows, cols = _grid(arg, spans)
    cell = max(1, math.ceil(n / MAX_ELEMENTS))
    ccols = max(cols // cell, 1)
    tiles: list[Tile] = []
    last_of_core: dict[int, int] = {}
    spans_k: list[tuple[int, int, int, int]] = []  # cell ranges: (lo, hi, tile, instructions)
    for k, (key, evs) in enumerate(sorted(regs.items())):
        start, count, block, stride = key
        cores = cores_of[key]
        core = cores[0]
        par = last_of_core.get(core, 1) ^ 1
        last_of_core[core] = par
        reads = len({i for i, _, reading in evs if reading})  # instructions reading GM here
        rects: list[tuple[int, int, int, int]] = []
        for j in range(count):
            a = start + j * stride
            b = min(a + block, n)
            if a >= n:
                break
            rects.extend(_segments(a, b, cols))
            ca, cb = _cells(a, b, cols, cell, ccols)
            spans_k.extend((lo, hi, k, len(evs)) for lo, hi in zip(ca, cb))
        events = tuple(dict.fromkeys(i for i, _, _ in evs))
        tiles.append(Tile(k, core, cores, start, start + (count - 1) * stride + block,
                          count * block, count, stride, reads, len(events) - reads, events,
                          tuple(_merge_rects(rects)), par))
    spans = np.array(spans_k, dtype=np.int64).reshape(-1, 4)
    return TensorTiling(arg.name, arg.dtype, arg.shape, isz, (rows, cols), cell, spans, tiles)


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


def _merge_rects(rects: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Stack rectangles of consecutive rows with the same columns (a strided tile's rows)."""
    out: list[tuple[int, int, int, int]] = []
    for r in rects:
        if out and out[-1][1] == r[1] and out[-1][3] == r[3] and out[-1][0] + out[-1][2] == r[0]:
            p = out[-1]
            out[-1] = (p[0], p[1], p[2] + r[2], p[3])
        else:
            out.append(r)
    return out


def _cells(a: int, b: int, cols: int, cell: int, ccols: int) -> tuple[list[int], list[int]]:
    """Flat cell ranges covering elements [a, b) (a cell belongs to its first element)."""
    if cell == 1:
        return [a], [b]
    los, his = [], []
    for r0, c0, nr, nc in _segments(a, b, cols):
        for r in range(r0, r0 + nr):
            lo = r * ccols + -(-c0 // cell)
            hi = r * ccols + min(-(-(c0 + nc) // cell), ccols)
            if hi > lo:
                los.append(lo)
                his.append(hi)
    return los, his


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


class TilingView(View):
    """The tiling map of a Run's GM tensors."""

    css_class = "ascendlab-tiling"

    def __init__(self, run: Run, tensors: list[str] | None = None) -> None:
        super().__init__()
        self.run = run
        model = tiling_model(run)
        if tensors is not None:
            model.tensors = [t for t in model.tensors if t.name in tensors]
        self.model = model
        self.controls: dict[str, Any] = {}

    def summary(self) -> str:
        m = self.model
        return "\n".join([f"tiling of {m.kernel} on {m.block_num} cores:"]
                         + [f"  {t.caption()}" for t in m.tensors])

    def figure(self) -> Any:
        m = self.model
        n = max(len(m.tensors), 1)
        from matplotlib.patches import Patch

        heights = [min(max(t.grid[0] / 8, 0.5), 2.0) + 0.45 for t in m.tensors] or [1.0]
        fig = new_figure(10, sum(heights) + 0.5)
        axes = fig.subplots(n, 1, squeeze=False, height_ratios=heights)[:, 0]
        for ax, t in zip(axes, m.tensors):
            rows, cols = t.grid
            ax.imshow(t.rgb(MAX_ROWS, MAX_COLS), aspect="auto", interpolation="nearest",
                      extent=(0, cols, rows, 0))
            shared = [tile for tile in t.tiles if len(tile.cores) > 1][:200]
            _hatch(ax, shared)
            ax.set_title(t.caption() + (" (hatched: shared by several cores)" if shared else ""),
                         fontsize=8, loc="left")
            ax.set_ylabel("row", fontsize=7)
            ax.tick_params(labelsize=7)
        cores = sorted({c for t in m.tensors for c in t.tiles_per_core})
        fig.legend(handles=[Patch(color=core_color(c), label=f"core {c}") for c in cores[:16]],
                   loc="outside lower center", ncols=min(len(cores), 16) or 1, fontsize=7,
                   frameon=False)
        fig.suptitle(f"tiling of {m.kernel}: colour = core, light/dark = consecutive tiles",
                     fontsize=9)
        return fig

    def html(self, tensor: str | None = None, selected: int | None = None,
             max_tiles: int = 1024) -> str:
        """Inline SVG maps (one per tensor); hover a tile for its copy instructions."""
        parts = []
        for t in self.model.tensors:
            if tensor is not None and t.name != tensor:
                continue
            parts.append(f"<div class='ascendlab-tiling-tensor' data-tensor='{svg.esc(t.name)}'>"
                         f"<small>{svg.esc(t.caption())}</small><br>"
                         f"{_tensor_svg(self.run, t, selected, max_tiles)}</div>")
        return "".join(parts)

    def build_widget(self) -> Any:
        import ipywidgets as W

        names = [t.name for t in self.model.tensors]
        c = self.controls
        c["tensor"] = W.Dropdown(options=names, description="tensor",
                                 layout=W.Layout(width="220px"))
        first = self.model.tensors[0] if self.model.tensors else None
        c["tile"] = W.IntSlider(value=0, min=0, max=max(len(first.tiles) - 1, 0) if first else 0,
                                description="tile", continuous_update=False,
                                layout=W.Layout(width="420px"))
        self._maps = W.HTML(self.html())
        self._details = W.HTML()
        self._details.add_class("ascendlab-tile-details")
        c["tensor"].observe(lambda ch: self._pick_tensor(), names="value")
        c["tile"].observe(lambda ch: self._pick_tile(), names="value")
        self._pick_tile()
        help_ = W.HTML("<small>Hover a tile for its copy instructions, or pick one:</small>")
        return W.VBox([W.HTML(f"<b>{svg.esc(self.summary().splitlines()[0])}</b>"), self._maps,
                       help_, W.HBox([c["tensor"], c["tile"]]), self._details])

    def _pick_tensor(self) -> None:
        t = self.model.tensor(self.controls["tensor"].value)
        slider = self.controls["tile"]
        slider.max = max(len(t.tiles) - 1, 0)
        slider.value = 0
        self._pick_tile()

    def _pick_tile(self) -> None:
        if not self.model.tensors:
            return
        t = self.model.tensor(self.controls["tensor"].value)
        k = self.controls["tile"].value
        if not t.tiles:
            self._details.value = "<pre>no copy instruction touches this tensor</pre>"
            return
        self._details.value = f"<pre>{svg.esc(describe_tile(self.run, t, t.tiles[k], 32))}</pre>"
        self._maps.value = "".join(
            self.html(u.name, k if u.name == t.name else None) for u in self.model.tensors)


def _hatch(ax: Any, shared: list[Tile]) -> None:
    """Shared tiles hatched in their second core's colour: one collection per colour."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    by_color: dict[str, list] = {}
    for tile in shared:
        by_color.setdefault(core_color(tile.cores[1]), []).extend(
            Rectangle((c, r), nc, nr) for r, c, nr, nc in tile.rects)
    for color, rects in by_color.items():
        ax.add_collection(PatchCollection(rects, facecolor="none", edgecolor=color,
                                          hatch="//", linewidth=0))


def _tensor_svg(run: Run, t: TensorTiling, selected: int | None, max_tiles: int) -> str:
    rows, cols = t.grid
    width = 900.0
    height = float(min(max(rows * 6, 24), 240))
    sx, sy = width / cols, height / rows
    out = [svg.svg_open(width, height + 2, "ascendlab-tiling-svg", tensor=t.name,
                        tiles=len(t.tiles)),
           svg.rect(0, 0, width, height, UNTOUCHED_COLOR)]
    if len(t.tiles) <= max_tiles:
        for tile in t.tiles:
            title = describe_tile(run, t, tile)
            stroke = "#000" if tile.index == selected else None
            for r, c, nr, nc in tile.rects:
                out.append(svg.rect(c * sx, r * sy, nc * sx, nr * sy, _tile_color(tile), title,
                                    stroke=stroke, tile=tile.index, core=tile.core))
    else:  # too many tiles to hover one by one: the colours as an embedded picture
        out.append(f'<image x="0" y="0" width="{width:.0f}" height="{height:.0f}" '
                   f'preserveAspectRatio="none" href="data:image/png;base64,{_png64(t)}">'
                   f"<title>{len(t.tiles):,} tiles: too many to hover; pick one below"
                   "</title></image>")
    out.append("</svg>")
    return "".join(out)


def _png64(t: TensorTiling) -> str:
    import base64
    import io

    from matplotlib.image import imsave

    img = t.rgb(MAX_ROWS, MAX_COLS)
    buf = io.BytesIO()
    imsave(buf, img, format="png")
    return base64.b64encode(buf.getvalue()).decode()


def tiling(run: Run, tensors: list[str] | None = None) -> TilingView:
    """The tiling map of `run`: each GM tensor as a grid coloured by core and tile, with the
    tile size and counts; hover a tile (or pick it) to see its copy instructions."""
    return TilingView(run, tensors)
