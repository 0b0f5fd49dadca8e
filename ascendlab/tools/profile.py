"""ascendlab.profile(run): the cycle model's numbers as a report, led by the hot source lines.

Sections: hot lines (tools/hotlines.py), the critical path by activity (per phase when sync_all
cuts the kernel into phases), pipe utilisation, bytes per route, the bounds (this run's own
bound: the roofline of its own traffic and instructions; the tier bound, when the grader gives
it: the least traffic any correct kernel needs; the operator's minimal work when `work=`
declares it), then the advisor's findings (tools/advisor/), ranked by modelled gain and
labelled measured or hypothesis (an upper bound). Findings worth <= 0 cycles are listed apart,
under "checked, no gain"; "nothing to report" is said only within NOTHING_WITHIN x the bound.
"""

from __future__ import annotations

import html
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..runtime.trace import PIPES
from .advisor import Advice, advise, run_shape
from .hotlines import HotLine, format_hot_lines

NOTHING_WITHIN = 1.3  # "nothing to report" only when the run is within this factor of its bound

# Runs made by autotune/explore remember their launcher and configuration, so profile(run)
# can re-run the variants a finding proposes (id(run) -> (weakref to run, launcher, config)).
_ORIGIN: dict[int, tuple[Any, Callable[..., Any], dict[str, Any]]] = {}


def remember_launch(run: Any, launcher: Callable[..., Any], config: dict[str, Any]) -> None:
    """Record that `run` came from launcher(**config) (autotune and explore call this)."""
    key = id(run)
    table = _ORIGIN  # bound now: the callback may run while the interpreter shuts down
    table[key] = (weakref.ref(run, lambda _r: table.pop(key, None)), launcher, dict(config))


def _origin(run: Any) -> tuple[Callable[..., Any] | None, dict[str, Any]]:
    got = _ORIGIN.get(id(run))
    if got is None or got[0]() is not run:
        return None, {}
    return got[1], got[2]


@dataclass(frozen=True)
class Bounds:
    """Peaks and ridge points of the chip for the run's dominant dtypes, and the bounds."""

    vector_dtype: str  # the dtype of most vector work ("" when there is none)
    vector_peak: float  # element operations per cycle, all vector cores
    cube_peak: float  # FLOP per cycle, all cube cores (fp16 rate; fp32 inputs at 1/4)
    hbm_bytes_per_cycle: float
    vector_ridge: float  # FLOP per byte where the vector peak meets HBM bandwidth
    cube_ridge: float
    work_cycles: float | None  # the declared minimal work at the chip's peaks
    work_efficiency: float | None  # work_cycles / cycles


def bounds(run: Any, work: dict[str, float] | None = None) -> Bounds:
    """The chip's peaks for `run`'s dtypes; with work={"bytes": B, "flops": F, "unit":
    "vector"|"cube"} the minimal cycles of that work and the run's efficiency against it."""
    chip = run.chip
    hbm = chip.hbm_gbps * 1e9 / (chip.clock_mhz * 1e6)
    by_dtype: dict[str, int] = {}
    for e in run.trace:
        if e.pipe == "V" and e.dtype and e.count:
            by_dtype[e.dtype] = by_dtype.get(e.dtype, 0) + e.count
    dt = max(by_dtype, key=by_dtype.get, default="")
    size = 4 if dt.endswith("32") else 1 if dt.endswith("8") else 2
    vpeak = chip.vector_bytes_per_cycle / size * chip.aiv_cores
    cpeak = 2.0 * chip.cube_macs_per_cycle * chip.aic_cores
    work_cycles = eff = None
    if work:
        unknown = set(work) - {"bytes", "flops", "unit"}
        if unknown:
            raise ValueError(f"profile(work=...): unknown key(s) {sorted(unknown)}; expected "
                             "'bytes', 'flops' and optionally 'unit' ('vector' or 'cube')")
        peak = cpeak if work.get("unit") == "cube" else vpeak
        work_cycles = max(float(work.get("bytes", 0)) / hbm, float(work.get("flops", 0)) / peak)
        eff = work_cycles / run.cycles if run.cycles else None
    return Bounds(dt, vpeak, cpeak, hbm, vpeak / hbm, cpeak / hbm, work_cycles, eff)


