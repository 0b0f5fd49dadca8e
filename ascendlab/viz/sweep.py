"""sweep(fn, values): one kernel launched at several sizes (or tiles), plotted the way Triton's
benchmark reports are: time and % of the roofline against the swept value.

    view = viz.sweep(lambda n: ascendlab.launch(kernel, 8, ...n...), [2**k for k in range(10, 20)],
                     name="n", baseline=numpy_us)
    view                 # the figure (time vs n, % of roofline vs n) and a table
    view.rows            # one SweepRow per value: cycles, bound, efficiency, times
    view.table()         # the same as text

For each value `fn(value)` must return a Run (ascendlab.launch's result). Each row takes the
run's cost as Run.cost gives it (an isolated launch: cold L2, the isolated launch overhead of
ChipSpec.launch_us for the cores the launch starts). The left panel plots, in microseconds:

* the kernel time, modelled cycles at the chip clock;
* the roofline bound, the bound's cycles at the chip clock (what the busiest resource of the
  cycle model needs: GM traffic, vector or cube work);
* kernel + launch overhead, what a caller waits for one launch;
* the launch overhead alone, a horizontal line: below it, the launch costs more than the work;
* optionally a baseline (`baseline(value)` in microseconds, e.g. numpy's measured time).

The right panel plots the roofline efficiency (bound cycles / cycles, in %) with the bound
drawn at 100 %. `marks` draws labelled vertical lines (a capacity limit, a ridge point).

A value the emulator rejects (an AscendlabError: a tile beyond the UB, a bad parameter) becomes
a row with the error's first line instead of numbers, and is left out of the plot; any other
exception propagates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import AscendlabError
from ..runtime.trace import Run
from . import svg
from .view import View, fmt_bytes, image_widget, new_figure


@dataclass(frozen=True)
class SweepRow:
    """One launch of the sweep (times in microseconds)."""

    value: float
    cycles: int = 0
    bound_cycles: int = 0
    bound: str = ""  # "memory" | "vector" | "cube": the busiest resource of the cycle model
    efficiency: float = 0.0  # bound_cycles / cycles
    kernel_us: float = 0.0  # cycles at the chip clock
    bound_us: float = 0.0  # bound_cycles at the chip clock
    launch_us: float = 0.0  # the launch overhead of this launch
    gm_bytes: int = 0
    gbps: float = 0.0  # GM bytes / kernel time
    baseline_us: float | None = None
    error: str = ""  # the emulator's rejection, when it rejected this value

    @property
    def total_us(self) -> float:
        """What a caller waits for one launch: kernel time + launch overhead."""
        return self.kernel_us + self.launch_us

    @property
    def ok(self) -> bool:
        return not self.error


@dataclass
class SweepModel:
    """What the sweep plots: one row per value, in the order given."""

    name: str  # the swept quantity ("n", "tile")
    label: str  # the kernel's line in the legend
    chip: str
    clock_mhz: int
    rows: list[SweepRow] = field(default_factory=list)
    baseline_label: str = "baseline"
    marks: dict[str, float] = field(default_factory=dict)

    @property
    def ok_rows(self) -> list[SweepRow]:
        return [r for r in self.rows if r.ok]

    def best(self) -> SweepRow:
        """The row closest to its roofline bound (among those that ran); over tiles, the
        work is the same at every value, so it is also the one with the fewest cycles."""
        if not self.ok_rows:
            raise ValueError(f"sweep over {self.name}: no value ran; errors: "
                             f"{[r.error for r in self.rows]}")
        return max(self.ok_rows, key=lambda r: r.efficiency)

    def crossover(self) -> float | None:
        """The first value whose kernel time reaches the launch overhead (None: never)."""
        return next((r.value for r in self.ok_rows if r.kernel_us >= r.launch_us), None)


def row_of(value: float, run: Run, baseline_us: float | None = None) -> SweepRow:
    """A sweep row from one run's cost."""
    cost = run.cost
    mhz = run.chip.clock_mhz
    kernel_us = cost.cycles / mhz
    return SweepRow(value=value, cycles=cost.cycles, bound_cycles=cost.bound_cycles,
                    bound=cost.bound, efficiency=cost.efficiency, kernel_us=kernel_us,
                    bound_us=cost.bound_cycles / mhz, launch_us=cost.launch_overhead_us,
                    gm_bytes=cost.gm_bytes,
                    gbps=cost.gm_bytes / kernel_us / 1e3 if kernel_us else 0.0,
                    baseline_us=baseline_us)


