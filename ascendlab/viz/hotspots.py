"""hotspots(run): the kernel's source with the cycle model's heat on each line.

Each source line that issued instructions gets a bar for its share of the critical path and
its modelled busy cycles (fixed cost and throughput apart), from tools/hotlines.py. The text
lines of the kernel's file around the hot lines are shown so the heat sits on the code.
"""

from __future__ import annotations

import html
import linecache
from dataclasses import dataclass
from typing import Any

from ..tools.hotlines import HotLine, hot_lines
from .view import View, image_widget, new_figure, short_file

_HEAT = "#e45756"
_FIXED = "#f58518"
_WORK = "#4c78a8"


@dataclass
class HotspotsModel:
    """What the view draws: one file's source lines and the heat of the hot ones."""

    file: str
    first: int  # first line shown
    source: list[str]  # lines first, first+1, ...
    heat: dict[int, HotLine]  # line number -> its row (lines of this file only)
    cycles: int


class Hotspots(View):
    """The kernel's source with per-line critical-path share and busy cycles."""

    css_class = "ascendlab-hotspots"

    def __init__(self, model: HotspotsModel) -> None:
        super().__init__()
        self.model = model

    def summary(self) -> str:
        m = self.model
        top = sorted(m.heat.values(), key=lambda r: -r.path_cycles)[:3]
        lines = [f"hotspots: {short_file(m.file)}, {len(m.heat)} lines issued instructions, "
                 f"{m.cycles:,} cycles"]
        lines += [f"  {r.where}: {r.path_share:.0%} of the critical path, "
                  f"{r.total_busy:,.0f} busy cycles per core  {r.text[:60]}" for r in top]
        return "\n".join(lines)

    def figure(self) -> Any:
        m = self.model
        n = len(m.source)
        fig = new_figure(11, max(2.0, 0.22 * n + 0.8))
        ax_code, ax_bar = fig.subplots(1, 2, width_ratios=[3, 1.2], sharey=True)
        busy_max = max((r.total_busy for r in m.heat.values()), default=0) or 1.0
        for k, text in enumerate(m.source):
            ln = m.first + k
            row = m.heat.get(ln)
            if row is not None and row.path_share > 0:
                ax_code.axhspan(k - 0.5, k + 0.5, color=_HEAT, alpha=min(0.6, 0.1 + row.path_share))
            ax_code.text(0.0, k, f"{ln:>4}  {text.rstrip()[:90]}", family="monospace",
                         fontsize=7.5, va="center")
            if row is not None:
                ax_bar.barh(k, row.fixed / busy_max, color=_FIXED, height=0.7)
                ax_bar.barh(k, row.throughput / busy_max, left=row.fixed / busy_max,
                            color=_WORK, height=0.7)
                if row.path_share:
                    ax_bar.text(1.02, k, f"{row.path_share:.0%}", fontsize=7, va="center")
        ax_code.set_ylim(n - 0.5, -0.5)
        ax_code.set_xlim(0, 1)
        ax_code.axis("off")
        ax_bar.set_xlim(0, 1.25)
        ax_bar.set_xlabel("busy cycles per core\n(orange: fixed, blue: throughput)", fontsize=7)
        ax_bar.tick_params(labelleft=False, labelsize=7)
        ax_code.set_title(f"{short_file(m.file)}: hot lines ({m.cycles:,} cycles; % = share "
                          "of the critical path)", fontsize=9, loc="left")
        return fig

    def html(self) -> str:
        m = self.model
        esc = html.escape
        rows = []
        for k, text in enumerate(m.source):
            ln = m.first + k
            r = m.heat.get(ln)
            alpha = min(0.6, 0.1 + r.path_share) if r is not None and r.path_share else 0.0
            info = (f"{r.path_share:.0%} path, {r.total_busy:,.0f} busy ({r.fixed:,.0f} fixed)"
                    if r is not None else "")
            rows.append(f"<tr data-line='{ln}' style='background:rgba(228,87,86,{alpha:.2f})'>"
                        f"<td style='text-align:right;color:#888'>{ln}</td>"
                        f"<td><pre style='margin:0'>{esc(text.rstrip())}</pre></td>"
                        f"<td style='color:#555;font-size:85%'>{esc(info)}</td></tr>")
        return (f"<div class='ascendlab-hotspots'><b>{esc(short_file(m.file))}</b> "
                f"({m.cycles:,} cycles)<table style='border-collapse:collapse'>"
                f"{''.join(rows)}</table></div>")

    def build_widget(self) -> Any:
        import ipywidgets as W

        return W.VBox([W.HTML(self.html()), image_widget(self.figure())])


def hotspots(run: Any, file: str | None = None, context: int = 2) -> Hotspots:
    """The source of `run`'s kernel (or `file`) with each line's modelled heat: its share of
    the critical path and its busy cycles (fixed and throughput parts)."""
    rows = hot_lines(run)
    if not rows:
        raise ValueError(f"hotspots: run {run.kernel!r} has an empty trace")
    if file is None:  # the file holding the most critical-path cycles
        by_file: dict[str, float] = {}
        for r in rows:
            by_file[r.file] = by_file.get(r.file, 0.0) + r.path_cycles + r.total_busy * 1e-9
        file = max(by_file, key=by_file.get)
    heat = {r.line: r for r in rows if r.file == file}
    if not heat:
        raise ValueError(f"hotspots: no instruction of run {run.kernel!r} comes from {file!r}")
    lo = max(1, min(heat) - context)
    hi = max(heat) + context
    source = [linecache.getline(file, ln) for ln in range(lo, hi + 1)]
    while source and not source[-1]:
        source.pop()
    return Hotspots(HotspotsModel(file, lo, source or [""], heat, run.cycles))
