"""compare / select through the cmpMask register (the forms without a bitmask tensor).

compare(src0, src1, cmp_mode, mask, repeat_params[, is_set_mask])
select(dst, sel_mask, src0, repeat_times, repeat_params)        # VSEL_TENSOR_SCALAR_MODE
select(dst, src0, src1, repeat_times, repeat_params, sel_mode)  # mode from sel_mode

Facts relied on (Ascend C docs "Compare (结果存入寄存器)", GetCmpMask, SetCmpMask; CCE
intrinsic vsel; pyasc asc.language.basic.vec_cmpsel):
- the register form of compare runs one repeat (no repeat_times) over the lanes of `mask` and
  writes its 256 / sizeof(T) result bits to the cmpMask register (get_cmp_mask reads them:
  GetCmpMask's example compares with mask 0x40 and only that float takes part).
- vsel's modes without a mask tensor argument: 0 (VSEL_CMPMASK_SPR) picks src0 / src1 by the
  register's first 256 / sizeof(T) bits (CMPMASK[127:0] for f16, [63:0] for f32) in every
  repeat; 1 (VSEL_TENSOR_SCALAR_MODE) picks src0 / a scalar, the scalar being the register's
  first sizeof(T) bytes (CMPMASK[15:0] / [31:0]) and the bits read continuously from the UB
  tensor (pyasc's sel_mask argument, src1 of the intrinsic); 2 (VSEL_TENSOR_TENSOR_MODE)
  reads the bits continuously from the UB address held in the register (SetCmpMask's example
  stores that address as an int64 in element 0 of the tensor it loads).
- these forms take the mask from the vector mask register (set_vector_mask); lanes it leaves
  out keep dst.

ASSUMPTION: the compare's bits for lanes outside `mask` are 0 and bytes 256 / sizeof(T) / 8 ..
127 of the register keep their value (neither is documented). The register holds set_cmp_mask's
128 B (CMP_MASK_BYTES; set_cmp_mask / get_cmp_mask are in scalar/registers.py); before any
write it reads as 0xFF bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import DTypeError, OutOfBoundsError, ParamError
from ..core import POISON, access, check_vector_order, emit
from ..enums import SelMode
from ..memory.tensor import LocalTensor
from ..params import BinaryRepeatParams
from ..trace import register_op
from . import elementwise as _vec
from .reduce import repeat_access

CMP_MASK_BYTES = 128  # pyasc get_cmp_mask docs: dst holds at least 128 B

register_op("compare_cmpmask", "V", "compare", flops_per_elem=1, replayable=False,
            module=__name__)
register_op("select_cmpmask", "V", "elementwise", flops_per_elem=1, replayable=False,
            module=__name__)


def _register(c: Any) -> np.ndarray:
    reg = c.lib.get("cmp_mask")
    if reg is None:
        reg = np.full(CMP_MASK_BYTES, POISON, np.uint8)
        c.lib["cmp_mask"] = reg
    return reg


def _bind(op: str, names: tuple[str, ...], args: tuple, kwargs: dict, optional: dict) -> dict:
    b = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in b:
            raise TypeError(f"{op}() got an unexpected or repeated argument {k!r}")
        b[k] = v
    for k, v in optional.items():
        b.setdefault(k, v)
    missing = [k for k in names if k not in b]
    if missing:
        raise TypeError(f"{op}: missing argument(s) {', '.join(missing)}")
    return b


def compare_to_register(args: tuple, kwargs: dict, frame: Any, compare_fn: Any,
                        check: Any) -> None:
    """compare(src0, src1, cmp_mode, mask, repeat_params[, is_set_mask]) -> cmpMask."""
    op = "compare"
    b = _bind(op, ("src0", "src1", "cmp_mode", "mask", "repeat_params", "is_set_mask"), args,
              kwargs, {"is_set_mask": True})
    c = _vec.current_vector_core(frame)
    src0 = _vec.vec_operand(op, b["src0"], "src0", c, frame)
    src1 = _vec.vec_operand(op, b["src1"], "src1", c, frame)
    mode = check(op, src0, src1, b["cmp_mode"], c, frame)
    p = b["repeat_params"]
    isz = src0.dtype.itemsize
    L = 256 // isz
    f = _vec.parse_form(op, (b["mask"], 1, p, b["is_set_mask"]), {}, BinaryRepeatParams, L, c,
                        frame)
    lanes = f.lanes
    i0 = _vec.plan(lanes, 1, 32 // isz, f.params[1], f.params[4])
    i1 = _vec.plan(lanes, 1, 32 // isz, f.params[2], f.params[5])
    bits = np.zeros(L, dtype=bool)
    if len(lanes):
        _vec.span_check(op, src0, int(i0.max()) + 1, "src0", c, frame)
        _vec.span_check(op, src1, int(i1.max()) + 1, "src1", c, frame)
        with np.errstate(invalid="ignore"):
            bits[list(lanes)] = compare_fn[mode](src0.arr[i0 + src0.e0], src1.arr[i1 + src1.e0])
    reads = (repeat_access(src0, i0, 1, len(lanes), f.params[4]),
             repeat_access(src1, i1, 1, len(lanes), f.params[5]))
    if c.launch.auto_sync:
        check_vector_order(c, reads, (), frame)
    _register(c)[:L // 8] = np.packbits(bits, bitorder="little")
    emit(c, "V", "compare_cmpmask", reads, (), len(lanes), src0.dtype.name, 1, frame, None,
         (("lanes", lanes), ("params", f.params), ("cmp_mode", mode.name)))


def select_from_register(dst: Any, src0: Any, src1: Any, repeat_times: Any, params: Any,
                         sel_mode: Any, frame: Any) -> None:
    """The register forms of select (module docstring); src1 is the bitmask tensor in mode 1."""
    op = "select"
    c = _vec.current_vector_core(frame)
    try:
        mode = SelMode(int(sel_mode))
    except (TypeError, ValueError):
        raise ParamError(f"{op}: sel_mode={sel_mode!r} is not a SelMode") from None
    if not isinstance(params, BinaryRepeatParams):
        raise TypeError(f"{op}: repeat_params must be BinaryRepeatParams, got "
                        f"{type(params).__name__}")
    dst = _vec.vec_operand(op, dst, "dst", c, frame)
    src0 = _vec.vec_operand(op, src0, "src0", c, frame)
    src1 = _vec.vec_operand(op, src1, "src1", c, frame)
    dt = dst.dtype
    if dt.name not in ("float16", "float32") or src0.dtype != dt:
        raise DTypeError(f"{op}: dst {dst.describe()} and src0 {src0.describe()} must both be "
                         "float16 or float32")
    if mode != SelMode.VSEL_TENSOR_SCALAR_MODE and src1.dtype != dt:
        raise DTypeError(f"{op}: src1 {src1.describe()} is {src1.dtype.name}, dst is "
                         f"{dt.name}")
    isz = dt.itemsize
    L = 256 // isz
    f = _vec.parse_form(op, (None, repeat_times, params, False), {}, BinaryRepeatParams, L, c,
                        frame)
    p, R, lanes = f.params, f.repeats, f.lanes
    strides = ((p[0], p[3]), (p[1], p[4]), (p[2], p[5]))
    tensors = ((dst, "dst"), (src0, "src0")) + (
        ((src1, "src1"),) if mode != SelMode.VSEL_TENSOR_SCALAR_MODE else ())
    idxs = [_vec.plan(lanes, R, 32 // isz, blk, rep, f.tail) for blk, rep in strides]
    n = len(idxs[0])
    for (t, role), idx in zip(tensors, idxs):
        if n:
            _vec.span_check(op, t, int(idx.max()) + 1, role, c, frame)
    reg = _register(c)
    cols = np.tile(np.asarray(lanes, dtype=np.int64), R)[:n]
    reads = tuple(repeat_access(t, i, R, len(lanes), st[1])
                  for (t, _), i, st in zip(tensors[1:], idxs[1:], strides[1:]))
    if mode == SelMode.VSEL_CMPMASK_SPR:
        pos, raw = cols, reg[:L // 8]
    else:
        pos = np.repeat(np.arange(R, dtype=np.int64), len(lanes))[:n] * L + cols
        nb = -(-(int(pos.max()) + 1 if n else 0) // 8)
        if mode == SelMode.VSEL_TENSOR_SCALAR_MODE:
            base = src1.addr
            _vec.span_check(op, src1, -(-nb // src1.dtype.itemsize), "src1 (bitmask)", c, frame)
        else:
            base = int(reg[:8].view(np.int64)[0])
            size = c.mem("UB").size
            if not 0 <= base <= size - nb:
                raise OutOfBoundsError(f"{op}: VSEL_TENSOR_TENSOR_MODE reads {nb} B of bitmask "
                                       f"at UB address {base} (from the cmpMask register), "
                                       f"outside UB's {size} B")
        raw = c.mem("UB")[base:base + nb]
        reads += (access("UB", base, nb, src1.name if base == src1.addr else "cmpMask bits", 1,
                         0),)
    w = repeat_access(dst, idxs[0], R, len(lanes), strides[0][1])
    if c.launch.auto_sync:
        check_vector_order(c, reads, (w,), frame)
    if n:
        pick = np.unpackbits(np.asarray(raw), bitorder="little").view(bool)[pos]
        a = src0.arr[idxs[1] + src0.e0]
        if mode == SelMode.VSEL_TENSOR_SCALAR_MODE:
            other: Any = reg[:isz].copy().view(dst.arr.dtype)[0]
        else:
            other = src1.arr[idxs[2] + src1.e0]
        dst.arr[idxs[0] + dst.e0] = np.where(pick, a, other)
    emit(c, "V", "select_cmpmask", reads, (w,), n, dt.name, R, frame, None,
         (("lanes", lanes), ("repeat_times", R), ("params", p), ("sel_mode", mode.name)))


def is_register_select(args: tuple, kwargs: dict) -> bool:
    """True for select's register forms (no mask / count argument)."""
    return "mask" not in kwargs and "count" not in kwargs and (
        (len(args) >= 5 and isinstance(args[4], BinaryRepeatParams))
        or ("repeat_params" in kwargs and len(args) <= 4))


def select_register_form(args: tuple, kwargs: dict, frame: Any) -> None:
    """Dispatch select(dst, sel_mask, src0, repeat_times, repeat_params) and select(dst, src0,
    src1, repeat_times, repeat_params, sel_mode)."""
    kw = dict(kwargs)
    if "sel_mode" in kw or len(args) >= 6:
        b = _bind("select", ("dst", "src0", "src1", "repeat_times", "repeat_params",
                             "sel_mode"), args, kw, {})
        select_from_register(b["dst"], b["src0"], b["src1"], b["repeat_times"],
                             b["repeat_params"], b["sel_mode"], frame)
        return
    b = _bind("select", ("dst", "sel_mask", "src0", "repeat_times", "repeat_params"), args, kw,
              {})
    if not isinstance(b["sel_mask"], LocalTensor):
        raise TypeError("select: sel_mask must be a LocalTensor")
    select_from_register(b["dst"], b["src0"], b["sel_mask"], b["repeat_times"],
                         b["repeat_params"], SelMode.VSEL_TENSOR_SCALAR_MODE, frame)


__all__ = ["compare_to_register", "is_register_select", "select_register_form"]
