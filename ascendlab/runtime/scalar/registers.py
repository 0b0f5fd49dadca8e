"""Control registers: the cmpMask register (set_cmp_mask / get_cmp_mask), the DataCopyPad pad
value (set_pad_value), the load_3d settings (set_fmatrix / set_load_data_boundary /
padding_value / repeat) and the FixPipe pre-quant scalar (set_fix_pipe_pre_quant_flag).

Each setter validates its argument as the ADK describes it, holds the value in the core's
state (CoreState.lib) and is one event in the trace. What reads them on the chip, and which
emulated numbers they change:

* cmpMask: compare's register form writes it and select's register forms read it (both
  emulated in vector/cmpreg.py). set_cmp_mask / get_cmp_mask move 128 B between UB and the
  register on the vector pipe (pyasc docs: dst "不能少于128字节"), so a round trip through
  the register is exact; get_cmp_mask before any set_cmp_mask yields 0xFF bytes (the poison
  local memory starts with: the register's reset value is not documented).
* set_pad_value: the padding register of DataCopyPad GM->UB (ADK SetPadValue: set_mov_pad_val
  on 910B). The emulated data_copy_pad pads with DataCopyPadExtParams.padding_value when
  is_pad and with the burst's first element otherwise (dma/copy.py), as the ADK documents for those
  forms; which of them also follows this register on the chip is not documented, so none does.
* set_fmatrix (Ascend C SetFmatrix; not a pyasc name, kept as an ascendlab extension so that a
  LoadData3DParamsV2Pro load can be set up without a v1/v2 load first): the feature map's l1_h,
  l1_w and pad_list in register FMATRIX (FmatrixMode.FMATRIX_LEFT) or FMATRIX_B
  (FMATRIX_RIGHT). load_data with LoadData3DParamsV1/V2 writes FMATRIX (FMATRIX_B with
  f_matrix_ctrl) and the padding value itself, as Ascend C's default IsResetLoad3dConfig does;
  V2Pro reads them (runtime/cube/img2col.py).
* set_load_data_padding_value: the value load_3d writes where the window leaves the feature
  map; read by V2Pro loads (V1/V2 set it from their pad_value first).
* set_load_data_repeat: emulated load_3d reads it and supports only repeat_time 0/1 (one load
  per instruction); a larger repeat_time makes the next load_3d raise NotImplementedError.
* set_load_data_boundary: held; the L1 wrap-around it sets is not emulated (0 means none): a
  load_3d after a non-zero boundary raises NotImplementedError.
* set_fix_pipe_pre_quant_flag: the scalar of fixpipe's DEQ quantisation modes, not emulated
  (cube/fixpipe.py emulates NoQuant and F322F16).
"""

from __future__ import annotations

import sys
from enum import IntEnum
from typing import Any

import numpy as np

from ...errors import ParamError
from .. import core as _core
from ..core import POISON, access, check_vector_order, emit
from ..enums import VECTOR_POSITIONS, TPosition
from ..memory.tensor import require_local
from ..trace import register_op
from ..vector.cmpreg import CMP_MASK_BYTES
from .sysvar import record

_getframe = sys._getframe


register_op("set_cmp_mask", "V", "elementwise", replayable=False, module=__name__)
register_op("get_cmp_mask", "V", "elementwise", replayable=False, module=__name__)
for _op in ("set_pad_value", "set_fmatrix", "set_load_data_boundary", "set_load_data_padding_value",
            "set_load_data_repeat", "set_fix_pipe_pre_quant_flag"):
    register_op(_op, "S", "sync", replayable=False, module=__name__)


def _ub_operand(op: str, t: Any, role: str, frame: Any) -> tuple[Any, Any]:
    c = _core.core()
    t = require_local(op, t, role)
    if t.pos not in VECTOR_POSITIONS:
        raise ParamError(f"{op}: {role} {t.describe()} must be in VECIN/VECCALC/VECOUT "
                         f"{_core.where(c, frame)}")
    if t.hi - t.addr < CMP_MASK_BYTES:
        raise ParamError(f"{op}: {role} {t.describe()} holds {t.hi - t.addr} B, the cmpMask "
                         f"register moves {CMP_MASK_BYTES} B {_core.where(c, frame)}")
    return c, t


def set_cmp_mask(src: Any) -> None:
    """Load the cmpMask register from the first 128 B of src (vector pipe)."""
    frame = _getframe(1)
    c, t = _ub_operand("set_cmp_mask", src, "src", frame)
    reads = (access("UB", t.addr, CMP_MASK_BYTES, t.describe()),)
    check_vector_order(c, reads, (), frame)
    c.lib["cmp_mask"] = c.mem("UB")[t.addr:t.addr + CMP_MASK_BYTES].copy()
    emit(c, "V", "set_cmp_mask", reads, (), CMP_MASK_BYTES // t.dtype.itemsize, t.dtype.name,
         1, frame)


