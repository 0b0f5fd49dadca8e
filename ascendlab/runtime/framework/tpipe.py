"""TPipe: carves a core's local memory into queue slots (init_buffer), hands out event ids;
and the library buffers carved from the top of a memory (reserve_top, LocalTensorAuto).
The queues themselves (TQue, TQueBind, TBuf) are in framework/queue.py."""

from __future__ import annotations

import sys
from typing import Any

from ...errors import CapacityError, LaunchError, QueueError
from .. import core as _core
from ..core import CoreState
from ..dtypes import DataType
from ..enums import HardEvent, TPosition
from ..memory.tensor import LocalTensor, check_core_kind
from ..trace import register_op
from .queue import TBuf, TQueBind, give_slots

# TPipe bookkeeping on the scalar unit
register_op("init_buffer", "S", "framework", module=__name__)

_getframe = sys._getframe


class TPipe:
    """Owns the kernel's local memory: init_buffer carves slots for queues and TBufs."""

    def __init__(self) -> None:
        c = _core.core()
        frame = _getframe(1)
        if c.pipe_obj is not None and not c.pipe_obj.destroyed:
            raise LaunchError(f"TPipe: a kernel creates exactly one TPipe; this is a second "
                              f"one {_core.where(c, frame)}")
        self.c = c
        self.gen = 0
        self.destroyed = False
        self._reset_state()
        c.pipe_obj = self

    def _reset_state(self) -> None:
        self.used: dict[str, int] = {}  # bytes carved per physical memory
        self.que_buffers: dict[TPosition, int] = {}  # queue slots per position
        self.n_buffers = 0
        self.events: dict[int, set[int]] = {}  # HardEvent -> allocated event ids

    def init_buffer(self, que: Any = None, num: Any = 0, len: Any = 0, buf: Any = None) -> None:
        """Give a queue `num` slots of `len` bytes (rounded up to 32 B), or a TBuf `num` bytes."""
        frame = _getframe(1)
        c = self.c
        target = buf if buf is not None else que
        if not isinstance(target, TQueBind):
            raise TypeError(f"init_buffer: expected a TQue/TQueBind/TBuf, got {target!r}")
        if self.destroyed:
            raise QueueError(f"init_buffer after TPipe.destroy(): call pipe.init() first "
                             f"{_core.where(c, frame)}")
        if isinstance(target, TBuf):
            num, nbytes = 1, int(num)  # pyasc: init_buffer(buf, num) passes the byte length
        else:
            num, nbytes = int(num), int(len)
        if num < 1 or nbytes < 1:
            raise ValueError(f"init_buffer({target.describe()}): num={num} and len={nbytes} must "
                             f"be >= 1 {_core.where(c, frame)}")
        if target.slots and target.pipe_gen == self.gen:
            raise QueueError(f"init_buffer: {target.describe()} already has buffers; "
                             f"pipe.reset() before re-initialising {_core.where(c, frame)}")
        nbytes = (nbytes + 31) // 32 * 32
        space = target.space
        check_core_kind(c, space, "init_buffer", frame)
        chip = c.chip
        if not isinstance(target, TBuf):
            have = self.que_buffers.get(target.src, 0)
            limit = chip.que_buffers_per_position
            if have + num > limit:
                raise CapacityError(
                    f"init_buffer({target.describe()}, num={num}): {have + num} queue buffers "
                    f"in {target.src.name} exceed the limit of {limit} per position on "
                    f"{chip.name}; merge buffers into fewer, larger ones "
                    f"{_core.where(c, frame)}")
        if self.n_buffers + num > chip.max_pipe_buffers:
            raise CapacityError(f"init_buffer: {self.n_buffers + num} buffers exceed the limit of "
                                f"{chip.max_pipe_buffers} per kernel {_core.where(c, frame)}")
        start = self.used.get(space, 0)
        top = c.reserved.get(space, 0)
        cap = chip.capacity(space) - top
        end = start + num * nbytes
        if end > cap:
            held = f" ({top} B are held by library buffers)" if top else ""
            raise CapacityError(
                f"init_buffer({target.describe()}, num={num}, len={nbytes}): {space} would need "
                f"{end} B ({start} B already given to earlier buffers + {num} x {nbytes} B) but "
                f"{chip.name} has {cap} B{held} {_core.where(c, frame)}")
        self.used[space] = end
        if not isinstance(target, TBuf):
            self.que_buffers[target.src] = self.que_buffers.get(target.src, 0) + num
        self.n_buffers += num
        give_slots(target, self, start, num, nbytes, frame)

    def init_buf_pool(self, buf_pool: Any, len: Any = 0, share_buf: Any = None) -> None:
        """Give a TBufPool `len` bytes of its memory, or the bytes of `share_buf` (tbufpool.py)."""
        from .tbufpool import init_pool_from_pipe

        init_pool_from_pipe(self, buf_pool, len, share_buf, _getframe(1))

    def reset(self) -> None:
        """Release every buffer (queues need init_buffer again)."""
        self.gen += 1
        self._reset_state()

    def destroy(self) -> None:
        self.reset()
        self.destroyed = True

    def init(self) -> None:
        self.reset()
        self.destroyed = False

    # ---- event ids (for set_flag/wait_flag) ---------------------------------------------
    def _ids(self, event: Any) -> set[int]:
        return self.events.setdefault(int(HardEvent(event)), set())

    def alloc_event_id(self, event: Any = HardEvent.V_S) -> int:
        """Reserve a free event id for `event` (0..5; 6 and 7 belong to the framework)."""
        ids = self._ids(event)
        for i in range(6):
            if i not in ids:
                ids.add(i)
                return i
        raise QueueError(f"alloc_event_id({HardEvent(event).name}): all 6 user event ids are "
                         f"allocated; release_event_id one first")

    def fetch_event_id(self, event: Any = HardEvent.V_S) -> int:
        """A currently free event id for `event`, without reserving it."""
        ids = self._ids(event)
        for i in range(6):
            if i not in ids:
                return i
        raise QueueError(f"fetch_event_id({HardEvent(event).name}): no free event id")

    def release_event_id(self, id: Any, event: Any = HardEvent.V_S) -> None:
        self._ids(event).discard(int(id))


