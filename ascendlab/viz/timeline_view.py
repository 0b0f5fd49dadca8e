"""timeline(run): the pipe timeline as a static figure and as a zoomable widget.

The widget's body is inline SVG (hover a bar for op, cycles, bytes and source line; hover an
arrow for its sync edge); sliders and buttons choose the window and the cores, and each change
recomputes the model for that window only (TimelineIndex), so zooming a 20 000-instruction run
stays fast: zoomed out it draws busy-fraction buckets, zoomed in the instructions.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ..runtime.trace import Run
from . import svg
from .colors import IDLE_COLOR, PIPE_COLORS, SYNC_COLOR
from .timeline import Gap, Lane, TimelineIndex, TimelineModel, describe_event
from .view import View, new_figure

WIDTH, LABEL_W, RIGHT, TOP = 960, 92, 12, 24  # px
LANE_H, LANE_GAP, CORE_GAP = 12, 3, 6  # px


class TimelineView(View):
    """Per core x pipe lanes of a Run with instruction bars, sync arrows and idle gaps."""

    css_class = "ascendlab-timeline"

    def __init__(self, run: Run, window: tuple[float, float] | None = None,
                 cores: list[int] | None = None, *, max_items: int = 3000, bins: int = 200,
                 color_by: Literal["pipe", "core"] = "pipe") -> None:
        super().__init__()
        self.run = run
        self.index = TimelineIndex(run)
        self.options = dict(max_items=max_items, bins=bins, color_by=color_by)
        self.model: TimelineModel = self.index.model(window, cores, **self.options)
        self.controls: dict[str, Any] = {}

    def set_window(self, t0: float, t1: float) -> TimelineModel:
        """Zoom to cycles [t0, t1] (the widget's controls follow)."""
        self.model = self.index.model((t0, t1), list(self.model.cores_shown), **self.options)
        self._sync_controls()
        return self.model

    def summary(self) -> str:
        m = self.model
        width = m.window[1] - m.window[0]
        lines = [m.readout(), f"  window {m.window[0]:,.0f} - {m.window[1]:,.0f} cycles, "
                 f"{len(m.cores_shown)} of {m.cores_total} cores; pipe busy (mean over them):"]
        pipes: dict[str, list[Lane]] = {}
        for lane in m.lanes:
            pipes.setdefault(lane.pipe, []).append(lane)
        for pipe, lanes in pipes.items():
            busy = sum(lane.busy for lane in lanes) / len(lanes) / width
            count = sum(lane.count for lane in lanes)
            lines.append(f"  {pipe:<5} {busy:6.1%}  {count:>7,} instructions")
        longest: dict[str, Gap] = {}
        for g in m.gaps:
            pipe = m.lanes[g.lane].pipe
            if pipe not in longest or g.end - g.start > longest[pipe].end - longest[pipe].start:
                longest[pipe] = g
        for pipe, g in longest.items():
            lines.append(f"  longest {pipe} idle gap: {g.end - g.start:,.0f} cycles at "
                         f"{g.start:,.0f} on core {m.lanes[g.lane].core}"
                         + (f", then {g.cause}" if g.cause else ""))
        return "\n".join(lines)

    # ---- static --------------------------------------------------------------------------------
    def figure(self) -> Any:
        return timeline_figure(self.model)

    # ---- interactive ---------------------------------------------------------------------------
    def build_widget(self) -> Any:
        import ipywidgets as W

        m = self.model
        span = int(np.ceil(max(self.index.span, self.index.lands, 1)))
        c = self.controls
        c["window"] = W.IntRangeSlider(value=(int(m.window[0]), int(np.ceil(m.window[1]))),
                                       min=0, max=span, description="cycles",
                                       continuous_update=False,
                                       layout=W.Layout(width="520px"))
        # width "auto": the button fits its label in any theme's font (80px cut "zoom out")
        c["zoom_in"] = W.Button(description="zoom in", layout=W.Layout(width="auto"))
        c["zoom_out"] = W.Button(description="zoom out", layout=W.Layout(width="auto"))
        c["left"] = W.Button(description="<", layout=W.Layout(width="36px"))
        c["right"] = W.Button(description=">", layout=W.Layout(width="36px"))
        c["reset"] = W.Button(description="all", layout=W.Layout(width="auto"))
        cores = self.index.cores or [0]
        shown = m.cores_shown or (cores[0],)
        c["cores"] = W.IntRangeSlider(value=(min(shown), max(shown)), min=cores[0],
                                      max=cores[-1], description="cores",
                                      continuous_update=False, layout=W.Layout(width="360px"),
                                      disabled=len(cores) < 2)
        c["color_by"] = W.Dropdown(options=["pipe", "core"], value=self.options["color_by"],
                                   description="colour by", layout=W.Layout(width="180px"))
        self._header = W.HTML(layout=W.Layout(margin="0 0 4px 0"))
        self._body = W.HTML()
        self._footer = W.HTML()
        self._header.add_class("ascendlab-readout")
        self._body.add_class("ascendlab-timeline-body")
        c["window"].observe(lambda ch: self._update(window=ch["new"]), names="value")
        c["cores"].observe(lambda ch: self._update(), names="value")
        c["color_by"].observe(lambda ch: self._update(), names="value")
        c["zoom_in"].on_click(lambda _: self._zoom(0.5))
        c["zoom_out"].on_click(lambda _: self._zoom(2.0))
        c["left"].on_click(lambda _: self._pan(-0.5))
        c["right"].on_click(lambda _: self._pan(0.5))
        c["reset"].on_click(lambda _: self._set_slider(0, span))
        self._render()
        row1 = W.HBox([c["window"], c["zoom_in"], c["zoom_out"], c["left"], c["right"],
                       c["reset"]])
        row2 = W.HBox([c["cores"], c["color_by"]])
        return W.VBox([self._header, row1, row2, self._body, self._footer])

    def html(self) -> str:
        """The interactive body for the current model: inline SVG with hover titles."""
        return timeline_svg(self.model, lambda i: describe_event(self.run, i))

    def _update(self, window: tuple[int, int] | None = None) -> None:
        c = self.controls
        lo, hi = c["cores"].value
        cores = [k for k in self.index.cores if lo <= k <= hi]
        self.options["color_by"] = c["color_by"].value
        win = window if window is not None else c["window"].value
        self.model = self.index.model(win, cores, **self.options)
        self._render()

    def _render(self) -> None:
        m = self.model
        self._header.value = f"<b>{svg.esc(m.readout())}</b>"
        self._body.value = self.html()
        if m.mode == "binned":
            note = (f"{m.visible:,} instructions in this window: shaded by busy fraction per "
                    f"bucket (darker = busier); zoom in to see instructions")
        else:
            note = f"{m.visible:,} instructions; hover a bar for details"
        if m.arrows_hidden:
            note += f"; {m.arrows_hidden:,} sync arrows not drawn"
        if m.cores_total > len(m.cores_shown):
            note += f"; showing {cores_note(m)}"
        if m.end_note():
            note += f"; {m.end_note()}"
        self._footer.value = f"<small>{svg.esc(note)}</small>"

    def _set_slider(self, t0: float, t1: float) -> None:
        w = self.controls["window"]
        t0 = int(max(w.min, min(t0, w.max - 1)))
        t1 = int(max(t0 + 1, min(t1, w.max)))
        w.value = (t0, t1)

    def _zoom(self, factor: float) -> None:
        t0, t1 = self.controls["window"].value
        mid, half = (t0 + t1) / 2, max((t1 - t0) * factor / 2, 1)
        self._set_slider(mid - half, mid + half)

    def _pan(self, frac: float) -> None:
        t0, t1 = self.controls["window"].value
        d = (t1 - t0) * frac
        if t0 + d < 0:
            d = -t0
        if t1 + d > self.controls["window"].max:
            d = self.controls["window"].max - t1
        self._set_slider(t0 + d, t1 + d)

    def _sync_controls(self) -> None:
        if self._widget is not None:
            self._set_slider(*self.model.window)


def timeline(run: Run, window: tuple[float, float] | None = None,
             cores: list[int] | None = None, **kw: Any) -> TimelineView:
    """The pipe timeline of `run`: per core x pipe lanes (MTE2, V, MTE3, ...) with instruction
    bars, sync arrows and idle gaps, the cycles readout and the roofline bound.

    window: (first, last) cycle to show (default: all); cores: block indices (default: the
    first 8); max_items: bars drawn before the view bins lanes (default 3000); bins: buckets
    per lane when binned (200); color_by: "pipe" or "core"."""
    return TimelineView(run, window, cores, **kw)


def cores_note(m: TimelineModel) -> str:
    """'cores 0-7 of 48' (or the list when the cores shown are not a range)."""
    shown = sorted(m.cores_shown)
    if shown and shown == list(range(shown[0], shown[-1] + 1)):
        which = f"cores {shown[0]}-{shown[-1]}" if len(shown) > 1 else f"core {shown[0]}"
    else:
        which = "cores " + ", ".join(map(str, shown))
    return f"{which} of {m.cores_total}"


# ---- renderers ---------------------------------------------------------------------------------
def _lane_rows(m: TimelineModel) -> list[float]:
    """y of each lane's top, with a gap between cores."""
    ys, y, prev = [], float(TOP), None
    for lane in m.lanes:
        if prev is not None and lane.core != prev:
            y += CORE_GAP
        ys.append(y)
        y += LANE_H + LANE_GAP
        prev = lane.core
    return ys


def _ticks(t0: float, t1: float, n: int = 6) -> list[float]:
    step = (t1 - t0) / n
    mag = 10 ** np.floor(np.log10(step)) if step > 0 else 1
    step = min((m * mag for m in (1, 2, 5, 10) if m * mag >= step), default=mag)
    first = np.ceil(t0 / step) * step
    return [float(v) for v in np.arange(first, t1 + step * 1e-9, step)]


def timeline_svg(m: TimelineModel, describe: Any) -> str:
    """Inline SVG of the model; `describe(event_index)` gives a bar's hover text."""
    ys = _lane_rows(m)
    height = (ys[-1] if ys else TOP) + LANE_H + 22
    t0, t1 = m.window
    scale = (WIDTH - LABEL_W - RIGHT) / (t1 - t0)

    def x(t: float) -> float:
        return LABEL_W + (min(max(t, t0), t1) - t0) * scale

    out = [svg.svg_open(WIDTH, height, "ascendlab-timeline-svg", mode=m.mode,
                        cycles=m.cycles, window=f"{t0:.0f}-{t1:.0f}", bars_end=f"{m.span:.0f}",
                        lands=f"{m.lands:.0f}", cores_shown=len(m.cores_shown),
                        cores_total=m.cores_total)]
    for t in _ticks(t0, t1):
        out.append(svg.line(x(t), TOP - 4, x(t), height - 20, "#e0e0e0"))
        out.append(svg.text(x(t), TOP - 8, f"{t:,.0f}", anchor="middle", fill="#666"))
    if t0 <= m.bound_cycles <= t1:
        out.append(svg.line(x(m.bound_cycles), TOP - 4, x(m.bound_cycles), height - 20,
                            "#999", 1.0, dash="4 3",
                            title=f"roofline bound: {m.bound_cycles:,} cycles ({m.bound})"))
    if m.lands > m.span + 1 and t0 <= m.lands <= t1:
        out.append(svg.line(x(m.lands), TOP - 4, x(m.lands), height - 20, "#333", 1.0,
                            dash="1 2", title=f"kernel end: {m.end_note()}", kernel_end=1))
    for k, lane in enumerate(m.lanes):
        out.append(svg.text(4, ys[k] + LANE_H - 2, lane.label, fill=lane.core_color,
                            weight="bold"))
        out.append(svg.text(LABEL_W - 6, ys[k] + LANE_H - 2, lane.pipe, anchor="end"))
    for b in m.bars:
        out.append(svg.rect(x(b.start), ys[b.lane], (b.end - b.start) * scale, LANE_H, b.color,
                            describe(b.event), event=b.event, op=b.op,
                            core=m.lanes[b.lane].core, pipe=m.lanes[b.lane].pipe))
    for b in m.bins:
        lane = m.lanes[b.lane]
        out.append(svg.rect(x(b.start), ys[b.lane], (b.end - b.start) * scale, LANE_H,
                            lane.color, f"{b.start:,.0f}-{b.end:,.0f}: busy {b.busy:.0%}, "
                            f"{b.count:,} instr.", opacity=0.15 + 0.85 * b.busy, bin=1))
    for g in m.gaps:
        lane = m.lanes[g.lane]
        out.append(svg.line(x(g.start), ys[g.lane] + LANE_H / 2, x(g.end),
                            ys[g.lane] + LANE_H / 2, IDLE_COLOR, 1.2, dash="2 2",
                            title=f"longest idle gap of core {lane.core} {lane.pipe}: "
                            f"{g.end - g.start:,.0f} cycles"
                            + (f"\nbefore the next instruction: {g.cause}" if g.cause else ""),
                            gap=1))
    for a in m.arrows:
        out.append(svg.line(x(a.src_t), ys[a.src_lane] + LANE_H / 2, x(a.dst_t),
                            ys[a.dst_lane] + LANE_H / 2, SYNC_COLOR, 0.7, arrow=True,
                            title=f"sync: {describe(a.set_event).splitlines()[0]} -> "
                            f"{describe(a.wait_event).splitlines()[0]}", arrow_edge=1))
    lx = LABEL_W
    for pipe in sorted({lane.pipe for lane in m.lanes}, key=list(PIPE_COLORS).index):
        out.append(svg.rect(lx, height - 14, 10, 10, PIPE_COLORS[pipe]))
        out.append(svg.text(lx + 13, height - 5, pipe))
        lx += 56
    out.append("</svg>")
    return "".join(out)


def timeline_figure(m: TimelineModel) -> Any:
    """The static timeline: lanes top to bottom, bars or busy buckets, sync arrows."""
    fig = new_figure(12, 1.3 + 0.24 * max(len(m.lanes), 1))
    draw_timeline(fig.add_subplot(), m)
    return fig


def draw_timeline(ax: Any, m: TimelineModel) -> None:
    """Draw the model on a matplotlib Axes."""
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    n = max(len(m.lanes), 1)
    t0, t1 = m.window
    by_lane: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for b in m.bars:
        by_lane.setdefault((b.lane, b.color), []).append((b.start, b.end - b.start))
    for (row, color), spans in by_lane.items():
        ax.broken_barh(spans, (n - 1 - row - 0.4, 0.8), facecolors=color, edgecolor="white",
                       linewidth=0.3)
    by_level: dict[tuple[int, float], list[tuple[float, float]]] = {}
    for b in m.bins:
        by_level.setdefault((b.lane, b.busy), []).append((b.start, b.end - b.start))
    for (row, busy), spans in by_level.items():
        ax.broken_barh(spans, (n - 1 - row - 0.4, 0.8), facecolors=m.lanes[row].color,
                       alpha=0.15 + 0.85 * busy, linewidth=0)
    for g in m.gaps:
        y = n - 1 - g.lane
        ax.plot([g.start, g.end], [y, y], color=IDLE_COLOR, lw=1, ls=(0, (2, 2)))
    if m.arrows:
        segs = [((a.src_t, n - 1 - a.src_lane), (a.dst_t, n - 1 - a.dst_lane))
                for a in m.arrows]
        ax.add_collection(LineCollection(segs, colors=SYNC_COLOR, linewidths=0.5, alpha=0.6))
        ax.scatter([a.dst_t for a in m.arrows], [n - 1 - a.dst_lane for a in m.arrows],
                   s=6, marker="v", color=SYNC_COLOR, zorder=3)
    if m.lands > m.span + 1 and t0 <= m.lands <= t1:
        ax.axvline(m.lands, color="#333", ls=":", lw=1)
        ax.annotate(f"last result lands {m.lands:,.0f} ", (m.lands, n - 0.35), fontsize=7,
                    color="#333", ha="right", va="top")
    if t0 <= m.bound_cycles <= t1:
        ax.axvline(m.bound_cycles, color="#999", ls="--", lw=1)
        ax.annotate(f" roofline bound {m.bound_cycles:,}", (m.bound_cycles, -0.65),
                    fontsize=7, color="#666", ha="left", va="bottom")
    # the full run gets a little room on the right, so its last bars do not end on the frame
    ax.set_xlim(t0, t1 + (0.015 * (t1 - t0) if t1 >= max(m.span, m.lands) else 0.0))
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{lane.label} {lane.pipe}" for lane in reversed(m.lanes)],
                       fontsize=8)
    for tick, lane in zip(ax.get_yticklabels(), reversed(m.lanes)):
        tick.set_color(lane.core_color)
    ax.set_xlabel("cycles (cost model)")
    mode = "" if m.mode == "bars" else f" (binned: {m.visible:,} instructions, busy per bucket)"
    if m.cores_total > len(m.cores_shown):
        mode += f"\nshowing {cores_note(m)}"
    ax.set_title(m.readout() + mode, fontsize=9, loc="left")
    handles = [Patch(color=PIPE_COLORS[p], label=p)
               for p in PIPE_COLORS if any(lane.pipe == p for lane in m.lanes)]
    ax.figure.legend(handles=handles, loc="outside upper right", fontsize=7,
                     ncols=len(handles) or 1, frameon=False)
    ax.grid(axis="x", color="#eee")
