"""The advisor's record (Advice) and the numbers its rules read (Shape, run_shape)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...analysis.critical_path import analyze
from ...analysis.critical_path import phases as cp_phases
from ..hotlines import HotLine, hot_lines

_MEM = ("MTE2", "MTE3", "FIX")
SMALL_TRANSFER = 4 * 1024  # B: below this a GM transfer's fixed cost dominates (see fixed share)


@dataclass(frozen=True)
class Advice:
    """One finding: what limits the kernel, the numbers behind it, what to change, the gain."""

    kind: str  # "memory-bound", "vector-fixed-cost", "scalar-bound", "sync-stall",
    # "single-buffer", "tile-too-small", "tile-too-large", "idle-cores", ...
    title: str
    evidence: str
    fix: str
    change: dict[str, Any] = field(default_factory=dict)  # launcher keywords to change
    gain: float = 0.0  # modelled cycles saved (measured, or the model's estimate)
    measured: bool = False  # True: the variant was re-run and `cycles_after` is its cycles
    cycles_after: int | None = None
    note: str = ""  # e.g. why a measurement failed
    estimate: float | None = None  # the model's upper bound, kept when a re-run measured it

    @property
    def label(self) -> str:
        if self.measured:
            est = (f"; model estimate was up to {self.estimate:,.0f}"
                   if self.estimate else "")
            return (f"measured: {self.gain:+,.0f} cycles saved -> {self.cycles_after:,} "
                    f"(re-run{est})")
        if self.gain > 0:
            return (f"hypothesis: up to {self.gain:,.0f} cycles saved (model estimate, an "
                    "upper bound; "
                    "not re-run)")
        return "no gain the model can show: a diagnosis, not a change"


@dataclass(frozen=True)
class Shape:
    """The numbers the rules read, computed once from the run."""

    cycles: float
    path: dict[str, float]  # critical-path cycles by activity
    busy_max: float  # the busiest pipe's busy cycles (mean per core)
    busiest: str
    queues: dict[int, int]  # queue id -> num (queues that enque; TBufs excluded)
    tbufs: int
    ub_used: int  # bytes of UB given by init_buffer on core 0
    gm_sizes: list[int]  # bytes of each GM transfer
    tiles_per_core: float  # GM->UB transfers per queue per core
    lines: list[HotLine]
    # the critical path per phase (cut at each sync_all): label, cycles, by activity, of which
    # released by cross-core flags
    phases: list[tuple[str, float, dict[str, float], float]] = field(default_factory=list)


# ---- the numbers -------------------------------------------------------------------------
def run_shape(run: Any) -> Shape:
    """The numbers the rules read (the profile shows its hot lines and path too)."""
    cost = run.cost
    cp = analyze(run)
    path = activities(run, cp.share)
    phases = []
    for ph in cp_phases(run):
        if ph.until >= 0:
            e = run.trace[ph.until]
            label = f"to sync_all at {e.file.rsplit('/', 1)[-1]}:{e.line}"
        else:
            label = "to the end" if ph.start else "whole kernel"
        phases.append((label, ph.cycles, activities(run, ph.share), ph.xcore))
    busiest, busy_max = max(cost.pipe_busy.items(), key=lambda kv: kv[1], default=("S", 0))
    core0 = min((e.core for e in run.trace), default=0)
    enqueued = {dict(e.args).get("queue") for e in run.trace if e.op == "enque"}
    queues: dict[int, int] = {}
    tbufs = ub = 0
    for e in run.trace:
        if e.op == "init_buffer" and e.core == core0:
            a = dict(e.args)
            if a.get("space") == "UB":
                ub += a.get("num", 0) * a.get("len", 0)
            if a.get("queue") in enqueued:
                queues[a["queue"]] = a.get("num", 0)
            else:
                tbufs += 1
    gm = [a.total_bytes for e in run.trace if e.pipe in _MEM
          for a in (e.reads + e.writes) if a.space == "GM"]
    # tiles per core: core 0's GM -> local loads per GM tensor it reads
    loads: dict[str, int] = {}
    for e in run.trace:
        if e.core == core0 and e.pipe == "MTE2":
            for a in e.reads:
                if a.space == "GM":
                    loads[a.name] = loads.get(a.name, 0) + 1
    tiles = sum(loads.values()) / len(loads) if loads else 0.0
    return Shape(cycles=float(cost.cycles), path=path, busy_max=float(busy_max),
                 busiest=busiest, queues=queues, tbufs=tbufs, ub_used=ub, gm_sizes=gm,
                 tiles_per_core=tiles, lines=hot_lines(run), phases=phases)


def activities(run: Any, share: dict[int, float]) -> dict[str, float]:
    """Critical-path cycles by activity (memory, vector-work, vector-fixed, cube, scalar,
    sync) of the path instructions `share` (trace index -> cycles)."""
    cost = run.cost
    path: dict[str, float] = {}
    for i, sh in share.items():
        e = run.trace[i]
        o = cost.occupied[i]
        if not o:
            act = "sync" if e.sync is not None else "scalar"
        elif e.pipe in _MEM:
            act = "memory"
        elif e.pipe == "V":
            f = min(1.0, cost.fixed[i] / o)
            path["vector-fixed"] = path.get("vector-fixed", 0.0) + sh * f
            act = "vector-work"
            sh *= 1 - f
        elif e.pipe == "S":
            act = "scalar"
        else:
            act = "cube"
        path[act] = path.get(act, 0.0) + sh
    return path


def _top_line(sh: Shape, pred: Callable[[HotLine], float]) -> HotLine | None:
    best = max(sh.lines, key=pred, default=None)
    return best if best is not None and pred(best) > 0 else None


__all__ = ["SMALL_TRANSFER", "Advice", "Shape", "run_shape"]