def get_cmp_mask(dst: Any) -> None:
    """Store the cmpMask register into the first 128 B of dst (vector pipe)."""
    frame = _getframe(1)
    c, t = _ub_operand("get_cmp_mask", dst, "dst", frame)
    writes = (access("UB", t.addr, CMP_MASK_BYTES, t.describe()),)
    check_vector_order(c, (), writes, frame)
    reg = c.lib.get("cmp_mask")
    c.mem("UB")[t.addr:t.addr + CMP_MASK_BYTES] = (
        reg if reg is not None else np.full(CMP_MASK_BYTES, POISON, np.uint8))
    emit(c, "V", "get_cmp_mask", (), writes, CMP_MASK_BYTES // t.dtype.itemsize, t.dtype.name,
         1, frame)


def set_pad_value(padding_value: Any, pos: Any = TPosition.MAX) -> None:
    """The DataCopyPad GM->VECIN/VECOUT padding register (held; see the module docstring)."""
    frame = _getframe(1)
    p = TPosition(int(pos))
    if p not in (TPosition.MAX, TPosition.VECIN, TPosition.VECOUT):
        raise ParamError(f"set_pad_value(): pos must be one of TPosition.MAX, VECIN, VECOUT, "
                         f"got {p.name}")
    c = record("set_pad_value", frame, (("value", padding_value), ("pos", p.name)))
    c.lib["pad_value"] = padding_value


def _hold_uint(op: str, name: str, value: Any, bits: int, frame: Any) -> None:
    """Record op's S event and hold an unsigned `bits`-bit register value in CoreState.lib."""
    v = int(value)
    if not 0 <= v < 1 << bits:
        raise ParamError(f"{op}: {name}={v} is not a uint{bits}")
    record(op, frame, ((name, v),)).lib[op] = v


def set_load_data_boundary(boundary: Any) -> None:
    """load_3d's A1/B1 wrap-around boundary (0: none); held, the wrap-around is not emulated."""
    _hold_uint("set_load_data_boundary", "boundary", boundary, 32, _getframe(1))


def set_load_data_padding_value(pad_value: Any) -> None:
    """load_3d's padding value (read by LoadData3DParamsV2Pro loads)."""
    c = record("set_load_data_padding_value", _getframe(1), (("value", pad_value),))
    c.lib["load_data_padding_value"] = pad_value


class LoadDataRepeatParam:
    """load_3d_v2's repeat settings: repeat_time [0, 255], repeat_stride [0, 65535],
    repeat_mode 0 (along height) or 1 (along width)."""

    def __init__(self, repeat_time: int = 1, repeat_stride: int = 0,
                 repeat_mode: int = 0) -> None:
        self.repeat_time, self.repeat_stride = int(repeat_time), int(repeat_stride)
        self.repeat_mode = int(repeat_mode)
        for name, v, hi in (("repeat_time", self.repeat_time, 255),
                            ("repeat_stride", self.repeat_stride, 65535),
                            ("repeat_mode", self.repeat_mode, 1)):
            if not 0 <= v <= hi:
                raise ParamError(f"LoadDataRepeatParam.{name}={v} is outside [0, {hi}]")


def set_load_data_repeat(param: Any) -> None:
    """load_3d_v2's repeat register (emulated loads support repeat_time 0/1 only)."""
    if not isinstance(param, LoadDataRepeatParam):
        raise TypeError(f"set_load_data_repeat: expected a LoadDataRepeatParam, got "
                        f"{type(param).__name__}")
    c = record("set_load_data_repeat", _getframe(1),
               (("repeat_time", param.repeat_time), ("repeat_stride", param.repeat_stride),
                ("repeat_mode", param.repeat_mode)))
    c.lib["load_data_repeat"] = param


class FmatrixMode(IntEnum):
    """Which FMATRIX register set_fmatrix writes (Ascend C FmatrixMode)."""

    FMATRIX_LEFT = 0
    FMATRIX_RIGHT = 1


def set_fmatrix(l1_h: Any, l1_w: Any, pad_list: Any,
                fmatrix_mode: Any = FmatrixMode.FMATRIX_LEFT) -> None:
    """The load_3d feature-map register: l1_h, l1_w in [1, 32767], pad_list (left, right, top,
    bottom) each in [0, 255]; FMATRIX_LEFT -> FMATRIX, FMATRIX_RIGHT -> FMATRIX_B."""
    frame = _getframe(1)
    h, w = int(l1_h), int(l1_w)
    pads = tuple(int(v) for v in pad_list)
    mode = FmatrixMode(int(fmatrix_mode))
    for name, v in (("l1_h", h), ("l1_w", w)):
        if not 1 <= v <= 32767:
            raise ParamError(f"set_fmatrix: {name}={v} is outside [1, 32767]")
    if len(pads) != 4 or not all(0 <= v <= 255 for v in pads):
        raise ParamError(f"set_fmatrix: pad_list={pads} must be 4 values (left, right, top, "
                         "bottom) in [0, 255]")
    c = record("set_fmatrix", frame, (("l1_h", h), ("l1_w", w), ("pad_list", pads),
                                      ("mode", mode.name)))
    c.lib.setdefault("fmatrix", {})[int(mode)] = (h, w, pads)


def set_fix_pipe_pre_quant_flag(config: Any) -> None:
    """FixPipe's scalar quantisation parameter (uint64); held, DEQ quant is not emulated."""
    _hold_uint("set_fix_pipe_pre_quant_flag", "config", config, 64, _getframe(1))
