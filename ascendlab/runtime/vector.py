"""The vector unit (PIPE_V): element-wise instructions, read as a table.

Every instruction comes in pyasc's forms (reference/pyasc-api-surface.md section 4.0):
  count form   op(dst, src..., count)                       exactly `count` elements
  mask forms   op(dst, src..., mask, repeat_times, params)  `repeat_times` repeats of 256 B,
               mask = int (first N lanes of each repeat) or [low64, high64] (bit per lane);
               params = Binary/UnaryRepeatParams strides in 32 B blocks.
Lanes a mask leaves out are not written. In counter mode (set_mask_count) the mask is the
total element count and repeat_times is ignored. `is_set_mask=False` uses set_vector_mask's mask.

SEMANTICS below is the living definition of each instruction: one numpy line per op, computed
in the operand dtype (numpy rounds float16 results once per op, like the hardware; integer ops
wrap). Each op is registered once in trace.OPS (register_op, below) with its cost class; a
test checks that the semantics tables and the cost table cover the registry.
Limitations: transcendental results (exp, ln, sqrt, rsqrt, reciprocal) are computed in float64
and rounded once, not with the chip's approximations; fused multiply-adds round once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import (
    AlignmentError,
    CoreTypeError,
    DTypeError,
    OutOfBoundsError,
    ParamError,
    PositionError,
)
from . import core as _core
from .core import access, check_vector_order, emit, finding
from .dtypes import DataType
from .enums import VECTOR_POSITIONS
from .params import BinaryRepeatParams, UnaryRepeatParams
from .tensor import LocalTensor
from .trace import OPS, VECTOR_CLASSES, Access, Event, register_op

_getframe = sys._getframe
_new = tuple.__new__

F16_F32 = frozenset({"float16", "float32"})
ARITH = frozenset({"float16", "float32", "int16", "int32"})
RELU_T = frozenset({"float16", "float32", "int16"})
BITS = frozenset({"int16", "uint16"})
ANY_NUM = frozenset({"float16", "float32", "int16", "int32", "uint16", "uint32", "int8", "uint8"})


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, x.dtype.type(0))


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once to a's dtype (float64 holds float16/float32 products exactly)."""
    return (a.astype(np.float64) * b + c).astype(a.dtype)


# Element-wise semantics. Binary: f(src0, src1, dst) -> new dst values. dst is passed because
# fused ops read it. Unary: f(src) ; scalar: f(src, s) with s already in the tensor dtype.
# A numpy ufunc entry is applied as ufunc(src0, src1, out=dst), without a temporary.
BINARY: dict[str, tuple[Callable[..., np.ndarray], frozenset[str]]] = {
    "add": (np.add, ARITH),
    "sub": (np.subtract, ARITH),
    "mul": (np.multiply, ARITH),
    "div": (np.divide, F16_F32),
    "max": (np.maximum, ARITH),
    "min": (np.minimum, ARITH),
    "bitwise_and": (np.bitwise_and, BITS),
    "bitwise_or": (np.bitwise_or, BITS),
    "add_relu": (lambda a, b, d: _relu(a + b), RELU_T),
    "sub_relu": (lambda a, b, d: _relu(a - b), RELU_T),
    # dst = src0 * dst + src1, rounded once like an FMA (an assumption: the chip's rounding of
    # its fused multiply-add is not documented)
    "fused_mul_add": (lambda a, b, d: _fma(a, d, b), F16_F32),
    "fused_mul_add_relu": (lambda a, b, d: _relu(_fma(a, d, b)), F16_F32),
    # dst = src0 * src1 + dst, rounded once
    "mul_add_dst": (lambda a, b, d: _fma(a, b, d), F16_F32),
}
READS_DST = frozenset({"fused_mul_add", "fused_mul_add_relu", "mul_add_dst"})

# float16 ops whose torch CPU kernel gives numpy's bits (every float16 pair, NaN payloads
# included: tests/runtime/test_vector.py) and is several times faster (numpy has no float16
# SIMD kernels; benchmarks/emulation_speed.py --torch). Used only when the process has already
# imported torch: importing it here would cost seconds. sub/mul/max/min differ in NaN payloads.
TORCH_F16 = frozenset({"add", "div"})