def get_tpipe_ptr() -> TPipe:
    """The kernel's TPipe (pyasc's GetTPipePtr): the one this core created last."""
    c = _core.core()
    if c.pipe_obj is None:
        raise QueueError(f"get_tpipe_ptr: this kernel has no TPipe yet; create one with "
                         f"asc.TPipe() first {_core.where(c, _getframe(1))}")
    return c.pipe_obj


def reserve_top(c: CoreState, space: str, nbytes: int, what: str, align: int = 32) -> int:
    """Take `nbytes` at the top of `space` for a library buffer (Matmul's L1/L0 tiles,
    LocalTensorAuto); returns its byte address. TPipe.init_buffer carves from the bottom, so the
    two never overlap; running out raises a CapacityError naming both."""
    cap = c.chip.capacity(space)
    top = c.reserved.get(space, 0)
    addr = (cap - top - nbytes) // align * align
    below = c.pipe_obj.used.get(space, 0) if c.pipe_obj is not None else 0
    if addr < below:
        raise CapacityError(f"{what}: needs {nbytes} B of {space}, but {c.chip.name} has "
                            f"{cap} B, {top} B already held by library buffers and {below} B "
                            f"given to TPipe buffers")
    c.reserved[space] = cap - addr
    return addr


def local_tensor_auto(dtype: Any, shape: Any) -> LocalTensor:
    """asc.LocalTensorAuto(dtype, shape): a UB tensor placed by the compiler. Each call site
    gets one fixed place (the first call reserves it at the top of UB; later calls, e.g. in
    later loop iterations, get the same bytes back), as static allocation would. The kernel
    then runs with insert_sync (pyasc forces it on), so the reuse is synchronised."""
    frame = _getframe(1)
    c = _core.core()
    dt = dtype if type(dtype) is DataType else DataType(dtype)
    dims = list(shape) if hasattr(shape, "__iter__") else [shape]
    n = 1
    for d in dims:
        n *= int(d)
    if n <= 0:
        raise ValueError(f"LocalTensorAuto: shape {shape!r} has no elements "
                         f"{_core.where(c, frame)}")
    check_core_kind(c, "UB", "LocalTensorAuto", frame)
    nbytes = (n * dt.itemsize + 31) // 32 * 32
    file, line, _ = _core.site(c, frame)
    site = ("auto", file, line)
    got = c.lib.get(site)
    if got is None or got[1] < nbytes:
        addr = reserve_top(c, "UB", nbytes, f"LocalTensorAuto at {_core.where(c, frame)}")
        got = c.lib[site] = (addr, nbytes)
    addr = got[0]
    return LocalTensor._make(c, "UB", TPosition.VECCALC, addr, dt, n, addr + nbytes, None, 0,
                             f"auto@{line}")


__all__ = ["TPipe", "give_slots", "local_tensor_auto", "reserve_top"]
