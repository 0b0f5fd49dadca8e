"""compare(ref, out): where and how much an output differs from its golden reference.

The verdict is ascendlab.precision.check (the grader's rule: MERE < T and MARE < 10 T per
dtype, integers exact, NaN/inf positions matching). The view adds where the error sits: a
heatmap of the relative error over the output (2-D outputs keep their shape, 1-D ones are
wrapped; large ones pooled by the maximum), its histogram against T and 10 T, and the worst
elements.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..precision import MARE_FACTOR, PrecisionResult, check, relative_error
from . import svg
from .view import View, image_widget, new_figure

FLOOR = -12.0  # log10 of the smallest error drawn (exact elements sit here)
MISMATCH = 3.0  # log10 value drawn for NaN/inf mismatches


class Worst(NamedTuple):
    """One of the worst elements."""

    index: tuple[int, ...]
    got: float
    want: float
    rel: float  # relative error (inf for a NaN/inf mismatch)


@dataclass
class CompareModel:
    """What compare() draws."""

    result: PrecisionResult
    shape: tuple[int, ...]
    grid: tuple[int, int]  # the output as rows x cols
    pool: tuple[int, int]  # elements per heatmap cell (rows, cols)
    heat: np.ndarray  # log10 relative error, max per cell (MISMATCH for NaN/inf mismatches)
    hist_edges: np.ndarray  # log10 relative error
    hist_counts: np.ndarray
    exact: int  # elements with zero error
    worst: list[Worst]


def compare_model(ref: Any, out: Any, dtype: Any = None, worst: int = 10,
                  max_cells: tuple[int, int] = (64, 128)) -> CompareModel:
    """The comparison of `out` (the kernel's output) against `ref` (the golden)."""
    want, got = np.asarray(ref), np.asarray(out)
    result = check(got, want, dtype)
    if want.shape != got.shape:
        empty = np.zeros((0, 0))
        return CompareModel(result, got.shape, (0, 0), (1, 1), empty, np.zeros(1),
                            np.zeros(0, dtype=np.int64), 0, [])
    rel = relative_error(got, want).ravel()
    g64, w64 = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
    same = (np.isnan(g64) & np.isnan(w64)) | ((g64 == w64) & np.isinf(w64))
    rel = np.where(same, 0.0, np.where(np.isnan(rel), np.inf, rel))  # mismatches: inf
    n = rel.size
    rows, cols = _grid(got.shape)
    with np.errstate(divide="ignore"):
        lg = np.where(np.isinf(rel), MISMATCH, np.log10(np.maximum(rel, 10.0**FLOOR)))
    rs = max(1, math.ceil(rows / max_cells[0]))
    cs = max(1, math.ceil(cols / max_cells[1]))
    padded = np.full(rows * cols, FLOOR)
    padded[:n] = lg
    r2, c2 = math.ceil(rows / rs), math.ceil(cols / cs)
    block = np.full((r2 * rs, c2 * cs), FLOOR)
    block[:rows, :cols] = padded.reshape(rows, cols)
    heat = block.reshape(r2, rs, c2, cs).max(axis=(1, 3))
    finite = rel[np.isfinite(rel) & (rel > 0)]
    edges = np.linspace(FLOOR, 1.0, 53)
    counts, _ = np.histogram(np.log10(finite), bins=edges) if finite.size else (
        np.zeros(len(edges) - 1, dtype=np.int64), edges)
    k = min(worst, n)
    top = np.argsort(-rel, kind="stable")[:k] if n else np.zeros(0, dtype=np.int64)
    worst_list = [Worst(tuple(int(i) for i in np.unravel_index(int(j), got.shape)),
                        got.ravel()[j].item(), want.ravel()[j].item(), float(rel[j]))
                  for j in top if rel[j] > 0]
    return CompareModel(result, got.shape, (rows, cols), (rs, cs), heat, edges,
                        counts.astype(np.int64), int((rel == 0).sum()), worst_list)


def _grid(shape: tuple[int, ...]) -> tuple[int, int]:
    n = math.prod(shape)
    if len(shape) >= 2:
        return n // max(shape[-1], 1), shape[-1]
    cols = 1 << max(int(math.ceil(math.log2(max(math.sqrt(max(n, 1)), 1)))), 0)
    return max(math.ceil(n / cols), 1), cols


class CompareView(View):
    """A numeric comparison: verdict, error heatmap and histogram, worst elements."""

    css_class = "ascendlab-compare"

    def __init__(self, ref: Any, out: Any, dtype: Any = None, worst: int = 10) -> None:
        super().__init__()
        self.model = compare_model(ref, out, dtype, worst)

    @property
    def result(self) -> PrecisionResult:
        """The precision verdict (ascendlab.precision.check)."""
        return self.model.result

    def summary(self) -> str:
        m = self.model
        lines = [str(m.result)]
        if m.worst:
            lines.append("worst elements (index: got, want, relative error):")
            lines += [f"  {list(w.index)}: {w.got!r}, {w.want!r}, {w.rel:.3g}"
                      for w in m.worst[:5]]
        return "\n".join(lines)

    def figure(self) -> Any:
        from matplotlib.colors import TwoSlopeNorm

        m = self.model
        r = m.result
        t = r.threshold
        fig = new_figure(11, 3.6)
        ax1, ax2 = fig.subplots(1, 2, width_ratios=[1.3, 1])
        center = math.log10(t) if t else -6.0
        norm = TwoSlopeNorm(vcenter=center, vmin=FLOOR, vmax=max(center + 3, MISMATCH))
        if m.heat.size:
            im = ax1.imshow(m.heat, aspect="auto", interpolation="nearest", cmap="RdYlGn_r",
                            norm=norm, extent=(0, m.grid[1], m.grid[0], 0))
            fig.colorbar(im, ax=ax1, label="log10 relative error", shrink=0.9)
        pool = f", max over {m.pool[0]}x{m.pool[1]} cells" if m.pool != (1, 1) else ""
        ax1.set_title(f"relative error over the output ({m.grid[0]} x {m.grid[1]}{pool})",
                      fontsize=8)
        ax1.tick_params(labelsize=7)
        centers = (m.hist_edges[:-1] + m.hist_edges[1:]) / 2
        if len(m.hist_counts):
            ax2.bar(centers, m.hist_counts, width=np.diff(m.hist_edges), color="#4c78a8")
        if t:
            ax2.axvline(math.log10(t), color="#e45756", ls="--", lw=1, label="T")
            ax2.axvline(math.log10(MARE_FACTOR * t), color="#e45756", ls=":", lw=1,
                        label=f"{MARE_FACTOR}T (MARE limit)")
        if r.mere > 0 and math.isfinite(r.mere):
            ax2.axvline(math.log10(r.mere), color="#54a24b", lw=1, label="MERE")
        ax2.set_yscale("symlog", linthresh=1)
        ax2.set_ylim(0, max(int(m.hist_counts.max(initial=0)) * 2, 2))
        ax2.set_xlabel(f"log10 relative error ({m.exact:,} elements exact, not shown)",
                       fontsize=8)
        ax2.set_ylabel("elements", fontsize=8)
        ax2.legend(fontsize=7)
        ax2.tick_params(labelsize=7)
        verdict = "PASS" if r.passed else "FAIL"
        fig.suptitle(f"{verdict}: {str(r).splitlines()[0].split(': ', 1)[1]}", fontsize=9,
                     color="#2a7a2a" if r.passed else "#b22222")
        return fig

    def html(self) -> str:
        """The verdict and the worst elements as an HTML table."""
        m = self.model
        r = m.result
        color = "#2a7a2a" if r.passed else "#b22222"
        rows = "".join(f"<tr><td>{list(w.index)}</td><td>{w.got!r}</td><td>{w.want!r}</td>"
                       f"<td>{w.rel:.3g}</td></tr>" for w in m.worst)
        lines = "<br>".join(svg.esc(line) for line in str(r).splitlines())
        return (f"<div class='ascendlab-verdict' data-passed='{str(r.passed).lower()}' "
                f"style='border-left:4px solid {color};padding-left:6px'>{lines}</div>"
                "<table class='ascendlab-worst'><tr><th>index</th><th>got</th><th>want</th>"
                f"<th>relative error</th></tr>{rows}</table>")

    def build_widget(self) -> Any:
        import ipywidgets as W

        return W.VBox([W.HTML(self.html()), image_widget(self.figure())])


def compare(ref: Any, out: Any, dtype: Any = None, worst: int = 10) -> CompareView:
    """Compare a kernel's output `out` with the golden `ref`: the precision verdict of
    ascendlab.precision.check (for `dtype`, default out's), an error heatmap and histogram,
    and the `worst` elements."""
    return CompareView(ref, out, dtype, worst)
