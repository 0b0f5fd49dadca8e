"""The vector unit's forms and engine: operand checks, the mask / repeat plan (pyasc's count
and mask+repeat forms, see elementwise.py) and execute(), which applies an instruction's
semantics to the lanes a form selects and records its Event. Every module of vector/ builds on
it."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from ...errors import (
    AlignmentError,
    CoreTypeError,
    DTypeError,
    EmptyHandleError,
    OutOfBoundsError,
    ParamError,
    PositionError,
)
from .. import core as _core
from ..core import access, check_vector_order, emit, finding
from ..enums import VECTOR_POSITIONS
from ..memory.tensor import LocalTensor
from ..params import UnaryRepeatParams


# ---- operand checks -----------------------------------------------------------------------
def vec_operand(op: str, t: Any, role: str, c: Any, frame: Any) -> LocalTensor:
    """A vector operand: a filled LocalTensor in VECIN/VECOUT/VECCALC, 32 B aligned."""
    if not isinstance(t, LocalTensor):
        raise TypeError(f"{op}: {role} must be a LocalTensor, got {type(t).__name__}")
    if t.space is None:
        raise EmptyHandleError(f"{op}: {role} is an empty LocalTensor handle")
    if t.pos not in VECTOR_POSITIONS:
        raise PositionError(f"{op}: {role} is in {t.pos.name}; vector instructions read and "
                            f"write only VECIN/VECOUT/VECCALC (UB) {_core.where(c, frame)}")
    if t.addr & 31:
        raise AlignmentError(f"{op}: {role} {t.describe()} starts at UB+{t.addr}, not 32 B "
                             f"aligned {_core.where(c, frame)}")
    return t


def dtype_check(op: str, allowed: frozenset[str], c: Any, frame: Any, dst: LocalTensor,
                *srcs: LocalTensor) -> None:
    """pyasc's trace-time dtype rule: allowed types, all operands the same type."""
    name = dst.dtype.name
    if name not in allowed:
        raise DTypeError(f"{op}: {name} is not supported; supported: "
                         + ", ".join(sorted(allowed)) + f" {_core.where(c, frame)}")
    for i, s in enumerate(srcs):
        if s.dtype != dst.dtype:
            raise DTypeError(f"{op}: src{i if len(srcs) > 1 else ''} is {s.dtype.name} but dst "
                             f"is {name}; operands must have the same dtype "
                             f"{_core.where(c, frame)}")


def span_check(op: str, t: LocalTensor, last: int, role: str, c: Any, frame: Any) -> None:
    """t's elements [0, last) must stay inside its buffer slot (memcheck) and the UB."""
    end = t.addr + last * t.dtype.itemsize
    if end > t.hi:
        cap = c.chip.ub_bytes
        if end > cap:
            raise OutOfBoundsError(f"{op}: {role} elements up to {last} of {t.describe()} run "
                                   f"past the end of UB ({cap} B) {_core.where(c, frame)}")
        finding(c, f"{op}: {role} touches {last} elements of {t.describe()} but its buffer "
                f"holds {(t.hi - t.addr) // t.dtype.itemsize} from there", frame)


# ---- the mask / repeat plan ---------------------------------------------------------------
def mask_lanes(op: str, mask: Any, lanes_per_repeat: int, c: Any, frame: Any) -> tuple[int, ...]:
    """Active lanes of one repeat for a continuous (int) or bit ([low, high]) mask."""
    if isinstance(mask, (list, tuple)):
        if not 1 <= len(mask) <= 2:
            raise ParamError(f"{op}: a bit mask is [low64] or [low64, high64], got {len(mask)} "
                             f"words {_core.where(c, frame)}")
        lanes = _bit_lanes(int(mask[0]), int(mask[1]) if len(mask) > 1 else 0,
                           lanes_per_repeat)
        if not lanes:
            raise ParamError(f"{op}: the bit mask {list(mask)} selects no lane of a repeat "
                             f"({lanes_per_repeat} lanes) {_core.where(c, frame)}")
        return lanes
    n = int(mask)
    if not 1 <= n <= lanes_per_repeat:
        raise ParamError(f"{op}: continuous mask={n} is outside [1, {lanes_per_repeat}] (one "
                         f"repeat = 256 B = {lanes_per_repeat} elements of this type) "
                         f"{_core.where(c, frame)}")
    return _RANGES[n]


_RANGES = [tuple(range(n)) for n in range(257)]


@lru_cache(maxsize=1024)
def _bit_lanes(low: int, high: int, lanes_per_repeat: int) -> tuple[int, ...]:
    """Lanes whose bit is set: low covers lanes 0-63, high 64-127 (16-bit types only)."""
    bits = (low & (2**64 - 1)) | ((high & (2**64 - 1)) << 64 if lanes_per_repeat > 64 else 0)
    return tuple(i for i in range(min(lanes_per_repeat, 128)) if bits >> i & 1)


