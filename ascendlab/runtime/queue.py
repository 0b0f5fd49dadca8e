"""The pyasc framework: TPipe carves local memory into queue slots; TQue hands them out and
orders the pipes that fill and drain them.

Sync semantics (ADK TPipe-TQue 框架编程原理): enque sets and deque waits a producer->consumer
flag (read-after-write); free_tensor sets and the next alloc_tensor of that slot waits a
consumer->producer flag (write-after-read). These edges are recorded in the trace as Sync keys
("que", queue id, slot) so the cost model overlaps double buffers only where they allow it.
"""

from __future__ import annotations

import sys
from collections import deque as _fifo
from typing import Any

from ..errors import CapacityError, LaunchError, QueueError
from . import core as _core
from .core import CoreState, emit
from .dtypes import DataType
from .enums import SPACE_OF, HardEvent, TPosition
from .tensor import LocalTensor, check_core_kind
from .trace import Event, Sync

_getframe = sys._getframe
_new = tuple.__new__

# Pipe that writes into a position's memory (producer) / reads out of it (consumer).
_PRODUCER = {TPosition.VECIN: "MTE2", TPosition.VECOUT: "V", TPosition.VECCALC: "V",
             TPosition.A1: "MTE2", TPosition.B1: "MTE2", TPosition.C1: "MTE2",
             TPosition.A2: "MTE1", TPosition.B2: "MTE1", TPosition.CO1: "M"}
_CONSUMER = {TPosition.VECIN: "V", TPosition.VECOUT: "MTE3", TPosition.VECCALC: "V",
             TPosition.A1: "MTE1", TPosition.B1: "MTE1", TPosition.C1: "MTE1",
             TPosition.A2: "M", TPosition.B2: "M", TPosition.CO1: "FIX"}

_FREE, _ALLOCATED, _ENQUEUED, _DEQUEUED = range(4)
_STATE_NAME = ("free", "allocated", "enqueued", "dequeued")


def _position(value: Any, what: str) -> TPosition:
    try:
        pos = TPosition(value)
    except ValueError:
        raise ValueError(f"{what}: {value!r} is not a TPosition") from None
    if pos not in _PRODUCER:
        raise NotImplementedError(f"{what}: position {pos.name} is not emulated; emulated: "
                                  + ", ".join(p.name for p in _PRODUCER))
    return pos


