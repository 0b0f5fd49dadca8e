"""The advisor: findings about a Run's bottleneck, each with evidence, a fix and its effect.

Findings read the trace and the cycle model's schedule (run.cost, the critical path); none may
contradict the trace (a TBuf is scratch memory, not a queue: only queues that enque count as
buffered). A finding that proposes a parameter change (`change`, e.g. {"buffers": 2}) is
*measured* when the profile has the kernel's launcher: the variant is re-run and its modelled
cycles reported; otherwise its gain is the model's estimate and it is labelled a hypothesis.
Findings are ranked by gain. The launcher's keywords that findings may change are
`tile`, `buffers`, `cores` and `rows` (rows per vector instruction); other keywords are kept.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..analysis.critical_path import analyze
from .hotlines import HotLine, hot_lines

_MEM = ("MTE2", "MTE3", "FIX")
SMALL_TRANSFER = 4 * 1024  # B: below this a GM transfer's fixed cost dominates (see fixed share)


@dataclass(frozen=True)
class Advice:
    """One finding: what limits the kernel, the numbers behind it, what to change, the gain."""

    kind: str  # "memory-bound", "vector-fixed-cost", "scalar-bound", "sync-stall",
    # "single-buffer", "tile-too-small", "tile-too-large", "idle-cores", "deadlock", ...
    title: str
    evidence: str
    fix: str
    change: dict[str, Any] = field(default_factory=dict)  # launcher keywords to change
    gain: float = 0.0  # modelled cycles saved (measured, or the model's estimate)
    measured: bool = False  # True: the variant was re-run and `cycles_after` is its cycles
    cycles_after: int | None = None
    note: str = ""  # e.g. why a measurement failed

    @property
    def label(self) -> str:
        if self.measured:
            return f"measured: {self.gain:+,.0f} cycles saved -> {self.cycles_after:,}"
        if self.gain:
            return f"hypothesis: up to ~{self.gain:,.0f} cycles saved (model estimate, not re-run)"
        return "no parameter change proposed"


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


def advise(run: Any, launcher: Callable[..., Any] | None = None,
           config: dict[str, Any] | None = None, shape: Shape | None = None) -> list[Advice]:
    """The advisor's findings for `run`, largest gain first (see the module docstring)."""
    sh = shape if shape is not None else run_shape(run)
    out = [a for rule in _RULES for a in rule(run, sh)]
    if launcher is not None:
        out = [_measure(a, run, launcher, config or {}) for a in out]
    return sorted(out, key=lambda a: (-a.gain, _PRIORITY.get(a.kind, 9)))


# ---- the numbers -------------------------------------------------------------------------
def run_shape(run: Any) -> Shape:
    """The numbers the rules read (the profile shows its hot lines and path too)."""
    cost = run.cost
    cp = analyze(run)
    path: dict[str, float] = {}
    for i, share in cp.share.items():
        e = run.trace[i]
        o = cost.occupied[i]
        if not o:
            act = "sync" if e.sync is not None else "scalar"
        elif e.pipe in _MEM:
            act = "memory"
        elif e.pipe == "V":
            f = min(1.0, cost.fixed[i] / o)
            path["vector-fixed"] = path.get("vector-fixed", 0.0) + share * f
            act = "vector-work"
            share *= 1 - f
        elif e.pipe == "S":
            act = "scalar"
        else:
            act = "cube"
        path[act] = path.get(act, 0.0) + share
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
                 tiles_per_core=tiles, lines=hot_lines(run))


def _top_line(sh: Shape, pred: Callable[[HotLine], float]) -> HotLine | None:
    best = max(sh.lines, key=pred, default=None)
    return best if best is not None and pred(best) > 0 else None


# ---- the rules (each returns zero or one finding) ----------------------------------------
def _deadlock(run: Any, sh: Shape) -> list[Advice]:
    stuck = run.cost.deadlocked
    if not stuck:
        return []
    e = run.trace[stuck[0]]
    return [Advice("deadlock", f"{len(stuck)} wait(s) never satisfied: the chip would hang",
                   f"{e.op} on {e.pipe} at {e.file.rsplit('/', 1)[-1]}:{e.line} has no "
                   "matching set",
                   "pair every wait_flag with a set_flag of the same HardEvent and id",
                   gain=sh.cycles)]


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
                   "muls, compare/select) on whole tiles", gain=0.8 * s)]


