"""Fixpipe (FixpipeParamsV220): L0C (NZ, fp32/int32) -> GM on the FIX pipe, with the layouts
of cube/mmad.py's docstring. fixpipe() binds its arguments, checks them, reads the L0C fractals and
writes GM, one helper per step."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import DTypeError, ParamError
from .. import core as _core
from ..core import access, emit
from ..dma import atomic as _atomic
from ..enums import FixpipeConfig, QuantModes, TPosition
from ..memory.checks import (
    blocks,
    check_align,
    check_gm_span,
    check_local_span,
    check_pos,
    check_range,
    nop,
)
from ..memory.tensor import (
    GlobalTensor,
    LocalTensor,
    check_core_kind,
    require_global,
    require_local,
)
from ..params import FixpipeParamsV220
from ..trace import register_op

_as_strided = np.lib.stride_tricks.as_strided

register_op("fixpipe", "FIX", "dma", module=__name__)

_getframe = sys._getframe
OP = "fixpipe"


def fixpipe(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """Fixpipe (FixpipeParamsV220): L0C (NZ, fp32/int32) -> GM, pipe FIX, optional ReLU and
    fp32 -> fp16 quantisation; `fixpipe(dst_gm, src_co1, params, config=cfg_row_major)`.

    cfg_row_major (NZ2ND): for matrix i < nd_num, row r < m_size, column j < n_size, GM element
    i*dst_nd_stride + r*dst_stride + j = L0C element i*src_nd_stride*1024 B +
    (j // 16)*src_stride*16 + r*16 + j % 16 (src_stride in C0 = 16-element units, normally
    m rounded up to 16; dst_stride = elements per ND row). cfg_nz: fractal column j < n_size/16
    (n_size a multiple of 16) of m_size rows x 16 goes to dst + j*dst_stride*32 B, rows packed.
    quant_pre NoQuant (dst dtype = src dtype) and F322F16 (round to nearest even, inf/nan kept)
    are emulated; relu_en applies max(x, 0) before the conversion. nd_num 0 is a no-op.

    Limitations: the other quant modes (deq_scalar, DEQF16, REQ8, ...), the cbuf_workspace
    (tensor quantisation) form, channel split and L0C -> L1/UB are not emulated. nd_num and the
    nd strides are ignored by cfg_nz. unit_flag only goes into the event's args.
    """
    frame = _getframe(1)
    c = _core.current or _core.core()
    if not c.chip.has_fixpipe:
        raise NotImplementedError(f"fixpipe: {c.chip.name} has no FixPipe (L0C -> UB goes "
                                  f"through the vector unit there); not emulated "
                                  f"{_core.where(c, frame)}")
    check_core_kind(c, "L0C", OP, frame)
    p, config = _bind(c, dst, args, kwargs, frame)
    dst = require_global(OP, dst, "dst")
    src = require_local(OP, src, "src")
    check_pos(c, OP, src, "src", (TPosition.CO1,), frame)
    q = _quant(c, p, src.dtype.name, dst.dtype.name, frame)
    nz = config == FixpipeConfig.cfg_nz
    dims = _dims(c, p, nz, frame)
    check_align(c, OP, src, "src", 64, frame)
    ev_args = (("params", tuple(p)), ("config", config.name), ("quant", q.name))
    atom = _atomic.mode_of(c)
    if atom is not None:
        ev_args += _atomic.event_args(atom)
    if not dims[4]:  # nd_num 0
        nop(c, "FIX", OP, dst.dtype.name, frame, ev_args)
        return
    data = _read_l0c(c, src, dst, bool(p.relu_en), nz, dims, frame)
    reads, writes, bursts = _write_gm(c, src, dst, data, nz, dims, frame)
    n, m, nd = dims[0], dims[1], dims[4]
    emit(c, "FIX", OP, reads, writes, nd * m * n, dst.dtype.name, bursts, frame, None, ev_args)


# ---- arguments -------------------------------------------------------------------------------
def _bind(c: Any, dst: Any, args: tuple, kwargs: dict,
          frame: Any) -> tuple[FixpipeParamsV220, FixpipeConfig]:
    """(params, config) from fixpipe(dst, src[, cbuf_workspace], params[, config])."""
    rest = list(args)
    ws = kwargs.pop("cbuf_workspace", None)
    if rest and isinstance(rest[0], LocalTensor):
        ws = rest.pop(0)
    if ws is not None:
        raise NotImplementedError("fixpipe with a cbuf_workspace tensor (tensor quantisation: "
                                  "VDEQF16 / VQF322B8_PRE / VREQ8) is not emulated "
                                  f"{_core.where(c, frame)}")
    names = ("params", "config")
    if len(rest) > 2:
        raise TypeError("fixpipe(dst, src[, cbuf_workspace], params[, config])")
    bound = dict(zip(names, rest))
    for key, value in kwargs.items():
        if key not in names or key in bound:
            raise TypeError(f"fixpipe() got an unexpected or repeated argument {key!r}")
        bound[key] = value
    p = bound.get("params")
    if not isinstance(p, FixpipeParamsV220):
        raise TypeError(f"fixpipe: params must be FixpipeParamsV220, got {type(p).__name__}")
    config = FixpipeConfig(bound.get("config", FixpipeConfig.cfg_row_major))
    if isinstance(dst, LocalTensor):
        raise NotImplementedError("fixpipe to a LocalTensor (L0C -> L1/UB) is not emulated; "
                                  f"emulated: L0C -> GM {_core.where(c, frame)}")
    return p, config


# ---- checks ------------------------------------------------------------------------------------
def _quant(c: Any, p: FixpipeParamsV220, st: str, dtn: str, frame: Any) -> QuantModes:
    """The quantisation mode, checked against the src and dst dtypes."""
    if st not in ("float32", "int32"):
        raise DTypeError(f"fixpipe: src must be float32 or int32 (an mmad result), got {st} "
                         f"{_core.where(c, frame)}")
    try:
        q = QuantModes(int(p.quant_pre))
    except ValueError:
        raise ParamError(f"fixpipe: quant_pre={p.quant_pre!r} is not a QuantModes value "
                         f"{_core.where(c, frame)}") from None
    if q == QuantModes.NoQuant:
        if dtn != st:
            raise DTypeError(f"fixpipe: quant_pre=NoQuant keeps {st} but dst is {dtn}; use "
                             f"quant_pre=F322F16 for float16 output {_core.where(c, frame)}")
    elif q == QuantModes.F322F16:
        if st != "float32" or dtn != "float16":
            raise DTypeError(f"fixpipe: quant_pre=F322F16 converts float32 to float16, got src "
                             f"{st} and dst {dtn} {_core.where(c, frame)}")
    else:
        raise NotImplementedError(f"fixpipe: quant_pre={q.name} is not emulated (NoQuant and "
                                  f"F322F16 are) {_core.where(c, frame)}")
    if p.is_channel_split:
        raise NotImplementedError("fixpipe: is_channel_split=True is not emulated "
                                  f"{_core.where(c, frame)}")
    return q


def _dims(c: Any, p: FixpipeParamsV220, nz: bool,
          frame: Any) -> tuple[int, int, int, int, int, int, int]:
    """(n, m, src_stride, dst_stride, nd_num, src_nd_stride, dst_nd_stride), range-checked."""
    n, m, sstride, dstride = int(p.n_size), int(p.m_size), int(p.src_stride), int(p.dst_stride)
    nd, snd, dnd = int(p.nd_num), int(p.src_nd_stride), int(p.dst_nd_stride)
    fp = "FixpipeParamsV220"
    check_range(c, OP, fp, "n_size", n, 1, 4095, frame)
    check_range(c, OP, fp, "m_size", m, 1, 65535 if nz else 8192, frame)
    check_range(c, OP, fp, "src_stride", sstride, 0, 65535, frame)
    check_range(c, OP, fp, "dst_stride", dstride, 1, 2**32 - 1, frame)
    if nz:
        if n % 16:
            raise ParamError(f"fixpipe: FixpipeParamsV220.n_size={n} must be a multiple of 16 "
                             f"with cfg_nz {_core.where(c, frame)}")
        nd = 1
    else:
        check_range(c, OP, fp, "nd_num", nd, 0, 65535, frame)
        if nd > 1:
            check_range(c, OP, fp, "src_nd_stride", snd, 1, 512, frame)
            check_range(c, OP, fp, "dst_nd_stride", dnd, 1, 65535, frame)
    return n, m, sstride, dstride, nd, snd, dnd


# ---- L0C -> values -----------------------------------------------------------------------------
def _read_l0c(c: Any, src: LocalTensor, dst: GlobalTensor, relu: bool, nz: bool, dims: tuple,
              frame: Any) -> np.ndarray:
    """The values fixpipe writes: (n1, m, 16) fractal columns for cfg_nz, else (nd, m, n)
    rows; ReLU then the conversion to dst's dtype applied."""
    n, m, sstride, _dstride, nd, snd, _dnd = dims
    esz = src.dtype.itemsize
    n1 = -(-n // 16)
    col = sstride * 16 * esz  # bytes between fractal columns in L0C
    src_hi = (nd - 1) * snd * 1024 + (n1 - 1) * col + m * 16 * esz
    check_local_span(c, src, src_hi, OP, "src", frame)
    view = _as_strided(src.arr[src.e0:], shape=(nd, n1, m, 16),
                       strides=(snd * 1024, col, 16 * esz, esz), writeable=False)
    if nz:
        data = view[0].copy()  # (n1, m, 16)
    else:
        data = view.transpose(0, 2, 1, 3).reshape(nd, m, n1 * 16)[:, :, :n]
    if relu:
        data = np.maximum(data, 0)
    with np.errstate(over="ignore"):  # F322F16: out-of-range values become +-inf (INF_NAN mode)
        return np.ascontiguousarray(data, dtype=dst.dtype.np)


# ---- values -> GM ----------------------------------------------------------------------------
def _write_gm(c: Any, src: LocalTensor, dst: GlobalTensor, data: np.ndarray, nz: bool,
              dims: tuple, frame: Any) -> tuple[tuple, tuple, int]:
    """Write `data` into GM; (reads, writes, bursts) of the event."""
    n, m, sstride, dstride, nd, snd, dnd = dims
    esz, dsz = src.dtype.itemsize, dst.dtype.itemsize
    n1 = -(-n // 16)
    col = sstride * 16 * esz
    a = dst.alloc
    gm0 = a.base + dst.offset
    if nz:
        gm_hi = (n1 - 1) * dstride * 32 + m * 16 * dsz
        check_gm_span(c, dst, gm_hi, OP, frame)
        if not a.idx0:
            a.private()
        a.mark_written()
        _atomic.put(c, blocks(a.buf, a.idx0 + dst.offset, n1, m * 16 * dsz, dstride * 32),
                    data.view(np.uint8).reshape(n1, m * 16 * dsz))  # set_atomic_*: combine
        reads = (access("L0C", src.addr, m * 16 * esz, src.name, n1, col),)
        writes = (access("GM", gm0, m * 16 * dsz, a.name, n1, dstride * 32),)
        return reads, writes, n1
    gm_hi = ((nd - 1) * dnd + (m - 1) * dstride + n) * dsz
    check_gm_span(c, dst, gm_hi, OP, frame)
    if not a.idx0:
        a.private()
    a.mark_written()
    out = _as_strided(a.buf[a.idx0 + dst.offset:], shape=(nd, m, n * dsz),
                      strides=(dnd * dsz, dstride * dsz, 1), writeable=True)
    _atomic.put(c, out, data.view(np.uint8).reshape(nd, m, n * dsz))
    reads = tuple(access("L0C", src.addr + i * snd * 1024, m * 16 * esz, src.name, n1, col)
                  for i in range(nd))
    writes = tuple(access("GM", gm0 + i * dnd * dsz, n * dsz, a.name, m, dstride * dsz)
                   for i in range(nd))
    return reads, writes, nd * m


__all__ = ["fixpipe"]