class TQueBind:
    """A queue of buffer slots moving data from position `src` to position `dst`."""

    def __init__(self, src: Any = TPosition.VECIN, dst: Any = TPosition.VECIN, depth: Any = 0,
                 mask: Any = 0) -> None:
        c = _core.core()
        self.c = c
        self.src = _position(src, "TQueBind src")
        self.dst = _position(dst, "TQueBind dst")
        self.depth = int(depth)
        if self.depth < 0:
            raise ValueError(f"TQue depth must be >= 0, got {self.depth}")
        self.space = SPACE_OF[self.src]
        self.producer = _PRODUCER[self.src]
        self.consumer = _CONSUMER[self.dst]
        self.qid = c.n_queues
        c.n_queues += 1
        self.slots: list[int] = []  # byte address of each slot
        self.names: list[str] = []  # trace label of each slot
        # Per-slot immutable trace pieces, built once by init_buffer (see precompute)
        self.ev_args: list[tuple] = []
        self.raw_set: list[Sync] = []  # enque: producer -> consumer
        self.raw_wait: list[Sync] = []  # deque
        self.war_set: list[Sync] = []  # free_tensor: consumer -> producer
        self.war_wait: list[Sync] = []  # alloc_tensor of a slot freed before
        self.slot_len = 0  # bytes per slot
        self.state: list[int] = []
        self.freed_once: list[bool] = []  # a WAR flag exists only after the first free
        self.fifo: _fifo[int] = _fifo()
        self.cursor = 0
        self.pipe: Any = None  # the TPipe that carved the slots
        self.pipe_gen = -1  # its generation when it did (reset() invalidates the slots)
        self.protos: dict[tuple[int, Any], LocalTensor] = {}  # (slot, dtype) -> tensor to copy

    def precompute(self) -> None:
        """Build the per-slot Sync edges and Event args once (they never change)."""
        p, q, k = self.producer, self.consumer, self.qid
        self.ev_args = [(("queue", k), ("slot", i)) for i in range(len(self.slots))]
        self.raw_set = [_new(Sync, ("set", p, q, ("que", k, i), False))
                        for i in range(len(self.slots))]
        self.raw_wait = [_new(Sync, ("wait", p, q, ("que", k, i), False))
                         for i in range(len(self.slots))]
        self.war_set = [_new(Sync, ("set", q, p, ("que", k, i), False))
                        for i in range(len(self.slots))]
        self.war_wait = [_new(Sync, ("wait", q, p, ("que", k, i), False))
                         for i in range(len(self.slots))]

    # ---- helpers -----------------------------------------------------------------------
    def _ready(self, op: str, frame: Any) -> CoreState:
        pipe = self.pipe
        if pipe is None or pipe.gen != self.pipe_gen:
            raise QueueError(f"{self.describe()}.{op}: the queue has no buffers; call "
                             f"pipe.init_buffer(que, num, len) first "
                             f"{_core.where(self.c, frame)}")
        return self.c

    def _tensor(self, dtype: Any, slot: int) -> LocalTensor:
        """A fresh LocalTensor spanning `slot` as `dtype` (built from a per-slot prototype)."""
        proto = self.protos.get((slot, dtype))
        if proto is None:
            dt = dtype if type(dtype) is DataType else DataType(dtype)
            addr = self.slots[slot]
            proto = LocalTensor._make(self.c, self.space, self.src, addr, dt,
                                      self.slot_len // dt.itemsize, addr + self.slot_len, self,
                                      slot, self.names[slot])
            self.protos[(slot, dtype)] = proto
        return proto._view(0)

    def _rebind(self, t: LocalTensor, slot: int) -> None:
        if t.dtype is None:
            raise ValueError("in-place form needs a LocalTensor with a dtype: LocalTensor(dtype)")
        addr = self.slots[slot]
        t._bind(self.c, self.space, self.src, addr, self.slot_len // t.dtype.itemsize,
                addr + self.slot_len, self, slot, self.names[slot])

    def _slot_of(self, t: Any, op: str, frame: Any) -> int:
        if type(t) is not LocalTensor or t.space is None:
            raise TypeError(f"{self.describe()}.{op}: expected a LocalTensor from this queue, "
                            f"got {t!r}")
        if t.owner is not self or t.slot < 0:
            owner = t.owner.describe() if t.owner is not None else "no queue (static tensor)"
            raise QueueError(f"{self.describe()}.{op}: {t.describe()} belongs to {owner}, not "
                             f"to this queue {_core.where(self.c, frame)}")
        return t.slot

    def describe(self) -> str:
        src, dst = self.src.name, self.dst.name
        kind = f"TQue({src})" if src == dst else f"TQueBind({src}->{dst})"
        return f"{kind} #{self.qid}"

    # ---- the state machine -------------------------------------------------------------
    def alloc_tensor(self, arg: Any = None, dtype: Any = None, tensor: Any = None) -> Any:
        """Take the next free slot: `alloc_tensor(dtype)` returns a tensor spanning it;
        `alloc_tensor(t)` rebinds the LocalTensor handle t in place."""
        frame = _getframe(1)
        c = self._ready("alloc_tensor", frame)
        target = tensor if tensor is not None else arg if type(arg) is LocalTensor else None
        if target is None:
            dtype = arg if dtype is None else dtype
            if dtype is None:
                raise TypeError("alloc_tensor needs a dtype or a LocalTensor")
        state = self.state
        n = len(state)
        for k in range(n):
            slot = (self.cursor + k) % n
            if state[slot] == _FREE:
                break
        else:
            busy = ", ".join(f"slot {i}: {_STATE_NAME[s]}" for i, s in enumerate(state))
            raise QueueError(f"{self.describe()}.alloc_tensor: no free buffer ({n} allocated "
                             f"by init_buffer; {busy}); free_tensor a tensor first or give "
                             f"the queue more buffers {_core.where(c, frame)}")
        self.cursor = (slot + 1) % n
        state[slot] = _ALLOCATED
        sync = self.war_wait[slot] if self.freed_once[slot] else None
        c.append(_new(Event, (c.idx, self.producer, "alloc_tensor", (), (), 0, "", 0,
                              frame.f_code.co_filename, frame.f_lineno, sync, self.ev_args[slot])))
        if sync is not None and self.producer == "V":
            c.v_pending.clear()  # a wait on V orders earlier vector work (see check_vector_order)
        if target is not None:
            self._rebind(target, slot)
            return None
        return self._tensor(dtype, slot)

    def enque(self, tensor: Any, src_user_pos: Any = None, dst_user_pos: Any = None) -> None:
        """Hand an allocated tensor to the consumer side (sets the producer->consumer flag)."""
        frame = _getframe(1)
        c = self._ready("enque", frame)
        slot = self._slot_of(tensor, "enque", frame)
        if self.state[slot] != _ALLOCATED:
            raise QueueError(f"{self.describe()}.enque: slot {slot} is "
                             f"{_STATE_NAME[self.state[slot]]}, only an allocated tensor can be "
                             f"enqueued {_core.where(c, frame)}")
        if self.depth and len(self.fifo) >= self.depth:
            raise QueueError(f"{self.describe()}.enque: queue depth {self.depth} reached "
                             f"({len(self.fifo)} tensors enqueued and not dequeued) "
                             f"{_core.where(c, frame)}")
        self.state[slot] = _ENQUEUED
        self.fifo.append(slot)
        c.append(_new(Event, (c.idx, self.producer, "enque", (), (), 0, "", 0,
                              frame.f_code.co_filename, frame.f_lineno, self.raw_set[slot],
                              self.ev_args[slot])))

    def deque(self, arg: Any = None, src_user_pos: Any = None, dst_user_pos: Any = None,
              dtype: Any = None, tensor: Any = None) -> Any:
        """Take the oldest enqueued tensor (waits on the producer->consumer flag)."""
        frame = _getframe(1)
        c = self._ready("deque", frame)
        if not self.fifo:
            raise QueueError(f"{self.describe()}.deque: the queue is empty (nothing was "
                             f"enqueued, or everything was already dequeued) "
                             f"{_core.where(c, frame)}")
        slot = self.fifo.popleft()
        self.state[slot] = _DEQUEUED
        c.append(_new(Event, (c.idx, self.consumer, "deque", (), (), 0, "", 0,
                              frame.f_code.co_filename, frame.f_lineno, self.raw_wait[slot],
                              self.ev_args[slot])))
        if self.consumer == "V":
            c.v_pending.clear()  # a wait on V orders earlier vector work
        target = tensor if tensor is not None else arg if type(arg) is LocalTensor else None
        if target is not None:
            self._rebind(target, slot)
            return None
        return self._tensor(arg if dtype is None else dtype, slot)

    def free_tensor(self, tensor: Any) -> None:
        """Return a tensor's slot (sets the consumer->producer flag the next alloc waits on)."""
        frame = _getframe(1)
        c = self._ready("free_tensor", frame)
        slot = self._slot_of(tensor, "free_tensor", frame)
        st = self.state[slot]
        if st == _FREE or st == _ENQUEUED:
            why = "already free (double free)" if st == _FREE else "still enqueued: deque it first"
            raise QueueError(f"{self.describe()}.free_tensor: slot {slot} is {why} "
                             f"{_core.where(c, frame)}")
        self.state[slot] = _FREE
        self.freed_once[slot] = True
        c.append(_new(Event, (c.idx, self.consumer, "free_tensor", (), (), 0, "", 0,
                              frame.f_code.co_filename, frame.f_lineno, self.war_set[slot],
                              self.ev_args[slot])))

    # ---- queries -----------------------------------------------------------------------
    def vacant_in_que(self) -> bool:
        return not self.depth or len(self.fifo) < self.depth

    def has_tensor_in_que(self) -> bool:
        return bool(self.fifo)

    def get_tensor_count_in_que(self) -> int:
        return len(self.fifo)

    def has_idle_buffer(self) -> bool:
        return _FREE in self.state

    def __repr__(self) -> str:
        return f"<{self.describe()}: {len(self.slots)} x {self.slot_len} B in {self.space}>"


