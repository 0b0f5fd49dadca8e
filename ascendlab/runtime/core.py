"""The state of the core that is running right now, and how instructions reach the trace.

A launch runs its cores one after another on the host. While core i runs, `current` holds its
CoreState; the pyasc-facing functions read it to find the core's memories, append their Event
and report findings. Outside a kernel `current` is None and kernel-only APIs say so.

Local memory is one flat byte array per core and physical memory (UB, L1, L0A, L0B, L0C) with
the chip's capacity, allocated on first use and poisoned (0xFF bytes: NaN for float16/float32,
-1 for signed ints) so that reading what was never written shows.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

from ..errors import ContextError, OutOfBoundsError, TraceLimitError
from .chips import ChipSpec
from .trace import Access, Event, Finding, Sync, event

POISON = 0xFF
_new = tuple.__new__
_getframe = sys._getframe


class MemcheckWarning(UserWarning):
    """A memcheck finding in non-strict mode (e.g. under `ascendlab pyasc`)."""


class LaunchState:
    """What all cores of one launch share: chip, options, the trace and the findings."""

    def __init__(self, chip: ChipSpec, block_num: int, strict: bool, auto_sync: bool,
                 core_kind: str) -> None:
        self.chip = chip
        self.block_num = block_num
        self.strict = strict
        self.auto_sync = auto_sync
        self.core_kind = core_kind  # "aiv" | "aic" | "mix"
        self.trace: list[Event] = []
        self.max_events: int | None = None  # RunOptions.max_events: None = no cap
        self.kernel = ""  # the kernel's name, for messages
        self.findings: list[Finding] = []
        self.scheduler: Any = None  # scheduler.Sequential or Lockstep, set by the launcher
        # MIX launches: the cube core of each group, created when a vector core first needs
        # it (core id 2 * block_num + group); see Run.core_kinds
        self.cube_cores: dict[int, CoreState] = {}
        self.insert_sync = False  # auto-insert pipe syncs (autosync.py) on every core
        self.workspace: Any = None  # asc.set_sys_workspace's GlobalAddress
        # why this launch is compile-only ("" if it is not): see launch/compile_only.py; the
        # statements it skipped: "file:line" -> (statement, times skipped)
        self.compile_only = ""
        self.skipped: dict[str, tuple[str, int]] = {}
        self.allocs: dict[str, Any] = {}  # the GM arguments (memory.GMAlloc) by name
        # a wait_flag ran: the launch's end replays the flags for deadlocks (sync/deadlock.py)
        self.flag_waits = False
        # (error, file, line) of the floating-point errors reported once (launch/fpe.py)
        self.fpe_reported: set[tuple[str, str, int]] = set()

    def cube_core(self, group: int) -> CoreState:
        """The cube (AIC) core of `group` in a MIX launch (created on first use)."""
        c = self.cube_cores.get(group)
        if c is None:
            c = self.cube_cores[group] = CoreState(2 * self.block_num + group, self, "aic")
        return c

    def core_kinds(self) -> dict[int, str]:
        """Run.core_kinds for this launch (empty unless MIX)."""
        if self.core_kind != "mix":
            return {}
        kinds = {i: "aiv" for i in range(2 * self.block_num)}
        kinds.update({c.idx: "aic" for c in self.cube_cores.values()})
        return kinds


class CoreState:
    """One core while it runs: its local memories, framework objects and vector mask state."""

    __slots__ = ("idx", "launch", "chip", "kind", "append", "mems", "typed", "pipe_obj",
                 "n_queues", "mask_counter", "vector_mask", "v_pending", "auto",
                 "reserved", "lib", "memo")

    def __init__(self, idx: int, launch: LaunchState, kind: str | None = None) -> None:
        self.idx = idx
        self.launch = launch
        self.chip = launch.chip
        kind = kind or launch.core_kind
        self.kind = "aiv" if kind == "mix" else kind  # the body of a MIX kernel runs on AIVs
        self.append = launch.trace.append
        self.auto: Any = None  # autosync.AutoSync when the kernel inserts syncs
        if launch.insert_sync:
            from .autosync import AutoSync

            self.auto = AutoSync(self)
            self.append = self.auto.append
        if launch.max_events is not None:
            self.append = _capped(self.append, launch)
        # Trace pieces that recur (an Access of a UB slot, an args tuple, a whole Event issued
        # again from the same line on the same operands): built once per core and shared, so a
        # loop's trace holds references instead of copies (Events are immutable)
        self.memo: dict[Any, Any] = {}
        # bytes at the top of each memory taken by library buffers (Matmul, LocalTensorAuto)
        self.reserved: dict[str, int] = {}
        self.lib: dict[Any, Any] = {}  # library state on this core (Matmul engines, ...)
        self.mems: dict[str, np.ndarray] = {}
        self.typed: dict[tuple[str, str], np.ndarray] = {}  # (space, dtype name) -> view
        self.pipe_obj: Any = None  # the kernel's TPipe, once created
        self.n_queues = 0  # queues created so far: their ids in Sync keys
        self.mask_counter = False  # set_mask_count() / set_mask_norm()
        self.vector_mask: tuple[int, int] = (2**64 - 1, 2**64 - 1)  # (low, high) lanes
        # Bytes touched by vector instructions not yet ordered by a barrier or a wait on V:
        # (space, lo, hi, is_write). Used to insert CANN's implicit PIPE_V barrier.
        self.v_pending: list[tuple[str, int, int, bool]] = []

    def mem(self, space: str) -> np.ndarray:
        """The core's byte array for `space`, created poisoned on first use."""
        m = self.mems.get(space)
        if m is None:
            m = np.full(self.chip.capacity(space), POISON, dtype=np.uint8)
            self.mems[space] = m
        return m

    def typed_mem(self, space: str, dtype: Any) -> np.ndarray:
        """The whole of `space` viewed as elements of DataType `dtype` (shares mem()'s bytes)."""
        key = (space, dtype.name)
        t = self.typed.get(key)
        if t is None:
            t = self.mem(space).view(dtype.np)
            self.typed[key] = t
        return t