@dataclass
class Profile:
    """A Run's modelled performance: renders as text (str) and HTML (in a notebook)."""

    run: Any
    lines: list[HotLine] = field(default_factory=list)
    path: list[tuple[str, float]] = field(default_factory=list)  # activity, path cycles
    phases: list[tuple[str, float, dict[str, float], float]] = field(default_factory=list)
    rows: list[tuple[str, str]] = field(default_factory=list)  # summary lines
    pipes: list[tuple[str, int, float]] = field(default_factory=list)  # pipe, busy, share
    routes: list[tuple[str, int]] = field(default_factory=list)
    bounds: Bounds | None = None
    advice: list[Advice] = field(default_factory=list)  # gain > 0, largest first
    checked: list[Advice] = field(default_factory=list)  # findings worth <= 0 cycles
    bound_cycles: float = 0.0  # the bound the advisor's verdict compares with
    bound_name: str = "this run's own bound"

    def critical_path_lines(self) -> list[str]:
        """The critical path by activity: in total, then per phase when there are several."""
        total = sum(c for _a, c in self.path)
        xcore = sum(ph[3] for ph in self.phases)
        x = f" (of which {xcore:,.0f} released by other cores' flags)" if xcore >= 0.5 else ""
        out = [f"critical path: {total:,.0f} cycles: " + _acts(dict(self.path)) + x]
        if len(self.phases) > 1:
            for k, (label, cycles, acts, xcore) in enumerate(self.phases, 1):
                x = f" (of which {xcore:,.0f} released by other cores' flags)" if xcore else ""
                out.append(f"  phase {k} ({label}): {cycles:,.0f} cycles: {_acts(acts)}{x}")
        return out

    def advisor_lines(self) -> list[str]:
        """The advisor's section: findings with a gain, else the verdict against the bound;
        then the findings checked that have no gain."""
        out: list[str] = []
        if self.advice:
            out.append("advisor:")
        else:
            out.append("advisor: " + self.verdict())
        for a in self.advice:
            out += [f"  - {a.title}", f"      evidence: {a.evidence}", f"      fix: {a.fix}",
                    f"      effect: {a.label}" + (f" ({a.note})" if a.note else "")]
        if self.checked:
            out.append("  checked, no gain: " + "; ".join(
                f"{a.title}" + (f" ({a.note})" if a.note else "") for a in self.checked))
        return out

    def verdict(self) -> str:
        """What the advisor says when no finding has a gain."""
        cycles = self.run.cost.cycles
        ratio = cycles / self.bound_cycles if self.bound_cycles else 0.0
        vs = f"{ratio:.2f}x {self.bound_name} ({self.bound_cycles:,.0f} cycles)"
        if ratio <= NOTHING_WITHIN:
            return f"nothing to report: the run takes {vs}, within {NOTHING_WITHIN}x"
        mem = next((a for a in self.checked if a.kind == "memory-bound"), None)
        if mem is not None:
            return (f"no change with a modelled gain: {mem.title} (at the sustained "
                    f"bandwidth), so only moving fewer bytes helps; the run takes {vs}")
        top = max(self.path, key=lambda kv: kv[1], default=("", 0.0))
        line = next((r for r in self.lines if r.path_cycles), None)
        where = f"; start from its hottest line, {line.where}" + (
            f" `{line.text}`" if line.text else "") if line else ""
        return (f"no finding with a modelled gain, yet the run takes {vs}: its critical path "
                f"is {top[1] / max(cycles, 1):.0%} {top[0]}{where}")

    def __str__(self) -> str:
        out = [f"profile: {self.run.kernel} on {self.run.chip.name}", "hot lines (per core):",
               format_hot_lines(self.lines)]
        if self.path:
            out += self.critical_path_lines()
        out += [f"  {k:<22} {v}" for k, v in self.rows]
        out.append("  pipe    busy cycles   utilization")
        out += [f"  {p:<6} {b:>12,}   {u:6.1%}" for p, b, u in self.pipes]
        if self.routes:
            out.append("  bytes moved")
            out += [f"  {r:<10} {b:>14,} B" for r, b in self.routes]
        out += self.advisor_lines()
        return "\n".join(out)

    def _repr_html_(self) -> str:
        esc = html.escape
        top = max((r.path_cycles for r in self.lines[:10]), default=0) or 1.0
        lines = "".join(
            f"<tr><td><code>{esc(r.where)}</code></td><td style='text-align:right'>"
            f"{r.instructions:,}</td><td style='text-align:right'>{r.total_busy:,.0f}</td>"
            f"<td style='text-align:right'>{r.fixed:,.0f}</td><td style='text-align:right'>"
            f"{r.throughput:,.0f}</td><td><div style='background:#e45756;height:10px;"
            f"width:{r.path_cycles / top * 120:.0f}px'></div></td><td>{r.path_share:.1%}</td>"
            f"<td><code>{esc(r.text[:70])}</code></td></tr>" for r in self.lines[:10])
        rows = "".join(f"<tr><th style='text-align:left'>{esc(k)}</th><td>{esc(v)}</td></tr>"
                       for k, v in self.rows)
        pipes = "".join(
            f"<tr><td>{esc(p)}</td><td style='text-align:right'>{b:,}</td>"
            f"<td><div style='background:#4c78a8;height:10px;width:{min(u, 1) * 160:.0f}px'>"
            f"</div></td><td style='text-align:right'>{u:.1%}</td></tr>"
            for p, b, u in self.pipes)
        advice = "".join(
            f"<li><b>{esc(a.title)}</b><br><small>evidence: {esc(a.evidence)}<br>fix: "
            f"{esc(a.fix)}<br>effect: {esc(a.label)}{esc(' (' + a.note + ')' if a.note else '')}"
            "</small></li>" for a in self.advice)
        checked = "".join(f"<li><small>checked, no gain: {esc(a.title)}</small></li>"
                          for a in self.checked)
        path = "<br>".join(esc(x) for x in self.critical_path_lines()) if self.path else ""
        return (f"<div class='ascendlab-profile'><h4>profile: {esc(self.run.kernel)} on "
                f"{esc(self.run.chip.name)}</h4><h5>hot lines (cycles per core)</h5>"
                "<table><tr><th>line</th><th>instr</th><th>busy</th><th>fixed</th>"
                f"<th>throughput</th><th colspan=2>critical path</th><th>source</th></tr>{lines}"
                f"</table><p>{path}</p><table>{rows}</table>"
                f"<table><tr><th>pipe</th><th>busy cycles</th><th></th><th>utilization</th>"
                f"</tr>{pipes}</table>"
                f"<h5>advisor</h5><ul>{advice or '<li>' + esc(self.verdict()) + '</li>'}"
                f"{checked}</ul></div>")


