"""Pipe synchronisation inside a core (set_flag/wait_flag, pipe_barrier), across cores
(sync_all), and the system registers a kernel reads (block index, block count, core type).

Execution on the host is sequential, so these instructions change no data: they are recorded
as Sync edges that the cost model and the race detector read. What the hardware cannot execute
at all (an event id out of range, a PIPE_S barrier) raises here; a wait_flag the chip would
never pass raises DeadlockError when the launch's cores finish (deadlock.py).
"""

from __future__ import annotations

import sys
from typing import Any

from ...errors import SyncError
from .. import core as _core
from ..core import emit
from ..enums import HardEvent, PipeID
from ..trace import Sync, register_op

# Flags and barriers: a set runs on its src pipe, a wait on its dst pipe, a barrier on its pipe
for _op in ("set_flag", "wait_flag", "pipe_barrier"):
    register_op(_op, "", "sync", module=__name__)
register_op("sync_all", "S", "sync", module=__name__)
# Cross-core flags (Sync kinds xset / xwait) with no pyasc-facing form: the messages between a
# MIX kernel's vector cores and their cube core that adv.Matmul issues (request -> serve,
# done -> wait_result). The set's pipe and the waiting core decide where they sit.
for _op in ("mm_request", "mm_serve", "mm_done", "mm_wait_result"):
    register_op(_op, "", "sync", replayable=False, module=__name__)

_getframe = sys._getframe
_new = tuple.__new__

# Shared immutable Sync edges (and their Event args), built once per flag / pipe.
_EDGES: dict[tuple, tuple[Sync, tuple]] = {}

# Pipes each core type owns on separated chips (ADK SetFlag-WaitFlag legal pairs on 910B).
_AIV_PIPES = frozenset({"S", "V", "MTE2", "MTE3"})
_AIC_PIPES = frozenset({"S", "M", "MTE1", "MTE2", "MTE3", "FIX"})


def _event(value: Any, op: str) -> HardEvent:
    try:
        return HardEvent(value)
    except ValueError:
        raise SyncError(f"{op}: {value!r} is not a HardEvent") from None


def _flag(op: str, kind: str, event: Any, event_id: Any) -> None:
    frame = _getframe(2)
    c = _core.core()
    ev = _event(event, op)
    eid = int(event_id)
    if not 0 <= eid < c.chip.event_ids:
        raise SyncError(f"{op}({ev.name}, {eid}): event_id must be in [0, {c.chip.event_ids - 1}] "
                        f"on {c.chip.name} {_core.where(c, frame)}")
    src, dst = ev.pipes
    if c.chip.layout == "separated":
        own = _AIV_PIPES if c.kind == "aiv" else _AIC_PIPES
        if src not in own or dst not in own:
            side = "vector (AIV)" if c.kind == "aiv" else "cube (AIC)"
            raise SyncError(f"{op}({ev.name}): a {side} core of {c.chip.name} has no "
                            f"{src if src not in own else dst} pipe; legal pipes here: "
                            f"{', '.join(sorted(own))} {_core.where(c, frame)}")
    pipe = src if kind == "set" else dst
    key = (kind, int(ev), eid)
    edge = _EDGES.get(key)
    if edge is None:  # one Sync and args tuple per flag: readers may key on their identity
        edge = _EDGES[key] = (_new(Sync, (kind, src, dst, ("flag", eid), False)),
                              (("event", ev.name), ("event_id", eid)))
    emit(c, pipe, op, (), (), 0, "", 0, frame, edge[0], edge[1])
    if kind == "wait":
        c.launch.flag_waits = True  # checked for deadlocks when the launch ends
        if dst == "V":
            c.v_pending.clear()  # a wait on V orders earlier vector work (core.check_vector_order)


def set_flag(event: Any, event_id: Any = 0) -> None:
    """Signal `event` (a HardEvent SRC_DST) with id `event_id` once the SRC pipe's earlier work
    is done. Does not block SRC."""
    _flag("set_flag", "set", event, event_id)


def wait_flag(event: Any, event_id: Any = 0) -> None:
    """Block the DST pipe of `event` until the matching set_flag, then consume the flag."""
    _flag("wait_flag", "wait", event, event_id)