def sweep_model(fn: Callable[[Any], Run], values: Iterable[Any], *, name: str = "n",
                label: str | None = None,
                baseline: Callable[[Any], float] | Mapping[Any, float] | None = None,
                baseline_label: str = "baseline",
                marks: Mapping[str, float] | None = None) -> SweepModel:
    """Launch `fn(value)` for each value and collect the rows (see the module docstring)."""
    values = list(values)
    if not values:
        raise ValueError(f"sweep over {name}: needs at least one value, got none")
    bad = [v for v in values if not isinstance(v, (int, float)) or v <= 0]
    if bad:
        raise ValueError(f"sweep over {name}: values are sizes or tiles, positive numbers; "
                         f"got {bad}")
    rows: list[SweepRow] = []
    chip, mhz, kernel = "", 0, ""
    for v in values:
        try:
            run = fn(v)
        except AscendlabError as e:
            rows.append(SweepRow(value=v, error=str(e).splitlines()[0]))
            continue
        if not isinstance(run, Run):
            raise TypeError(f"sweep over {name}: fn({v!r}) must return a Run (the result of "
                            f"ascendlab.launch), got {type(run).__name__}")
        base = None
        if baseline is not None:
            base = float(baseline[v] if isinstance(baseline, Mapping) else baseline(v))
        rows.append(row_of(v, run, base))
        chip, mhz, kernel = run.chip.name, run.chip.clock_mhz, run.kernel
    return SweepModel(name=name, label=label or kernel or "kernel", chip=chip, clock_mhz=mhz,
                      rows=rows, baseline_label=baseline_label, marks=dict(marks or {}))


def _num(v: float) -> str:
    """12288 -> '12,288'; 0.5 -> '0.5'."""
    return f"{int(v):,}" if float(v).is_integer() else f"{v:g}"