def profile(run: Any, *, launcher: Callable[..., Any] | None = None,
            config: dict[str, Any] | None = None,
            work: dict[str, float] | None = None,
            tier_bound: float | None = None) -> Profile:
    """The modelled performance of `run` with the advisor's findings.

    launcher/config: the function that launched the run and its keyword values; findings that
    propose a change are then re-run and report measured cycles (runs from ascendlab.autotune
    and viz.explore carry theirs). work: the operator's minimal {"bytes", "flops"} (and "unit":
    "vector" or "cube"), so that versions of one operator compare on one bound. tier_bound: the
    challenge's bound (the grader passes it): shown as the "tier bound" and the one the
    advisor's "nothing to report" compares with.
    """
    if launcher is None:
        launcher, remembered = _origin(run)
        config = {**remembered, **(config or {})}
    cost = run.cost
    chip = run.chip
    cycles = max(cost.cycles, 1)
    seconds = cycles / (chip.clock_mhz * 1e6)
    bw = cost.gm_bytes / seconds / 1e9 if cost.gm_bytes else 0.0
    b = bounds(run, work)
    ai = cost.flops / cost.gm_bytes if cost.gm_bytes else float("inf")
    p = Profile(run, bounds=b)
    shape = run_shape(run)  # hot lines, critical path by activity: computed once
    p.lines = shape.lines
    p.path = sorted(shape.path.items(), key=lambda kv: -kv[1])
    p.phases = list(shape.phases)
    ridge = (f"vector ridge {b.vector_ridge:.1f} FLOP/B for {b.vector_dtype}"
             if b.vector_dtype else f"cube ridge {b.cube_ridge:.0f} FLOP/B (fp16)")
    p.rows = [
        ("cores", f"{run.block_num} blocks on {cost.active_cores} {run.core_kind.upper()} cores"),
        ("modelled cycles", f"{cost.cycles:,}"),
        ("modelled time", f"{cost.time_us:.2f} us ({cost.cycles / chip.clock_mhz:.2f} us kernel "
                          f"+ {cost.launch_overhead_us:.1f} us launch)"),
        ("this run's own bound", f"{cost.bound_cycles:,} cycles ({cost.bound}-bound): the "
                                 "roofline of the bytes and instructions this run issued"),
        ("efficiency", f"{cost.efficiency:.1%} of this run's own bound"),
        ("GM traffic", f"{cost.gm_bytes:,} B at {bw:.1f} GB/s (HBM {chip.hbm_gbps:.0f} GB/s)"),
        ("operations", f"{cost.flops:,} FLOP, {ai:.2f} FLOP/B ({ridge})"),
    ]
    if tier_bound is not None:
        p.rows.insert(4, ("tier bound", f"{tier_bound:,.0f} cycles: the least traffic (and "
                                        "cube work) any correct kernel needs on all the cores "
                                        "the rules allow; tiers are ratios to it"))
    if b.work_cycles is not None:
        p.rows.append(("work bound", f"{b.work_cycles:,.0f} cycles for the declared work: "
                                     f"{b.work_efficiency:.1%} efficiency"))
    p.rows.append(("model", f"cost model {cost.model_version}"))
    p.pipes = [(pipe, cost.pipe_busy.get(pipe, 0), cost.utilization(pipe)) for pipe in PIPES
               if cost.pipe_busy.get(pipe, 0)]
    p.routes = sorted(cost.bytes_moved.items(), key=lambda kv: -kv[1])
    found = advise(run, launcher, config, shape)
    p.advice = [a for a in found if a.gain > 0]
    p.checked = [a for a in found if a.gain <= 0]
    if tier_bound is not None:
        p.bound_cycles, p.bound_name = float(tier_bound), "the tier bound"
    else:
        p.bound_cycles = float(cost.bound_cycles)
    return p


def _acts(acts: dict[str, float]) -> str:
    items = sorted(((a, c) for a, c in acts.items() if c >= 0.5), key=lambda kv: -kv[1])
    return ", ".join(f"{a} {c:,.0f}" for a, c in items) or "nothing"


__all__ = ["NOTHING_WITHIN", "Advice", "Bounds", "Profile", "bounds", "profile",
           "remember_launch"]
