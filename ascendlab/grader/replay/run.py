"""Replay: re-execute a recorded trace in this process's runtime, on this process's inputs.

(operands.py rebuilds operands and frames; vector.py, rows.py and ops.py hold the re-issue
table, one handler per op.)

The grader never trusts the process that ran a submission (design brief, decision 5). That process
hands back its trace; `replay()` walks it and re-issues every memory-affecting instruction
through the runtime's own implementation (the same functions the pyasc surface calls), on
GM allocations built from the grader's own copies of the inputs. Each re-issued instruction
must record exactly the event the submission recorded (same operands, counts, arguments, source
line); the first difference raises ReplayMismatch. Results therefore come only from emulated
instructions: numpy on the arrays, a patched runtime or patched numpy in the submission's
process leave no trace to replay, and a forged trace either fails to match or computes what it
says.

How an event becomes a call again:
  * operands are rebuilt from the Access records: a local Access gives the space and byte
    address (repeat-form vector Accesses start at the first active lane; the tensor start is
    recovered with the same index plan, vector.plan), a GM Access the argument (by address)
    and the offset; dtypes come from Event.dtype (and the args that name a second dtype:
    cast's and axpy's src_dtype, mmad's dtypes);
  * the call is issued from a frame whose code carries the event's file and line, so the
    runtime records the same file:line;
  * set_flag / wait_flag / pipe_barrier / sync_all go through sync/flags.py; the implicit PIPE_V
    barriers are not issued (the runtime inserts them again, and they must come out at the same
    places); TPipe/TQue events (init_buffer, alloc_tensor, enque, deque, free_tensor) are
    re-emitted as recorded after a check of the queue state machine and their sync edges.

Events of the asc.adv library (args carrying ("adv", ...)) have no runtime function to re-issue
them: the library computes with numpy and records the instructions. adv_matmul.py gives each
Matmul event the meaning its operands say and computes it (L1/L0 tiles held as matrices);
adv_softmax.py makes a recorded softmax call again and regenerates its instruction stream.
Either way each rebuilt event must equal the recorded one, as for the runtime's instructions.

What replay does not reconstruct (documented, not compared): a LocalTensor's buffer-slot end
is taken from the init_buffer slot that contains it (static tensors: the end of the memory), so
memcheck findings of overruns past a static tensor's declared size are not re-derived; the
findings of the replayed Run are recorded, not raised (strict=False), for the grader to report.
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...runtime import core as _core
from ...runtime.chips import ChipSpec, get_chip
from ...runtime.core import LaunchState, MemcheckWarning
from ...runtime.dtypes import DataType
from ...runtime.launch.jit import one_blas_thread
from ...runtime.memory.gm import _BASE0, _SPACING, GMAlloc
from ...runtime.trace import Event, GMArg, Run
from .adv_matmul import MATMUL_OPS, replay_matmul
from .adv_softmax import SOFTMAX_OPS, replay_softmax
from .budget import CHECK_EVERY, CLOCK
from .ops import HANDLERS, Replayer, expected_pipe

# REPLAYABLE_OPS: what the re-issue table replays one instruction at a time; LIBRARY_OPS: ops
# only the asc.adv library records (its MIX messages, the softmax routine's copy), replayed
# within the library call; the wire admits both (RECORDABLE_OPS)
REPLAYABLE_OPS = frozenset(HANDLERS)
LIBRARY_OPS = (MATMUL_OPS | SOFTMAX_OPS) - REPLAYABLE_OPS
RECORDABLE_OPS = REPLAYABLE_OPS | LIBRARY_OPS


class ReplayError(ValueError):
    """An event could not be re-issued (its operands or arguments are not a valid call)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


class ReplayMismatch(ReplayError):
    """Re-issuing an event recorded something else than the submitted trace holds."""

    def __init__(self, index: int, message: str, recorded: Any = None, replayed: Any = None):
        super().__init__(index, message)
        self.recorded = recorded
        self.replayed = replayed


class _NoBarrier:
    """Replay follows the recorded interleaving of cores: sync_all only records its event."""

    def barrier(self, c: Any) -> None:
        return None


def _regenerated(e: Event) -> bool:
    """Events the runtime inserts by itself when the next instruction is re-issued: CANN's
    implicit PIPE_V barriers (core.check_vector_order) and insert_sync's flags
    (runtime/autosync.py)."""
    s = e.sync
    return s is not None and s.implicit and e.op in ("pipe_barrier", "set_flag", "wait_flag")


def _inserted_sync(e: Event) -> bool:
    """A flag insert_sync added (autosync.py): the trace of a launch with insert_sync on."""
    s = e.sync
    return (s is not None and s.implicit and e.op in ("set_flag", "wait_flag")
            and s.key == ("auto",))


# ---- equality ---------------------------------------------------------------------------------
def _same(a: Event, b: Event) -> bool:
    """Equal events; NaN arguments compare equal to NaN (a recorded NaN scalar, say)."""
    if a == b:
        return True
    if a[:11] != b[:11] or len(a.args) != len(b.args):
        return False
    return all(x == y or _nan_equal(x, y) for x, y in zip(a.args, b.args))


