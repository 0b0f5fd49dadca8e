"""tiling(run): the tiling map of a Run's GM tensors (the model is tiling.py): a static figure
(one image per tensor, sampled at about its pixel size, shared tiles hatched) and a widget of
hoverable SVG rectangles, one per tile.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.trace import Run
from . import svg
from .colors import UNTOUCHED_COLOR, core_color
from .tiling import MAX_COLS, MAX_ROWS, TensorTiling, Tile, describe_tile, tile_color, tiling_model
from .view import View, new_figure


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
            shared = t.tiles.shared(200)
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
    """Shared tiles hatched in their second core's colour: one PolyCollection per colour,
    its quads built as one array (no artist or patch object per rectangle)."""
    from matplotlib.collections import PolyCollection

    by_color: dict[str, list] = {}
    for tile in shared:
        by_color.setdefault(core_color(tile.cores[1]), []).extend(tile.rects)
    for color, rects in by_color.items():
        r, c, nr, nc = np.array(rects, dtype=np.float64).T
        quads = np.stack([np.stack([c, r], 1), np.stack([c + nc, r], 1),
                          np.stack([c + nc, r + nr], 1), np.stack([c, r + nr], 1)], 1)
        ax.add_collection(PolyCollection(quads, facecolor="none", edgecolor=color,
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
                out.append(svg.rect(c * sx, r * sy, nc * sx, nr * sy, tile_color(tile), title,
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
