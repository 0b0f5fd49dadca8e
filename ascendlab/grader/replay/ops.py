"""Replay, part 3: the re-issue table. HANDLERS maps every op the grader can replay to its
handler(replayer, core, event): DMA, cube, scalar access and synchronisation here, the vector
instructions in replay_vector.py; TPipe/TQue events are checked against the queue state machine
and re-emitted as recorded. A new instruction in the runtime needs one handler;
tests/grader/test_replay.py checks that the runtime's instructions are all covered."""

from __future__ import annotations

import sys
from typing import Any

from ...runtime import core as _core
from ...runtime.core import CoreState
from ...runtime.cube import fixpipe as _cube_fixpipe
from ...runtime.cube import img2col as _img2col
from ...runtime.cube import mmad as _cube
from ...runtime.dma import copy as _dma
from ...runtime.enums import FixpipeConfig, HardEvent, PipeID, TPosition
from ...runtime.params import (
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyParams,
    FixpipeParamsV220,
    LoadData2DParams,
    LoadData3DParamsV1,
    LoadData3DParamsV2,
    LoadData3DParamsV2Pro,
    MmadParams,
    Nd2NzParams,
)
from ...runtime.sync import cross_core as _xc
from ...runtime.sync import flags as _sync
from ...runtime.trace import OPS, Access, Event
from .operands import _POS, NamedTensor, Replayer
from .operands import trampoline as _trampoline
from .rows import ROW_HANDLERS
from .vector import VECTOR_HANDLERS


def _data_copy(rp: Replayer, c: CoreState, e: Event) -> None:
    args = dict(e.args)
    dt = e.dtype
    if "count" in args:
        arg: Any = args["count"]
    else:
        p = tuple(args["params"])
        arg = Nd2NzParams(*p) if len(p) == 8 else DataCopyParams(*p)
    if e.reads and e.writes:
        src = rp.operand(c, e.reads[0], dt)
        dst = rp.operand(c, e.writes[0], dt, pos=TPosition.A1 if e.writes[0].space == "L1"
                         else None)
    else:  # ND2NZ with a zero size: no Access recorded, nothing moves
        src = rp.glob(Access("GM", rp.allocs[0].base, 0, "", 0, 0), dt)
        dst = rp.dummy_local(c, "L1", dt)
    _trampoline(e.file, e.line, False)(_dma.data_copy, (dst, src, arg), {})


def _data_copy_pad(rp: Replayer, c: CoreState, e: Event) -> None:
    args = dict(e.args)
    dt = e.dtype
    p = tuple(args["params"])
    params = DataCopyExtParams(*p) if len(p) == 5 else DataCopyParams(*p)
    src = rp.operand(c, e.reads[0], dt)
    dst = rp.operand(c, e.writes[0], dt)
    call_args: tuple = (dst, src, params)
    if e.writes[0].space == "UB":
        pv = args["pad_value"]
        call_args += (DataCopyPadExtParams(None, pv is not None, args["left"], args["right"],
                                           0 if pv is None else pv),)
    _trampoline(e.file, e.line, False)(_dma.data_copy_pad, call_args, {})


def _load_data(rp: Replayer, c: CoreState, e: Event) -> None:
    p = LoadData2DParams(*dict(e.args)["params"])
    dt = e.dtype
    if not e.reads:  # repeat_times 0: a no-op
        dst = rp.dummy_local(c, "L0A", dt)
        src = rp.dummy_local(c, "L1", dt, TPosition.A1)
    else:
        w, r = e.writes[0], e.reads[0]
        dpos = {"L0A": TPosition.A2, "L0B": TPosition.B2}.get(w.space, TPosition.A1)
        dst = rp.local(c, w, dt, pos=dpos)
        start = r.addr - int(p.start_index) * _cube.FRACTAL
        if r.space == "GM":
            src = rp.glob(Access("GM", start, 0, r.name, 0, 0), dt)
        else:
            spos = TPosition.B1 if dpos == TPosition.B2 else TPosition.A1
            src = rp.local(c, r, dt, start, pos=spos)
    _trampoline(e.file, e.line, False)(_cube.load_data, (dst, src, p), {})


