"""Data movement between GM and local memories: data_copy and data_copy_pad.

Which pipe moves the bytes depends on the route (ADK 核内同步能力概述): GM->UB/L1 is MTE2,
UB->GM and UB->L1 are MTE3, UB->UB is the vector pipe, L1->UB is MTE1.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import (
    AlignmentError,
    DTypeError,
    EmptyHandleError,
    ParamError,
    PositionError,
)
from .. import core as _core
from ..core import access, emit, finding, site
from ..memory.checks import blocks, gm_span, local_span
from ..memory.tensor import GlobalTensor, LocalTensor
from ..params import (
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    Nd2NzParams,
)
from ..trace import event, register_op
from . import atomic as _atomic

# DMA moves: the pipe follows the route (MTE2 into a core, MTE3 out of it, V inside UB)
register_op("data_copy", "", "dma", module=__name__)
register_op("data_copy_pad", "", "dma", module=__name__)

_getframe = sys._getframe
_new = tuple.__new__
_as_strided = np.lib.stride_tricks.as_strided

_ROUTE_PIPE = {("GM", "UB"): "MTE2", ("GM", "L1"): "MTE2", ("UB", "GM"): "MTE3",
               ("UB", "UB"): "V", ("UB", "L1"): "MTE3", ("L1", "UB"): "MTE1"}


def _operand(c: Any, t: Any, nbytes: int, op: str, role: str, frame: Any,
             write: bool = False) -> tuple[str, np.ndarray, int, int, str]:
    """(space, byte buffer, index of t's first byte in it, trace address, name) of a copy
    operand whose `nbytes` from its start are read (or written), after the alignment/bounds
    checks."""
    if type(t) is LocalTensor:
        space = t.space
        if space is None:
            raise EmptyHandleError(f"{op}: {role} is an empty LocalTensor handle")
        a = t.addr
        if a & 31:
            raise AlignmentError(f"{op}: {role} {t.describe()} starts at {space}+{a}, not 32 B "
                                 f"aligned {_core.where(c, frame)}")
        if a + nbytes > t.hi:
            local_span(c, t, 0, nbytes, op, role, frame)
        return space, t.arr.base, a, a, t.name
    if type(t) is GlobalTensor:
        g = t.alloc
        if g is None:
            raise ValueError(f"{op}: {role} GlobalTensor used before set_global_buffer")
        off = t.offset
        if off < 0 or off + nbytes > g.nbytes:
            gm_span(c, t, 0, nbytes, op, frame)
        if write:
            if not g.idx0:
                g.private()
            g.mark_written()
        return "GM", g.buf, g.idx0 + off, g.base + off, g.name
    raise TypeError(f"{op}: {role} must be a LocalTensor or GlobalTensor, got "
                    f"{type(t).__name__}")


def _pipe(op: str, ss: str, ds: str, c: Any, frame: Any) -> str:
    """The pipe that moves bytes from space ss to ds."""
    pipe = _ROUTE_PIPE.get((ss, ds))
    if pipe is None and {ss, ds} & {"L0A", "L0B", "L0C"}:
        raise PositionError(f"{op} cannot move {ss} -> {ds}: L0A/L0B are filled by load_data "
                            f"(from L1), L0C by mmad and drained by fixpipe "
                            f"{_core.where(c, frame)}")
    if pipe is None:
        raise NotImplementedError(f"{op}: the route {ss} -> {ds} is not emulated; emulated "
                                  "routes: " + ", ".join(f"{a}->{b}" for a, b in _ROUTE_PIPE)
                                  + ". Cube paths use load_data (L1->L0A/L0B) and fixpipe "
                                  "(L0C->GM).")
    if "L1" in (ss, ds) and "UB" in (ss, ds) and c.chip.layout != "coupled":
        raise NotImplementedError(f"{op}: {ss} -> {ds} needs a coupled chip (310P); on "
                                  f"{c.chip.name} UB and L1 sit in different cores")
    return pipe


def _same_dtype(op: str, dst: Any, src: Any) -> None:
    if src.dtype is not dst.dtype and src.dtype != dst.dtype:
        raise DTypeError(f"{op}: dst is {dst.dtype.name} but src is {src.dtype.name}; "
                         f"data_copy does not convert (use cast)")


def data_copy(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """DMA between GM and local memory: `data_copy(dst, src, count)` (count*sizeof floored to
    32 B, as the NPU does) or `data_copy(dst, src, repeat_params=DataCopyParams(...))`."""
    frame = _getframe(1)
    if len(args) == 1 and not kwargs:
        arg = args[0]
        if type(arg) is int:  # the count form, the common case
            _copy_count(dst, src, arg, frame)
            return
    elif not args and len(kwargs) == 1:
        (key, arg), = kwargs.items()
        if key not in ("count", "repeat_params", "intri_params"):
            raise TypeError(f"data_copy() got an unexpected keyword argument {key!r} "
                            "(pyasc names: count, repeat_params, intri_params)")
    else:
        raise NotImplementedError("data_copy with enhanced params or slice lists is not "
                                  "emulated; use the count or DataCopyParams form")
    if isinstance(arg, DataCopyParams):
        _copy_params(dst, src, arg, frame)
    elif isinstance(arg, Nd2NzParams):
        from .nd2nz import copy_nd2nz
        copy_nd2nz(dst, src, arg, frame)
    elif hasattr(arg, "__index__"):
        _copy_count(dst, src, arg.__index__(), frame)
    else:
        raise NotImplementedError(f"data_copy with {type(arg).__name__} is not emulated; "
                                  "emulated: count, DataCopyParams, Nd2NzParams")


def _local(c: Any, space: str, addr: int, nbytes: int, name: str, frame: Any) -> tuple:
    """The fast copy paths' entry for a recurring local operand at one call site: (its Access
    as a 1-tuple, its bytes as a memoryview of the core's memory (a memoryview slice copies in
    half the time of a numpy one), the site's (file, line, code): the entry holds the code
    object, so the id in its key stays unique)."""
    return ((access(space, addr, nbytes, name),),
            memoryview(c.mem(space))[addr:addr + nbytes], site(c, frame))


def _copy_count(dst: Any, src: Any, count: int, frame: Any) -> None:
    c = _core.current or _core.core()
    dt = dst.dtype
    if src.dtype is not dt:
        _same_dtype("data_copy", dst, src)
    isz = dt.itemsize
    want = count * isz
    nbytes = want & ~31
    if nbytes != want or count < 0:  # -8 x float32 is a multiple of 32 B too
        if count < 0:
            raise ParamError(f"data_copy: count must be >= 0, got {count} "
                             f"{_core.where(c, frame)}")
        finding(c, f"data_copy: {count} x {dt.name} = {want} B is not a multiple of "
                f"32 B; the NPU moves only {nbytes} B ({nbytes // isz} elements). Use "
                f"data_copy_pad for unaligned lengths", frame)
    memo = c.memo  # local accesses and args recur from tile to tile: share them
    args = memo.get(count)  # int keys: the args of a count-form copy
    if args is None:
        args = memo[count] = (("count", count),)
    # The two routes of nearly every copy (GM -> UB/L1 on MTE2, UB -> GM on MTE3) on operands
    # that pass every check take this path; anything else (and every error) the general one.
    if type(src) is GlobalTensor and type(dst) is LocalTensor:
        g, off, a, space = src.alloc, src.offset, dst.addr, dst.space
        if (g is not None and (space == "UB" or space == "L1") and not a & 31
                and a + nbytes <= dst.hi and 0 <= off and off + nbytes <= g.nbytes
                and dst.c is c):
            key = (space, a, nbytes, dst.name, id(frame.f_code), frame.f_lasti)
            local = memo.get(key)
            if local is None:
                local = memo[key] = _local(c, space, a, nbytes, dst.name, frame)
            if nbytes:
                si = g.idx0 + off
                local[1][:] = g.mv[si:si + nbytes]
            where = local[2]
            c.append(event(c.idx, "MTE2", "data_copy",
                           (access("GM", g.base + off, nbytes, g.name),), local[0],
                           nbytes // isz, dt.name, 1, where[0], where[1], None, args))
            return
    elif type(dst) is GlobalTensor and type(src) is LocalTensor:
        g, off, a = dst.alloc, dst.offset, src.addr
        if (g is not None and src.space == "UB" and not a & 31 and a + nbytes <= src.hi
                and 0 <= off and off + nbytes <= g.nbytes and src.c is c
                and not (c.lib and _atomic.mode_of(c))):  # atomic stores: the general path
            if not g.idx0:
                g.private()
            g.written = True  # GMAlloc.mark_written, inline
            g.version += 1
            key = ("UB", a, nbytes, src.name, id(frame.f_code), frame.f_lasti)
            local = memo.get(key)
            if local is None:
                local = memo[key] = _local(c, "UB", a, nbytes, src.name, frame)
            if nbytes:
                di = g.idx0 + off
                g.mv[di:di + nbytes] = local[1]
            where = local[2]
            c.append(event(c.idx, "MTE3", "data_copy", local[0],
                           (access("GM", g.base + off, nbytes, g.name),),
                           nbytes // isz, dt.name, 1, where[0], where[1], None, args))
            return
    ds, dbuf, di, daddr, dname = _operand(c, dst, nbytes, "data_copy", "dst", frame, True)
    ss, sbuf, si, saddr, sname = _operand(c, src, nbytes, "data_copy", "src", frame)
    pipe = _pipe("data_copy", ss, ds, c, frame)
    atom = _atomic.mode_of(c) if ds == "GM" and c.lib else None  # set_atomic_*: combine
    if nbytes:
        if atom is None:
            dbuf[di:di + nbytes] = sbuf[si:si + nbytes]
        else:
            _atomic.store(atom, dbuf[di:di + nbytes], sbuf[si:si + nbytes])
    if ss == "GM":
        reads = (access(ss, saddr, nbytes, sname),)
    else:
        key = (ss, saddr, nbytes, sname)
        reads = memo.get(key) or memo.setdefault(key, (access(*key),))
    if ds == "GM":
        writes = (access(ds, daddr, nbytes, dname),)
    else:
        key = (ds, daddr, nbytes, dname)
        writes = memo.get(key) or memo.setdefault(key, (access(*key),))
    if atom is not None:
        args += _atomic.event_args(atom)
    where = site(c, frame)
    c.append(event(c.idx, pipe, "data_copy", reads, writes, nbytes // isz, dt.name, 1,
                   where[0], where[1], None, args))


def _copy_params(dst: Any, src: Any, p: DataCopyParams, frame: Any) -> None:
    c = _core.core()
    _same_dtype("data_copy", dst, src)
    n, blen, sgap, dgap = (int(v) for v in p)
    for name, v, hi in (("block_count", n, 4095), ("block_len", blen, 65535),
                        ("src_stride", sgap, 65535), ("dst_stride", dgap, 65535)):
        if not 0 <= v <= hi:
            raise ParamError(f"data_copy: DataCopyParams.{name}={v} is outside [0, {hi}] "
                             f"{_core.where(c, frame)}")
    blen_b, sstride, dstride = blen * 32, (blen + sgap) * 32, (blen + dgap) * 32
    span_s = (n - 1) * sstride + blen_b if n and blen else 0
    span_d = (n - 1) * dstride + blen_b if n and blen else 0
    ds, dbuf, di, daddr, dname = _operand(c, dst, span_d, "data_copy", "dst", frame, True)
    ss, sbuf, si, saddr, sname = _operand(c, src, span_s, "data_copy", "src", frame)
    pipe = _pipe("data_copy", ss, ds, c, frame)
    atom = _atomic.mode_of(c) if ds == "GM" and c.lib else None
    if span_d:
        if atom is None:
            blocks(dbuf, di, n, blen_b, dstride)[...] = blocks(sbuf, si, n, blen_b, sstride)
        else:
            _atomic.store(atom, blocks(dbuf, di, n, blen_b, dstride),
                          blocks(sbuf, si, n, blen_b, sstride))
    moved = n * blen_b if blen else 0
    emit(c, pipe, "data_copy", (access(ss, saddr, blen_b, sname, n, sstride),),
         (access(ds, daddr, blen_b, dname, n, dstride),), moved // dst.dtype.itemsize,
         dst.dtype.name, n, frame, None,
         (("params", tuple(p)),) + (_atomic.event_args(atom) if atom else ()))


def data_copy_pad(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """Unaligned DMA. GM->UB: `data_copy_pad(dst, src, DataCopyExtParams, DataCopyPadExtParams)`
    pads each block to 32 B in UB; UB->GM: `data_copy_pad(dst, src, DataCopyExtParams)` writes
    exactly block_len bytes per block. block_len is in bytes; the GM-side stride is in bytes, the
    UB-side stride in 32 B blocks. The legacy DataCopyParams/DataCopyPadParams forms work too."""
    frame = _getframe(1)
    names = ("data_copy_params", "pad_params")
    if len(args) > 2 or any(k not in names for k in kwargs):
        raise TypeError("data_copy_pad(dst, src, data_copy_params[, pad_params])")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    p = bound.get("data_copy_params")
    pad = bound.get("pad_params")
    if not isinstance(p, (DataCopyExtParams, DataCopyParams)):
        raise TypeError(f"data_copy_pad: data_copy_params must be DataCopyExtParams, got "
                        f"{type(p).__name__}")
    c = _core.core()
    _same_dtype("data_copy_pad", dst, src)
    ss = "GM" if isinstance(src, GlobalTensor) else getattr(src, "space", None)
    ds = "GM" if isinstance(dst, GlobalTensor) else getattr(dst, "space", None)
    if (ss, ds) not in (("GM", "UB"), ("UB", "GM")):
        raise NotImplementedError(f"data_copy_pad: route {ss} -> {ds} is not emulated "
                                  f"(GM->UB and UB->GM are)")
    n, blen, sgap, dgap = (int(v) for v in tuple(p)[:4])
    if not 0 <= n <= 4095 or not 0 <= blen <= 2097151 or sgap < 0 or dgap < 0:
        raise ParamError(f"data_copy_pad: block_count={n} must be in [0, 4095], "
                         f"block_len={blen} B in [0, 2097151], strides >= 0 "
                         f"{_core.where(c, frame)}")
    isz = dst.dtype.itemsize
    left = right = 0
    pad_value: Any = None
    if ds == "UB":
        if isinstance(pad, DataCopyPadExtParams):
            left, right = int(pad.left_padding), int(pad.right_padding)
            pad_value = pad.padding_value if pad.is_pad else None
        elif isinstance(pad, DataCopyPadParams):
            if pad.padding_value != 0:
                raise ParamError("data_copy_pad: DataCopyPadParams.padding_value must be 0 "
                                 "(use DataCopyPadExtParams for other values)")
            left, right = int(pad.left_padding), int(pad.right_padding)
            pad_value = 0 if pad.is_pad else None
        elif pad is not None:
            raise TypeError(f"data_copy_pad: pad_params must be DataCopyPadExtParams, got "
                            f"{type(pad).__name__}")
        if left * isz > 32 or right * isz > 32:
            raise ParamError(f"data_copy_pad: left_padding={left} / right_padding={right} "
                             f"elements exceed 32 B per side {_core.where(c, frame)}")
        if blen % isz:
            raise ParamError(f"data_copy_pad: block_len={blen} B is not a whole number of "
                             f"{dst.dtype.name} elements {_core.where(c, frame)}")
        ub_block = (left * isz + blen + right * isz + 31) // 32 * 32
        sstride, dstride = blen + sgap, ub_block + dgap * 32
        gm_t, ub_t = src, dst
    else:
        ub_block = (blen + 31) // 32 * 32
        sstride, dstride = ub_block + sgap * 32, blen + dgap
        gm_t, ub_t = dst, src
    gm_stride = sstride if ds == "UB" else dstride
    ub_stride = dstride if ds == "UB" else sstride
    ub_span = (n - 1) * ub_stride + ub_block if n and blen else 0
    gm_span = (n - 1) * gm_stride + blen if n and blen else 0
    _, ubuf, ui, uaddr, uname = _operand(c, ub_t, ub_span, "data_copy_pad", "UB", frame)
    _, gbuf, gi, gaddr, gname = _operand(c, gm_t, gm_span, "data_copy_pad", "GM", frame,
                                         ds == "GM")
    pipe = _pipe("data_copy_pad", ss, ds, c, frame)
    atom = _atomic.mode_of(c) if ds == "GM" and c.lib else None
    if n and blen:
        gm_blocks = blocks(gbuf, gi, n, blen, gm_stride)
        if ds == "UB":
            ub_blocks = blocks(ubuf, ui, n, ub_block, ub_stride)
            data = gm_blocks.view(dst.dtype.np)  # (n, blen / isz)
            fill = (np.asarray(pad_value).astype(dst.dtype.np) if pad_value is not None
                    else data[:, :1])  # dummy data: the burst's first element (ADK)
            typed = ub_blocks.view(dst.dtype.np)  # (n, ub_block / isz)
            typed[:] = fill
            typed[:, left:left + blen // isz] = data
        elif atom is None:
            gm_blocks[...] = blocks(ubuf, ui, n, blen, ub_stride)
        else:
            _atomic.store(atom, gm_blocks, blocks(ubuf, ui, n, blen, ub_stride))
    # GM->UB writes whole padded blocks; UB->GM reads only block_len bytes of each
    ub_acc = access("UB", uaddr, ub_block if ds == "UB" else blen, uname, n, ub_stride)
    gm_acc = access("GM", gaddr, blen, gname, n, gm_stride)
    reads, writes = ((gm_acc,), (ub_acc,)) if ds == "UB" else ((ub_acc,), (gm_acc,))
    emit(c, pipe, "data_copy_pad", reads, writes, n * blen // isz, dst.dtype.name, n, frame,
         None, (("params", tuple(p)), ("left", left), ("right", right),
                ("pad_value", pad_value)) + (_atomic.event_args(atom) if atom else ()))
