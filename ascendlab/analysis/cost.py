"""The cycle model: a deterministic, documented estimate of how long a Run takes on its chip.

It reads only the trace (trace.py), the chip's numbers (chips.py) and the matched sync edges
(the matching rule of deps.py). The design brief, decision 3:

* Each pipe (MTE1, MTE2, MTE3, V, M, FIX, S) executes its instructions in program order. An
  instruction occupies its pipe for `setup + work / throughput` cycles; its result is ready
  `latency` cycles later. The next instruction of the same pipe may start once the previous
  one stops occupying the pipe (pipelined); a `pipe_barrier` makes it wait for the previous
  results instead (the implicit auto-sync PIPE_V barriers are in the trace, so they count).
* The scalar unit dispatches every instruction in program order (COST.dispatch cycles; TPipe/
  TQue calls cost COST.framework) and runs the S-pipe work itself (scalar GM access ...).
* Overlap between pipes comes only from the sync edges of the trace: a set fires when every
  earlier instruction of its pipe is done; the matching wait (deps.match_syncs) holds its pipe
  until then. TQue enque/deque and free/alloc are such edges; double buffering overlaps
  because its edges allow it, never because of a special case. A pipe blocked on a set that
  comes later in program order queues its following instructions until the set fires.
* GM traffic of a core (MTE2 reads, MTE3 and FIX writes) goes through one port per core whose
  rate is the chip's per-core rate, capped by the core's share of the sustained HBM bandwidth
  (ChipSpec.hbm_sustained_fraction of the peak hbm_gbps; ADK perf guide: MTE2 and MTE3 share
  GM bandwidth). The port serves each transfer in the first idle gap at or after the transfer
  is ready. Reads served mostly by L2 (below) use a second port per core instead, at the
  core's share of the chip's L2 bandwidth (ChipSpec.l2_gbps): L2 hits consume no HBM
  bandwidth. A GM transfer whose GM address (or block stride) is not 512 B aligned runs at
  ChipSpec.gm_misaligned_rate of these rates. The roofline (memory_cycles) keeps the HBM peak.
* L2: a tile of GM (the same address, block size, block count and stride) that the launch reads
  R times, from any cores, comes from HBM once: each read pays 1/R of its bytes at the
  HBM-capped rate and the rest at the L2 rate; bytes a GM write produced earlier are read from
  L2. When the distinct bytes read exceed the L2, a re-read whose reuse distance (estimated from
  the cores' read offsets: cost_memory.l2_misses) exceeds the L2 misses as well. This is what
  lets a tiled matmul, which reads each tile several times, be cube-bound; partially overlapping
  re-reads are not credited (a conservative choice). back_to_back(run) models the launch as one
  iteration of a loop (a benchmark): when the launch's footprint (distinct bytes read and
  written) fits the L2, every GM read is an L2 hit.
* L1 -> L0A/L0B loads occupy MTE1 bytes / rate and are ready COST.l0_load_latency later.
* Cores run in parallel (blocks beyond the physical core count run in waves, in block order);
  sync_all holds every core until the last arrives; a cross-core flag (xset/xwait, MIX
  kernels) holds the waiting core's scalar unit until the other core's set fires. MIX runs
  wave by group (1 cube + 2 vector cores). `cycles` is the kernel's span; `time_us` adds the
  launch overhead of an isolated launch on the cores used (ChipSpec.launch_us), and
  `back_to_back_us` the overhead of a launch queued behind another.

Every parameter of COST carries its source or the word ASSUMPTION. Changing any of them (or
the rules above) changes MODEL_VERSION and tests/analysis/golden_cycles.json.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import numpy as np

from ..errors import DeadlockError
from ..runtime.chips import ChipSpec
from ..runtime.trace import Event
from .cost_memory import l2_hits
from .cost_price import price
from .cost_schedule import PIPES, schedule, waves

MODEL_VERSION = "2.0"

_GM_PIPES = frozenset({"MTE2", "MTE3", "FIX"})
_CORE = attrgetter("core")  # Event.core


@dataclass(frozen=True, kw_only=True)
class CostTable:
    """The model's cycle parameters (chip-independent; rates come from ChipSpec)."""

    dispatch: int = 1  # ASSUMPTION: scalar cycles to issue one instruction to a pipe queue
    framework: int = 8  # ASSUMPTION: scalar bookkeeping of a TQue/TPipe call (alloc, enque...)
    scalar_local: int = 2  # ASSUMPTION: scalar get/set_value on UB
    scalar_gm: int = 270  # TL msopprof simulator CSV (910B): scalar GM store ~260-290 cycles
    dma_setup: int = 30  # ASSUMPTION: cycles a DMA instruction occupies its pipe before data
    dma_block: int = 2  # ASSUMPTION: extra occupancy per further burst of a strided DMA
    dma_latency: int = 150  # ASSUMPTION: first-byte latency of GM <-> local transfers
    local_dma_latency: int = 20  # ASSUMPTION: latency of on-chip moves (UB->UB, UB<->L1)
    # L1 -> L0A/L0B (load_data): occupies MTE1 bytes / rate, result 28 cycles later (ADK
    # tests/perf/load_data_perf/README.md, dav-2201: "带宽延迟 28 cycle", theory cycles =
    # latency + bytes / bandwidth)
    l0_load_latency: int = 28
    fix_setup: int = 20  # ASSUMPTION: extra setup of a FixPipe move (NZ->ND, quantisation)
    vector_setup: int = 8  # ASSUMPTION: issue cycles of a vector instruction
    vector_latency: int = 16  # ASSUMPTION: vector pipeline depth
    # cycles per 256 B repeat, by cost class (trace.OPS[op].cost_class); 1 = the full rate of
    # 256 B per cycle (ChipSpec.vector_bytes_per_cycle, DER from the 11.06 TOPS fp32 peak).
    # VEC = ADK docs/zh/api/附录/Vector指令理论性能汇总.md (A2, elements per cycle by dtype)
    vector_repeat: tuple[tuple[str, float], ...] = (
        ("elementwise", 1.0),  # VEC: Add/Mul/Adds/Muls/Max/Abs/Relu 128 half, 64 float
        ("compare", 1.0),  # VEC: Compare/Select 128 half, 64 float
        ("convert", 1.0),  # VEC: Cast 64 per cycle into or out of 32-bit (repeats: wider side)
        ("transcendental", 1.0),  # VEC: Reciprocal/Rsqrt 128/64; Exp/Ln/Sqrt: see below
        ("reduce", 7.0),  # VEC: ReduceRepeat (WholeReduce) 128/7 half, 64/7 float
    )
    # instructions the VEC table gives a fixed element rate whatever the dtype (32 per cycle:
    # 4 cycles per half repeat, 2 per float one), when that is slower than their class
    vector_elements_per_cycle: tuple[tuple[str, float], ...] = (
        ("exp", 32.0), ("ln", 32.0), ("sqrt", 32.0), ("div", 32.0),
    )
    cube_setup: int = 8  # ASSUMPTION
    cube_latency: int = 32  # ASSUMPTION
    sync: int = 1  # ASSUMPTION: set_flag / wait_flag / pipe_barrier occupy their pipe 1 cycle