def _load_data_3d(rp: Replayer, c: CoreState, e: Event) -> None:
    """Re-issue a load_3d as the v2 (window) or v1 (fractal) load its resolved args describe."""
    a = dict(e.args)
    dt = e.dtype
    if "v2pro" in a:  # a zero-extension V2Pro: a no-op without operands
        dst = rp.dummy_local(c, "L0A", dt, TPosition.A2)
        src = rp.dummy_local(c, "L1", dt, TPosition.A1)
        p0 = LoadData3DParamsV2Pro(*a["v2pro"])
        _trampoline(e.file, e.line, False)(_cube.load_data, (dst, src, p0), {})
        return
    g = _img2col.Geometry(*a["geometry"])
    dst = rp.local(c, e.writes[0], dt, pos=TPosition.A2)
    src = rp.local(c, e.reads[0], dt, pos=TPosition.A1)
    if "repeat" in a:  # v1
        c0 = 32 // dst.dtype.itemsize
        ho, wo = g.out_hw()
        pl, _, pt, _ = g.pad_list
        p0, tap0 = a["p0"], a["tap0"]
        rep, mode, jump = a["repeat"]
        fw = tap0 % g.filter_w
        fh = tap0 // g.filter_w % g.filter_h
        c1 = g.channel_size // c0 - 1
        p: Any = LoadData3DParamsV1(g.pad_list, g.l1_h, g.l1_w, c1, fw, fh,
                                    p0 % wo * g.stride_w - pl, p0 // wo * g.stride_h - pt,
                                    g.stride_w, g.stride_h, g.filter_w, g.filter_h,
                                    g.dilation_w, g.dilation_h, jump, mode, rep, 0, g.pad_value)
    else:
        (k0, kx), (m0, mx) = a["k"], a["m"]
        p = LoadData3DParamsV2(g.pad_list, g.l1_h, g.l1_w, g.channel_size, kx, mx, k0, m0,
                               g.stride_w, g.stride_h, g.filter_w % 256, g.filter_h % 256,
                               g.dilation_w, g.dilation_h, a["transpose"], g.pad_value,
                               g.filter_w >= 256, g.filter_h >= 256)
    _trampoline(e.file, e.line, False)(_cube.load_data, (dst, src, p), {})


def _xset_one(flag_id: int, mode_id: int, pipe: str, to: int) -> None:
    """One receiver's share of a cross_core_set_flag, issued as the runtime issues it."""
    frame = sys._getframe(1)
    c = _core.core()
    op = "cross_core_set_flag"
    fid, mode, p = _xc._check(op, c, flag_id, mode_id, PipeID[f"PIPE_{pipe}"], frame)
    if to not in _xc._peers(c, mode):
        raise ValueError(f"{op}: core {c.idx} does not signal core {to} in mode {mode}")
    _xc.signal(c, fid, mode, p, to, frame)


def _xwait_one(flag_id: int, mode_id: int, pipe: str, frm: int) -> None:
    """One sender's share of a cross_core_wait_flag: it must consume a set replayed before."""
    frame = sys._getframe(1)
    c = _core.core()
    op = "cross_core_wait_flag"
    fid, mode, p = _xc._check(op, c, flag_id, mode_id, PipeID[f"PIPE_{pipe}"], frame)
    if frm not in _xc._peers(c, mode):
        raise ValueError(f"{op}: core {c.idx} does not wait for core {frm} in mode {mode}")
    q = _xc._counters(c).get((frm, c.idx, mode, fid))
    if not q:
        raise ValueError(f"{op}: core {c.idx} passes a wait on flag {fid} that core {frm} has "
                         "not set")
    _xc.consume(c, fid, mode, p, frm, q.popleft(), frame)


def _cross_core(rp: Replayer, c: CoreState, e: Event) -> None:
    """A cross-core flag event (one per receiver / sender): re-derived from its args."""
    a = dict(e.args)
    if e.reads or e.writes or e.count or e.dtype or e.repeats:
        raise ValueError(f"{e.op} records no operands")
    if e.op == "cross_core_set_flag":
        if set(a) != {"flag_id", "mode_id", "pipe", "to"}:
            raise ValueError("cross_core_set_flag event is malformed")
        fn: Any = _xset_one
        peer = a["to"]
    else:
        if set(a) != {"flag_id", "mode_id", "pipe", "from"}:
            raise ValueError("cross_core_wait_flag event is malformed")
        fn = _xwait_one
        peer = a["from"]
    _trampoline(e.file, e.line, False)(fn, (int(a["flag_id"]), int(a["mode_id"]),
                                            str(a["pipe"]), int(peer)), {})


def _mmad(rp: Replayer, c: CoreState, e: Event) -> None:
    a = dict(e.args)
    at, bt, ct = a["dtypes"]
    params = MmadParams(a["m"], a["n"], a["k"], a["unit_flag"], a["fm_offset"],
                        a["filter_offset"], False, False, bool(a["init"]),
                        a["k_direction_align"])
    if e.reads:
        fm, filt = rp.local(c, e.reads[0], at), rp.local(c, e.reads[1], bt)
        dst = rp.local(c, e.writes[0], ct)
    else:
        fm, filt = rp.dummy_local(c, "L0A", at), rp.dummy_local(c, "L0B", bt)
        dst = rp.dummy_local(c, "L0C", ct)
    _trampoline(e.file, e.line, False)(_cube.mmad, (dst, fm, filt, params), {})


