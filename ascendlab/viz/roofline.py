"""roofline(run, *earlier): the chip's roofline with each run's point.

x is arithmetic intensity (FLOP per byte of GM traffic), y modelled performance (GFLOP/s at
the chip clock), both logarithmic. The chip's roofs (solid) are its HBM bandwidth and the peaks
of all its vector and cube cores. The first run's own roofs (dashed) are what the cycle model
allows this launch: the GM port rate of the cores it uses and the peak of its own instruction
mix on them; its roofline bound (Run.bound_cycles) sits on them. Each run is a dot, linked to
its bound by a dotted line: the gap is Run.efficiency.

FLOP counting is the cycle model's (Run.flops): 2 per multiply-add, 1 per other vector lane.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np

from ..runtime.trace import Run
from . import svg
from .colors import CORE_PALETTE
from .view import View, fmt_bytes, image_widget, new_figure


class Roof(NamedTuple):
    """One ceiling: a bandwidth (GB/s) or a compute peak (GFLOP/s)."""

    name: str
    kind: Literal["memory", "compute"]
    value: float  # GB/s for memory, GFLOP/s for compute
    scope: Literal["chip", "launch"]


class Point(NamedTuple):
    """One run on the roofline."""

    label: str
    intensity: float  # FLOP per GM byte
    gflops: float  # modelled performance
    bound_gflops: float  # performance at the run's roofline bound
    cycles: int
    bound: str
    efficiency: float
    flops: int
    gm_bytes: int
    color: str


@dataclass
class RooflineModel:
    """The roofs of one chip and the points of some runs."""

    chip: str
    clock_mhz: int
    roofs: list[Roof]
    points: list[Point] = field(default_factory=list)

    def attainable(self, intensity: float, scope: Literal["chip", "launch"] = "chip") -> float:
        """GFLOP/s the roofs of `scope` allow at `intensity` (FLOP/B)."""
        roofs = [r for r in self.roofs if r.scope == scope]
        mem = max((r.value for r in roofs if r.kind == "memory"), default=np.inf)
        comp = max((r.value for r in roofs if r.kind == "compute"), default=np.inf)
        return float(min(mem * intensity, comp))

    def x_range(self) -> tuple[float, float]:
        xs = [p.intensity for p in self.points if p.intensity > 0]
        mem = max(r.value for r in self.roofs if r.kind == "memory")
        xs += [r.value / mem for r in self.roofs if r.kind == "compute"]
        return min(xs) / 8, max(xs) * 8


def chip_roofs(run: Run) -> list[Roof]:
    """The chip's roofs (all cores) and this launch's (its cores, the cycle model's rates)."""
    chip, cost = run.chip, run.cost
    ghz = chip.clock_mhz / 1e3
    vec_lanes32 = chip.vector_bytes_per_cycle / 4  # fp32 lanes per cycle per vector core
    roofs = [
        Roof("HBM, all cores", "memory", chip.hbm_gbps, "chip"),
        Roof("vector fp32 FMA, all cores", "compute",
             chip.aiv_cores * vec_lanes32 * 2 * ghz, "chip"),
        Roof("vector fp16 FMA, all cores", "compute",
             chip.aiv_cores * vec_lanes32 * 2 * 2 * ghz, "chip"),
        Roof("cube fp16, all cores", "compute", chip.aic_cores * chip.cube_macs_per_cycle * 2 * ghz,
             "chip"),
    ]
    if cost.memory_cycles > 0:
        bw = cost.gm_bytes / cost.memory_cycles * ghz  # B/cycle -> GB/s
        roofs.append(Roof(f"GM ports of {cost.active_cores} cores", "memory",
                          bw, "launch"))
    busy = max(cost.vector_cycles, cost.cube_cycles)
    if busy > 0 and cost.flops:
        unit = "cube" if cost.cube_cycles >= cost.vector_cycles else "vector"
        roofs.append(Roof(f"this op mix on {cost.active_cores} {unit} cores", "compute",
                          cost.flops / busy * ghz, "launch"))
    return roofs


def run_point(run: Run, label: str | None = None, color: str = CORE_PALETTE[0]) -> Point:
    """A run's place on the roofline."""
    cost = run.cost
    ghz = run.chip.clock_mhz / 1e3
    ai = cost.flops / cost.gm_bytes if cost.gm_bytes else float("inf")
    perf = cost.flops / max(cost.cycles, 1) * ghz
    at_bound = cost.flops / max(cost.bound_cycles, 1) * ghz
    return Point(label or run_label(run), ai, perf, at_bound, cost.cycles, cost.bound,
                 cost.efficiency, cost.flops, cost.gm_bytes, color)


def run_label(run: Run) -> str:
    """'vadd 8 cores tile=1024 buffers=2': kernel, cores and the small scalar arguments."""
    args = " ".join(f"{k}={v}" for k, v in run.scalars.items()
                    if isinstance(v, (int, float, str, bool)) and len(str(v)) <= 8)
    return f"{run.kernel} {run.block_num} cores {args}".strip()


def roofline_model(run: Run, *earlier: Run, labels: list[str] | None = None) -> RooflineModel:
    """The roofline of `run`'s chip with `run` and `earlier` runs as points."""
    runs = [run, *earlier]
    labels = list(labels or []) + [None] * len(runs)  # type: ignore[list-item]
    points = [run_point(r, labels[k], CORE_PALETTE[k % len(CORE_PALETTE)])
              for k, r in enumerate(runs)]
    return RooflineModel(run.chip.name, run.chip.clock_mhz, chip_roofs(run), points)


class RooflineView(View):
    """The chip's roofline with the runs' points."""

    css_class = "ascendlab-roofline"

    def __init__(self, run: Run, *earlier: Run, labels: list[str] | None = None) -> None:
        super().__init__()
        self.model = roofline_model(run, *earlier, labels=labels)

    def summary(self) -> str:
        m = self.model
        lines = [f"roofline of {m.chip}:"]
        for r in m.roofs:
            unit = "GB/s" if r.kind == "memory" else "GFLOP/s"
            lines.append(f"  {r.scope:<6} {r.name}: {r.value:,.0f} {unit}")
        for p in m.points:
            lines.append(f"  {p.label}: {p.intensity:.3g} FLOP/B, {p.gflops:,.1f} GFLOP/s, "
                         f"{p.cycles:,} cycles, {p.bound}-bound, {p.efficiency:.0%} of its "
                         f"bound ({fmt_bytes(p.gm_bytes)} GM traffic)")
        return "\n".join(lines)

    def figure(self) -> Any:
        m = self.model
        fig = new_figure(8, 5)
        ax = fig.add_subplot()
        x0, x1 = m.x_range()
        xs = np.geomspace(x0, x1, 200)
        for scope, style in (("chip", "-"), ("launch", "--")):
            roofs = [r for r in m.roofs if r.scope == scope]
            mem = [r for r in roofs if r.kind == "memory"]
            comp = [r for r in roofs if r.kind == "compute"]
            top = max((r.value for r in comp), default=np.inf)
            for r in mem:
                ax.plot(xs, np.minimum(r.value * xs, top), style, color="#444", lw=1.2)
                k = int(len(xs) * 0.04)
                ax.annotate(f"{r.name}: {r.value:,.0f} GB/s", (xs[k], r.value * xs[k]),
                            fontsize=7, rotation=0,
                            xytext=(2, 4), textcoords="offset points", color="#444")
            bw = max((r.value for r in mem), default=None)
            for r in comp:
                start = r.value / bw if bw else x0
                ax.plot([max(start, x0), x1], [r.value, r.value], style, color="#888", lw=1)
                ax.annotate(r.name, (x1, r.value), fontsize=7, ha="right", va="bottom",
                            color="#666")
        for p in m.points:
            ax.plot([p.intensity, p.intensity], [p.gflops, p.bound_gflops], ":", color=p.color)
            ax.plot(p.intensity, p.bound_gflops, "o", mfc="none", color=p.color, ms=6)
            ax.plot(p.intensity, p.gflops, "o", color=p.color, ms=7,
                    label=f"{p.label}: {p.cycles:,} cycles, {p.efficiency:.0%} of bound")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(x0, x1)
        ys = [r.value for r in m.roofs if r.kind == "compute"] + [p.gflops for p in m.points]
        ax.set_ylim(min(ys) / 10, max(ys) * 3)
        ax.set_xlabel("arithmetic intensity (FLOP per GM byte)")
        ax.set_ylabel("GFLOP/s (cycle model)")
        ax.set_title(f"roofline of {m.chip}: solid = chip, dashed = first run's launch; "
                     "hollow = its bound", fontsize=9, loc="left")
        ax.legend(fontsize=7, loc="lower right")
        ax.grid(which="both", color="#eee")
        return fig

    def build_widget(self) -> Any:
        import ipywidgets as W

        rows = "".join(
            f"<tr><td style='color:{p.color}'>&#9679;</td><td>{svg.esc(p.label)}</td>"
            f"<td>{p.intensity:.3g}</td><td>{p.gflops:,.1f}</td><td>{p.cycles:,}</td>"
            f"<td>{p.bound}</td><td>{p.efficiency:.0%}</td></tr>" for p in self.model.points)
        table = W.HTML("<table class='ascendlab-roofline-points'><tr><th></th><th>run</th>"
                       "<th>FLOP/B</th><th>GFLOP/s</th><th>cycles</th><th>bound</th>"
                       f"<th>of bound</th></tr>{rows}</table>")
        return W.VBox([image_widget(self.figure()), table])


def roofline(run: Run, *earlier: Run, labels: list[str] | None = None) -> RooflineView:
    """The roofline of `run`'s chip with `run`'s point and `earlier` runs for comparison."""
    return RooflineView(run, *earlier, labels=labels)
