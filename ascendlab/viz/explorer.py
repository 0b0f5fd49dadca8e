"""explore(launcher, tile=[...], buffers=[...]): sliders that re-run a kernel.

Each slider picks one value of one keyword of `launcher`; moving it calls
launcher(**values) (which launches the kernel and returns its Run, or None for the latest
one) and redraws the cycles readout and the pipe timeline. A setting the emulator rejects (a
buffer too large for UB, a misaligned tile, a parameter out of range: any AscendlabError)
shows the error's message instead of the timeline; the explorer keeps working. Every setting
tried is kept in `history`, the static figure's bar chart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..errors import AscendlabError
from ..runtime.trace import Run
from . import svg
from .timeline_view import TimelineView, cores_note, draw_timeline
from .view import View, new_figure


class Trial(NamedTuple):
    """One setting the explorer ran: its cycles, or the error that rejected it."""

    values: dict[str, Any]
    cycles: int | None
    bound_cycles: int | None
    error: str | None


@dataclass
class ExplorerModel:
    """The current setting, its Run's numbers or error, and every setting tried so far."""

    values: dict[str, Any]
    cycles: int | None = None
    bound: str | None = None
    bound_cycles: int | None = None
    efficiency: float | None = None
    error: str | None = None
    history: list[Trial] = field(default_factory=list)

    def readout(self) -> str:
        setting = ", ".join(f"{k}={v}" for k, v in self.values.items())
        if self.error:
            return f"{setting}: rejected: {self.error}"
        return (f"{setting}: {self.cycles:,} cycles, {self.bound}-bound, roofline "
                f"{self.bound_cycles:,} cycles ({self.efficiency:.0%} of it)")