def _fixpipe(rp: Replayer, c: CoreState, e: Event) -> None:
    a = dict(e.args)
    p = FixpipeParamsV220(*a["params"])
    dt = e.dtype
    src_dt = "float32" if a["quant"] == "F322F16" else dt
    if e.reads:
        src = rp.local(c, e.reads[0], src_dt)
        dst = rp.glob(e.writes[0], dt)
    else:
        src = rp.dummy_local(c, "L0C", src_dt)
        dst = rp.glob(Access("GM", rp.allocs[0].base, 0, "", 0, 0), dt)
    _trampoline(e.file, e.line, False)(_cube_fixpipe.fixpipe, (dst, src, p),
                                       {"config": FixpipeConfig[a["config"]]})


def _scalar_access(rp: Replayer, c: CoreState, e: Event) -> None:
    ops = e.reads if e.op == "get_value" else e.writes
    if len(ops) != 1 or (e.reads and e.writes):
        raise ValueError(f"{e.op} reads or writes exactly one element; the event has "
                         f"{len(e.reads)} read(s) and {len(e.writes)} write(s)")
    a = ops[0]
    if a.space == "GM":
        t: Any = rp.glob(a, e.dtype)
    else:
        t = rp.local(c, a, e.dtype, cls=NamedTensor)
    tramp = _trampoline(e.file, e.line, False)
    if e.op == "get_value":
        tramp(t.get_value, (0,), {})
    else:
        tramp(t.set_value, (0, dict(e.args)["value"]), {})


def _flag(rp: Replayer, c: CoreState, e: Event) -> None:
    a = dict(e.args)
    fn = _sync.set_flag if e.op == "set_flag" else _sync.wait_flag
    _trampoline(e.file, e.line, False)(fn, (HardEvent[a["event"]], a["event_id"]), {})


def _barrier(rp: Replayer, c: CoreState, e: Event) -> None:
    pid = PipeID[dict(e.args)["pipe"]]
    _trampoline(e.file, e.line, False)(_sync.pipe_barrier, (pid,), {})


def _sync_all(rp: Replayer, c: CoreState, e: Event) -> None:
    if e.args:
        raise ValueError("sync_all records no arguments")
    _trampoline(e.file, e.line, False)(_sync.sync_all, (), {})


_FREE, _ALLOCATED, _ENQUEUED, _DEQUEUED = range(4)


def _learn(info: list, k: int, pipe: str, op: str, q: int) -> None:
    """Record (or check) queue q's producer (k=2) or consumer (k=3) pipe."""
    if info[k] is None:
        info[k] = pipe
    elif info[k] != pipe:
        side = "producer" if k == 2 else "consumer"
        raise ValueError(f"{op}: queue {q}'s {side} pipe is {info[k]}, not {pipe}")


def _edge(s: Any, kind: str, src: str | None, dst: str, op: str) -> None:
    if s is None or s.kind != kind or s.src != src or s.dst != dst:
        raise ValueError(f"{op}: expected a {kind} edge {src} -> {dst}, got {s}")