def _capped(append: Any, launch: LaunchState) -> Any:
    """`append` that first checks the trace against launch.max_events."""
    trace, cap = launch.trace, launch.max_events

    def add(ev: Event) -> None:
        if len(trace) >= cap:
            raise TraceLimitError(
                f"{launch.kernel or 'kernel'}: the trace reached RunOptions.max_events={cap} "
                f"events (at {ev.op} on core {ev.core}, {_short(ev.file)}:{ev.line}); raise the "
                f"cap with ascendlab.configure(max_events=N), or max_events=None for no cap")
        append(ev)

    return add


current: CoreState | None = None


class on_core:
    """`with on_core(c):` runs library code as core `c` (a Matmul's cube core serving a
    vector core), then switches back."""

    __slots__ = ("c", "prev")

    def __init__(self, c: CoreState) -> None:
        self.c = c
        self.prev: CoreState | None = None

    def __enter__(self) -> CoreState:
        global current
        self.prev = current
        current = self.c
        return self.c

    def __exit__(self, *exc: Any) -> None:
        global current
        current = self.prev


def core() -> CoreState:
    """The running core; raises a ContextError outside a kernel."""
    c = current
    if c is None:
        caller = _getframe(1).f_code.co_name
        raise ContextError(f"asc.{caller} can only run inside a kernel: decorate the function "
                           "with @asc.jit and launch it as kernel[block_num, stream](...)")
    return c


def where(c: CoreState, frame: Any) -> str:
    """The "[core 3, add.py:41]" suffix of error messages."""
    return f"[core {c.idx}, {_short(frame.f_code.co_filename)}:{frame.f_lineno}]"


def _short(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def site(c: CoreState, frame: Any) -> tuple[str, int, Any]:
    """(file, line, code) of the call in `frame`, cached in the core's memo by the code
    object's id and the bytecode offset. CPython computes f_lineno by scanning the code's line
    table from its start: microseconds in a long kernel (a compiled kernel's statements carry
    compile-only handlers, which lengthen it), paid by every instruction without this cache.
    The entry holds the code object, so its id stays unique while the memo lives."""
    code = frame.f_code
    key = (id(code), frame.f_lasti)
    got = c.memo.get(key)
    if got is None:
        got = c.memo[key] = (code.co_filename, frame.f_lineno, code)
    return got


def emit(c: CoreState, pipe: str, op: str, reads: tuple, writes: tuple, count: int, dtype: str,
         repeats: int, frame: Any, sync: Sync | None = None, args: tuple = ()) -> None:
    """Append one Event for the instruction called from `frame`."""
    s = site(c, frame)
    c.append(event(c.idx, pipe, op, reads, writes, count, dtype, repeats, s[0], s[1], sync,
                   args))


def access(space: str, addr: int, nbytes: int, name: str, count: int = 1,
           stride: int = 0) -> Access:
    """Build an Access (fast: no NamedTuple __new__ overhead)."""
    return _new(Access, (space, addr, nbytes, name, count, stride))


def finding(c: CoreState, message: str, frame: Any, exc: type[Exception] = OutOfBoundsError,
            kind: str = "memcheck") -> None:
    """Report a problem the real chip would not raise on: raise in strict mode, else record it
    on the Run and warn."""
    full = f"{message} {where(c, frame)}"
    if c.launch.strict:
        raise exc(full)
    line = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    c.launch.findings.append(Finding(kind, full, c.idx, (line,), len(c.launch.trace)))
    warnings.warn(full, MemcheckWarning, stacklevel=3)


# The barrier auto-sync inserts between dependent vector instructions (one shared edge).
IMPLICIT_V_BARRIER = Sync("barrier", "V", "V", ("auto",), True)


def check_vector_order(c: CoreState, reads: tuple, writes: tuple, frame: Any) -> None:
    """Insert the implicit PIPE_V barrier CANN's auto-sync would place before a vector
    instruction that touches bytes an earlier, not yet ordered vector instruction wrote (RAW,
    WAW) or read (WAR).

    Limitations: "ordered" is approximated by any barrier or wait executed on the V pipe since
    the earlier instruction; the real compiler decides statically.
    """
    order_vector(c, vector_spans(reads, writes), frame)


def vector_spans(reads: tuple, writes: tuple) -> tuple[tuple[str, int, int, bool], ...]:
    """(space, first byte, end, is_write) of each access, as order_vector keeps them (a hot
    path may compute them once per recurring instruction)."""
    return (tuple((a.space, a.addr, a.end, False) for a in reads)
            + tuple((a.space, a.addr, a.end, True) for a in writes))


def order_vector(c: CoreState, spans: tuple, frame: Any) -> None:
    """check_vector_order on the instruction's vector_spans."""
    pending = c.v_pending
    if pending:
        for space, lo, hi, w in spans:
            for space2, lo2, hi2, w2 in pending:
                # a read conflicts with an earlier write; a write with any earlier access
                if (w or w2) and space == space2 and lo < hi2 and lo2 < hi:
                    emit(c, "V", "pipe_barrier", (), (), 0, "", 0, frame, IMPLICIT_V_BARRIER)
                    pending.clear()
                    pending.extend(spans)
                    return
    pending.extend(spans)
