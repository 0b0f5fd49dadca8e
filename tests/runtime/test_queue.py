"""TPipe / TQue / TBuf: slots, the queue state machine, its sync edges, and every rule."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import CapacityError, OutOfBoundsError, QueueError
from ascendlab.runtime.core import MemcheckWarning

X = np.zeros(1024, np.float32)


def launch(kernel, *args, **kw):
    return ascendlab.launch(kernel, 1, X, *args, **kw)


@asc.jit
def queue_cycle(x: asc.GlobalAddress, n: int, depth: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, depth)
    pipe.init_buffer(q, 2, 1000)  # rounded up to 1024 B
    for _ in range(n):
        t = q.alloc_tensor(asc.float16)
        q.enque(t)
        u = q.deque(asc.float16)
        q.free_tensor(u)


def test_slots_round_up_to_32_bytes_and_alternate():
    run = launch(queue_cycle, 3, 1)
    init = run.events(op="init_buffer")[0]
    assert dict(init.args)["len"] == 1024 and dict(init.args)["num"] == 2
    slots = [dict(e.args)["slot"] for e in run.events(op="alloc_tensor")]
    assert slots == [0, 1, 0]


def test_queue_sync_edges_are_raw_and_war_flags():
    run = launch(queue_cycle, 3, 1)
    edges = [(e.op, e.pipe, e.sync.kind, e.sync.src, e.sync.dst, e.sync.key)
             for e in run.trace if e.sync is not None]
    assert edges[:3] == [
        ("enque", "MTE2", "set", "MTE2", "V", ("que", 0, 0)),
        ("deque", "V", "wait", "MTE2", "V", ("que", 0, 0)),
        ("free_tensor", "V", "set", "V", "MTE2", ("que", 0, 0)),
    ]
    # The first alloc of a slot waits for nothing; the next alloc of slot 0 waits for its free.
    allocs = run.events(op="alloc_tensor")
    assert allocs[0].sync is None and allocs[1].sync is None
    assert allocs[2].sync.kind == "wait" and allocs[2].sync.key == ("que", 0, 0)
    assert allocs[2].sync.src == "V" and allocs[2].sync.dst == "MTE2"


def test_vecout_queue_pipes_are_vector_to_mte3():
    @asc.jit
    def out_q(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(q, 1, 256)
        t = q.alloc_tensor(asc.float32)
        q.enque(t)
        q.free_tensor(q.deque(asc.float32))

    run = launch(out_q)
    assert [(e.op, e.pipe) for e in run.trace[1:]] == [
        ("alloc_tensor", "V"), ("enque", "V"), ("deque", "MTE3"), ("free_tensor", "MTE3")]


@asc.jit
def deque_empty(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    q.deque(asc.float32)


@asc.jit
def enque_past_depth(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 2, 256)
    q.enque(q.alloc_tensor(asc.float32))
    q.enque(q.alloc_tensor(asc.float32))


@asc.jit
def alloc_exhausted(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(q, 2, 256)
    q.alloc_tensor(asc.float32)
    q.alloc_tensor(asc.float32)
    q.alloc_tensor(asc.float32)


@asc.jit
def free_wrong_queue(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    qa = asc.TQue(asc.TPosition.VECIN, 1)
    qb = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(qa, 1, 256)
    pipe.init_buffer(qb, 1, 256)
    t = qa.alloc_tensor(asc.float32)
    qb.free_tensor(t)


@asc.jit
def double_free(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    t = q.alloc_tensor(asc.float32)
    q.free_tensor(t)
    q.free_tensor(t)


@asc.jit
def free_enqueued(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    t = q.alloc_tensor(asc.float32)
    q.enque(t)
    q.free_tensor(t)


@asc.jit
def ub_overflow(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    qa = asc.TQue(asc.TPosition.VECIN, 2)
    qb = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qa, 2, 64 * 1024)
    pipe.init_buffer(qb, 2, 64 * 1024)


@asc.jit
def too_many_que_buffers(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    qa = asc.TQue(asc.TPosition.VECIN, 1)
    qb = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(qa, 5, 256)
    pipe.init_buffer(qb, 4, 256)


@asc.jit
def two_pipes(x: asc.GlobalAddress):
    asc.TPipe()
    asc.TPipe()


@asc.jit
def use_before_init(x: asc.GlobalAddress):
    asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    q.alloc_tensor(asc.float32)


@asc.jit
def reset_invalidates(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    pipe.reset()
    q.alloc_tensor(asc.float32)


@pytest.mark.parametrize("kernel, exc, words", [
    (deque_empty, QueueError, ["deque", "empty", "core 0", "test_queue.py:"]),
    (enque_past_depth, QueueError, ["depth 1 reached", "1 tensors enqueued"]),
    (alloc_exhausted, QueueError, ["no free buffer", "2 allocated", "slot 0: allocated"]),
    (free_wrong_queue, QueueError, ["belongs to TQue(VECIN) #0", "not to this queue"]),
    (double_free, QueueError, ["double free"]),
    (free_enqueued, QueueError, ["still enqueued"]),
    (ub_overflow, CapacityError, ["UB would need 262144 B", "131072 B already", "196608 B"]),
    (too_many_que_buffers, CapacityError, ["9 queue buffers in VECIN", "limit of 8"]),
    (two_pipes, Exception, ["exactly one TPipe"]),
    (use_before_init, QueueError, ["no buffers", "init_buffer"]),
    (reset_invalidates, QueueError, ["no buffers"]),
])
def test_queue_rules(kernel, exc, words):
    with pytest.raises(exc) as info:
        launch(kernel)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_reinit_after_destroy_and_queries():
    @asc.jit
    def cycle(x: asc.GlobalAddress, out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 2)
        for i in range(3):
            pipe.destroy()
            pipe.init()
            pipe.init_buffer(q, 2, 256)
            t = q.alloc_tensor(asc.float32)
            g.set_value(4 * i, q.has_idle_buffer())
            q.enque(t)
            g.set_value(4 * i + 1, q.get_tensor_count_in_que())
            g.set_value(4 * i + 2, q.has_tensor_in_que())
            g.set_value(4 * i + 3, q.vacant_in_que())
            pipe.reset()

    out = np.zeros(12, np.int32)
    launch(cycle, out)
    assert list(out) == [1, 1, 1, 1] * 3


def test_tbuf_get_and_offsets():
    @asc.jit
    def tbuf(x: asc.GlobalAddress, out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, 1024)
        whole = buf.get(asc.float32)
        part = buf.get_with_offset(8, 64, asc.float32)
        asc.duplicate(whole, 1.0, 256)
        asc.duplicate(part, 2.0, 8)
        same = buf.alloc_tensor(asc.float32)  # pyasc: TBuf inherits alloc_tensor = get
        asc.data_copy(g, same, 64)
        buf.free_tensor(same)
        g.set_value(100, whole.get_size())
        g.set_value(101, buf.get(asc.float32, 16).get_size())

    out = np.zeros(128, np.float32)
    launch(tbuf, out)
    assert list(out[:16]) == [1.0] * 16 and list(out[16:24]) == [2.0] * 8
    assert out[100] == 256 and out[101] == 16


def test_tbuf_offset_must_be_32_byte_aligned():
    @asc.jit
    def bad(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, 1024)
        buf.get_with_offset(8, 16, asc.float32)

    with pytest.raises(ValueError, match="align to 32B"):
        launch(bad)


def test_event_ids():
    @asc.jit
    def ids(x: asc.GlobalAddress, out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        pipe = asc.TPipe()
        a = pipe.alloc_event_id(asc.HardEvent.MTE2_V)
        b = pipe.alloc_event_id(asc.HardEvent.MTE2_V)
        c = pipe.fetch_event_id(asc.HardEvent.MTE2_V)
        pipe.release_event_id(a, asc.HardEvent.MTE2_V)
        d = pipe.fetch_event_id(asc.HardEvent.MTE2_V)
        e = pipe.alloc_event_id(asc.HardEvent.V_MTE3)
        g.set_value(0, a)
        g.set_value(1, b)
        g.set_value(2, c)
        g.set_value(3, d)
        g.set_value(4, e)

    out = np.zeros(8, np.int32)
    launch(ids, out)
    assert list(out[:5]) == [0, 1, 2, 0, 0]


def test_in_place_alloc_and_deque_forms():
    @asc.jit
    def inplace(x: asc.GlobalAddress, out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 256)
        t = asc.LocalTensor(asc.float32)
        q.alloc_tensor(t)
        asc.duplicate(t, 5.0, 64)
        q.enque(t)
        u = asc.LocalTensor(asc.float32)
        q.deque(u)
        asc.data_copy(g, u, 64)
        q.free_tensor(u)

    out = np.zeros(64, np.float32)
    launch(inplace, out)
    assert (out == 5.0).all()


@asc.jit
def use_after_free(x: asc.GlobalAddress, reuse: asc.ConstExpr[bool]):
    """A tensor used after free_tensor: a vector add, then a scalar read, through the freed
    handle; with `reuse` the handle is first rebound by alloc_tensor(t) (legal)."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, 64)
    q.free_tensor(t)  # FREE
    if reuse:
        q.alloc_tensor(t)
    asc.adds(t, t, 1.0, 64)  # USE
    xg.set_value(0, t.get_value(0))