def _framework(rp: Replayer, c: CoreState, e: Event) -> None:
    """init_buffer / alloc_tensor / enque / deque / free_tensor: checked, then re-emitted."""
    a = dict(e.args)
    if e.reads or e.writes or e.count or e.dtype or e.repeats:
        raise ValueError(f"{e.op} records no operands")
    if e.op == "init_buffer":
        if e.sync is not None or e.pipe != "S" or set(a) != {"queue", "space", "addr", "num",
                                                             "len"}:
            raise ValueError("init_buffer event is malformed")
        space, addr, num, nbytes, q = a["space"], a["addr"], a["num"], a["len"], a["queue"]
        if space not in _POS or num < 1 or nbytes < 32 or nbytes % 32 or addr % 32 or (
                addr < 0 or addr + num * nbytes > c.chip.capacity(space)):
            raise ValueError(f"init_buffer: {num} x {nbytes} B at {space}+{addr} is not a "
                             f"valid carve of {space}")
        old = rp.queues.get((c.idx, q))
        for i in range(old[1] if old else 0):
            rp.qstate.pop((c.idx, q, i), None)
        for (core, _sp), per_space in rp.slots.items():
            if core == c.idx:
                per_space.pop(q, None)
        rp.slots.setdefault((c.idx, space), {})[q] = (
            [addr + i * nbytes for i in range(num)], nbytes)
        rp.queues[(c.idx, q)] = [space, num, None, None]
        rp.forget_locals()
        for i in range(num):
            rp.qstate[(c.idx, q, i)] = [_FREE, False]
    else:
        if set(a) != {"queue", "slot"}:
            raise ValueError(f"{e.op} event is malformed")
        q, slot = a["queue"], a["slot"]
        info = rp.queues.get((c.idx, q))
        st = rp.qstate.get((c.idx, q, slot))
        if info is None or st is None:
            raise ValueError(f"{e.op}: queue {q} slot {slot} was never given buffers")
        s = e.sync
        if s is not None and (tuple(s.key) != ("que", q, slot) or s.implicit):
            raise ValueError(f"{e.op}: the sync edge {s} is not queue {q} slot {slot}'s")
        # info: [space, num, producer pipe, consumer pipe] (learnt from the first events)
        if e.op in ("alloc_tensor", "enque", "pool_reset"):
            _learn(info, 2, e.pipe, e.op, q)
        else:
            _learn(info, 3, e.pipe, e.op, q)
        if e.op == "alloc_tensor":
            if st[0] != _FREE:
                raise ValueError(f"alloc_tensor: queue {q} slot {slot} is not free")
            if st[1]:  # freed before: waits for the consumer's free (WAR)
                _edge(s, "wait", info[3], e.pipe, e.op)
            elif s is not None:
                raise ValueError("alloc_tensor of a never-freed slot waits for nothing")
            st[0] = _ALLOCATED
        elif e.op == "pool_reset":  # TBufPool.reset waits for a freed slot's flag
            if st[0] != _FREE or not st[1]:
                raise ValueError(f"pool_reset: queue {q} slot {slot} has no free to wait for")
            _edge(s, "wait", info[3], e.pipe, e.op)
            st[1] = False
        elif e.op == "enque":
            if st[0] != _ALLOCATED:
                raise ValueError(f"enque: queue {q} slot {slot} is not allocated")
            if s is None or s.kind != "set" or s.src != e.pipe:
                raise ValueError("enque must set a flag from the producer pipe")
            _learn(info, 3, s.dst, e.op, q)
            st[0] = _ENQUEUED
        elif e.op == "deque":
            if st[0] != _ENQUEUED:
                raise ValueError(f"deque: queue {q} slot {slot} was not enqueued")
            _edge(s, "wait", info[2], e.pipe, e.op)
            st[0] = _DEQUEUED
        else:
            if st[0] not in (_ALLOCATED, _DEQUEUED):
                raise ValueError(f"free_tensor: queue {q} slot {slot} is not in use")
            if info[2] is None:
                raise ValueError("free_tensor of a slot nothing allocated")
            _edge(s, "set", e.pipe, info[2], e.op)
            st[0] = _FREE
            st[1] = True
    c.append(e)
    if e.sync is not None and e.sync.kind == "wait" and e.pipe == "V":
        c.v_pending.clear()  # as framework/queue.py does: a wait on V orders earlier vector work


HANDLERS: dict[str, Any] = {
    **VECTOR_HANDLERS,
    **ROW_HANDLERS,
    "data_copy": _data_copy,
    "data_copy_pad": _data_copy_pad,
    "load_data": _load_data,
    "load_data_3d": _load_data_3d,
    "cross_core_set_flag": _cross_core,
    "cross_core_wait_flag": _cross_core,
    "mmad": _mmad,
    "fixpipe": _fixpipe,
    "get_value": _scalar_access,
    "set_value": _scalar_access,
    "set_flag": _flag,
    "wait_flag": _flag,
    "pipe_barrier": _barrier,
    "sync_all": _sync_all,
    **{op: _framework for op in ("init_buffer", "alloc_tensor", "enque", "deque",
                                 "free_tensor", "pool_reset")},
}
REPLAYABLE_OPS = frozenset(HANDLERS)


def expected_pipe(e: Event) -> str:
    """The pipe op e.op always runs on (the op registry, trace.OPS), checked before re-issuing
    so that a forged pipe cannot slip through an op that records its own pipe; ops whose
    operands or sync edge decide (DMA, flags, barriers, queues) keep the recorded one, which
    the re-issued event is compared with."""
    info = OPS.get(e.op)
    return info.pipe if info is not None and info.pipe else e.pipe


__all__ = ["HANDLERS", "REPLAYABLE_OPS", "Replayer", "expected_pipe"]
