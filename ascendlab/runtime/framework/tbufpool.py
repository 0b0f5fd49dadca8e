"""TBufPool: a region of UB or L1 that a kernel carves into queue and TBuf buffers by hand, so
that the stages of a long kernel can reuse the same bytes (pyasc asc.TBufPool, Ascend C
TBufPool; semantics from Ascend C's kernel_tbufpool_impl.h).

    pipe.init_buf_pool(pool, len)              pool gets `len` bytes (rounded up to 32 B) of the
                                               pipe's memory for its position
    pipe.init_buf_pool(pool, len, share_buf)   pool gets the same bytes as share_buf (its whole
                                               length; `len` must not exceed it)
    pool.init_buf_pool(sub, len[, share_buf])  the same, carved from (or shared inside) pool
    pool.init_buffer(que=q, num=n, len=l)      q's n buffers of l bytes come from the pool
    pool.init_buffer(buf=b, len=l)             b's l bytes come from the pool
    pool.reset()                               the pool ends: it waits for every buffer freed
                                               since its last alloc (its free_tensor's flag, as
                                               the next alloc_tensor would: a pool_reset event),
                                               then its queues and TBufs lose their buffers
                                               (init_buffer again, e.g. in a pool that shares
                                               its bytes) and the pool has no bytes left

Queues and TBufs initialised from a pool keep the usual state machine (framework/queue.py) and sync
edges; the pool only decides where their buffers are. A pool holds at most buf_id_size buffers
(each queue buffer and each TBuf counts one; a sub-pool takes its own buf_id_size out of its
parent's, unless it shares bytes).

Limitations: pool buffers do not count toward the TPipe's per-position queue-buffer limit (they
come from the pool's own buffer table in Ascend C).
"""

from __future__ import annotations

import sys
from typing import Any

from ...errors import CapacityError, ParamError, QueueStateError
from .. import core as _core
from ..enums import SPACE_OF, TPosition
from ..trace import register_op
from .queue import _FREE, TBuf, TQueBind, give_slots

# reset()'s wait for a freed buffer's consumer -> producer flag (one event per such buffer),
# on the producer pipe like the alloc_tensor it stands in for
register_op("pool_reset", "", "framework", module=__name__)

_getframe = sys._getframe

POOL_POSITIONS = frozenset({TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC,
                            TPosition.A1, TPosition.B1, TPosition.C1})
MAX_BUF_IDS = 16  # Ascend C TBufPool: "bufIDSize ... 默认为4，不超过16"


def _round32(n: int) -> int:
    return (n + 31) // 32 * 32


