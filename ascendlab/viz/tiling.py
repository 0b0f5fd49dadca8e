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
MAX_ELEMENTS = 1 << 24  # larger tensors are painted on sampled cells
LIGHTER = 1.45  # shade of every other tile of a core


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
    owner: np.ndarray  # (rows, cols // cell) int32: tile index per cell, -1 untouched
    touches: np.ndarray  # (rows, cols // cell) int32: how many tiles cover the cell
    tiles: list[Tile] = field(default_factory=list)

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
        return float((self.owner >= 0).mean()) if self.owner.size else 0.0

    def caption(self) -> str:
        """One line: size, grid, tile count and size, tiles per core, reuse."""
        n = math.prod(self.shape)
        per = sorted(set(self.tiles_per_core.values()))
        per_s = "/".join(str(p) for p in per)
        te = self.tile_elements
        reuse = int(self.touches.max()) if self.touches.size else 0
        return (f"{self.name}: {n:,} {self.dtype} as {self.grid[0]:,} x {self.grid[1]:,}; "
                f"{len(self.tiles):,} tiles of {te:,} elements ({fmt_bytes(te * self.itemsize)})"
                f", {per_s} per core" + (f"; cells touched up to {reuse}x" if reuse > 1 else "")
                + ("" if self.coverage == 1 else f"; {self.coverage:.0%} covered"))

    def rgb(self) -> np.ndarray:
        """(rows, cols // cell, 3) float colours: the owner tile's core colour and shade."""
        palette = np.array([to_rgb(_tile_color(t)) for t in self.tiles] + [
            to_rgb(UNTOUCHED_COLOR)], dtype=np.float64)
        return palette[np.where(self.owner >= 0, self.owner, len(self.tiles))]


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
    regions: dict[str, dict[tuple, list[int]]] = {name: {} for name in run.gm}
    for i, e in enumerate(run.trace):
        if e.pipe not in COPY_PIPES:
            continue
        for a in (*e.reads, *e.writes):
            if a.space != "GM":
                continue
            arg = run.gm.get(a.name) or run.arg_at(a.addr)
            if arg is None:
                continue
            isz = _itemsize(arg)
            key = ((a.addr - arg.base) // isz, a.count, max(a.nbytes // isz, 1),
                   a.stride // isz)
            regions[arg.name].setdefault(key, []).append(i)
    return TilingModel(run.kernel, run.block_num,
                       [_tensor(run, run.gm[name], regs) for name, regs in regions.items()])


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


def _tensor(run: Run, arg: GMArg, regs: dict[tuple, list[int]]) -> TensorTiling:
    n = math.prod(arg.shape)
    isz = _itemsize(arg)
    trace = run.trace
    spans: dict[int, tuple[int, int]] = {}  # core -> (first, last + 1) element touched
    for (start, count, block, stride), evs in regs.items():
        stop = start + (count - 1) * stride + block
        for i in evs:
            c = trace[i].core
            a, b = spans.get(c, (start, stop))
            spans[c] = (min(a, start), max(b, stop))
    rows, cols = _grid(arg, spans)
    cell = max(1, math.ceil(n / MAX_ELEMENTS))
    ccols = max(cols // cell, 1)
    flat_owner = np.full(rows * ccols, -1, dtype=np.int32)
    flat_touch = np.zeros(rows * ccols, dtype=np.int32)
    tiles: list[Tile] = []
    last_of_core: dict[int, int] = {}
    for k, ((start, count, block, stride), evs) in enumerate(sorted(regs.items())):
        cores = tuple(sorted({trace[i].core for i in evs}, key=[trace[i].core
                                                               for i in evs].index))
        core = cores[0]
        par = last_of_core.get(core, 1) ^ 1
        last_of_core[core] = par
        reads = sum(1 for i in evs if any(a.space == "GM" for a in trace[i].reads))
        rects: list[tuple[int, int, int, int]] = []
        for j in range(count):
            a = start + j * stride
            b = min(a + block, n)
            if a >= n:
                break
            rects.extend(_segments(a, b, cols))
            ca, cb = _cells(a, b, cols, cell, ccols)
            for lo, hi in zip(ca, cb):
                flat_owner[lo:hi][flat_owner[lo:hi] < 0] = k
                flat_touch[lo:hi] += len(evs)  # copy instructions, not tiles
        tiles.append(Tile(k, core, cores, start, start + (count - 1) * stride + block,
                          count * block, count, stride, reads, len(evs) - reads, tuple(evs),
                          tuple(_merge_rects(rects)), par))
    return TensorTiling(arg.name, arg.dtype, arg.shape, isz, (rows, cols), cell,
                        flat_owner.reshape(rows, ccols), flat_touch.reshape(rows, ccols), tiles)


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
        from matplotlib.patches import Patch, Rectangle

        heights = [min(max(t.grid[0] / 8, 0.5), 2.0) + 0.45 for t in m.tensors] or [1.0]
        fig = new_figure(10, sum(heights) + 0.5)
        axes = fig.subplots(n, 1, squeeze=False, height_ratios=heights)[:, 0]
        for ax, t in zip(axes, m.tensors):
            img = t.rgb()
            rs = max(1, img.shape[0] // 400)
            cs = max(1, img.shape[1] // 1600)
            rows, cols = t.grid
            ax.imshow(img[::rs, ::cs], aspect="auto", interpolation="nearest",
                      extent=(0, cols, rows, 0))
            shared = [tile for tile in t.tiles if len(tile.cores) > 1][:200]
            for tile in shared:  # hatched in the second core's colour
                for r, c, nr, nc in tile.rects:
                    ax.add_patch(Rectangle((c, r), nc, nr, fill=False, hatch="//", lw=0,
                                           edgecolor=core_color(tile.cores[1])))
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

    img = t.rgb()
    img = img[::max(1, img.shape[0] // 400), ::max(1, img.shape[1] // 1600)]
    buf = io.BytesIO()
    imsave(buf, img, format="png")
    return base64.b64encode(buf.getvalue()).decode()


def tiling(run: Run, tensors: list[str] | None = None) -> TilingView:
    """The tiling map of `run`: each GM tensor as a grid coloured by core and tile, with the
    tile size and counts; hover a tile (or pick it) to see its copy instructions."""
    return TilingView(run, tensors)
