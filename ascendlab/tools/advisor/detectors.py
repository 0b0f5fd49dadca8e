"""The advisor's trace detectors: findings that name a kernel change, read from the trace and
the schedule (analysis/patterns.py) of the core that finishes last (the critical core).

Every estimate is the model's upper bound of the time the finding names, never a re-run:
removing a pipe's idle time or a transfer's time saves at most that time, and never more than
the room the core's other work leaves — its *slack*, span minus its busiest pipe (MTE2, MTE3 and
FIX counted together as the core's GM port: the union of its GM transfers in time). A rewrite
may move a few cycles more than the named time (docs/profiling.md). A detector with nothing to
say returns no finding; one whose bound is <= 0 returns it with gain 0 (the profile lists it
under "checked, no gain").
"""

from __future__ import annotations

from typing import Any

from ...analysis import patterns as P
from ..hotlines import source_line
from .model import Advice

_FIX = {
    "GM->UB": "two UB buffers per input (TQue: pipe.init_buffer(que, 2, len); static "
              "tensors: ping-pong halves with alternating event ids)",
    "UB->GM": "two UB buffers for the output (a TQue with 2 slots, or ping-pong halves)",
    "GM->L1": "two L1 slots (A1/B1) used alternately with ping-pong event ids",
    "L1->L0A": "two L0A slots, alternated per K step",
    "L1->L0B": "two L0B slots, alternated per K step",
    "L0C->GM": "two L0C slots, so the fixpipe of one tile overlaps the next tile's mmads",
    "L1->UB": "two UB slots for the L1 -> UB moves",
    "UB->L1": "two L1 slots for the UB -> L1 moves",
}