COST = CostTable()


@dataclass
class CostResult:
    """The model's answer for one Run (times in cycles of the chip's AI Core clock)."""

    model_version: str
    chip: ChipSpec
    start: list[float]  # per trace event: when it starts on its pipe
    end: list[float]  # per trace event: when its result is ready
    occupied: list[float]  # per trace event: cycles it occupies its pipe
    core_cycles: dict[int, float]  # core -> its span
    cycles: int  # the kernel's span: the slowest core, waves included
    time_us: float  # cycles at the chip clock + launch overhead
    launch_overhead_us: float  # ChipSpec.launch_us: isolated (back_to_back's: back to back)
    pipe_busy: dict[str, int]  # pipe -> busy cycles, mean over the cores that ran
    per_core_busy: dict[int, dict[str, float]]
    bytes_moved: dict[str, int]  # "GM->UB" ... -> bytes
    gm_bytes: int
    flops: int
    memory_cycles: float  # GM bytes at the port rates of the active cores
    vector_cycles: float  # vector repeats at the model's rates, spread over the active cores
    cube_cycles: float  # cube fractal steps at the cube rate, spread over the active cores
    bound_cycles: int  # roofline: the largest of the three
    bound: str  # "memory" | "vector" | "cube"
    active_cores: int
    serial_cycles: int  # every instruction of every core one after another: an upper bound
    # per trace event: when the scalar unit dispatched it to its pipe's queue (S-pipe work:
    # when it ran), and the fixed part of its occupancy (setup; the rest is work / throughput)
    issue: list[float] = field(default_factory=list)
    fixed: list[float] = field(default_factory=list)
    # cycles at the chip clock + the back-to-back launch overhead (L2 as in this result)
    back_to_back_us: float = 0.0
    warm_l2: bool = False  # True: back_to_back's result (warm L2, back-to-back overhead)

    @property
    def efficiency(self) -> float:
        """bound_cycles / cycles (1.0 = at the roofline)."""
        return self.bound_cycles / self.cycles if self.cycles else 1.0

    def utilization(self, pipe: str) -> float:
        """Busy share of `pipe` over the kernel's span (mean over cores)."""
        return self.pipe_busy.get(pipe, 0) / self.cycles if self.cycles else 0.0