class TBufPool:
    """A hand-managed region of one memory (UB or L1) for queues, TBufs and sub-pools."""

    def __init__(self, pos: Any = None, buf_id_size: Any = 4) -> None:
        c = _core.core()
        frame = _getframe(1)
        if pos is None:
            raise TypeError("TBufPool needs a position: TBufPool(pos=asc.TPosition.VECIN)")
        self.pos = TPosition(pos)
        if self.pos not in POOL_POSITIONS:
            raise ValueError(f"TBufPool: position {self.pos.name} is not one of VECIN, VECOUT, "
                             f"VECCALC, A1, B1, C1 {_core.where(c, frame)}")
        self.buf_id_size = int(buf_id_size)
        if not 1 <= self.buf_id_size <= MAX_BUF_IDS:
            raise ParamError(f"TBufPool: buf_id_size={self.buf_id_size} is outside [1, "
                             f"{MAX_BUF_IDS}] {_core.where(c, frame)}")
        self.c = c
        self.space = SPACE_OF[self.pos]
        self.pipe: Any = None  # the TPipe whose bytes the pool holds, once it has some
        self.pipe_gen = -1  # that pipe's generation then (its reset ends the pool)
        self.own_gen = 0  # bumped by reset(): the pool's buffers end
        self.start = 0  # first byte of the pool in its memory
        self.length = 0  # bytes the pool holds (0: none yet, or reset)
        self.used = 0  # bytes carved so far from `start`
        self.n_buffers = 0  # buffer ids used (queue buffers, TBufs, non-shared sub-pools)
        self.targets: list[TQueBind] = []  # the queues and TBufs given buffers since then

    @property
    def gen(self) -> tuple[int, int]:
        """What the pool's queues compare against: changes when the pipe or the pool resets."""
        return (self.pipe.gen if self.pipe is not None else -1, self.own_gen)

    def describe(self) -> str:
        return f"TBufPool({self.pos.name}, {self.length} B at {self.space}+{self.start})"

    def _live(self, op: str, frame: Any) -> None:
        if self.pipe is None or self.length == 0 or self.pipe.gen != self.pipe_gen:
            raise QueueStateError(f"TBufPool.{op}: {self.describe()} holds no bytes; give it some "
                                f"with pipe.init_buf_pool(pool, len) (again after reset) "
                                f"{_core.where(self.c, frame)}")

    def _carve(self, op: str, nbytes: int, ids: int, frame: Any) -> int:
        """Take `nbytes` bytes and `ids` buffer ids from the pool; returns the start byte."""
        self._live(op, frame)
        if self.used + nbytes > self.length:
            raise CapacityError(f"TBufPool.{op}: {nbytes} B more would need {self.used + nbytes}"
                                f" B but {self.describe()} holds {self.length} B "
                                f"({self.used} B already carved) {_core.where(self.c, frame)}")
        if self.n_buffers + ids > self.buf_id_size:
            raise CapacityError(f"TBufPool.{op}: {self.n_buffers + ids} buffers exceed the "
                                f"pool's buf_id_size={self.buf_id_size} "
                                f"{_core.where(self.c, frame)}")
        start = self.start + self.used
        self.used += nbytes
        self.n_buffers += ids
        return start

    def _become(self, parent: Any, start: int, length: int) -> None:
        self.pipe = parent if not isinstance(parent, TBufPool) else parent.pipe
        self.pipe_gen = self.pipe.gen
        self.start, self.length, self.used, self.n_buffers = start, length, 0, 0
        self.own_gen += 1  # buffers from an earlier life of the pool end

    def _same_memory(self, other: TBufPool, op: str, frame: Any) -> None:
        if not isinstance(other, TBufPool):
            raise TypeError(f"TBufPool.{op}: expected a TBufPool, got {other!r}")
        if other.space != self.space:
            raise ValueError(f"TBufPool.{op}: {other.describe()} is in {other.space}, not in "
                             f"{self.space} like {self.describe()} {_core.where(self.c, frame)}")

    # ---- pyasc's API ---------------------------------------------------------------------
    def init_buf_pool(self, buf_pool: Any, len: Any = 0, share_buf: Any = None) -> None:
        """Carve sub-pool `buf_pool` of `len` bytes out of this pool, or make it share
        `share_buf`'s bytes."""
        frame = _getframe(1)
        self._same_memory(buf_pool, "init_buf_pool", frame)
        nbytes = _positive(len, "init_buf_pool", self.c, frame)
        if share_buf is not None:
            self._live("init_buf_pool", frame)
            _share(buf_pool, share_buf, nbytes, self.c, frame)
            return
        start = self._carve("init_buf_pool", nbytes, buf_pool.buf_id_size, frame)
        buf_pool._become(self, start, nbytes)

    def init_buffer(self, que: Any = None, num: Any = 0, len: Any = 0, buf: Any = None) -> None:
        """init_buffer(que=q, num=n, len=l): q's n buffers of l bytes from the pool;
        init_buffer(buf=b, len=l): b's l bytes from the pool."""
        frame = _getframe(1)
        target = buf if buf is not None else que
        if not isinstance(target, TQueBind):
            raise TypeError(f"TBufPool.init_buffer: expected a TQue/TQueBind/TBuf, got "
                            f"{target!r}")
        is_buf = isinstance(target, TBuf)
        if is_buf != (buf is not None):
            raise TypeError("TBufPool.init_buffer: pass a TBuf as buf=, a TQue as que=")
        if target.space != self.space:
            raise ValueError(f"TBufPool.init_buffer: {target.describe()} is in {target.space}, "
                             f"the pool in {self.space} {_core.where(self.c, frame)}")
        num = 1 if is_buf else int(num)
        if num < 1:
            raise ParamError(f"TBufPool.init_buffer({target.describe()}): num={num} must be >= "
                             f"1 {_core.where(self.c, frame)}")
        nbytes = _positive(len, "init_buffer", self.c, frame)
        start = self._carve("init_buffer", num * nbytes, num, frame)
        give_slots(target, self, start, num, nbytes, frame)
        self.targets.append(target)

    def reset(self) -> None:
        """Wait for the buffers freed since their last alloc, then end the pool: its queues and
        TBufs lose their buffers and it holds no bytes."""
        frame = _getframe(1)
        for q in self.targets:
            if q.pipe is not self or q.pipe_gen != self.gen:
                continue  # given buffers again elsewhere since
            for slot, st in enumerate(q.state):
                if st == _FREE and q.freed_once[slot]:  # its free's flag is not waited yet
                    _core.emit(self.c, q.producer, "pool_reset", (), (), 0, "", 0, frame,
                               q.war_wait[slot], q.ev_args[slot])
                    if q.producer == "V":
                        self.c.v_pending.clear()  # a wait on V orders earlier vector work
        self.targets = []
        self.own_gen += 1
        self.start = self.length = self.used = self.n_buffers = 0

    def __repr__(self) -> str:
        return f"<{self.describe()}: {self.used} B carved, {self.n_buffers} buffers>"


def _positive(len_: Any, op: str, c: Any, frame: Any) -> int:
    n = int(len_)
    if n <= 0:
        raise ParamError(f"TBufPool.{op}: len={n} must be > 0 {_core.where(c, frame)}")
    return _round32(n)


def _share(pool: TBufPool, share: Any, nbytes: int, c: Any, frame: Any) -> None:
    """`pool` takes `share`'s bytes (Ascend C: the shared pool's whole length)."""
    pool._same_memory(share, "init_buf_pool", frame)
    share._live("init_buf_pool (share_buf)", frame)
    if nbytes > share.length:
        raise CapacityError(f"init_buf_pool: len={nbytes} exceeds the {share.length} B of the "
                            f"shared {share.describe()} {_core.where(c, frame)}")
    pool._become(share.pipe, share.start, share.length)


def init_pool_from_pipe(pipe: Any, pool: Any, len_: Any, share: Any, frame: Any) -> None:
    """TPipe.init_buf_pool: `len_` bytes of the pipe's memory (after its earlier buffers), or
    `share`'s bytes."""
    c = pipe.c
    if not isinstance(pool, TBufPool):
        raise TypeError(f"init_buf_pool: expected a TBufPool, got {pool!r}")
    nbytes = _positive(len_, "init_buf_pool", c, frame)
    if share is not None:
        _share(pool, share, nbytes, c, frame)
        return
    space = pool.space
    start = pipe.used.get(space, 0)
    cap = c.chip.capacity(space) - c.reserved.get(space, 0)
    if start + nbytes > cap:
        raise CapacityError(f"init_buf_pool({pool.describe()}, len={nbytes}): {space} would need "
                            f"{start + nbytes} B ({start} B already given to earlier buffers) but"
                            f" {c.chip.name} has {cap} B {_core.where(c, frame)}")
    pipe.used[space] = start + nbytes
    pool._become(pipe, start, nbytes)


__all__ = ["TBufPool"]