@lru_cache(maxsize=4096)
def plan(lanes: tuple[int, ...], repeats: int, per_block: int, blk_stride: int,
         rep_stride: int, tail: int = 0) -> np.ndarray:
    """Element offsets (relative to the operand's start) touched by `repeats` repeats, each
    covering `lanes`; the last repeat keeps only its first `tail` lanes when tail > 0."""
    lane = np.asarray(lanes, dtype=np.int64)
    within = (lane // per_block) * blk_stride * per_block + lane % per_block
    starts = np.arange(repeats, dtype=np.int64) * rep_stride * per_block
    idx = (starts[:, None] + within[None, :]).ravel()
    if tail:
        idx = idx[: (repeats - 1) * len(lanes) + tail]
    idx.setflags(write=False)
    return idx


class Form:
    """A parsed call: count form (count >= 0) or repeat form (lanes, repeats, strides)."""

    __slots__ = ("count", "lanes", "repeats", "tail", "params", "mask_arg", "counter")

    def __init__(self) -> None:
        self.count = -1
        self.lanes: tuple[int, ...] = ()
        self.repeats = 0
        self.tail = 0
        self.params: tuple = ()
        self.mask_arg: Any = None
        self.counter = False


def bind_overload(names: tuple[str, ...], required: int, args: tuple,
                  kwargs: dict) -> dict | None:
    """Bind args/kwargs to one pyasc overload's parameter names (the first `required` of them
    mandatory), as pyasc's OverloadDispatcher tries a form; None when the call does not fit."""
    if len(args) > len(names):
        return None
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            return None
        bound[k] = v
    if any(n not in bound for n in names[:required]):
        return None
    return bound


def parse_form(op: str, args: tuple, kwargs: dict, params_type: type, lanes_per_repeat: int,
               c: Any, frame: Any) -> Form:
    """Bind pyasc's overloads: mask form (mask, repeat_times, repeat_params[, is_set_mask])
    is tried first, then the count form (count[, is_set_mask])."""
    f = Form()
    if not kwargs and len(args) == 1:
        f.count = _count(op, args[0], c, frame)
        return f
    if len(args) >= 2 or "repeat_times" in kwargs or "repeat_params" in kwargs:
        names = ("mask", "repeat_times", "repeat_params", "is_set_mask")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in bound:
                raise TypeError(f"{op}() got an unexpected or repeated argument {k!r}")
            bound[k] = v
        try:
            mask, repeat, params = bound["mask"], bound["repeat_times"], bound["repeat_params"]
        except KeyError as e:
            raise TypeError(f"{op}: the mask form needs mask, repeat_times and repeat_params "
                            f"(missing {e.args[0]})") from None
        if not isinstance(params, params_type):
            raise TypeError(f"{op}: repeat_params must be {params_type.__name__}, got "
                            f"{type(params).__name__}")
        is_set = bound.get("is_set_mask", True)
        return _repeat_form(op, f, mask, int(repeat), params, bool(is_set), lanes_per_repeat, c,
                            frame)
    names = ("count", "is_set_mask")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    if "count" not in bound or set(bound) - set(names):
        raise TypeError(f"{op}: expected (count) or (mask, repeat_times, repeat_params), got "
                        f"{len(args)} positional and {sorted(kwargs)} keyword arguments")
    f.count = _count(op, bound["count"], c, frame)
    return f


def _count(op: str, value: Any, c: Any, frame: Any) -> int:
    """A count-form element count: an integer >= 0."""
    n = value.__index__()
    if n < 0:
        raise ParamError(f"{op}: count={n} must be >= 0 {_core.where(c, frame)}")
    return n


def _repeat_form(op: str, f: Form, mask: Any, repeat: int, params: tuple, is_set: bool,
                 lanes_per_repeat: int, c: Any, frame: Any) -> Form:
    f.params = tuple(int(v) for v in params)
    # Block strides are uint8 (Binary) or uint16 (Unary); repeat strides uint8 (ADK structs).
    blk_max = 65535 if isinstance(params, UnaryRepeatParams) else 255
    n_blk = 2 if isinstance(params, UnaryRepeatParams) else 3
    for i, v in enumerate(f.params):
        hi = blk_max if i < n_blk else 255
        if not 0 <= v <= hi:
            raise ParamError(f"{op}: {type(params).__name__}.{params._fields[i]}={v} is "
                             f"outside [0, {hi}] {_core.where(c, frame)}")
    f.mask_arg = mask if is_set else None
    if c.mask_counter:
        total = (int(mask[0]) if isinstance(mask, (list, tuple)) else int(mask)) if is_set \
            else c.vector_mask[0]
        f.counter = True
        f.repeats = -(-total // lanes_per_repeat) if total > 0 else 0
        f.lanes = tuple(range(min(total, lanes_per_repeat)))
        f.tail = total - (f.repeats - 1) * lanes_per_repeat if f.repeats > 1 else 0
        if f.repeats == 1:
            f.tail = 0
        return f
    if not 0 <= repeat <= c.chip.max_repeat_times:
        raise ParamError(f"{op}: repeat_times={repeat} is outside [0, "
                         f"{c.chip.max_repeat_times}] {_core.where(c, frame)}")
    f.repeats = repeat
    f.lanes = (mask_lanes(op, mask, lanes_per_repeat, c, frame) if is_set
               else mask_lanes(op, [c.vector_mask[0], c.vector_mask[1]], lanes_per_repeat, c,
                               frame))
    return f


# ---- execution ----------------------------------------------------------------------------
def current_vector_core(frame: Any) -> Any:
    """The running core, which must have a vector unit."""
    c = _core.current
    if c is None:
        return _core.core()
    if c.kind != "aiv" and c.chip.layout == "separated":
        raise CoreTypeError(f"vector instruction on a cube (AIC) core of {c.chip.name}: UB and "
                            f"the vector unit belong to AIV cores {_core.where(c, frame)}")
    return c


def execute(c: Any, op: str, dst: LocalTensor, srcs: tuple, f: Form,
            strides: tuple[tuple[int, int], ...], compute: Callable[..., np.ndarray],
            reads_dst: bool, frame: Any, extra: tuple = ()) -> None:
    """Run an element-wise instruction: dst[lanes] = compute(*src[lanes], dst[lanes]).

    strides holds (block stride, repeat stride) in 32 B blocks for dst then each src; they
    matter only in the repeat forms. Records the Event (and the implicit V barrier)."""
    isz = dst.dtype.itemsize
    if f.count >= 0:
        n = f.count
        nb = n * isz
        if dst.addr + nb > dst.hi:
            span_check(op, dst, n, "dst", c, frame)
        arrays = []
        reads = []
        for i, s in enumerate(srcs):
            snb = n * s.dtype.itemsize
            if s.addr + snb > s.hi:
                span_check(op, s, n, f"src{i}", c, frame)
            arrays.append(s.arr[s.e0:s.e0 + n])
            reads.append(access("UB", s.addr, snb, s.name, 1, 0))
        d = dst.arr[dst.e0:dst.e0 + n]
        if type(compute) is np.ufunc:
            compute(*arrays, out=d)
        else:
            d[...] = compute(*arrays, d)
        dacc = access("UB", dst.addr, nb, dst.name, 1, 0)
        if reads_dst:
            reads.append(dacc)
        reads = tuple(reads)
        writes = (dacc,)
        wide = max([isz] + [s.dtype.itemsize for s in srcs])
        active, repeats = n, -(-n * wide // 256)  # the widest operand fills the 256 B repeats
        args = (("count", n),) + extra
    else:
        idxs = []
        for t, (blk, rep), role in zip((dst,) + srcs, strides,
                                       ("dst",) + tuple(f"src{i}" for i in range(len(srcs)))):
            # Lanes per repeat follow the widest operand; each operand packs 32 B / its own
            # element size lanes per block (a float16 source of a float32 op uses 4 blocks).
            idx = plan(f.lanes, f.repeats, 32 // t.dtype.itemsize, blk, rep, f.tail)
            if len(idx):
                span_check(op, t, int(idx.max()) + 1, role, c, frame)
            idxs.append(idx)
        di = idxs[0]
        if len(di):
            di = di + dst.e0
            darr = dst.arr
            gathered = [s.arr[i + s.e0] for s, i in zip(srcs, idxs[1:])]
            darr[di] = (compute(*gathered) if type(compute) is np.ufunc
                        else compute(*gathered, darr[di]))
        reads = tuple(_rep_access(s, i, f, st[1]) for s, i, st in zip(srcs, idxs[1:], strides[1:]))
        wacc = _rep_access(dst, idxs[0], f, strides[0][1])
        if reads_dst:
            reads += (wacc,)
        writes = (wacc,)
        active, repeats = len(idxs[0]), f.repeats
        args = _form_args(f) + extra
    if c.launch.auto_sync:
        check_vector_order(c, reads, writes, frame)
    emit(c, "V", op, reads, writes, active, dst.dtype.name, repeats, frame, None, args)


def _rep_access(t: LocalTensor, idx: np.ndarray, f: Form, rep_stride: int) -> Any:
    """Access of a repeat-form operand: one block per repeat spanning that repeat's lanes."""
    isz = t.dtype.itemsize
    if not len(idx):
        return access("UB", t.addr, 0, t.name, 0, 0)
    per_rep = len(f.lanes)
    if f.repeats <= 1 or rep_stride == 0 or len(idx) <= per_rep:
        lo, hi = int(idx.min()), int(idx.max())
        return access("UB", t.addr + lo * isz, (hi - lo + 1) * isz, t.name, 1, 0)
    first = idx[:per_rep]
    lo, hi = int(first.min()), int(first.max())
    return access("UB", t.addr + lo * isz, (hi - lo + 1) * isz, t.name, f.repeats,
                  rep_stride * 32)


def _form_args(f: Form) -> tuple:
    return (("lanes", f.lanes), ("repeat_times", f.repeats), ("params", f.params),
            ("counter", f.counter), ("tail", f.tail))
