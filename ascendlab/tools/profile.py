"""ascendlab.profile(run): the cycle model's numbers as a report, and an advisor.

The report is msprof's view of a kernel (pipe utilisation, bytes per memory level, bandwidth,
the roofline bound) computed from the Run's trace and cost model. The advisor turns patterns
in the same numbers into findings, each with its evidence and a fix.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from ..runtime.trace import PIPES

# ADK 2201 hardware constraints: GM transfers of >= 16 KB reach the best bandwidth.
FULL_BANDWIDTH_BYTES = 16 * 1024


@dataclass(frozen=True)
class Advice:
    """One advisor finding: what, the numbers behind it, and what to change."""

    title: str
    evidence: str
    fix: str


@dataclass
class Profile:
    """A Run's modelled performance: renders as text (str) and HTML (in a notebook)."""

    run: Any
    rows: list[tuple[str, str]] = field(default_factory=list)  # summary lines
    pipes: list[tuple[str, int, float]] = field(default_factory=list)  # pipe, busy, share
    routes: list[tuple[str, int]] = field(default_factory=list)
    advice: list[Advice] = field(default_factory=list)

    def __str__(self) -> str:
        out = [f"profile: {self.run.kernel} on {self.run.chip.name}"]
        out += [f"  {k:<22} {v}" for k, v in self.rows]
        out.append("  pipe    busy cycles   utilization")
        out += [f"  {p:<6} {b:>12}   {u:6.1%}" for p, b, u in self.pipes]
        if self.routes:
            out.append("  bytes moved")
            out += [f"  {r:<10} {b:>14,} B" for r, b in self.routes]
        out.append("advisor:" if self.advice else "advisor: nothing to report")
        for a in self.advice:
            out += [f"  - {a.title}", f"      evidence: {a.evidence}", f"      fix: {a.fix}"]
        return "\n".join(out)

    def _repr_html_(self) -> str:
        esc = html.escape
        rows = "".join(f"<tr><th style='text-align:left'>{esc(k)}</th><td>{esc(v)}</td></tr>"
                       for k, v in self.rows)
        pipes = "".join(
            f"<tr><td>{esc(p)}</td><td style='text-align:right'>{b:,}</td>"
            f"<td><div style='background:#4c78a8;height:10px;width:{min(u, 1) * 160:.0f}px'>"
            f"</div></td><td style='text-align:right'>{u:.1%}</td></tr>"
            for p, b, u in self.pipes)
        routes = "".join(f"<tr><td>{esc(r)}</td><td style='text-align:right'>{b:,} B</td></tr>"
                         for r, b in self.routes)
        advice = "".join(f"<li><b>{esc(a.title)}</b><br><small>evidence: {esc(a.evidence)}"
                         f"<br>fix: {esc(a.fix)}</small></li>" for a in self.advice)
        return (f"<div class='ascendlab-profile'><h4>profile: {esc(self.run.kernel)} on "
                f"{esc(self.run.chip.name)}</h4><table>{rows}</table>"
                f"<table><tr><th>pipe</th><th>busy cycles</th><th></th><th>utilization</th>"
                f"</tr>{pipes}</table><table>{routes}</table>"
                f"<h5>advisor</h5><ul>{advice or '<li>nothing to report</li>'}</ul></div>")


def profile(run: Any) -> Profile:
    """The modelled performance of `run` (an ascendlab Run) with the advisor's findings."""
    cost = run.cost
    chip = run.chip
    cycles = max(cost.cycles, 1)
    seconds = cycles / (chip.clock_mhz * 1e6)
    bw = cost.gm_bytes / seconds / 1e9 if cost.gm_bytes else 0.0
    hbm_bpc = chip.hbm_gbps * 1e9 / (chip.clock_mhz * 1e6)
    peak_vec = chip.vector_bytes_per_cycle / 4 * 2 * cost.active_cores  # fp32 FMA lanes
    ridge = peak_vec / hbm_bpc  # FLOP per byte where vector peak meets HBM bandwidth
    ai = cost.flops / cost.gm_bytes if cost.gm_bytes else float("inf")
    p = Profile(run)
    p.rows = [
        ("cores", f"{run.block_num} blocks on {cost.active_cores} {run.core_kind.upper()} cores"),
        ("modelled cycles", f"{cost.cycles:,}"),
        ("modelled time", f"{cost.time_us:.2f} us ({cost.cycles / chip.clock_mhz:.2f} us kernel "
                          f"+ {cost.launch_overhead_us:.0f} us launch)"),
        ("roofline bound", f"{cost.bound_cycles:,} cycles ({cost.bound}-bound)"),
        ("efficiency", f"{cost.efficiency:.1%} of the roofline"),
        ("GM traffic", f"{cost.gm_bytes:,} B at {bw:.1f} GB/s (HBM {chip.hbm_gbps:.0f} GB/s)"),
        ("operations", f"{cost.flops:,} FLOP, {ai:.2f} FLOP/B (vector ridge ~{ridge:.1f})"),
        ("model", f"cost model {cost.model_version}"),
    ]
    p.pipes = [(pipe, cost.pipe_busy.get(pipe, 0), cost.utilization(pipe)) for pipe in PIPES
               if cost.pipe_busy.get(pipe, 0)]
    p.routes = sorted(cost.bytes_moved.items(), key=lambda kv: -kv[1])
    p.advice = advise(run)
    return p