def _nan_equal(x: Any, y: Any) -> bool:
    if isinstance(x, float) and isinstance(y, float):
        return x != x and y != y
    if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y):
        return all(u == v or _nan_equal(u, v) for u, v in zip(x, y))
    return False


def describe_event(e: Event) -> str:
    """'add on V at k.py:41 (core 3)' for messages."""
    return f"{e.op} on {e.pipe} at {e.file.rsplit('/', 1)[-1]}:{e.line} (core {e.core})"


def _diff(rec: Event, rep: Event) -> str:
    for name in Event._fields:
        if getattr(rec, name) != getattr(rep, name):
            return f"{name}: recorded {getattr(rec, name)!r}, the instruction gives " \
                   f"{getattr(rep, name)!r}"
    return "arguments differ"


def _adv_tag(e: Event) -> Any:
    """The ("adv", tag) label of an event the asc.adv library recorded (None otherwise)."""
    for k, v in e.args:
        if k == "adv":
            return v
    return None


def _issue(rp: Replayer, c: Any, e: Event, i: int) -> None:
    """Re-issue one instruction through the runtime (the re-issue table)."""
    handler = HANDLERS.get(e.op)
    if handler is None:
        raise ReplayError(i, f"event {i}: {e.op!r} is not an instruction the grader can "
                          "replay (yet)")
    if e.pipe != expected_pipe(e):
        raise ReplayError(i, f"event {i} ({describe_event(e)}): {e.op} does not run on "
                          f"{e.pipe}")
    handler(rp, c, e)


def _compare(events: Sequence[Event], out: Sequence[Event], before: int, i: int,
             several: bool) -> None:
    """The events issued since `before` (instruction i, or the call starting at i when
    `several`, and the implicit barriers and flags the runtime put in front) must be the
    recorded ones."""
    n_events = len(events)
    if (len(out) <= i or len(out) > n_events) if several else len(out) != i + 1:
        j = min(len(out), n_events) - 1
        raise ReplayMismatch(i, f"event {i} ({describe_event(events[i])}): the instruction "
                             "records a different number of events (an implicit PIPE_V barrier "
                             "or flag is missing or extra, or the trace ends early)",
                             events[j] if j >= 0 else None, out[j] if 0 <= j < len(out) else None)
    for k in range(before, len(out)):
        if not _same(events[k], out[k]):
            raise ReplayMismatch(k, f"event {k} ({describe_event(events[k])}) does not match "
                                 f"what the instruction does: {_diff(events[k], out[k])}",
                                 events[k], out[k])


# ---- the entry point --------------------------------------------------------------------------
def check_order(events: Sequence[Event], block_num: int,
                core_kinds: Mapping[int, str] | None = None) -> None:
    """The cores' interleaving must be one the emulator produces: per sync_all phase, core 0's
    events, then core 1's, ... (launch/scheduler.py); raises ReplayError otherwise. MIX runs (cube
    cores serve vector cores in between) are checked for their core set only."""
    phase: dict[int, int] = {}
    last = (-1, -1)
    for i, e in enumerate(events):
        core = e.core
        if core_kinds:
            if core not in core_kinds:
                raise ReplayError(i, f"event {i} runs on core {core}, not a core of the launch")
            continue
        if not 0 <= core < block_num:
            raise ReplayError(i, f"event {i} runs on core {core}, outside block_num {block_num}")
        key = (phase.get(core, 0), core)
        if key < last:
            raise ReplayError(i, f"event {i} ({describe_event(e)}) is out of the order the "
                              f"emulator runs cores in (phase by phase, core by core)")
        last = key
        if e.op == "sync_all":
            phase[core] = phase.get(core, 0) + 1


def replay(events: Sequence[Event], gm_layout: Sequence[GMArg] | Mapping[str, GMArg],
           inputs: Mapping[str, np.ndarray], chip: str | ChipSpec, block_num: int,
           core_kind: str, options: Mapping[str, Any] | None = None, *,
           kernel: str = "replay") -> Run:
    """Re-issue `events` on GM built from `inputs` (name -> initial contents of each GM
    argument of `gm_layout`); returns the replayed Run (its trace equals `events`).

    options: "auto_sync" (default True) as the recorded launch had it; "insert_sync" (default:
    inferred from insert_sync's flags in the trace); "core_kinds" for MIX runs (core -> "aiv" |
    "aic"). Raises ReplayError when an event is not a valid instruction and ReplayMismatch
    when re-issuing it records something else than the event.
    """
    opts = dict(options or {})
    chip_spec = chip if isinstance(chip, ChipSpec) else get_chip(chip)
    if core_kind not in ("aiv", "aic", "mix"):
        raise ReplayError(-1, f"replay: core_kind must be 'aiv', 'aic' or 'mix', got {core_kind!r}")
    kinds = {int(k): str(v) for k, v in dict(opts.get("core_kinds") or {}).items()}
    if not isinstance(block_num, int) or not 1 <= block_num <= 65535:
        raise ReplayError(-1, f"replay: block_num must be in [1, 65535], got {block_num!r}")
    allocs = _gm_allocs(gm_layout, inputs)
    check_order(events, block_num, kinds if core_kind == "mix" else None)
    launch, insert_sync = _launch_state(events, opts, chip_spec, block_num, core_kind)
    rp = Replayer(launch, allocs, kinds)
    run = Run(kernel=kernel, chip=chip_spec, block_num=block_num, core_kind=core_kind,
              trace=launch.trace, gm={a.name: GMArg(a.name, a.base, a.nbytes, a.dtype.name,
                                                    a.shape) for a in allocs},
              outputs={}, scalars={}, findings=launch.findings,
              options={"strict": False, "auto_sync": launch.auto_sync, "sanitize": False,
                       "insert_sync": insert_sync, "replayed": True})
    if kinds:
        run.core_kinds = dict(kinds)
    _walk(rp, events)
    run.outputs = {a.name: a.array() for a in allocs}
    return run