def pipe_barrier(pipe: Any) -> None:
    """Complete every earlier instruction of `pipe` (PIPE_ALL: of every pipe) first."""
    frame = _getframe(1)
    c = _core.core()
    try:
        pid = PipeID(pipe)
    except ValueError:
        raise SyncError(f"pipe_barrier: {pipe!r} is not a PipeID") from None
    if pid == PipeID.PIPE_S:  # compiles, but a hardware error on the chip (ADK PipeBarrier):
        # raises in strict launches, a synccheck finding under `ascendlab pyasc`; no event
        _core.finding(c, "pipe_barrier(PIPE_S) is illegal (the scalar pipe has no barrier: "
                      "the hardware orders scalar instructions itself and raises an error)",
                      frame, SyncError, "synccheck")
        return
    name = pid.pipe
    if name not in ("ALL", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"):
        raise NotImplementedError(f"pipe_barrier({pid.name}) is not emulated")
    edge = _EDGES.get(("barrier", name))
    if edge is None:
        edge = _EDGES[("barrier", name)] = (_new(Sync, ("barrier", name, name, ("barrier",),
                                                        False)), (("pipe", pid.name),))
    emit(c, "S" if name == "ALL" else name, "pipe_barrier", (), (), 0, "", 0, frame, *edge)
    if name in ("ALL", "V"):
        c.v_pending.clear()


def sync_all(*args: Any, **kwargs: Any) -> None:
    """Barrier across all cores of the launch: every core's earlier work (GM writes included)
    is done before any core continues. Forms: sync_all(is_aiv_only=True) and the software form
    sync_all(gm_workspace, ub_workspace, used_cores=0)."""
    frame = _getframe(1)
    c = _core.core()
    emit(c, "S", "sync_all", (), (), 0, "", 0, frame, _SYNC_ALL)
    c.v_pending.clear()
    c.launch.scheduler.barrier(c)


_SYNC_ALL = Sync("sync_all", "ALL", "ALL", ("sync_all",), False)


def get_block_idx() -> int:
    """This core's index in [0, block_num); in a MIX kernel an AIV's is in [0, 2 * block_num)
    and an AIC's is its group, in [0, block_num)."""
    c = _core.current
    if c is None:
        c = _core.core()
    if c.kind == "aic" and c.launch.core_kind == "mix":
        return c.idx - 2 * c.launch.block_num
    return c.idx


def get_block_num() -> int:
    """The launch's block count."""
    return _core.core().launch.block_num


def get_sub_block_idx() -> int:
    """Which of its group's two vector cores this is (0 or 1) in a MIX kernel; 0 otherwise."""
    c = _core.core()
    return c.idx % 2 if c.launch.core_kind == "mix" and c.kind == "aiv" else 0


def get_sub_block_num() -> int:
    """Vector cores per AI Core group: 2 on separated chips (910B), 1 on coupled ones."""
    return 2 if _core.core().chip.layout == "separated" else 1


def get_task_ratio() -> int:
    """Vector cores per cube core in this launch: 2 on the vector side of a MIX_AIC_1_2 kernel,
    1 otherwise (ADK GetTaskRatio table)."""
    c = _core.core()
    return 2 if c.launch.core_kind == "mix" and c.kind == "aiv" else 1


def get_data_block_size_in_bytes() -> int:
    """32: the size of one DataBlock."""
    return 32


def ascend_is_aic() -> bool:
    """True on a cube (AIC) core (always True on coupled chips' AI Cores running cube code)."""
    c = _core.core()
    return c.kind == "aic" or c.chip.layout == "coupled"


def ascend_is_aiv() -> bool:
    """True on a vector (AIV) core."""
    c = _core.core()
    return c.kind == "aiv" or c.chip.layout == "coupled"


def set_mask_count() -> None:
    """Counter mode: a repeat-form mask is the total element count; repeat_times is ignored."""
    _core.core().mask_counter = True


def set_mask_norm() -> None:
    """Normal mode (the default): the mask selects lanes within each repeat."""
    _core.core().mask_counter = False


def set_vector_mask(*args: Any, dtype: Any = None, mode: Any = None) -> None:
    """The mask register read by `is_set_mask=False` calls: set_vector_mask(len) or
    set_vector_mask(high, low); in counter mode `len`/`low` is the element count."""
    c = _core.core()
    if len(args) == 1:
        n = int(args[0])
        if c.mask_counter or (mode is not None and int(mode) == 1):
            c.vector_mask = (n, 0)
        else:
            bits = (1 << n) - 1 if n < 128 else (1 << 128) - 1
            c.vector_mask = (bits & (2**64 - 1), bits >> 64)
    elif len(args) == 2:
        high, low = int(args[0]), int(args[1])
        c.vector_mask = (low, high)
    else:
        raise TypeError("set_vector_mask(len) or set_vector_mask(high, low)")


def reset_mask() -> None:
    """Restore the all-lanes mask."""
    _core.core().vector_mask = (2**64 - 1, 2**64 - 1)
