"""The operand checks the DMA and cube instructions share: GM and local spans (a finding for an
overrun inside the guard zone or the buffer slot, an OutOfBoundsError past it), alignment,
positions, parameter ranges, and the strided block view of a memory."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import AlignmentError, OutOfBoundsError, ParamError, PositionError
from .. import core as _core
from ..core import emit, finding
from .gm import GUARD
from .tensor import GlobalTensor, LocalTensor

_as_strided = np.lib.stride_tricks.as_strided


def gm_span(c: Any, g: GlobalTensor, lo: int, hi: int, op: str, frame: Any) -> None:
    """Report GM bytes [lo, hi) (relative to g's element 0) that fall outside the argument and
    switch the argument to its guarded device copy, where the overrun lands in a guard."""
    off = g.offset
    a = g.alloc
    if off + lo < 0 or off + hi > a.nbytes:
        isz = g.dtype.itemsize
        finding(c, f"{op}: GM bytes [{off + lo}, {off + hi}) of {a.name} (elements "
                f"{(off + lo) // isz}..{(off + hi) // isz - 1}) overrun the argument's "
                f"{a.nbytes} B ({a.nbytes // isz} elements)", frame)
        if off + lo < -GUARD or off + hi > a.nbytes + GUARD:
            raise OutOfBoundsError(f"{op}: GM access [{off + lo}, {off + hi}) of {a.name} runs "
                                   f"past its {GUARD} B guard zone {_core.where(c, frame)}")
        a.private()


def local_span(c: Any, t: LocalTensor, lo: int, hi: int, op: str, role: str, frame: Any) -> None:
    """Check local bytes [t.addr+lo, t.addr+hi) against t's buffer slot and the memory."""
    end = t.addr + hi
    if end > t.hi or t.addr + lo < 0:
        cap = c.chip.capacity(t.space)
        if end > cap:
            raise OutOfBoundsError(f"{op}: {role} bytes [{t.addr + lo}, {end}) run past the end "
                                   f"of {t.space} ({cap} B): {t.describe()} "
                                   f"{_core.where(c, frame)}")
        finding(c, f"{op}: {role} bytes [{t.addr + lo}, {end}) overrun {t.describe()} whose "
                f"buffer ends at {t.space}+{t.hi}", frame)


def blocks(buf: np.ndarray, start: int, count: int, blen: int, stride: int) -> np.ndarray:
    """count blocks of blen bytes, `stride` bytes apart, as a (count, blen) view of buf."""
    if stride == blen:
        return buf[start:start + count * blen].reshape(count, blen)
    return _as_strided(buf[start:], shape=(count, blen), strides=(stride, 1), writeable=True)


def fields(p: Any) -> tuple[int, ...]:
    return tuple(map(int, p))


def check_range(c: Any, op: str, struct: str, name: str, v: int, lo: int, hi: int,
                 frame: Any) -> None:
    if not lo <= v <= hi:
        raise ParamError(f"{op}: {struct}.{name}={v} is outside [{lo}, {hi}] "
                         f"{_core.where(c, frame)}")


def check_pos(c: Any, op: str, t: LocalTensor, role: str, allowed: Any, frame: Any) -> None:
    if t.pos not in allowed:
        names = "/".join(p.name for p in sorted(allowed))
        raise PositionError(f"{op}: {role} must be in {names}, got {t.describe()} "
                            f"{_core.where(c, frame)}")


def check_align(c: Any, op: str, t: LocalTensor, role: str, align: int, frame: Any,
                 why: str = "") -> None:
    if t.addr % align:
        raise AlignmentError(f"{op}: {role} {t.describe()} starts at {t.space}+{t.addr}, not "
                             f"{align} B aligned{why} {_core.where(c, frame)}")


def check_local_span(c: Any, t: LocalTensor, hi: int, op: str, role: str, frame: Any,
                      lo: int = 0) -> None:
    if t.addr + hi > t.hi or t.addr + lo < 0:
        local_span(c, t, lo, hi, op, role, frame)


def check_gm_span(c: Any, g: GlobalTensor, hi: int, op: str, frame: Any, lo: int = 0) -> None:
    if g.offset + lo < 0 or g.offset + hi > g.alloc.nbytes:
        gm_span(c, g, lo, hi, op, frame)


def nop(c: Any, pipe: str, op: str, dtype: str, frame: Any, args: tuple) -> None:
    """A documented no-op (a zero count): the event is recorded without accesses."""
    emit(c, pipe, op, (), (), 0, dtype, 0, frame, None, args)


# ---- load_data: 512 B fractals into L0A / L0B --------------------------------------------