def simulate(run: Any, table: CostTable = COST, warm_l2: bool = False) -> CostResult:
    """Schedule `run`'s trace on its chip (see the module docstring). warm_l2: the launch
    follows an identical one (see back_to_back)."""
    gc_was_on = gc.isenabled()
    gc.disable()  # many small temporaries and no cycles: cyclic GC would only slow this down
    try:
        return _simulate(run, table, warm_l2)
    finally:
        if gc_was_on:
            gc.enable()


def back_to_back(run: Any, table: CostTable = COST) -> CostResult:
    """The cost of `run` as one launch of a loop that repeats it (what a benchmark measures):
    the GM data the launch touches is still in L2 from the previous iteration when it fits
    (reads of it are L2 hits), and the launch overhead is the back-to-back one
    (ChipSpec.launch_us). `run.cost` is the isolated launch: cold L2, isolated overhead."""
    return simulate(run, table, warm_l2=True)


def _cores(run: Any, chip: ChipSpec) -> tuple[int, int, int, int, int]:
    """(groups, active, cube_cores, vec_cores, launched): physical core groups the blocks wave
    over, the cores sharing HBM, the cube / vector cores the roofline spreads work over, and
    the cores the launch starts (its overhead grows with them)."""
    if run.core_kind == "mix":  # groups of 1 AIC + 2 AIV; HBM shared by the cores moving GM data
        groups = max(1, min(run.block_num, chip.aic_cores))
        gm_cores = {e.core for e in run.trace if e.pipe in _GM_PIPES}
        active = max(1, min(len(gm_cores), 3 * groups))
        launched = groups if chip.layout == "coupled" else 3 * groups
        return groups, active, groups, min(2 * run.block_num, chip.aiv_cores), launched
    physical = chip.aiv_cores if run.core_kind == "aiv" else chip.aic_cores
    groups = max(1, min(run.block_num, physical))
    return groups, groups, groups, groups, groups


def by_core(trace: list[Event]) -> dict[int, list[int]]:
    """Each core's events in program order: runs of the trace (one run per core when cores ran
    one after the other; several when they met at sync_all)."""
    by_core: dict[int, list[int]] = {}
    n = len(trace)
    if not n:
        return by_core
    cores = np.fromiter(map(_CORE, trace), dtype=np.int64, count=n)
    cuts = (np.flatnonzero(cores[1:] != cores[:-1]) + 1).tolist()
    for a, b in zip([0, *cuts], [*cuts, n]):
        by_core.setdefault(int(cores[a]), []).extend(range(a, b))
    return by_core


