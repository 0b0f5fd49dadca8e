"""The advisor's rules on the run's shape: diagnoses and launcher-parameter changes (tile,
cores, rows per instruction). The trace detectors that name kernel changes are in detectors.py.
"""

from __future__ import annotations

from typing import Any

from ...analysis import patterns as P
from ...analysis.critical_path import analyze
from .model import _MEM, SMALL_TRANSFER, Advice, Shape, _top_line


# ---- the rules (each returns zero or one finding) ----------------------------------------
def _memory_bound(run: Any, sh: Shape) -> list[Advice]:
    cost = run.cost
    # memory_cycles is the roofline at the HBM peak; transfers sustain a fraction of it
    at = (cost.memory_cycles / run.chip.hbm_sustained_fraction / sh.cycles if sh.cycles
          else 0.0)
    share = sh.path.get("memory", 0.0) / sh.cycles if sh.cycles else 0.0
    if at < 0.8 or share < 0.5:
        return []
    return [Advice("memory-bound",
                   f"memory-bound: GM traffic alone takes {at:.0%} of the cycles",
                   f"{cost.gm_bytes:,} B of GM traffic need {cost.memory_cycles:,.0f} cycles "
                   f"at this chip's bandwidth; the critical path spends {share:.0%} in "
                   "MTE2/MTE3 transfers",
                   "move fewer bytes: fuse with the neighbouring operator, keep intermediates "
                   "in UB, or use a narrower dtype; more tiling will not help")]


def _vector_fixed(run: Any, sh: Shape) -> list[Advice]:
    fixed = sh.path.get("vector-fixed", 0.0)
    work = sh.path.get("vector-work", 0.0)
    if fixed < 0.25 * sh.cycles or fixed < work:
        return []
    line = _top_line(sh, lambda r: r.fixed if r.busy.get("V") else 0.0)
    where = f" (hottest: {line.where}, {line.instructions:,} instructions, {line.text!r})" \
        if line else ""
    per = run.cost.fixed[next(i for i, e in enumerate(run.trace) if e.pipe == "V"
                              and run.cost.occupied[i])]
    return [Advice("vector-fixed-cost",
                   f"vector fixed cost: {fixed / sh.cycles:.0%} of the cycles are per-"
                   "instruction setup",
                   f"the critical path spends {fixed:,.0f} cycles in vector setup (~{per:.0f} "
                   f"cycles per instruction) and {work:,.0f} in vector work{where}",
                   "process more rows per instruction: the repeat form (mask + repeat_times + "
                   "strides) or one count-form call over several rows",
                   change={"rows": "x4"}, gain=0.75 * fixed)]


def _scalar_bound(run: Any, sh: Shape) -> list[Advice]:
    s = sh.path.get("scalar", 0.0)
    if s < 0.4 * sh.cycles:
        return []
    line = _top_line(sh, lambda r: r.busy.get("S", 0.0))
    where = f"; hottest: {line.where} ({line.instructions:,} instructions, {line.text!r})" \
        if line else ""
    return [Advice("scalar-bound", f"scalar-bound: {s / sh.cycles:.0%} of the critical path "
                   "is scalar work",
                   f"{s:,.0f} cycles of get_value/set_value and bookkeeping on the scalar "
                   f"unit{where}",
                   "replace per-element scalar access with vector instructions (duplicate, "
                   "muls, compare/select) on whole tiles", gain=min(0.8 * s, _replaced(run)))]


def _replaced(run: Any) -> float:
    """What replacing the critical core's scalar UB accesses saves at most: their cycles, less
    one vector instruction (setup + latency) per run of consecutive accesses."""
    from ...analysis.cost import COST

    core = P.critical_core(run)
    occ = run.cost.occupied
    total = 0.0
    runs = 0
    inside = False
    for i in P.core_events(run).get(core, []):
        e = run.trace[i]
        if e.pipe == "S" and any(a.space == "UB" for a in e.reads + e.writes):
            total += occ[i]
            runs += not inside
            inside = True
        elif e.pipe == "V" or e.pipe.startswith("MTE"):
            inside = False
    return max(0.0, total - runs * (COST.vector_setup + COST.vector_latency))


