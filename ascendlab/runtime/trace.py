"""The trace: one immutable Event per emulated instruction, and the Run that holds them.

This module is the contract between the runtime (the writer) and every reader: the cost model,
the sanitizer, the widgets and the grader import these types and nothing else from the runtime.

Address spaces: "GM" is one virtual address space shared by all cores (each kernel argument sits
at its own base, see Run.gm); "UB", "L1", "L0A", "L0B", "L0C" are per core (Event.core), byte
addresses from 0 to the chip's capacity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..errors import ParamError
from .chips import ChipSpec

# The pipes an Event can name, in dataflow order (MTE2 brings data in, MTE3/FIX take it out,
# S is the scalar unit). Every reader iterates pipes in this order.
PIPES: tuple[str, ...] = ("MTE2", "MTE1", "M", "FIX", "V", "MTE3", "S")

# How the cycle model charges an op: the vector classes have a rate in cost.CostTable's
# vector_repeat; the others name the model's other rules (DMA, cube, scalar access, sync edges,
# TPipe/TQue bookkeeping).
VECTOR_CLASSES: tuple[str, ...] = ("elementwise", "compare", "convert", "transcendental",
                                   "reduce")
COST_CLASSES: tuple[str, ...] = VECTOR_CLASSES + ("dma", "cube", "scalar", "sync", "framework")


@dataclass(frozen=True)
class OpInfo:
    """What the machine knows about one op an Event can name (Event.op): one record per op,
    registered once by the runtime module that implements it (register_op)."""

    name: str  # pyasc name, as in Event.op
    pipe: str  # the pipe it always runs on; "" when its operands or its sync edge decide
    cost_class: str  # one of COST_CLASSES
    flops_per_elem: int = 0  # operations the model counts per element (Event.count)
    dtypes: frozenset[str] = frozenset()  # operand dtypes it accepts; empty: not one set
    replayable: bool = True  # False: no pyasc-facing form, so the grader cannot re-issue it
    module: str = ""  # the module that registered it


# Every op a trace can hold, by name. The runtime's op-defining modules fill it when imported,
# and ascendlab/runtime/__init__.py imports all of them, so it is complete before any launch
# and before any reader (which imports this module, hence the runtime package) looks at it.
OPS: dict[str, OpInfo] = {}


def register_op(name: str, pipe: str, cost_class: str, *, flops_per_elem: int = 0,
                dtypes: frozenset[str] = frozenset(), replayable: bool = True,
                module: str = "") -> OpInfo:
    """Record op `name` in OPS (a second, different registration of a name is an error)."""
    if cost_class not in COST_CLASSES:
        raise ParamError(f"register_op({name!r}): cost class {cost_class!r} is not one of "
                         f"{', '.join(COST_CLASSES)}")
    if pipe and pipe not in PIPES:
        raise ParamError(f"register_op({name!r}): pipe {pipe!r} is not one of "
                         f"{', '.join(PIPES)} (or \"\" when the operands decide)")
    info = OpInfo(name, pipe, cost_class, flops_per_elem, frozenset(dtypes), replayable, module)
    old = OPS.get(name)
    if old is not None and old != info:
        raise ParamError(f"register_op({name!r}): already registered by {old.module or '?'} "
                         f"as {old}; an op has one record")
    OPS[name] = info
    return info


def op_info(name: str) -> OpInfo:
    """The record of op `name` (ParamError naming it when no module registered it)."""
    try:
        return OPS[name]
    except KeyError:
        raise ParamError(f"op {name!r} is not registered in ascendlab.runtime.trace.OPS "
                         f"({len(OPS)} ops are): a runtime module registers each op it "
                         f"implements with register_op") from None


# Readers of a Run register themselves here (ascendlab.analysis does so when imported, which
# `import ascendlab` always does), so that this module, the writer's record, imports none of
# them: "cost" -> simulate(run), "chrome_trace" -> chrome_trace(run, path),
# "sanitize" -> sanitize(run, complete=...).
READERS: dict[str, Any] = {}


def register_reader(name: str, fn: Any) -> None:
    """Make `fn` the reader `name` that Run's convenience properties call."""
    READERS[name] = fn


def reader(name: str) -> Any:
    """The registered reader `name` (RuntimeError naming it when nothing registered it)."""
    try:
        return READERS[name]
    except KeyError:
        raise RuntimeError(f"no trace reader {name!r} is registered: import ascendlab "
                           f"(ascendlab.analysis registers {sorted(READERS) or 'the readers'})"
                           ) from None