# ---- the steps of replay() --------------------------------------------------------------------
def _gm_allocs(gm_layout: Sequence[GMArg] | Mapping[str, GMArg],
               inputs: Mapping[str, np.ndarray]) -> list[GMAlloc]:
    """GM allocations at the runtime's own bases, holding copies of `inputs`."""
    layout = list(gm_layout.values()) if isinstance(gm_layout, Mapping) else list(gm_layout)
    allocs: list[GMAlloc] = []
    for i, g in enumerate(layout):
        dt = DataType(g.dtype)
        if g.base != _BASE0 + i * _SPACING:
            raise ReplayError(-1, f"replay: GM argument {g.name!r} sits at {g.base:#x}, not at the "
                             f"runtime's base for argument {i}")
        host = inputs.get(g.name)
        if host is None:
            raise ReplayError(-1, f"replay: no initial contents for GM argument {g.name!r}")
        raw = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
        if raw.size != g.nbytes or int(np.prod(g.shape, dtype=np.int64)) * dt.itemsize != g.nbytes:
            raise ReplayError(-1, f"replay: GM argument {g.name!r} is {g.nbytes} B of {g.dtype}"
                             f"{list(g.shape)} but its contents are {raw.size} B")
        allocs.append(GMAlloc(g.name, i, raw.copy(), dt, tuple(g.shape)))
    return allocs


def _launch_state(events: Sequence[Event], opts: dict, chip: ChipSpec, block_num: int,
                  core_kind: str) -> tuple[LaunchState, bool]:
    """The launch the events are re-issued in (non-strict, cores in the recorded order), and
    whether insert_sync was on."""
    launch = LaunchState(chip, block_num, False, bool(opts.get("auto_sync", True)), core_kind)
    launch.scheduler = _NoBarrier()
    insert_sync = opts.get("insert_sync")
    if insert_sync is None:
        insert_sync = any(_inserted_sync(e) for e in events)
    if hasattr(launch, "insert_sync"):
        launch.insert_sync = bool(insert_sync)
    return launch, bool(insert_sync)


def _walk(rp: Replayer, events: Sequence[Event]) -> None:
    """Re-issue every event in order and compare what each records (gc off, one BLAS thread:
    the library's matrix products are small, as the launch had it)."""
    out = rp.launch.trace
    n_events = len(events)
    saved = _core.current
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings(), one_blas_thread():
            warnings.simplefilter("ignore", MemcheckWarning)
            i = 0
            steps = 0
            while i < n_events:
                steps += 1
                if steps % CHECK_EVERY == 0:
                    CLOCK.check()  # the judge's wall-clock budget (budget.py)
                if _regenerated(events[i]):
                    i += 1
                    continue  # re-inserted by the runtime in front of the next instruction
                before = len(out)
                adv = _step(rp, events, i, saved)
                _compare(events, out, before, i, adv == "softmax")
                i = len(out)
            if len(out) != n_events:
                raise ReplayMismatch(n_events, "the trace ends with an implicit barrier no "
                                     "instruction follows")
    finally:
        _core.current = saved
        if gc_was_on:
            gc.enable()


def _step(rp: Replayer, events: Sequence[Event], i: int, saved: Any) -> Any:
    """Re-issue event i (a library call when it carries an ("adv", tag)); returns the tag."""
    e = events[i]
    c = rp.core(e.core)
    adv = _adv_tag(e)
    _core.current = c
    try:
        if adv is not None:
            lib = replay_softmax if adv == "softmax" else replay_matmul
            lib(rp, c, events, i)
        else:
            _issue(rp, c, e, i)
    except ReplayError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure is "does not replay"
        raise ReplayError(i, f"event {i} ({describe_event(e)}) does not replay: "
                          f"{type(exc).__name__}: {exc}") from None
    finally:
        _core.current = saved
    return adv


__all__ = ["HANDLERS", "LIBRARY_OPS", "RECORDABLE_OPS", "REPLAYABLE_OPS", "ReplayError",
           "ReplayMismatch", "check_order", "describe_event", "replay"]
