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

from ...errors import CapacityError, QueueError, QueueStateError
from .. import core as _core
from ..core import CoreState, emit, site
from ..dtypes import DataType
from ..enums import SPACE_OF, TPosition
from ..memory.tensor import LocalTensor
from ..trace import Event, Sync, event, register_op

# TPipe/TQue bookkeeping on the scalar unit; a queue op's event sits on the pipe of the side
# (producer or consumer) that calls it, with its sync edge
for _op in ("alloc_tensor", "enque", "deque", "free_tensor"):
    register_op(_op, "", "framework", module=__name__)

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
        # Per op, (call site code id, bytecode offset, slot[, waits]) -> (its Event, the code):
        # a loop issues the same few queue events again and again, so the trace shares them
        # (they are immutable); see _site_event
        self.ev_alloc: dict[tuple, tuple[Event, Any]] = {}
        self.ev_enque: dict[tuple, tuple[Event, Any]] = {}
        self.ev_deque: dict[tuple, tuple[Event, Any]] = {}
        self.ev_free: dict[tuple, tuple[Event, Any]] = {}

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

    def _clear_events(self) -> None:
        """Forget the cached Events (init_buffer gives the queue new slots)."""
        self.ev_alloc.clear()
        self.ev_enque.clear()
        self.ev_deque.clear()
        self.ev_free.clear()

    # ---- helpers -----------------------------------------------------------------------
    def _not_ready(self, op: str, frame: Any) -> None:
        raise QueueStateError(f"{self.describe()}.{op}: the queue has no buffers; call "
                              f"pipe.init_buffer(que, num, len) first {_core.where(self.c, frame)}")

    def _ready(self, op: str, frame: Any) -> CoreState:
        pipe = self.pipe
        if pipe is None or pipe.gen != self.pipe_gen:
            self._not_ready(op, frame)
        return self.c

    def _proto(self, slot: int, dtype: Any) -> LocalTensor:
        """The prototype tensor spanning `slot` as `dtype` (built once; callers hand out
        copies of it: proto._view(0))."""
        proto = self.protos.get((slot, dtype))
        if proto is None:
            dt = dtype if type(dtype) is DataType else DataType(dtype)
            addr = self.slots[slot]
            proto = LocalTensor._make(self.c, self.space, self.src, addr, dt,
                                      self.slot_len // dt.itemsize, addr + self.slot_len, self,
                                      slot, self.names[slot])
            self.protos[(slot, dtype)] = proto
        return proto

    def _tensor(self, dtype: Any, slot: int) -> LocalTensor:
        """A fresh LocalTensor spanning `slot` as `dtype` (a copy of the slot's prototype)."""
        return self._proto(slot, dtype)._view(0)

    def _rebind(self, t: LocalTensor, slot: int) -> None:
        if t.dtype is None:
            raise ValueError("in-place form needs a LocalTensor with a dtype: LocalTensor(dtype)")
        addr = self.slots[slot]
        t._bind(self.c, self.space, self.src, addr, self.slot_len // t.dtype.itemsize,
                addr + self.slot_len, self, slot, self.names[slot])

    def _own_slot(self, t: Any, op: str, frame: Any) -> int:
        """The slot of `t`, a tensor this queue handed out, once the queue has buffers (the
        checks of enque and free_tensor)."""
        pipe = self.pipe
        if pipe is None or pipe.gen != self.pipe_gen:
            self._not_ready(op, frame)
        if type(t) is not LocalTensor or t.owner is not self or t.slot < 0:
            self._not_ours(t, op, frame)
        return t.slot

    def _not_ours(self, t: Any, op: str, frame: Any) -> None:
        """Raise: `t` is not a tensor this queue handed out."""
        if type(t) is not LocalTensor or t.space is None:
            raise TypeError(f"{self.describe()}.{op}: expected a LocalTensor from this queue, "
                            f"got {t!r}")
        owner = t.owner.describe() if t.owner is not None else "no queue (static tensor)"
        raise QueueError(f"{self.describe()}.{op}: {t.describe()} belongs to {owner}, not "
                         f"to this queue {_core.where(self.c, frame)}")

    def _site_event(self, cache: dict, key: tuple, op: str, pipe: str, slot: int,
                    sync: Sync | None, frame: Any) -> Event:
        """Build the Event of queue op `op` on `slot` called from `frame` and remember it in
        `cache` under `key` (the call site's code id and bytecode offset, the slot, ...). A loop
        issues the same few queue events again and again: the trace shares them (Events are
        immutable) and the lookup needs neither the line number nor a new tuple. The entry
        holds the code object, so its id stays unique while the cache lives."""
        where = site(self.c, frame)
        ev = event(self.c.idx, pipe, op, file=where[0], line=where[1], sync=sync,
                   args=self.ev_args[slot])
        cache[key] = (ev, where)
        return ev

    def _free_slot(self, frame: Any) -> int:
        """The first free slot from the cursor on (QueueError when none is)."""
        state = self.state
        n = len(state)
        for k in range(n):
            slot = (self.cursor + k) % n
            if state[slot] == _FREE:
                return slot
        busy = ", ".join(f"slot {i}: {_STATE_NAME[s]}" for i, s in enumerate(state))
        raise QueueStateError(f"{self.describe()}.alloc_tensor: no free buffer ({n} allocated "
                              f"by init_buffer; {busy}); free_tensor a tensor first or give "
                              f"the queue more buffers {_core.where(self.c, frame)}")

    def describe(self) -> str:
        src, dst = self.src.name, self.dst.name
        kind = f"TQue({src})" if src == dst else f"TQueBind({src}->{dst})"
        return f"{kind} #{self.qid}"

    # ---- the state machine -------------------------------------------------------------
    # Each op is one function on its common path (these run once per tile per queue): the
    # checks inline, the Event from the call site's cache, the rare cases in helpers.
    def alloc_tensor(self, arg: Any = None, dtype: Any = None, tensor: Any = None) -> Any:
        """Take the next free slot: `alloc_tensor(dtype)` returns a tensor spanning it;
        `alloc_tensor(t)` rebinds the LocalTensor handle t in place."""
        frame = _getframe(1)
        pipe = self.pipe
        if pipe is None or pipe.gen != self.pipe_gen:
            self._not_ready("alloc_tensor", frame)
        target = tensor if tensor is not None else arg if type(arg) is LocalTensor else None
        if target is None:
            dtype = arg if dtype is None else dtype
            if dtype is None:
                raise TypeError("alloc_tensor needs a dtype or a LocalTensor")
        state = self.state
        slot = self.cursor
        if state[slot] != _FREE:
            slot = self._free_slot(frame)
        self.cursor = slot + 1 if slot + 1 < len(state) else 0
        state[slot] = _ALLOCATED
        synced = self.freed_once[slot]  # a slot freed before: wait for that free (WAR)
        key = (id(frame.f_code), frame.f_lasti, slot, synced)
        got = self.ev_alloc.get(key)
        c = self.c
        c.append(got[0] if got is not None else self._site_event(
            self.ev_alloc, key, "alloc_tensor", self.producer, slot,
            self.war_wait[slot] if synced else None, frame))
        if synced and self.producer == "V":
            c.v_pending.clear()  # a wait on V orders earlier vector work (see check_vector_order)
        if target is not None:
            self._rebind(target, slot)
            return None
        proto = self.protos.get((slot, dtype))
        if proto is None:
            proto = self._proto(slot, dtype)
        return proto._view(0)

    def enque(self, tensor: Any, src_user_pos: Any = None, dst_user_pos: Any = None) -> None:
        """Hand an allocated tensor to the consumer side (sets the producer->consumer flag)."""
        frame = _getframe(1)
        slot = self._own_slot(tensor, "enque", frame)
        state = self.state
        if state[slot] != _ALLOCATED and state[slot] != _DEQUEUED:
            # a dequeued tensor may be enqueued again (Ascend C EnQue: OCCUPIED or DEQUE)
            raise QueueError(f"{self.describe()}.enque: slot {slot} is "
                             f"{_STATE_NAME[state[slot]]}, only an allocated or dequeued "
                             f"tensor can be enqueued {_core.where(self.c, frame)}")
        fifo = self.fifo
        if self.depth and len(fifo) >= self.depth:
            raise QueueStateError(f"{self.describe()}.enque: queue depth {self.depth} reached "
                                  f"({len(fifo)} tensors enqueued and not dequeued) "
                                  f"{_core.where(self.c, frame)}")
        state[slot] = _ENQUEUED
        fifo.append(slot)
        key = (id(frame.f_code), frame.f_lasti, slot)
        got = self.ev_enque.get(key)
        self.c.append(got[0] if got is not None else self._site_event(
            self.ev_enque, key, "enque", self.producer, slot, self.raw_set[slot], frame))

    def deque(self, arg: Any = None, src_user_pos: Any = None, dst_user_pos: Any = None,
              dtype: Any = None, tensor: Any = None) -> Any:
        """Take the oldest enqueued tensor (waits on the producer->consumer flag)."""
        frame = _getframe(1)
        pipe = self.pipe
        if pipe is None or pipe.gen != self.pipe_gen:
            self._not_ready("deque", frame)
        if not self.fifo:
            raise QueueStateError(f"{self.describe()}.deque: the queue is empty (nothing was "
                                  f"enqueued, or everything was already dequeued) "
                                  f"{_core.where(self.c, frame)}")
        slot = self.fifo.popleft()
        self.state[slot] = _DEQUEUED
        key = (id(frame.f_code), frame.f_lasti, slot)
        got = self.ev_deque.get(key)
        c = self.c
        c.append(got[0] if got is not None else self._site_event(
            self.ev_deque, key, "deque", self.consumer, slot, self.raw_wait[slot], frame))
        if self.consumer == "V":
            c.v_pending.clear()  # a wait on V orders earlier vector work
        target = tensor if tensor is not None else arg if type(arg) is LocalTensor else None
        if target is not None:
            self._rebind(target, slot)
            return None
        dtype = arg if dtype is None else dtype
        proto = self.protos.get((slot, dtype))
        if proto is None:
            proto = self._proto(slot, dtype)
        return proto._view(0)

    def free_tensor(self, tensor: Any) -> None:
        """Return a tensor's slot (sets the consumer->producer flag the next alloc waits on).

        The handle no longer owns any bytes: its buffer ends where it starts, so any later
        access through it (an instruction, get_value) is outside its buffer, a memcheck finding
        that raises in strict mode and warns otherwise, and its messages say where it was
        freed. alloc_tensor(t) / deque(t) rebind it. Limitation: other views of the slot taken
        before the free (t[8:]) are not released."""
        frame = _getframe(1)
        slot = self._own_slot(tensor, "free_tensor", frame)
        state = self.state
        st = state[slot]
        if st == _FREE or st == _ENQUEUED:
            why = "already free (double free)" if st == _FREE else "still enqueued: deque it first"
            raise QueueError(f"{self.describe()}.free_tensor: slot {slot} is {why} "
                             f"{_core.where(self.c, frame)}")
        state[slot] = _FREE
        self.freed_once[slot] = True
        key = (id(frame.f_code), frame.f_lasti, slot)
        got = self.ev_free.get(key)
        if got is None:
            self._site_event(self.ev_free, key, "free_tensor", self.consumer, slot,
                             self.war_set[slot], frame)
            got = self.ev_free[key]
        self.c.append(got[0])
        tensor.hi = tensor.addr  # the handle owns no bytes now (see above)
        tensor.freed = got[1]  # the call site, for messages about a use after free

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


def give_slots(target: TQueBind, owner: Any, start: int, num: int, nbytes: int,
               frame: Any) -> None:
    """Make `target`'s `num` slots of `nbytes` bytes from byte `start` of its memory, handed out
    by `owner` (the TPipe or a TBufPool, whose `gen` changes when it is reset, invalidating
    them), and record the init_buffer event."""
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
    target.pipe = owner
    target.pipe_gen = owner.gen
    target.protos.clear()
    target._clear_events()
    emit(target.c, "S", "init_buffer", (), (), 0, "", 0, frame, None,
         (("queue", target.qid), ("space", target.space), ("addr", start), ("num", num),
          ("len", nbytes)))


__all__ = ["TBuf", "TQue", "TQueBind", "give_slots"]