class Access(NamedTuple):
    """Bytes an instruction reads or writes: `count` blocks of `nbytes`, `stride` bytes apart.

    A contiguous access has count=1 (stride 0). A strided DMA (DataCopyParams) has one block per
    burst. A repeat-form vector instruction has one block per repeat whose nbytes spans the
    repeat's footprint (over-approximating block strides inside a repeat).
    """

    space: str  # "GM" | "UB" | "L1" | "L0A" | "L0B" | "L0C"
    addr: int  # first byte (GM: virtual address; local: offset in the core's memory)
    nbytes: int  # bytes per block
    name: str  # the tensor or argument name, for messages
    count: int  # number of blocks
    stride: int  # bytes from one block's start to the next

    @property
    def end(self) -> int:
        """One past the last byte touched."""
        return self.addr + (self.count - 1) * self.stride + self.nbytes if self.count else self.addr

    @property
    def total_bytes(self) -> int:
        """Bytes actually touched (blocks x block size)."""
        return self.count * self.nbytes

    def ranges(self) -> list[tuple[int, int]]:
        """The [start, end) byte ranges of the blocks."""
        return [(self.addr + i * self.stride, self.addr + i * self.stride + self.nbytes)
                for i in range(self.count)]


class Sync(NamedTuple):
    """A synchronisation edge an event creates or waits on.

    kind "set": the producer pipe `src` signals `key` once its earlier work is done.
    kind "wait": the consumer pipe `dst` blocks until `key` was set (and consumes the set).
    kind "barrier": every earlier instruction of pipe `src` (or of all pipes if src == "ALL")
    completes before later ones start; `implicit` barriers are the ones auto-sync inserts.
    kind "sync_all": all cores reach this point before any continues.
    kind "xset" / "xwait": a flag between two cores (a MIX kernel's cube and vector cores).
    The key is ("xcore", from_core, to_core, tag); the n-th xwait of a key consumes its n-th
    xset. An xset fires when the earlier work of its pipe `src` is done; an xwait is on the
    waiting core's scalar pipe (dst "S") and stalls that core's issue until then.
    The key identifies the flag: ("flag", event_id) for set_flag/wait_flag on HardEvent src_dst,
    ("que", que_id, slot) for TQue enque/deque (RAW) and free/alloc (WAR) edges.
    """

    kind: str
    src: str
    dst: str
    key: tuple
    implicit: bool = False


class Event(NamedTuple):
    """One emulated instruction (or framework operation) as issued by one core."""

    core: int  # the issuing core: its block index (see Run.core_kind / Run.core_kinds)
    pipe: str  # "MTE1" | "MTE2" | "MTE3" | "V" | "M" | "FIX" | "S"
    op: str  # pyasc name: "data_copy", "add", "mmad", "enque", "set_flag", ...
    reads: tuple[Access, ...]
    writes: tuple[Access, ...]
    count: int  # elements processed (vector: active lanes; DMA: elements moved)
    dtype: str  # element type name, "" when not applicable
    repeats: int  # vector repeats issued; DMA bursts; cube: m/n/k fractal steps; 0 for sync
    file: str  # kernel source file of the call
    line: int  # kernel source line of the call
    sync: Sync | None
    args: tuple  # op-specific parameters as (name, value) pairs, enough to re-execute the op


_new = tuple.__new__


def event(core: int, pipe: str, op: str, reads: tuple[Access, ...] = (),
          writes: tuple[Access, ...] = (), count: int = 0, dtype: str = "", repeats: int = 0,
          file: str = "", line: int = 0, sync: Sync | None = None, args: tuple = ()) -> Event:
    """The one constructor of trace records: an Event from its fields, by name (or in field
    order, on the hot paths). Every writer builds Events here, so the record's layout lives in
    this module alone; readers read them by field name (e.core, e.sync, ...)."""
    return _new(Event, (core, pipe, op, reads, writes, count, dtype, repeats, file, line, sync,
                        args))


class Finding(NamedTuple):
    """A problem the emulator noticed: memcheck findings now, the sanitizer's classes later."""

    kind: str  # "memcheck" | "initcheck" | "racecheck" | "synccheck"
    message: str
    core: int
    lines: tuple[str, ...]  # "file:line" of the instruction(s) involved
    event: int = -1  # index in Run.trace of the instruction, -1 if none


class GMArg(NamedTuple):
    """Where one memory argument of the launch sits in the GM address space."""

    name: str  # kernel parameter name
    base: int  # virtual address of element 0
    nbytes: int
    dtype: str
    shape: tuple[int, ...]