class TQue(TQueBind):
    """pyasc TQue(pos, depth): a queue whose slots stay in one position."""

    def __init__(self, pos: Any = TPosition.VECIN, depth: Any = 1) -> None:
        super().__init__(pos, pos, depth)


class TBuf(TQueBind):
    """Scratch memory in one position, without queue synchronisation (pyasc TBuf)."""

    def __init__(self, pos: Any = TPosition.VECCALC) -> None:
        super().__init__(pos, pos, 0)

    def describe(self) -> str:
        return f"TBuf({self.src.name}) #{self.qid}"

    def get(self, dtype: Any, len: Any = None, shape: Any = None) -> LocalTensor:
        """The buffer as a `dtype` tensor (of `len` elements if given)."""
        frame = _getframe(1)
        self._ready("get", frame)
        dtype = DataType(dtype)
        t = self._tensor(dtype, 0)
        t.slot = -1
        if len:
            n = int(len)
            if n * dtype.itemsize > self.slot_len:
                raise CapacityError(f"{self.describe()}.get: {n} x {dtype.name} = "
                                    f"{n * dtype.itemsize} B exceeds the buffer's "
                                    f"{self.slot_len} B {_core.where(self.c, frame)}")
            t.size = n
        return t

    def get_with_offset(self, size: Any, buf_offset: Any, dtype: Any) -> LocalTensor:
        """`size` elements starting `buf_offset` bytes (32 B aligned) into the buffer."""
        frame = _getframe(1)
        self._ready("get_with_offset", frame)
        off = int(buf_offset)
        if off % 32:
            raise ValueError("buf_offset must be align to 32B.")
        dtype = DataType(dtype)
        n = int(size)
        if off + n * dtype.itemsize > self.slot_len:
            raise CapacityError(f"{self.describe()}.get_with_offset: bytes [{off}, "
                                f"{off + n * dtype.itemsize}) exceed the buffer's "
                                f"{self.slot_len} B {_core.where(self.c, frame)}")
        base = self.slots[0]
        return LocalTensor._make(self.c, self.space, self.src, base + off, dtype, n,
                                 base + self.slot_len, self, -1, self.names[0])

    # pyasc's TBuf inherits TQueBind: alloc_tensor is get(), free_tensor does nothing.
    def alloc_tensor(self, arg: Any = None, dtype: Any = None, tensor: Any = None) -> Any:
        frame = _getframe(1)
        self._ready("alloc_tensor", frame)
        if isinstance(arg, LocalTensor) or tensor is not None:
            t = tensor if tensor is not None else arg
            self._rebind(t, 0)
            t.slot = -1
            return None
        t = self._tensor(arg if dtype is None else dtype, 0)
        t.slot = -1
        return t

    def free_tensor(self, tensor: Any) -> None:
        return None

    def enque(self, *args: Any, **kwargs: Any) -> None:
        raise QueueError(f"{self.describe()}: a TBuf has no queue; use TQue to enque/deque")

    deque = enque


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
        target.slots = [start + i * nbytes for i in range(num)]
        label = f"tbuf{target.qid}" if isinstance(target, TBuf) else f"que{target.qid}"
        target.names = [label if isinstance(target, TBuf) else f"{label}[{i}]"
                        for i in range(num)]
        target.precompute()
        target.slot_len = nbytes
        target.state = [_FREE] * num
        target.freed_once = [False] * num
        target.fifo.clear()
        target.cursor = 0
        target.pipe = self
        target.pipe_gen = self.gen
        target.protos.clear()
        emit(c, "S", "init_buffer", (), (), 0, "", 0, frame, None,
             (("queue", target.qid), ("space", space), ("addr", start), ("num", num),
              ("len", nbytes)))

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
                         f"asc.TPipe() first {_core.where(c, sys._getframe(1))}")
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
    site = ("auto", frame.f_code.co_filename, frame.f_lineno)
    got = c.lib.get(site)
    if got is None or got[1] < nbytes:
        addr = reserve_top(c, "UB", nbytes, f"LocalTensorAuto at {_core.where(c, frame)}")
        got = c.lib[site] = (addr, nbytes)
    addr = got[0]
    return LocalTensor._make(c, "UB", TPosition.VECCALC, addr, dt, n, addr + nbytes, None, 0,
                             f"auto@{frame.f_lineno}")