def advise(run: Any) -> list[Advice]:
    """The advisor's findings for `run`, most important first."""
    cost = run.cost
    chip = run.chip
    out: list[Advice] = []
    util = {pipe: cost.utilization(pipe) for pipe in PIPES}
    trace = run.trace
    inits = [dict(e.args) for e in trace if e.op == "init_buffer" and e.core == 0]
    # 1. single-buffered queues: copy-in, compute and copy-out take turns instead of overlapping
    single = [a for a in inits if a.get("num") == 1 and a.get("space") == "UB"]
    if single and cost.efficiency < 0.85:
        out.append(Advice(
            f"MTE2 busy {util['MTE2']:.0%}, V {util['V']:.0%}, single buffer",
            f"{len(single)} UB queue(s) have num=1: copy-in, compute and copy-out of a tile "
            f"take turns (MTE3 {util['MTE3']:.0%}); the kernel reaches {cost.efficiency:.0%} "
            "of its roofline",
            "use BUFFER_NUM=2: pipe.init_buffer(que, 2, len) so the next tile loads while this "
            "one computes"))
    # 2. GM transfers too small for full bandwidth
    gm_sizes = [a.total_bytes for e in trace if e.pipe in ("MTE2", "MTE3", "FIX")
                for a in (e.reads + e.writes) if a.space == "GM"]
    if gm_sizes:
        mean = sum(gm_sizes) / len(gm_sizes)
        if mean < FULL_BANDWIDTH_BYTES / 2:
            out.append(Advice(
                f"transfers of {mean / 1024:.1f} KiB: below the ~16 KiB needed for full "
                "bandwidth",
                f"{len(gm_sizes)} GM transfers averaging {mean:,.0f} B; each pays a fixed "
                "setup (ADK: transfers of >= 16 KB reach the best bandwidth)",
                "raise the tile length (fewer, larger data_copy calls)"))
    # 3. vector repeats mostly empty
    lanes = filled = 0
    for e in trace:
        if e.pipe == "V" and e.repeats and e.dtype and e.sync is None and e.count:
            isz = 4 if e.dtype.endswith("32") else 2 if e.dtype.endswith("16") else 1
            lanes += e.repeats * 256 // isz
            filled += e.count
    if lanes and filled / lanes < 0.5:
        out.append(Advice(
            f"vector repeats {filled / lanes:.0%} filled",
            f"{filled:,} active lanes of {lanes:,} issued in {run.events(pipe='V')[0].op} and "
            "other vector instructions",
            "use full masks / larger counts: every repeat costs a cycle however few lanes it "
            "computes"))
    # 4. idle cores
    physical = chip.aiv_cores if run.core_kind == "aiv" else chip.aic_cores
    if run.block_num < physical:
        out.append(Advice(
            f"{physical - run.block_num} of {physical} cores idle",
            f"block_num={run.block_num} on {chip.name}, which has {physical} "
            f"{run.core_kind.upper()} cores",
            f"launch {physical} blocks (split the data over more blocks)"))
    # 5. small tiles: UB mostly unused
    ub = sum(a.get("num", 0) * a.get("len", 0) for a in inits if a.get("space") == "UB")
    if ub and ub / chip.ub_bytes < 0.25:
        out.append(Advice(
            f"UB {ub / chip.ub_bytes:.0%} used: larger tiles possible",
            f"queues and buffers take {ub:,} B of {chip.ub_bytes:,} B",
            "grow the tile length until UB is well used (mind the 32 B alignment)"))
    # 6. auto-sync barriers serializing the vector pipe
    implicit = sum(1 for e in trace if e.sync is not None and e.sync.implicit)
    if implicit and implicit > 0.2 * max(1, len(run.events(pipe="V"))):
        out.append(Advice(
            f"{implicit} implicit PIPE_V barriers",
            "dependent vector instructions follow each other: each waits for the previous "
            "result",
            "interleave independent work (another tile or buffer) between dependent vector "
            "instructions"))
    # 7. launch overhead dominating
    kernel_us = cost.cycles / chip.clock_mhz
    if kernel_us < cost.launch_overhead_us:
        out.append(Advice(
            f"launch overhead {cost.launch_overhead_us:.0f} us > kernel {kernel_us:.1f} us",
            "the kernel is too short to amortize the launch",
            "do more work per launch (fuse kernels, larger inputs)"))
    if cost.deadlocked:
        e = trace[cost.deadlocked[0]]
        out.append(Advice(
            f"{len(cost.deadlocked)} wait(s) never satisfied: the chip would hang",
            f"{e.op} on {e.pipe} at {e.file.rsplit('/', 1)[-1]}:{e.line} has no matching set",
            "pair every wait_flag with a set_flag of the same HardEvent and id"))
    return out