def _simulate(run: Any, table: CostTable, warm_l2: bool) -> CostResult:
    chip: ChipSpec = run.chip
    trace: list[Event] = run.trace
    n = len(trace)
    mix = run.core_kind == "mix"
    groups, active, cube_cores, vec_cores, launched = _cores(run, chip)
    # per-core port rates: sustained HBM and L2 shares (chips.ChipSpec.gm_rates)
    rd_rate, wr_rate, l2_rate = chip.gm_rates(active)
    slow_rate = chip.gm_misaligned_rate

    # ---- one pass: what each event costs where (cost_price.py) -------------------------------
    priced = price(trace, table, chip, rd_rate, wr_rate)
    kind, pipe, cost, occ, lat, fixed, port, fid = priced.columns
    bytes_moved, flops = priced.bytes_moved, priced.flops
    gm_read, gm_write = priced.gm_read, priced.gm_write
    vec_work, cube_work = priced.vec_work, priced.cube_work

    # ---- GM reads: L2 hits (see the module docstring) -----------------------------------------
    hits, gm_hit = l2_hits(priced.gm_reads, priced.written, (occ, lat, port, fixed),
                           priced.dma_cache, table, chip,
                           (rd_rate, wr_rate, l2_rate, slow_rate), active, warm_l2)
    gm_read -= hits

    # ---- schedule -----------------------------------------------------------------------------
    start = [0.0] * n
    end = [0.0] * n
    issue: dict[int, float] = {}
    sims = schedule(by_core(trace), (kind, pipe, cost, occ, lat, port, fid, start, end),
                     issue, priced.cross)
    stuck = sorted(i for sim in sims.values() for i in sim.stuck)
    if stuck:  # a hang has no cycle count (the launch itself raises; see sync/deadlock.py)
        e = trace[stuck[0]]
        raise DeadlockError(
            f"the cost model prices no trace with a wait that is never satisfied: {e.op} on "
            f"pipe {e.pipe} [core {e.core}, {e.file.rsplit('/', 1)[-1]}:{e.line}] (and "
            f"{len(stuck) - 1} more); on the chip the kernel hangs")
    core_end = {c: sim.span() for c, sim in sims.items()}
    cycles = waves(run, core_end, groups, mix)
    serial = sum(cost) + sum(occ) + sum(lat)  # S work counted twice: still an upper bound
    busy = {c: dict(zip(PIPES, sim.busy)) for c, sim in sims.items()}
    ran = max(1, len(busy))
    pipe_busy = {p: int(round(sum(b[p] for b in busy.values()) / ran)) for p in PIPES}
    # HBM (misses and writes) and L2 (hits) are separate resources; the roofline takes the
    # HBM peak, the schedule the sustained rate
    rd_peak, wr_peak, _ = chip.gm_rates(active, peak=True)
    memory = max(gm_read / (rd_peak * active) + gm_write / (wr_peak * active),
                 gm_hit / (l2_rate * active))
    vector = vec_work / vec_cores
    cube = cube_work / cube_cores
    bound_name, bound = max((("memory", memory), ("vector", vector), ("cube", cube)),
                            key=lambda kv: kv[1])
    b2b_us = chip.launch_us(launched, back_to_back=True)
    launch_us = b2b_us if warm_l2 else chip.launch_us(launched)
    return CostResult(
        model_version=MODEL_VERSION, chip=chip, start=start, end=end, occupied=occ,
        core_cycles=core_end, cycles=cycles,
        time_us=cycles / chip.clock_mhz + launch_us,
        launch_overhead_us=launch_us, pipe_busy=pipe_busy,
        per_core_busy=busy, bytes_moved={f"{a}->{b}": v for (a, b), v in bytes_moved.items()},
        gm_bytes=gm_read + gm_write, flops=flops,
        memory_cycles=memory, vector_cycles=vector, cube_cycles=cube,
        bound_cycles=int(bound), bound=bound_name, active_cores=active,
        serial_cycles=int(round(serial)),
        issue=_issue_times(issue, start), fixed=fixed,
        back_to_back_us=cycles / chip.clock_mhz + b2b_us, warm_l2=warm_l2)


def _issue_times(issue: dict[int, float], start: list[float]) -> list[float]:
    """Per event: when the scalar unit dispatched it (`issue`; events without an entry, S-pipe
    work and the cores whose schedule was copied from a twin, use their start)."""
    out = start[:]
    for i, t in issue.items():
        out[i] = t
    return out