class SweepView(View):
    """Time and % of the roofline against a swept size or tile."""

    css_class = "ascendlab-sweep"

    def __init__(self, model: SweepModel) -> None:
        super().__init__()
        self.model = model

    @property
    def rows(self) -> list[SweepRow]:
        return self.model.rows

    def table(self) -> str:
        """The rows as a text table."""
        m = self.model
        base = any(r.baseline_us is not None for r in m.rows)
        head = (f"{m.name:>10} {'cycles':>9} {'bound':>9} {'of bound':>8} {'kernel us':>9} "
                f"{'+launch us':>10} {'GB/s':>7}  {'GM traffic':>10} {'bound by':<8}"
                + (f" {m.baseline_label + ' us':>12}" if base else ""))
        lines = [head]
        for r in m.rows:
            if not r.ok:
                lines.append(f"{_num(r.value):>10} rejected: {r.error}")
                continue
            line = (f"{_num(r.value):>10} {r.cycles:>9,} {r.bound_cycles:>9,} {r.efficiency:>8.0%} "
                    f"{r.kernel_us:>9.2f} {r.total_us:>10.2f} {r.gbps:>7.0f}  "
                    f"{fmt_bytes(r.gm_bytes):>10} {r.bound:<8}")
            if base:
                line += f" {r.baseline_us:>12.2f}" if r.baseline_us is not None else ""
            lines.append(line)
        return "\n".join(lines)

    def summary(self) -> str:
        m = self.model
        out = [f"sweep of {m.label} over {m.name} on {m.chip}:", self.table()]
        if m.ok_rows:
            best = m.best()
            out.append(f"closest to the roofline at {m.name} = {_num(best.value)}: "
                       f"{best.cycles:,} cycles, {best.efficiency:.0%} of its bound")
            cross = m.crossover()
            launch = m.ok_rows[-1].launch_us
            out.append(f"the kernel outlasts the launch overhead ({launch:.1f} us) from "
                       f"{m.name} = {_num(cross)}" if cross is not None else
                       f"the launch overhead ({launch:.1f} us) exceeds the kernel time at "
                       f"every {m.name}")
        return "\n".join(out)

    def figure(self) -> Any:
        m = self.model
        rows = m.ok_rows
        fig = new_figure(10, 4)
        ax_t, ax_e = fig.subplots(1, 2)
        xs = [r.value for r in rows]
        ax_t.plot(xs, [r.kernel_us for r in rows], "o-", color="#1f77b4",
                  label=f"{m.label} (modelled kernel)")
        ax_t.plot(xs, [r.total_us for r in rows], "s-", color="#1f77b4", alpha=0.45, ms=4,
                  label="kernel + launch overhead")
        ax_t.plot(xs, [r.bound_us for r in rows], "--", color="#444",
                  label="roofline bound")
        ax_t.plot(xs, [r.launch_us for r in rows], ":", color="#c62828",
                  label="launch overhead")
        if any(r.baseline_us is not None for r in rows):
            bx = [r.value for r in rows if r.baseline_us is not None]
            ax_t.plot(bx, [r.baseline_us for r in rows if r.baseline_us is not None], "^-",
                      color="#2e7d32", label=m.baseline_label)
        ax_e.plot(xs, [100 * r.efficiency for r in rows], "o-", color="#1f77b4",
                  label=m.label)
        ax_e.axhline(100, ls="--", color="#444", label="the bound (100 %)")
        for r in rows:
            ax_e.annotate(r.bound, (r.value, 100 * r.efficiency), fontsize=7, color="#666",
                          xytext=(0, 5), textcoords="offset points", ha="center")
        rejected = [r.value for r in m.rows if not r.ok]
        for ax in (ax_t, ax_e):
            if rejected:  # at the foot of the axes: the emulator refused these values
                ax.plot(rejected, [0.03] * len(rejected), "x", color="#c62828", ms=8, mew=2,
                        transform=ax.get_xaxis_transform(), label="rejected by the emulator")
            for text, x in m.marks.items():
                ax.axvline(x, color="#888", lw=1)
                ax.annotate(text, (x, 0.02), xycoords=("data", "axes fraction"), fontsize=7,
                            rotation=90, ha="right", va="bottom", color="#666")
            ax.set_xscale("log", base=2)
            ax.set_xlabel(m.name)
            ax.grid(which="both", color="#eee")
            ax.legend(fontsize=7)
        ax_t.set_yscale("log")
        from matplotlib.ticker import FuncFormatter, NullFormatter

        plain = FuncFormatter(lambda y, _: f"{y:g}")
        lo, hi = ax_t.get_ylim()
        ax_t.yaxis.set_major_formatter(plain)  # 20, not 2 x 10^1; minor labels on short ranges
        ax_t.yaxis.set_minor_formatter(plain if hi < 30 * lo else NullFormatter())
        ax_t.set_ylabel("microseconds (kernel: cycle model)")
        ax_t.set_title(f"time against {m.name} on {m.chip}", fontsize=9, loc="left")
        ax_e.set_ylim(0, 110)
        ax_e.set_ylabel("% of the roofline bound")
        ax_e.set_title("efficiency; the label is the bound's resource", fontsize=9, loc="left")
        return fig

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        """The widget, and the figure as a PNG too: a sweep is read in static renderings
        (nbconvert HTML, a read-only viewer) as much as in JupyterLab."""
        bundle = super()._repr_mimebundle_(include, exclude)
        if "image/png" not in bundle and not self.__dict__.get("_released"):
            try:
                bundle["image/png"] = self.png()
            except ImportError:
                pass
        return bundle

    def build_widget(self) -> Any:
        import ipywidgets as W

        m = self.model
        cells = []
        for r in m.rows:
            if r.ok:
                cells.append(f"<tr><td>{_num(r.value)}</td><td>{r.cycles:,}</td>"
                             f"<td>{r.bound_cycles:,}</td><td>{r.efficiency:.0%}</td>"
                             f"<td>{r.kernel_us:.2f}</td><td>{r.total_us:.2f}</td>"
                             f"<td>{r.bound}</td></tr>")
            else:
                cells.append(f"<tr><td>{_num(r.value)}</td><td colspan='6'>rejected: "
                             f"{svg.esc(r.error)}</td></tr>")
        table = W.HTML(f"<table class='ascendlab-sweep-rows'><tr><th>{svg.esc(m.name)}</th>"
                       "<th>cycles</th><th>bound</th><th>of bound</th><th>kernel us</th>"
                       f"<th>+ launch us</th><th>bound by</th></tr>{''.join(cells)}</table>")
        return W.VBox([image_widget(self.figure()), table])


def sweep(fn: Callable[[Any], Run], values: Iterable[Any], *, name: str = "n",
          label: str | None = None,
          baseline: Callable[[Any], float] | Mapping[Any, float] | None = None,
          baseline_label: str = "baseline",
          marks: Mapping[str, float] | None = None) -> SweepView:
    """Launch `fn(value)` for each of `values` (sizes or tiles) and plot time and % of the
    roofline against them; see the module docstring."""
    return SweepView(sweep_model(fn, values, name=name, label=label, baseline=baseline,
                                 baseline_label=baseline_label, marks=marks))


__all__ = ["SweepModel", "SweepRow", "SweepView", "row_of", "sweep", "sweep_model"]