class Context:
    """What every detector reads: the critical core, its events, span, busy pipes, slack."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.cores = P.core_events(run)
        self.core = P.critical_core(run)
        self.idx = self.cores.get(self.core, [])
        self.span = float(run.cost.core_cycles.get(self.core, run.cost.cycles))
        self.bound, self.pipe = P.overlap_bound(run, self.core, self.idx)
        busy = run.cost.per_core_busy.get(self.core, {})
        # the busiest pipe that is neither a GM transfer pipe nor the scalar unit
        self.others = max((float(v) for p, v in busy.items()
                           if p not in ("MTE2", "MTE3", "FIX", "S")), default=0.0)
        self.levels = P.buffer_levels(run, self.idx)

    @property
    def slack(self) -> float:
        return max(0.0, self.span - self.bound)

    def where(self, i: int) -> str:
        e = self.run.trace[i]
        text = source_line(e.file, e.line)
        return f"{e.file.rsplit('/', 1)[-1]}:{e.line}" + (f" `{text}`" if text else "")


def single_buffering(c: Context) -> list[Advice]:
    single = [lv for lv in c.levels.values() if lv.single]
    if not single:
        return []
    parts = [f"{lv.route} {lv.fills} fills through 1 buffer (its writers waited "
             f"{lv.wait:,.0f} cycles for it to free; first at {c.where(lv.first)})"
             for lv in single]
    fixes = "; ".join(_FIX.get(lv.route, f"two buffers for {lv.route}") for lv in single)
    waited = sum(lv.wait for lv in single)
    return [Advice("single-buffer",
                   "single buffering at " + ", ".join(lv.route for lv in single)
                   + ": each tile's load, compute and store wait for each other",
                   f"core {c.core}: " + "; ".join(parts) + f". With every level overlapped "
                   f"the core would take {c.bound:,.0f} cycles ({c.pipe} busy) instead of "
                   f"{c.span:,.0f}",
                   f"double-buffer every level: {fixes}", change={"buffers": 2},
                   gain=min(c.slack, waited))]


def reuse(c: Context) -> list[Advice]:
    rl = P.reloads(c.run, c.idx)
    if rl is None or rl.bytes < 0.05 * _loaded(c):
        return []
    # the reloads are mostly L2 hits, on a port of their own: without them the core still
    # needs its other GM transfers (and its busiest other pipe)
    again = set(rl.indices)
    time = P.port_busy(c.run, c.idx, only=again)
    rest = max(P.port_busy(c.run, c.idx, skip=again), c.others)
    gain = max(0.0, min(time, c.span - rest))
    cap = c.run.chip.ub_bytes if rl.space == "UB" else getattr(c.run.chip, "l1_bytes", 0)
    fits = (f"; the reloaded tiles are {rl.distinct:,} B distinct, "
            + (f"{rl.distinct / cap:.0%} of {rl.space} ({cap:,} B)" if cap else rl.space))
    return [Advice("reuse",
                   f"the same GM bytes loaded again: {rl.bytes:,} B of {rl.tensor!r} re-read "
                   f"into {rl.space} by the same core",
                   f"core {c.core} repeats {rl.transfers:,} loads it made before "
                   f"({time:,.0f} cycles of transfers{fits}); without them its other work "
                   f"needs {rest:,.0f} of its {c.span:,.0f} cycles; most at "
                   f"{c.where(rl.where)}",
                   f"keep the reused data in {rl.space} instead of loading it again: load it "
                   "once per core and keep it across the iterations (or phases) that use it, "
                   "or order the loop so consecutive iterations share it", gain=gain)]


def _loaded(c: Context) -> float:
    return float(sum(a.total_bytes for i in c.idx for a in c.run.trace[i].reads
                     if c.run.trace[i].pipe == "MTE2" and a.space == "GM")) or 1.0


def round_trip(c: Context) -> list[Advice]:
    rt = P.round_trips(c.run, c.idx)
    if rt is None:
        return []
    return [Advice("gm-round-trip",
                   f"GM round trip: core {c.core} writes {rt.bytes:,} B to GM and reads them "
                   "back itself after a sync_all",
                   f"written at {c.where(rt.write)}, read back at {c.where(rt.read)}: "
                   f"{rt.occupied:,.0f} cycles from the transfers' start to their results",
                   "keep what the core itself reads back in UB (or L1) across the sync_all; "
                   "only what other cores read needs to go through GM",
                   gain=max(0.0, min(rt.occupied, c.span - c.others)))]


def reductions(c: Context) -> list[Advice]:
    g = P.vector_gaps(c.run, c.idx)
    lost = g.barrier + g.scalar
    if lost <= 0 or (g.reductions < 4 and g.scalars < 4):
        return []
    why = []
    if g.barrier:
        why.append(f"{g.barriers:,} implicit PIPE_V barriers leave the V pipe idle "
                   f"{g.barrier:,.0f} cycles (each waits for the previous result)")
    if g.scalar:
        why.append(f"{g.scalars:,} scalar accesses of UB (get_value / set_value) leave it "
                   f"idle {g.scalar:,.0f} cycles (a round trip V -> S -> V each)")
    return [Advice("serial-reduction",
                   f"vector work serialised: {g.reductions:,} reductions, the V pipe idle "
                   f"{lost:,.0f} of {c.span:,.0f} cycles",
                   f"core {c.core}: " + "; ".join(why)
                   + (f"; largest gap before {c.where(g.where)}" if g.where >= 0 else ""),
                   "reduce many rows per instruction and keep the results as vectors: fold "
                   "independent rows pairwise (add of halves) or whole_reduce_sum / repeat "
                   "forms over all rows, then use vector ops (muls, broadcast) on the "
                   "results instead of get_value per row",
                   gain=min(lost, c.slack))]


def mix_balance(c: Context) -> list[Advice]:
    run = c.run
    if run.core_kind != "mix" or not run.core_kinds:
        return []
    trace, start, end, occ = run.trace, run.cost.start, run.cost.end, run.cost.occupied
    waited: dict[int, float] = {}
    for core, idx in c.cores.items():
        s_free = 0.0
        w = 0.0
        for i in idx:
            e = trace[i]
            if e.pipe != "S":
                continue
            if e.sync is not None and e.sync.kind == "xwait":
                w += max(0.0, start[i] - s_free)
            s_free = max(s_free, end[i] if occ[i] else start[i])
        waited[core] = w
    cube = [k for k, v in run.core_kinds.items() if v == "aic" and k in waited]
    vec = [k for k, v in run.core_kinds.items() if v == "aiv" and k in waited]
    if not cube or not vec:
        return []
    span = float(run.cost.cycles) or 1.0
    cw = max(cube, key=waited.get)
    vw = max(vec, key=waited.get)
    busy = run.cost.per_core_busy
    vbusy = sorted(float(busy.get(k, {}).get("V", 0.0)) for k in vec)
    cube_own, _p = P.overlap_bound(run, cw, c.cores[cw])
    vec_own = max(P.overlap_bound(run, k, c.cores[k])[0] for k in vec)
    uneven = vbusy[-1] > 0 and vbusy[0] < 0.5 * vbusy[-1]
    if waited[cw] < 0.1 * span and waited[vw] < 0.25 * span and not uneven:
        return []
    # if the two sides overlapped, the group would take its busier side's own work
    gain = max(0.0, min(max(waited[cw], waited[vw]), span - max(cube_own, vec_own)))
    sides = []
    if waited[cw] >= 0.1 * span:
        sides.append(f"cube core {cw} waits {waited[cw]:,.0f} cycles for its vector clients")
    if waited[vw] >= 0.25 * span:
        sides.append(f"vector core {vw} waits {waited[vw]:,.0f} for the cube")
    if uneven:
        sides.append(f"the vector cores' V busy ranges {vbusy[0]:,.0f}-{vbusy[-1]:,.0f} cycles")
    return [Advice(
        "mix-balance", "MIX imbalance: " + "; ".join(sides) + f" (of {span:,.0f})",
        f"{len(cube)} cube and {len(vec)} vector cores; their own work needs {cube_own:,.0f} "
        f"(cube core {cw}) and up to {vec_own:,.0f} (a vector core) cycles: the sides take "
        "turns on cross-core flags instead of overlapping",
        "hand the cube fewer, larger blocks: more keys or rows per Matmul iterate (or per "
        "cross-core flag), so each hand-off carries more work and the sides wait less often; "
        "give every vector client an equal share", gain=gain)]


def one_iteration(c: Context) -> list[Advice]:
    """Tiles so large that most cores load their data in one go: nothing to overlap."""
    mine = [lv.fills for lv in c.levels.values() if lv.route.startswith("GM->")]
    if not mine or max(mine) > 1 or c.slack <= 0:
        return []  # the critical core iterates: smaller tiles would not shorten it
    singles = total = 0
    for core, idx in c.cores.items():
        levels = c.levels if core == c.core else P.buffer_levels(c.run, idx)
        fills = [lv.fills for lv in levels.values() if lv.route.startswith("GM->")]
        if not fills:
            continue
        total += 1
        singles += max(fills) <= 1
    if not total or singles * 2 < total or c.slack <= 0:
        return []
    return [Advice("tile-too-large",
                   f"tiles leave {singles} of {total} cores with one iteration: nothing to "
                   "overlap",
                   f"core {c.core} loads its data in one fill and takes {c.span:,.0f} cycles; "
                   f"with loads, compute and stores overlapped it would need {c.bound:,.0f} "
                   f"({c.pipe} busy)",
                   "split each core's work into >= 4 tiles (smaller tile length) with double "
                   "buffering so loads, compute and stores overlap", change={"tile": "/4"},
                   gain=c.slack * 3 / 4)]


DETECTORS = (single_buffering, reuse, round_trip, reductions, mix_balance, one_iteration)


def detect(run: Any) -> list[Advice]:
    """Every detector's findings on `run` (see the module docstring)."""
    if not run.trace:
        return []
    c = Context(run)
    return [a for d in DETECTORS for a in d(c)]


__all__ = ["DETECTORS", "Context", "detect"]
