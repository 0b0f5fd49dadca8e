"""Synchronisation between blocks through a GM workspace: ib_set / ib_wait and the
deterministic-order pair wait_pre_block / notify_next_block.

ib_set / ib_wait (ADK IBSet/IBWait): the flag of (block_idx, event_id) is the int32 at element
`block_num * 8 * event_id + block_idx * 8` of gm_workspace (one 32 B block per flag). ib_set
waits until the flag is 0 and writes 1; ib_wait waits until it is 1 and writes 0. Here the flag
word in GM really changes, and each pair becomes a cross-core edge in the trace (Sync kinds
xset / xwait, key ("xcore", setting core, -1, ("ib", flag address)): -1 as the waiter is not
known when the flag is set), so the cost model holds the waiting core and the sanitizer orders
the two cores' GM accesses by it. ib_set is preceded by a PIPE_ALL-like barrier event (the
ADK implementation brackets the flag write with pipe_barrier(PIPE_ALL)).

wait_pre_block / notify_next_block (ADK WaitPreBlock/NotifyNextBlock): the blocks pass a token
in ascending block order, round after round (block 0 waits for block N-1's previous round). The
token becomes the same kind of edge, key ("xcore", notifier, waiter, ("block_order", round)).
The values the chip keeps in the workspace are not modelled (only its size is checked).

Limitations: the emulator runs the cores one after another in block order, so it cannot wait
for a core that runs later: a wait that a later core would satisfy raises NotImplementedError
naming both cores. A wait that no core can satisfy any more (the chip would hang) and an
ib_set on a flag nobody consumed are synccheck findings (errors in strict launches). The flag
words' GM accesses are not listed as Accesses (they are the synchronisation itself; listing
them would make the sanitizer report the polling as a race).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import OutOfBoundsError, SyncError
from .. import core as _core
from ..core import emit, finding
from ..memory.tensor import GlobalTensor, LocalTensor
from ..trace import Sync, register_op

_getframe = sys._getframe
_new = tuple.__new__

for _op in ("ib_set", "ib_wait", "notify_next_block", "wait_pre_block"):
    register_op(_op, "S", "sync", replayable=False, module=__name__)

_BARRIER = Sync("barrier", "ALL", "ALL", ("ib_set",), False)


def _state(c: Any) -> dict:
    """Launch-wide bookkeeping of these flags (who set which, rounds passed), kept on the
    LaunchState the cores share."""
    st = getattr(c.launch, "block_sync", None)
    if st is None:
        st = c.launch.block_sync = {"ib": {}, "notified": {}, "waited": {}}
    return st


def _operands(op: str, gm: Any, ub: Any, gm_bytes: int, ub_bytes: int, frame: Any, c: Any
              ) -> None:
    if not isinstance(gm, GlobalTensor) or gm.alloc is None or gm.dtype.name != "int32":
        raise TypeError(f"{op}: gm_workspace must be an int32 GlobalTensor with a buffer, got "
                        f"{getattr(gm, 'dtype', type(gm).__name__)}")
    if not isinstance(ub, LocalTensor) or ub.space != "UB" or ub.dtype.name != "int32":
        raise TypeError(f"{op}: ub_workspace must be an int32 LocalTensor in UB "
                        f"(VECIN/VECCALC/VECOUT)")
    room = gm.alloc.nbytes - gm.offset
    if room < gm_bytes:
        raise OutOfBoundsError(f"{op}: gm_workspace {gm.alloc.name} has {room} B from its "
                               f"start, needs {gm_bytes} B {_core.where(c, frame)}")
    if ub.hi - ub.addr < ub_bytes:
        raise OutOfBoundsError(f"{op}: ub_workspace {ub.describe()} has {ub.hi - ub.addr} B, "
                               f"needs {ub_bytes} B {_core.where(c, frame)}")


def _flag(gm: GlobalTensor, block_idx: int, event_id: int, blocks: int) -> tuple[np.ndarray, int]:
    """(the flag's int32 view in GM, its virtual address)."""
    a = gm.alloc
    off = gm.offset + (blocks * 8 * event_id + block_idx * 8) * 4
    a.private()
    return a.buf[a.idx0 + off:a.idx0 + off + 4].view(np.int32), a.base + off


def _ib(op: str, gm: Any, ub: Any, block_idx: Any, event_id: Any, is_aiv_only: Any,
        frame: Any) -> tuple[Any, np.ndarray, int, tuple]:
    c = _core.core()
    k, e = int(block_idx), int(event_id)
    blocks = c.launch.block_num * (1 if is_aiv_only or c.launch.core_kind != "mix" else 2)
    if not 0 <= k < blocks or e < 0:
        raise SyncError(f"{op}: block_idx={k} must be in [0, {blocks - 1}] and event_id={e} "
                        f">= 0 {_core.where(c, frame)}")
    _operands(op, gm, ub, (blocks * 8 * e + k * 8 + 8) * 4, 32, frame, c)
    word, addr = _flag(gm, k, e, blocks)
    return c, word, addr, (("block_idx", k), ("event_id", e))


def ib_set(gm_workspace: Any, ub_workspace: Any, block_idx: Any, event_id: Any,
           is_aiv_only: bool = True) -> None:
    """Set the flag of (block_idx, event_id) to 1 once it is 0 (module docstring)."""
    frame = _getframe(1)
    c, word, addr, args = _ib("ib_set", gm_workspace, ub_workspace, block_idx, event_id,
                              is_aiv_only, frame)
    if word[0] != 0:
        finding(c, f"ib_set{dict(args)}: the flag is {int(word[0])}, not 0 (an earlier ib_set "
                "no ib_wait consumed): the chip spins here until a waiter clears it", frame,
                SyncError, "synccheck")
    word[0] = 1
    gm_workspace.alloc.mark_written()
    _state(c)["ib"].setdefault(addr, []).append(c.idx)
    emit(c, "S", "ib_set", (), (), 0, "", 0, frame, _BARRIER, args)
    emit(c, "S", "ib_set", (), (), 0, "", 0, frame,
         _new(Sync, ("xset", "S", "S", ("xcore", c.idx, -1, ("ib", addr)), False)), args)


def ib_wait(gm_workspace: Any, ub_workspace: Any, block_idx: Any, event_id: Any,
            is_aiv_only: bool = True) -> None:
    """Wait until the flag of (block_idx, event_id) is 1, then clear it (module docstring)."""
    frame = _getframe(1)
    c, word, addr, args = _ib("ib_wait", gm_workspace, ub_workspace, block_idx, event_id,
                              is_aiv_only, frame)
    setters = _state(c)["ib"].get(addr) or []
    if word[0] != 1 or not setters:
        _unsatisfied(c, f"ib_wait{dict(args)}: the flag is {int(word[0])}, no earlier ib_set "
                     "set it", frame)
        emit(c, "S", "ib_wait", (), (), 0, "", 0, frame, None, args)
        return
    word[0] = 0
    gm_workspace.alloc.mark_written()
    who = setters.pop(0)
    emit(c, "S", "ib_wait", (), (), 0, "", 0, frame,
         _new(Sync, ("xwait", "S", "S", ("xcore", who, -1, ("ib", addr)), False)), args)


def _unsatisfied(c: Any, what: str, frame: Any) -> None:
    """A wait nothing has satisfied: a later core may still (not emulated), else a hang."""
    last = c.launch.block_num - 1
    if c.idx < last:
        raise NotImplementedError(f"{what}; cores {c.idx + 1}..{last} run after core {c.idx} "
                                  "in the emulator (one after another), so it cannot wait for "
                                  f"them {_core.where(c, frame)}")
    finding(c, f"{what} and no core is left to set it: the chip hangs here", frame, SyncError,
            "synccheck")


def notify_next_block(gm_workspace: Any, ub_workspace: Any) -> None:
    """Pass the block-order token to the next block (module docstring)."""
    frame = _getframe(1)
    c = _core.core()
    n = c.launch.block_num
    _operands("notify_next_block", gm_workspace, ub_workspace, n * 32, n * 32 + 32, frame, c)
    notified = _state(c)["notified"]
    r = notified.get(c.idx, 0)  # this core's round
    notified[c.idx] = r + 1
    nxt = (c.idx + 1) % n
    waiter_round = r + 1 if nxt == 0 else r  # block 0 waits for block N-1's previous round
    key = ("xcore", c.idx, nxt, ("block_order", waiter_round))
    emit(c, "S", "notify_next_block", (), (), 0, "", 0, frame,
         _new(Sync, ("xset", "S", "S", key, False)), (("round", r),))


def wait_pre_block(gm_workspace: Any, ub_workspace: Any) -> None:
    """Wait for the previous block's token (block 0's first round waits for nothing)."""
    frame = _getframe(1)
    c = _core.core()
    n = c.launch.block_num
    _operands("wait_pre_block", gm_workspace, ub_workspace, n * 32, n * 32 + 32, frame, c)
    st = _state(c)
    r = st["waited"].get(c.idx, 0)
    st["waited"][c.idx] = r + 1
    args = (("round", r),)
    if c.idx == 0 and r == 0:
        emit(c, "S", "wait_pre_block", (), (), 0, "", 0, frame, None, args)
        return
    prev = (c.idx - 1) % n
    need = r - 1 if c.idx == 0 else r  # the round of prev's notify this wait consumes
    if st["notified"].get(prev, 0) <= need:
        if prev > c.idx:
            raise NotImplementedError(
                f"wait_pre_block round {r} on core {c.idx} waits for core {prev}, which runs "
                f"after it in the emulator (cores run one after another) "
                f"{_core.where(c, frame)}")
        finding(c, f"wait_pre_block round {r}: core {prev} finished without notify_next_block "
                f"round {need}: the chip hangs here", frame, SyncError, "synccheck")
        emit(c, "S", "wait_pre_block", (), (), 0, "", 0, frame, None, args)
        return
    key = ("xcore", prev, c.idx, ("block_order", r))
    emit(c, "S", "wait_pre_block", (), (), 0, "", 0, frame,
         _new(Sync, ("xwait", "S", "S", key, False)), args)