def _buffering(run: Any, sh: Shape) -> list[Advice]:
    single = sorted(q for q, num in sh.queues.items() if num == 1)
    overlap = sh.busy_max / sh.cycles if sh.cycles else 1.0
    if not single or overlap > 0.75:
        return []
    note = f" ({sh.tbufs} TBuf scratch buffer(s) are not queues and are not counted)" \
        if sh.tbufs else ""
    return [Advice("single-buffer",
                   f"single-buffered queues: pipes take turns ({sh.busiest} busy "
                   f"{overlap:.0%} of the time)",
                   f"queue(s) {single} have num=1, so copy-in, compute and copy-out of a tile "
                   f"wait for each other{note}",
                   "use BUFFER_NUM=2: pipe.init_buffer(que, 2, len) so the next tile loads "
                   "while this one computes", change={"buffers": 2},
                   gain=max(0.0, sh.cycles - sh.busy_max))]


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


def _tile_large(run: Any, sh: Shape) -> list[Advice]:
    overlap = sh.busy_max / sh.cycles if sh.cycles else 1.0
    if sh.tiles_per_core >= 3 or overlap > 0.75 or not sh.queues or \
            any(n == 1 for n in sh.queues.values()) or \
            sh.path.get("memory", 0.0) < 0.3 * sh.cycles:
        return []
    n = max(1, round(sh.tiles_per_core))
    return [Advice("tile-too-large",
                   f"tile too large for the per-core work: {n} tile(s) per core leave nothing "
                   "to overlap",
                   f"each core loads its data in {n} transfer(s) per queue, so double "
                   f"buffering has no next tile to load; {sh.busiest} busy {overlap:.0%}",
                   "split each core's work into >= 4 tiles (smaller tile length) so loads, "
                   "compute and stores overlap", change={"tile": "/4"},
                   gain=max(0.0, sh.cycles - sh.busy_max) / 2)]


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


# ties (equal gain, e.g. diagnoses without a parameter change) go in this order
_PRIORITY = {"deadlock": 0, "memory-bound": 1, "scalar-bound": 2, "vector-fixed-cost": 3,
             "sync-stall": 4, "single-buffer": 5, "tile-too-large": 6, "tile-too-small": 7,
             "idle-cores": 8, "launch-overhead": 10}

_RULES = (_deadlock, _memory_bound, _vector_fixed, _scalar_bound, _buffering, _sync_stall,
          _tile_small, _tile_large, _idle_cores, _launch_overhead)


# ---- measuring a proposed change ---------------------------------------------------------
def _apply(value: Any, old: Any) -> Any:
    if isinstance(value, str) and value[:1] in "x/" and isinstance(old, int):
        k = int(value[1:])
        return old * k if value[0] == "x" else max(1, old // k)
    return value


def _measure(a: Advice, run: Any, launcher: Callable[..., Any],
             config: dict[str, Any]) -> Advice:
    if not a.change:
        return a
    try:
        params = inspect.signature(launcher).parameters
    except (TypeError, ValueError):
        params = {}
    missing = [k for k in a.change if k not in params and not any(
        p.kind is p.VAR_KEYWORD for p in params.values())]
    if missing:
        return replace(a, note=f"the launcher takes no {missing[0]!r} keyword: not re-run")
    new = dict(config)
    for k, v in a.change.items():
        if isinstance(v, str) and k not in config:
            return replace(a, note=f"no current value of {k!r} in config: not re-run")
        new[k] = _apply(v, config.get(k))
    from ..errors import AscendlabError
    from ..runtime.launch.jit import last_run

    try:
        got = launcher(**new)
        got = got if got is not None else last_run()
    except AscendlabError as e:
        return replace(a, gain=0.0, note=f"variant {new} is invalid: {str(e).splitlines()[0]}")
    after = got.cycles
    return replace(a, change={k: new[k] for k in a.change}, gain=float(run.cycles - after),
                   measured=True, cycles_after=after)


__all__ = ["Advice", "advise"]
