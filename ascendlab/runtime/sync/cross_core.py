"""Cross-core flags of a hand-written MIX kernel: cross_core_set_flag / cross_core_wait_flag.

    asc.cross_core_set_flag(flag_id, mode_id, pipe)
    asc.cross_core_wait_flag(flag_id, mode_id, pipe)

Facts (source: pyasc python/asc/language/basic/block_sync.py and its docstring, utils.py
cross_core_set_flag_docstring; Ascend C CrossCoreSetFlag / CrossCoreWaitFlag): for separated
chips (910B: AIC and AIV cores). Each flag_id (0-10) has a counter starting at 0; a set adds 1
once the earlier work of `pipe` is done, a wait blocks everything after it while the counter
is 0, then takes 1 off. A counter holds at most 15 sets. Modes:
  0  between all cores of one type: a wait goes on once every AIC (on an AIC) or every AIV
     (on an AIV) of the launch has set the flag;
  1  between the two AIVs of one AI Core: a wait goes on once both AIVs have set it;
  2  between the AIC and the AIVs of one AI Core: after the AIC sets it, each of the two AIVs
     may pass its wait; the AIC's wait goes on once both AIVs have set it.

The emulation keeps one counter per (setting core, waiting core, mode, flag_id): a set adds one
to the counter of every core that waits on it (its receivers), a wait needs one from every core
it waits for (its senders). In the trace a set is one Event per receiver and a wait one Event per
sender, each a cross-core Sync edge ("xset" on the set's pipe / "xwait" on the waiting core's
scalar pipe, dst "S"), key ("xcore", setter, waiter, ("cross_core_flag", mode_id, flag_id)):
the n-th xwait of a key consumes its n-th xset, which is how the cost model holds the waiting
core, the sanitizer orders the two cores' accesses (analysis/sanitizer_hb.py), and the timeline
draws the arrow. Each Event's args name flag_id, mode_id, pipe and the peer core ("to" / "from"):
what a replay needs to issue the call again on the same core.

Execution: a kernel that names cross_core_wait_flag runs its cores in lockstep
(scheduler.Lockstep); a wait whose flag is not set yet hands the core's turn to the next core
that can run, and when no core can (a wait without its set), the launch raises DeadlockError (a
SyncError; a compile-only launch skips the wait) naming the waiting cores and flags: on the chip
the kernel would hang.

In a hand-written MIX kernel sync_all holds the vector cores only (is_aiv_only=True, Ascend C's
default); an AIC calling it is a SyncError.

Limitations: a wait's Event sits on the scalar pipe whatever `pipe` says (the core issues
nothing after it until it passes, which is what the reference describes). Flags still set when
the kernel ends are not reported. Mode 1 and 2 need a MIX kernel (cores in groups of one AIC and
two AIVs); mode 0 also works in AIV-only and AIC-only kernels.
"""

from __future__ import annotations

import sys
from collections import deque
from typing import Any

from ...errors import SyncError
from .. import core as _core
from ..core import emit
from ..enums import PipeID
from ..trace import Sync, register_op

_getframe = sys._getframe
_new = tuple.__new__
MAX_FLAG_ID = 10  # flagId 0-10 (the reference's parameter table)
MAX_PENDING = 15  # "同一flagId的计数器最多设置15次"
_AIV_PIPES = frozenset({"S", "V", "MTE2", "MTE3"})
_AIC_PIPES = frozenset({"S", "M", "MTE1", "MTE2", "MTE3", "FIX"})

# the grader's replay re-derives each per-peer event from its args (grader/replay/ops.py)
register_op("cross_core_set_flag", "", "sync", module=__name__)
register_op("cross_core_wait_flag", "S", "sync", module=__name__)


def _check(op: str, c: Any, flag_id: Any, mode_id: Any, pipe: Any, frame: Any
           ) -> tuple[int, int, str]:
    if c.chip.layout != "separated":
        raise SyncError(f"{op}: cross-core flags belong to separated chips (AIC + AIV cores); "
                        f"{c.chip.name} is not one")
    fid, mode = int(flag_id), int(mode_id)
    if not 0 <= fid <= MAX_FLAG_ID:
        raise SyncError(f"{op}: flag_id={fid} is outside [0, {MAX_FLAG_ID}]")
    if mode not in (0, 1, 2):
        raise SyncError(f"{op}: mode_id={mode} is not 0 (all cores of a type), 1 (the AIVs of "
                        "a group) or 2 (AIC with its AIVs)")
    if mode and c.launch.core_kind != "mix":
        raise SyncError(f"{op}: mode_id={mode} synchronises the cores of one AI Core group and "
                        f"needs a MIX kernel; this kernel runs on {c.launch.core_kind.upper()} "
                        "cores only")
    if mode == 1 and c.kind != "aiv":
        raise SyncError(f"{op}: mode_id=1 is between the two AIV cores of a group; core "
                        f"{c.idx} is an AIC")
    try:
        name = PipeID(pipe).pipe
    except ValueError:
        raise SyncError(f"{op}: {pipe!r} is not a PipeID") from None
    own = _AIV_PIPES if c.kind == "aiv" else _AIC_PIPES
    if name not in own:
        raise SyncError(f"{op}: a {'vector (AIV)' if c.kind == 'aiv' else 'cube (AIC)'} core "
                        f"has no {name} pipe; legal: {', '.join(sorted(own))}")
    return fid, mode, name