def _sync_stall(run: Any, sh: Shape) -> list[Advice]:
    overlap = sh.busy_max / sh.cycles if sh.cycles else 1.0
    if overlap > 0.6 or any(n == 1 for n in sh.queues.values()) or sh.tiles_per_core < 4:
        return []
    flags = sum(1 for i in analyze(run).path if analyze(run).stalls[i].reason == "flag")
    if not flags:
        return []
    return [Advice("sync-stall",
                   f"sync stalls: the busiest pipe ({sh.busiest}) works {overlap:.0%} of the "
                   "time",
                   f"{flags} flag waits on the critical path hand the work from pipe to pipe "
                   "without overlap",
                   "set each flag right after the producing instruction and wait right before "
                   "the consumer; alternate event ids (ping-pong) so tile i+1 loads while tile "
                   "i computes", gain=max(0.0, sh.cycles - sh.busy_max))]


def _tile_small(run: Any, sh: Shape) -> list[Advice]:
    if not sh.gm_sizes:
        return []
    mean = sum(sh.gm_sizes) / len(sh.gm_sizes)
    mem = [i for i in analyze(run).share if run.trace[i].pipe in _MEM and run.cost.occupied[i]]
    fixed = sum(min(run.cost.fixed[i], run.cost.occupied[i]) for i in mem)
    busy = sum(run.cost.occupied[i] for i in mem) or 1.0
    ub = run.chip.ub_bytes
    if mean >= SMALL_TRANSFER or fixed < 0.3 * busy or sh.ub_used * 2 > ub:
        return []
    grow = 4 if sh.ub_used * 4 <= ub else 2
    return [Advice("tile-too-small",
                   f"tiles too small: GM transfers of {mean / 1024:.1f} KiB, {fixed / busy:.0%} "
                   "of their time is fixed cost",
                   f"{len(sh.gm_sizes):,} GM transfers averaging {mean:,.0f} B; UB is "
                   f"{sh.ub_used / ub:.0%} used ({sh.ub_used:,} of {ub:,} B)",
                   f"raise the tile length (x{grow} fits in UB): fewer, larger data_copy calls",
                   change={"tile": f"x{grow}"}, gain=0.75 * fixed * sh.cycles / busy)]


def _idle_cores(run: Any, sh: Shape) -> list[Advice]:
    chip = run.chip
    physical = chip.aiv_cores if run.core_kind in ("aiv", "mix") else chip.aic_cores
    if run.core_kind == "mix":
        physical = chip.aic_cores
    if run.block_num >= physical:
        return []
    return [Advice("idle-cores", f"{physical - run.block_num} of {physical} cores idle",
                   f"block_num={run.block_num} on {chip.name}, which has {physical} "
                   f"{'AIC' if run.core_kind != 'aiv' else 'AIV'} cores",
                   f"launch {physical} blocks (split the data over more blocks)",
                   change={"cores": physical},
                   gain=sh.cycles * (1 - run.block_num / physical))]


def _launch_overhead(run: Any, sh: Shape) -> list[Advice]:
    cost = run.cost
    kernel_us = cost.cycles / run.chip.clock_mhz
    if kernel_us >= cost.launch_overhead_us:
        return []
    return [Advice("launch-overhead",
                   f"launch overhead {cost.launch_overhead_us:.1f} us > kernel "
                   f"{kernel_us:.1f} us", "the kernel is too short to amortize the launch",
                   "do more work per launch (fuse kernels, larger inputs)")]



PARAMETER_RULES = (_memory_bound, _vector_fixed, _scalar_bound, _sync_stall,
                   _tile_small, _idle_cores, _launch_overhead)

__all__ = ["PARAMETER_RULES"]