@dataclass
class Run:
    """Everything a launch did: what readers (cost model, sanitizer, widgets, grader) consume."""

    kernel: str
    chip: ChipSpec
    block_num: int
    core_kind: str  # "aiv" (vector cores), "aic" (cube cores) or "mix" (both, see core_kinds)
    trace: list[Event]
    gm: dict[str, GMArg]  # memory arguments by parameter name
    outputs: dict[str, np.ndarray]  # final GM contents of every memory argument (device copy)
    scalars: dict[str, Any]  # scalar and constexpr arguments as the kernel saw them
    findings: list[Finding] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    wall_time_s: float = 0.0
    error: str | None = None  # "ExcType: message" when the kernel raised; the trace is partial
    # MIX runs (core_kind "mix", block_num N groups of 1 AIC + 2 AIV): core -> "aiv" | "aic".
    # Vector cores are 0..2N-1 (their block index); the cube core of group g is core 2N + g.
    # Empty for single-kind runs, where every core is core_kind.
    core_kinds: dict[int, str] = field(default_factory=dict)
    _cost: Any = field(default=None, repr=False, compare=False)

    # ---- the cycle model's view (computed from the trace on first use, then cached) ----------
    @property
    def cost(self) -> Any:
        """The cycle model's CostResult for this Run (ascendlab.analysis.cost)."""
        if self._cost is None:
            self._cost = reader("cost")(self)
        return self._cost

    @property
    def cycles(self) -> int:
        """Modelled kernel cycles: the span of the slowest core (waves included)."""
        return self.cost.cycles

    @property
    def time_us(self) -> float:
        """Modelled microseconds of the launch: kernel cycles at the chip clock + launch
        overhead."""
        return self.cost.time_us

    @property
    def pipe_busy(self) -> dict[str, int]:
        """Pipe -> busy cycles (mean over the cores that ran), like msprof PipeUtilization."""
        return self.cost.pipe_busy

    @property
    def bytes_moved(self) -> dict[str, int]:
        """Route ("GM->UB", "L1->L0A", "L0C->GM", ...) -> bytes."""
        return self.cost.bytes_moved

    @property
    def flops(self) -> int:
        """Floating/integer operations: 2 per multiply-add, 1 per other vector lane op."""
        return self.cost.flops

    @property
    def bound_cycles(self) -> int:
        """The roofline bound of this kernel on this chip (memory, vector or cube)."""
        return self.cost.bound_cycles

    @property
    def efficiency(self) -> float:
        """bound_cycles / cycles: 1.0 is the roofline."""
        return self.cost.efficiency

    def to_chrome_trace(self, path: Any = None) -> dict:
        """The modelled timeline as Chrome trace-event JSON (Perfetto, chrome://tracing): one
        track per core x pipe. Written to `path` when given; returned either way."""
        return reader("chrome_trace")(self, path)

    def events(self, core: int | None = None, pipe: str | None = None,
               op: str | None = None) -> list[Event]:
        """The trace filtered by core, pipe and/or op name."""
        return [e for e in self.trace
                if (core is None or e.core == core) and (pipe is None or e.pipe == pipe)
                and (op is None or e.op == op)]

    def kind_of(self, core: int) -> str:
        """"aiv" or "aic": the kind of core `core` (Event.core)."""
        return self.core_kinds.get(core, self.core_kind)

    def group_of(self, core: int) -> int:
        """The block (AI Core group) core `core` belongs to: its own index except in MIX runs,
        where vector cores 2g and 2g+1 and cube core 2N+g form group g."""
        if self.core_kind != "mix":
            return core
        n2 = 2 * self.block_num
        return core - n2 if core >= n2 else core // 2

    def arg_at(self, addr: int) -> GMArg | None:
        """The memory argument whose bytes contain GM address `addr` (None for guard zones)."""
        for arg in self.gm.values():
            if arg.base <= addr < arg.base + arg.nbytes:
                return arg
        return None

    def summary(self) -> str:
        """A one-paragraph text description: kernel, chip, cores, instruction counts, findings."""
        per_pipe: dict[str, int] = {}
        for e in self.trace:
            per_pipe[e.pipe] = per_pipe.get(e.pipe, 0) + 1
        pipes = ", ".join(f"{p} {n}" for p, n in sorted(per_pipe.items()))
        return (f"{self.kernel} on {self.chip.name}, {self.block_num} {self.core_kind} cores: "
                f"{len(self.trace)} events ({pipes}); {len(self.findings)} findings; "
                f"emulated in {self.wall_time_s * 1e3:.1f} ms")

    def __repr__(self) -> str:
        return f"<Run {self.summary()}>"