def _group_of(c: Any) -> tuple[int, int, int]:
    """(AIV, AIV, AIC) core indices of c's AI Core group in a MIX launch."""
    b = c.launch.block_num
    g = c.idx - 2 * b if c.kind == "aic" else c.idx // 2
    return 2 * g, 2 * g + 1, 2 * b + g


def _peers(c: Any, mode: int) -> tuple[int, ...]:
    """The cores a set on c signals (its receivers) = the cores a wait on c needs (its senders):
    the relation is symmetric for every mode."""
    launch = c.launch
    if mode == 0:
        if launch.core_kind != "mix":
            return tuple(range(launch.block_num))
        b = launch.block_num
        return tuple(range(2 * b, 3 * b)) if c.kind == "aic" else tuple(range(2 * b))
    v0, v1, cube = _group_of(c)
    if mode == 1:
        return (v0, v1)
    return (v0, v1) if c.kind == "aic" else (cube,)


def _counters(c: Any) -> dict[tuple, deque]:
    """(setter, waiter, mode, flag_id) -> the pipes of its pending sets, shared by the launch."""
    st = getattr(c.launch, "cross_flags", None)
    if st is None:
        st = c.launch.cross_flags = {}
    return st


def _key(setter: int, waiter: int, mode: int, fid: int) -> tuple:
    return ("xcore", setter, waiter, ("cross_core_flag", mode, fid))


def _candidate(counters: dict, senders: list[int], waiter: int, flag: tuple) -> str:
    """A pending set from one of `senders` to `waiter` under another (mode, flag id): the
    likely typo; "none" when there is none."""
    for (s, w, mode, fid), q in sorted(counters.items()):
        if w == waiter and s in senders and q and (mode, fid) != flag:
            return (f"core {s}'s cross_core_set_flag(flag_id={fid}, mode_id={mode}) is set and "
                    f"not consumed: another flag id or mode pairs only with its own")
    return "none"


def signal(c: Any, fid: int, mode: int, pipe: str, to: int, frame: Any) -> None:
    """One receiver's share of a cross_core_set_flag: a pending set on `to`'s counter of the
    flag, and its event (also what the grader's replay re-issues, one event at a time)."""
    q = _counters(c).setdefault((c.idx, to, mode, fid), deque())
    if len(q) >= MAX_PENDING:
        raise SyncError(f"cross_core_set_flag(flag_id={fid}, mode_id={mode}): core {to}'s "
                        f"counter of this flag already holds {MAX_PENDING} sets from core "
                        f"{c.idx} that no wait consumed (at most {MAX_PENDING}) "
                        f"{_core.where(c, frame)}")
    q.append(pipe)
    emit(c, pipe, "cross_core_set_flag", (), (), 0, "", 0, frame,
         _new(Sync, ("xset", pipe, "S", _key(c.idx, to, mode, fid), False)),
         (("flag_id", fid), ("mode_id", mode), ("pipe", pipe), ("to", to)))


def consume(c: Any, fid: int, mode: int, pipe: str, frm: int, set_pipe: str,
            frame: Any) -> None:
    """One sender's share of a passed cross_core_wait_flag: the event of taking the set (made
    on `set_pipe`) that `frm` left on this core's counter."""
    emit(c, "S", "cross_core_wait_flag", (), (), 0, "", 0, frame,
         _new(Sync, ("xwait", set_pipe, "S", _key(frm, c.idx, mode, fid), False)),
         (("flag_id", fid), ("mode_id", mode), ("pipe", pipe), ("from", frm)))


def cross_core_set_flag(flag_id: Any, mode_id: Any, pipe: Any) -> None:
    """Add one to flag `flag_id` of every core this core signals in mode `mode_id`, once the
    earlier work of `pipe` is done (Ascend C CrossCoreSetFlag<modeId, pipe>(flagId))."""
    frame = _getframe(1)
    c = _core.core()
    fid, mode, p = _check("cross_core_set_flag", c, flag_id, mode_id, pipe, frame)
    for r in _peers(c, mode):
        signal(c, fid, mode, p, r, frame)


def cross_core_wait_flag(flag_id: Any, mode_id: Any, pipe: Any) -> None:
    """Hold this core until every core it waits for in mode `mode_id` has set flag `flag_id`,
    then take one off each (Ascend C CrossCoreWaitFlag<modeId, pipe>(flagId))."""
    frame = _getframe(1)
    c = _core.core()
    fid, mode, p = _check("cross_core_wait_flag", c, flag_id, mode_id, pipe, frame)
    counters = _counters(c)
    senders = _peers(c, mode)
    queues = [counters.setdefault((s, c.idx, mode, fid), deque()) for s in senders]

    def ready() -> bool:
        return all(queues)

    if not ready():
        missing = [s for s, q in zip(senders, queues) if not q]
        where = _core.where(c, frame)
        c.launch.scheduler.block_until(  # the message is built when (if) the launch deadlocks
            c, ready, lambda: f"core {c.idx} ({c.kind.upper()}) waits at cross_core_wait_flag("
            f"flag_id={fid}, mode_id={mode}) {where} on pipe {p} for a cross_core_set_flag "
            f"from core(s) {', '.join(map(str, missing))} (nearest candidate: "
            f"{_candidate(counters, missing, c.idx, (mode, fid))})")
    for s, q in zip(senders, queues):
        consume(c, fid, mode, p, s, q.popleft(), frame)
    c.v_pending.clear()  # nothing on V issues before the wait passed


__all__ = ["consume", "cross_core_set_flag", "cross_core_wait_flag", "signal"]