def torch_f16(op: str, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> bool:
    """out[...] = op(a, b) with torch's kernel when torch is imported; False when it is not."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    fn = torch.add if op == "add" else torch.div
    fn(torch.from_numpy(a), torch.from_numpy(b), out=torch.from_numpy(out))
    return True


def _f64(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Compute in float64 and round once to the operand dtype: results are then (nearly always)
    correctly rounded and the same on every host CPU, unlike numpy's float32 SIMD kernels."""
    return lambda x: fn(x.astype(np.float64)).astype(x.dtype)


UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], frozenset[str]]] = {
    "abs": (np.abs, frozenset({"float16", "float32", "int16", "int32"})),
    "exp": (_f64(np.exp), F16_F32),
    "ln": (_f64(np.log), F16_F32),
    "sqrt": (_f64(np.sqrt), F16_F32),
    "rsqrt": (_f64(lambda x: 1.0 / np.sqrt(x)), F16_F32),
    "reciprocal": (_f64(lambda x: 1.0 / x), F16_F32),
    "relu": (_relu, frozenset({"float16", "float32", "int32"})),
    "bitwise_not": (np.invert, BITS),
}

SCALAR: dict[str, tuple[Callable[[np.ndarray, Any], np.ndarray], frozenset[str]]] = {
    "adds": (lambda x, s: x + s, ARITH),
    "muls": (lambda x, s: x * s, ARITH),
    "maxs": (lambda x, s: np.maximum(x, s), ARITH),
    "mins": (lambda x, s: np.minimum(x, s), ARITH),
    "leaky_relu": (lambda x, s: np.where(x >= 0, x, x * s), F16_F32),
    "shift_left": (lambda x, s: np.left_shift(x, s), frozenset({"int16", "uint16", "int32",
                                                                "uint32"})),
    "shift_right": (lambda x, s: np.right_shift(x, s), frozenset({"int16", "uint16", "int32",
                                                                  "uint32"})),
}

# ---- the registry (trace.OPS): one record per op --------------------------------------------
# Fused multiply-adds count 2 operations per element, fills and conversions none, the rest 1.
FMA = frozenset({"fused_mul_add", "fused_mul_add_relu", "mul_add_dst", "axpy"})
for _table, _klass in ((BINARY, "elementwise"), (SCALAR, "elementwise"), (UNARY, None)):
    for _op, (_fn, _dtypes) in _table.items():
        register_op(_op, "V", _klass or ("elementwise" if _op in ("abs", "relu", "bitwise_not")
                                         else "transcendental"),
                    flops_per_elem=2 if _op in FMA else 1, dtypes=_dtypes, module=__name__)
register_op("axpy", "V", "elementwise", flops_per_elem=2, dtypes=F16_F32, module=__name__)
register_op("duplicate", "V", "elementwise", dtypes=ANY_NUM, module=__name__)
# Chip instructions with no pyasc-facing form that library routines issue (adv.softmax's
# AlignedBroadCastImpl: brcb + copy); costed like any vector op, never re-issued by the grader.
register_op("copy", "V", "elementwise", flops_per_elem=1, replayable=False, module=__name__)
register_op("brcb", "V", "elementwise", flops_per_elem=1, replayable=False, module=__name__)


class _VectorOps(Mapping[str, str]):
    """Op -> cost class of every vector op in trace.OPS: a live view of the registry."""

    def __getitem__(self, op: str) -> str:
        info = OPS[op]
        if info.cost_class not in VECTOR_CLASSES:
            raise KeyError(op)
        return info.cost_class

    def __iter__(self) -> Iterator[str]:
        return (k for k, info in list(OPS.items()) if info.cost_class in VECTOR_CLASSES)

    def __len__(self) -> int:
        return sum(1 for _ in self)


VECTOR_OPS: Mapping[str, str] = _VectorOps()


# ---- operand checks -----------------------------------------------------------------------
def vec_operand(op: str, t: Any, role: str, c: Any, frame: Any) -> LocalTensor:
    """A vector operand: a filled LocalTensor in VECIN/VECOUT/VECCALC, 32 B aligned."""
    if not isinstance(t, LocalTensor):
        raise TypeError(f"{op}: {role} must be a LocalTensor, got {type(t).__name__}")
    if t.space is None:
        raise ValueError(f"{op}: {role} is an empty LocalTensor handle")
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