def test_use_after_free_raises_in_strict_mode():
    x = np.arange(64, dtype=np.float32)
    with pytest.raises(OutOfBoundsError) as info:
        ascendlab.launch(use_after_free, 1, x, False)
    msg = str(info.value)
    assert "adds" in msg and "released by free_tensor at test_queue.py:" in msg
    assert "use after free" in msg and "test_queue.py:" in msg.rsplit("[", 1)[1]


def test_use_after_free_is_a_sanitizer_finding_when_not_strict():
    x = np.arange(64, dtype=np.float32)
    with pytest.warns(MemcheckWarning, match="use after free"):
        run = ascendlab.launch(use_after_free, 1, x, False, strict=False, sanitize=True)
    found = [f for f in run.findings if "use after free" in f.message and f.kind == "memcheck"]
    # the add's dst and src, then the get_value
    assert [f.message.split(" ")[:2] for f in found] == [["adds:", "dst"], ["adds:", "src0"],
                                                         ["LocalTensor.get_value:", "element"]]
    # the sanitizer's racecheck sees it too: the add races the copy into the freed slot
    assert any(f.kind == "racecheck" and "use after free" in f.message for f in run.findings)


def test_a_freed_handle_rebound_by_alloc_tensor_is_usable():
    x = np.arange(64, dtype=np.float32)
    ascendlab.launch(use_after_free, 1, x, True)  # no error
    assert x[0] == 1.0  # 0 + 1


@asc.jit
def two_sites(x: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    for i in range(n):
        if i % 2:
            t = q.alloc_tensor(asc.float16)  # site A
        else:
            t = q.alloc_tensor(asc.float16)  # site B
        q.free_tensor(t)


def test_queue_events_record_their_own_line_and_are_shared_per_call_site():
    import inspect

    run = launch(two_sites, 6)
    src, first = inspect.getsourcelines(two_sites.fn)
    line_of = {tag: first + k for k, text in enumerate(src) for tag in ("site A", "site B")
               if tag in text}
    allocs = run.events(op="alloc_tensor")
    assert [e.line for e in allocs] == [line_of["site B"], line_of["site A"]] * 3
    # the first alloc of the slot waits for nothing, the later ones for the free before them
    assert allocs[0].sync is None and all(e.sync is not None for e in allocs[1:])
    # one Event object per call site (and wait or not), shared by the loop's iterations
    assert allocs[2] is allocs[4] and allocs[3] is allocs[5] and allocs[2] is not allocs[3]
    assert len({id(e) for e in run.events(op="free_tensor")}) == 1