class Explorer(View):
    """Sliders over a launcher's keywords, a live cycles readout and timeline."""

    css_class = "ascendlab-explorer"

    def __init__(self, launcher: Callable[..., Run | None], ranges: dict[str, list[Any]],
                 initial: dict[str, Any] | None = None) -> None:
        super().__init__()
        if not ranges:
            raise ValueError("explore: give at least one keyword range, e.g. tile=[256, 1024]")
        for k, v in ranges.items():
            if not isinstance(v, (list, tuple, range)) or not len(v):
                raise ValueError(f"explore: {k} must be a non-empty list of values, got {v!r}")
        self.launcher = launcher
        self.ranges = {k: list(v) for k, v in ranges.items()}
        values = {k: v[0] for k, v in self.ranges.items()}
        for k, v in (initial or {}).items():
            if k not in self.ranges or v not in self.ranges[k]:
                raise ValueError(f"explore: initial {k}={v!r} is not one of {self.ranges.get(k)}")
            values[k] = v
        self.run: Run | None = None
        self.timeline: TimelineView | None = None
        self.model = ExplorerModel(values)
        self.controls: dict[str, Any] = {}
        self._run()

    def set(self, **values: Any) -> ExplorerModel:
        """Change some values (the sliders follow) and re-run."""
        for k in values:
            if k not in self.ranges:
                raise ValueError(f"explore: unknown keyword {k!r}; sliders: {list(self.ranges)}")
        self.model.values.update(values)
        if self._widget is not None:
            self._quiet = True
            try:
                for k, v in values.items():
                    self.controls[k].value = v
            finally:
                self._quiet = False
        self._run()
        return self.model

    def _run(self) -> None:
        from ..runtime.launch.jit import last_run
        from ..tools.profile import remember_launch

        m = self.model
        try:
            run = self.launcher(**m.values)
            run = run if run is not None else last_run()
            remember_launch(run, self.launcher, m.values)  # profile(run) can re-run variants
            cost = run.cost
        except AscendlabError as e:
            self.run, self.timeline = None, None
            m.error = f"{type(e).__name__}: {e}"
            m.cycles = m.bound = m.bound_cycles = m.efficiency = None
            m.history.append(Trial(dict(m.values), None, None, m.error))
        else:
            self.run = run
            self.timeline = TimelineView(run)
            m.error = None
            m.cycles, m.bound = cost.cycles, cost.bound
            m.bound_cycles, m.efficiency = cost.bound_cycles, cost.efficiency
            m.history.append(Trial(dict(m.values), cost.cycles, cost.bound_cycles, None))
        if self._widget is not None:
            self._render()

    def summary(self) -> str:
        m = self.model
        lines = [m.readout(), "  tried:"]
        for t in m.history[-12:]:
            setting = ", ".join(f"{k}={v}" for k, v in t.values.items())
            lines.append(f"    {setting}: " + (f"{t.cycles:,} cycles" if t.error is None
                                               else t.error.splitlines()[0]))
        return "\n".join(lines)

    def figure(self) -> Any:
        m = self.model
        lanes = len(self.timeline.model.lanes) if self.timeline else 0
        fig = new_figure(12, 2.8 + 0.22 * lanes)
        ax_t, ax_h = fig.subplots(2, 1, height_ratios=[max(lanes, 2) * 0.22 + 0.6, 2.2])
        if self.timeline is not None:
            draw_timeline(ax_t, self.timeline.model)
        else:
            ax_t.text(0.01, 0.5, m.readout(), color="#b22222", fontsize=9, va="center",
                      transform=ax_t.transAxes, wrap=True)
            ax_t.set_axis_off()
        seen: dict[str, Trial] = {}
        for t in m.history:  # the latest result of each setting, in first-tried order
            seen[", ".join(f"{k}={v}" for k, v in t.values.items())] = t
        names = list(seen)
        cyc = [seen[n].cycles or 0 for n in names]
        colors = ["#4c78a8" if seen[n].error is None else "#e45756" for n in names]
        ax_h.bar(range(len(names)), cyc, color=colors)
        for k, n in enumerate(names):
            if seen[n].error is not None:
                ax_h.annotate("rejected", (k, 0), ha="center", va="bottom", fontsize=7,
                              color="#b22222", rotation=90)
        ax_h.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=7)
        ax_h.set_ylabel("cycles", fontsize=8)
        ax_h.set_title("settings tried (red: rejected by the emulator)", fontsize=8, loc="left")
        return fig

    def build_widget(self) -> Any:
        import ipywidgets as W

        self._quiet = False
        for k, options in self.ranges.items():
            s = W.SelectionSlider(options=options, value=self.model.values[k], description=k,
                                  continuous_update=False, layout=W.Layout(width="420px"))
            s.observe(self._on_slider(k), names="value")
            self.controls[k] = s
        self._readout = W.HTML()
        self._readout.add_class("ascendlab-readout")
        self._error = W.HTML()
        self._error.add_class("ascendlab-error")
        self._body = W.HTML()
        self._body.add_class("ascendlab-timeline-body")
        self._history = W.HTML()
        box = W.VBox([W.VBox(list(self.controls.values())), self._readout, self._error,
                      self._body, self._history])
        self._widget = box  # so _render can run before the View base stores it
        self._render()
        return box

    def _on_slider(self, name: str) -> Callable[[dict], None]:
        def changed(change: dict) -> None:
            if not self._quiet:
                self.model.values[name] = change["new"]
                self._run()

        return changed

    def _render(self) -> None:
        m = self.model
        if m.error:
            self._readout.value = ""
            self._error.value = (f"<pre style='color:#b22222;white-space:pre-wrap'>"
                                 f"{svg.esc(m.readout())}</pre>")
            self._body.value = ""
        else:
            self._readout.value = f"<b>{svg.esc(m.readout())}</b>"
            self._error.value = ""
            self._body.value = self.timeline.html() if self.timeline else ""
            tm = self.timeline.model if self.timeline else None
            if tm is not None and tm.cores_total > len(tm.cores_shown):
                self._body.value += (f"<small class='ascendlab-cores-note'>timeline of "
                                     f"{svg.esc(cores_note(tm))}</small>")
        rows = "".join(
            f"<tr><td>{svg.esc(', '.join(f'{k}={v}' for k, v in t.values.items()))}</td>"
            f"<td>{'' if t.cycles is None else f'{t.cycles:,}'}</td>"
            f"<td>{svg.esc((t.error or '').splitlines()[0] if t.error else '')}</td></tr>"
            for t in m.history[-8:])
        self._history.value = ("<details><summary>settings tried</summary><table>"
                               f"<tr><th>setting</th><th>cycles</th><th>error</th></tr>{rows}"
                               "</table></details>")


def explore(launcher: Callable[..., Run | None], **ranges: list[Any]) -> Explorer:
    """Sliders over `launcher`'s keywords (each a list of values, e.g. tile=[256, 1024, 4096],
    buffers=[1, 2]); moving one re-runs launcher(**values) and updates the cycles readout and
    the timeline. Settings the emulator rejects show its error message."""
    return Explorer(launcher, ranges)