# ---- the instructions -----------------------------------------------------------------------
def binary(op: str, dst: Any, src0: Any, src1: Any, args: tuple, kwargs: dict,
           frame: Any) -> None:
    """A two-source instruction of BINARY in any of its forms."""
    fn, allowed = BINARY[op]
    c = _core.current
    # Fast path: the count form on well-formed UB operands (the common case, kept lean because
    # every emulated instruction is a hot path). Anything unusual takes the checked path below.
    if (c is not None and not kwargs and len(args) == 1 and type(dst) is LocalTensor
            and type(src0) is LocalTensor and type(src1) is LocalTensor and c.kind == "aiv"):
        dt = dst.dtype
        n = args[0].__index__()
        nb = n * dt.itemsize
        da, a0, a1 = dst.addr, src0.addr, src1.addr
        if (src0.dtype is dt and src1.dtype is dt and dst.space == "UB" and src0.space == "UB"
                and src1.space == "UB" and not (da | a0 | a1) & 31 and dt.name in allowed
                and n >= 0 and da + nb <= dst.hi and a0 + nb <= src0.hi and a1 + nb <= src1.hi
                and dst.pos in VECTOR_POSITIONS and src0.pos in VECTOR_POSITIONS
                and src1.pos in VECTOR_POSITIONS):
            arr = dst.arr
            d = arr[dst.e0:dst.e0 + n]
            if type(fn) is np.ufunc:
                x0, x1 = src0.arr[src0.e0:src0.e0 + n], src1.arr[src1.e0:src1.e0 + n]
                if not (op in TORCH_F16 and dt.name == "float16" and torch_f16(op, x0, x1, d)):
                    fn(x0, x1, out=d)
            else:
                d[...] = fn(src0.arr[src0.e0:src0.e0 + n], src1.arr[src1.e0:src1.e0 + n], d)
            # the same instruction on the same slots from the same line (a loop): one Event
            key = (op, da, a0, a1, n, dst.name, src0.name, src1.name, frame.f_code.co_filename,
                   frame.f_lineno)
            ev = c.memo.get(key)
            if ev is None:
                w = _new(Access, ("UB", da, nb, dst.name, 1, 0))
                reads = (_new(Access, ("UB", a0, nb, src0.name, 1, 0)),
                         _new(Access, ("UB", a1, nb, src1.name, 1, 0)))
                if op in READS_DST:
                    reads += (w,)
                ev = c.memo[key] = _new(Event, (
                    c.idx, "V", op, reads, (w,), n, dt.name, (nb + 255) >> 8,
                    frame.f_code.co_filename, frame.f_lineno, None, (("count", n),)))
            if c.launch.auto_sync:
                check_vector_order(c, ev[3], ev[4], frame)
            c.append(ev)
            return
    c = current_vector_core(frame)
    vec_operand(op, dst, "dst", c, frame)
    vec_operand(op, src0, "src0", c, frame)
    vec_operand(op, src1, "src1", c, frame)
    dtype_check(op, allowed, c, frame, dst, src0, src1)
    f = parse_form(op, args, kwargs, BinaryRepeatParams, 256 // dst.dtype.itemsize, c, frame)
    p = f.params
    strides = ((p[0], p[3]), (p[1], p[4]), (p[2], p[5])) if p else ()
    execute(c, op, dst, (src0, src1), f, strides, fn, op in READS_DST, frame)


def unary(op: str, dst: Any, src: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    """A one-source instruction of UNARY in any of its forms."""
    c = current_vector_core(frame)
    fn, allowed = UNARY[op]
    vec_operand(op, dst, "dst", c, frame)
    vec_operand(op, src, "src", c, frame)
    dtype_check(op, allowed, c, frame, dst, src)
    f = parse_form(op, args, kwargs, UnaryRepeatParams, 256 // dst.dtype.itemsize, c, frame)
    p = f.params
    strides = ((p[0], p[2]), (p[1], p[3])) if p else ()
    execute(c, op, dst, (src,), f, strides, lambda a, d: fn(a), False, frame)


def scalar_op(op: str, dst: Any, src: Any, scalar: Any, args: tuple, kwargs: dict,
              frame: Any) -> None:
    """A tensor-scalar instruction of SCALAR; the scalar is cast to the tensor dtype first."""
    c = current_vector_core(frame)
    fn, allowed = SCALAR[op]
    vec_operand(op, dst, "dst", c, frame)
    vec_operand(op, src, "src", c, frame)
    dtype_check(op, allowed, c, frame, dst, src)
    s = cast_scalar(scalar, src.dtype, op)
    f = parse_form(op, args, kwargs, UnaryRepeatParams, 256 // dst.dtype.itemsize, c, frame)
    p = f.params
    strides = ((p[0], p[2]), (p[1], p[3])) if p else ()
    execute(c, op, dst, (src,), f, strides, lambda a, d: fn(a, s), False, frame,
            (("scalar", s.item()),))


def cast_scalar(value: Any, dtype: DataType, op: str) -> Any:
    """A kernel scalar converted to the tensor dtype, as pyasc materialises it."""
    try:
        return np.asarray(value).astype(dtype.np)[()]
    except (TypeError, ValueError):
        raise TypeError(f"{op}: scalar {value!r} cannot be converted to {dtype.name}") from None


def axpy(dst: Any, src: Any, scalar: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    """dst = src * scalar + dst (float16 src may accumulate into a float32 dst)."""
    op = "axpy"
    c = current_vector_core(frame)
    vec_operand(op, dst, "dst", c, frame)
    vec_operand(op, src, "src", c, frame)
    pair = (src.dtype.name, dst.dtype.name)
    if pair not in (("float16", "float16"), ("float32", "float32"), ("float16", "float32")):
        raise DTypeError(f"axpy: src {pair[0]} -> dst {pair[1]} is not supported (float16, "
                         f"float32, or float16 src with float32 dst)")
    s = cast_scalar(scalar, src.dtype, op)
    wide = 256 // max(src.dtype.itemsize, dst.dtype.itemsize)
    f = parse_form(op, args, kwargs, UnaryRepeatParams, wide, c, frame)
    p = f.params
    strides = ((p[0], p[2]), (p[1], p[3])) if p else ()

    def compute(a: np.ndarray, d: np.ndarray) -> np.ndarray:
        return (a.astype(np.float64) * s + d).astype(d.dtype)  # one rounding (assumption)

    execute(c, op, dst, (src,), f, strides, compute, True, frame,
            (("scalar", s.item()), ("src_dtype", src.dtype.name)))


def duplicate(dst: Any, scalar: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    """Fill: duplicate(dst, scalar, count) or duplicate(dst, scalar, mask, repeat_times,
    dst_block_stride, dst_repeat_stride)."""
    op = "duplicate"
    c = current_vector_core(frame)
    vec_operand(op, dst, "dst", c, frame)
    dtype_check(op, ANY_NUM, c, frame, dst)
    s = cast_scalar(scalar, dst.dtype, op)
    lanes = 256 // dst.dtype.itemsize
    if not kwargs and len(args) == 1:
        f = Form()
        f.count = _count(op, args[0], c, frame)
        strides: tuple = ()
    else:
        names = ("mask", "repeat_times", "dst_block_stride", "dst_repeat_stride", "is_set_mask")
        bound = dict(zip(names, args))
        bound.update(kwargs)
        if "count" in bound:
            f = Form()
            f.count = _count(op, bound["count"], c, frame)
            strides = ()
        else:
            params = (int(bound.get("dst_block_stride", 1)), int(bound.get("dst_repeat_stride", 8)))
            f = _repeat_form(op, Form(), bound["mask"], int(bound["repeat_times"]),
                             UnaryRepeatParams(params[0], 1, params[1], 8),
                             bool(bound.get("is_set_mask", True)), lanes, c, frame)
            strides = ((params[0], params[1]),)
    execute(c, op, dst, (), f, strides, lambda d: np.full(d.shape, s, dtype=d.dtype), False,
            frame, (("scalar", s.item()),))
