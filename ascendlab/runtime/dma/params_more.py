"""pyasc parameter structs and enums of the data-copy and cube families not used elsewhere, and
init_const_value.

Field names, order and defaults follow pyasc's asc.language.core.types / enums:
- DataCopyEnhancedParams(block_mode, deq_scale, deq_value_in, sid_store_mode_in, is_relu_in,
  pad_mode_in, pad_value_in); SliceInfo(start_index, end_index=31, stride, burst_len=32,
  shape_value) (pyasc's defaults are ONE_BLK_SIZE - 1 and ONE_BLK_SIZE); Nz2NdParamsFull(nd_num,
  n_value, d_value, src_nd_matrix_stride, src_n_stride, dst_d_stride, dst_nd_matrix_stride);
  DataCopyCO12DstParams(n_size, m_size, dst_stride, src_stride, quant_pre, relu_pre,
  channel_split, nz2nd_en); InitConstValueParams(repeat_times, block_num, dst_gap, init_value).
- No emulated data_copy form takes DataCopyEnhancedParams, SliceInfo, Nz2NdParamsFull or
  DataCopyCO12DstParams yet: the data_copy overloads using them raise NotImplementedError
  (dma/copy.py).
  pyasc's constructors also accept a trailing IR `handle` argument; it is accepted and ignored.

init_const_value(dst, InitConstValueParams) (Ascend C InitConstValue, pyasc docs
asc.language.basic.init_const_value): fills repeat_times iterations of block_num blocks with
init_value; a block (and a dst_gap unit between iterations) is 32 B in A1/B1 and 512 B in
A2/B2; the start address must be 32 B (A1/B1) or 512 B (A2/B2) aligned.
ASSUMPTION: it runs on MTE2 into L1 and on MTE1 into L0A/L0B (the pipe is not documented).
"""

from __future__ import annotations

import sys
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from ...errors import AlignmentError, OutOfBoundsError, ParamError, PositionError
from .. import core as _core
from ..core import access, emit
from ..enums import QuantModes, TPosition
from ..memory.tensor import require_local
from ..trace import register_op

_getframe = sys._getframe

register_op("init_const_value", "", "dma", replayable=False,
            module=__name__)


class BlockMode(IntEnum):
    BLOCK_MODE_NORMAL = 0
    BLOCK_MODE_MATRIX = 1
    BLOCK_MODE_VECTOR = 2
    BLOCK_MODE_SMALL_CHANNEL = 3
    BLOCK_MODE_DEPTHWISE = 4


class DeqScale(IntEnum):
    DEQ_NONE = 0
    DEQ = 1
    VDEQ = 2
    DEQ8 = 3
    VDEQ8 = 4
    DEQ16 = 5
    VDEQ16 = 6


class pad_t(IntEnum):  # noqa: N801 - pyasc's name
    PAD_NONE = 0
    PAD_MODE1 = 1
    PAD_MODE2 = 2
    PAD_MODE3 = 3
    PAD_MODE4 = 4
    PAD_MODE5 = 5
    PAD_MODE6 = 6
    PAD_MODE7 = 7
    PAD_MODE8 = 8


class DataCopyEnhancedParams(NamedTuple):
    """data_copy's enhanced settings (block mode, dequantisation, relu, padding)."""

    block_mode: BlockMode = BlockMode.BLOCK_MODE_NORMAL
    deq_scale: DeqScale = DeqScale.DEQ_NONE
    deq_value_in: int = 0
    sid_store_mode_in: int = 0
    is_relu_in: bool = False
    pad_mode_in: pad_t = pad_t.PAD_NONE
    pad_value_in: int = 0


class SliceInfo(NamedTuple):
    """One dimension of a sliced data_copy: [start_index, end_index] by stride, in bursts."""

    start_index: int = 0
    end_index: int = 31
    stride: int = 0
    burst_len: int = 32
    shape_value: int = 0


class _Nz2NdFields(NamedTuple):
    nd_num: int
    n_value: int
    d_value: int
    src_nd_matrix_stride: int
    src_n_stride: int
    dst_d_stride: int
    dst_nd_matrix_stride: int


class Nz2NdParamsFull(_Nz2NdFields):
    """NZ -> ND conversion of a data_copy; all seven fields required (uint16 each)."""

    __slots__ = ()

    def __new__(cls, nd_num: int, n_value: int, d_value: int, src_nd_matrix_stride: int,
                src_n_stride: int, dst_d_stride: int, dst_nd_matrix_stride: int,
                handle: Any = None) -> Nz2NdParamsFull:
        return super().__new__(cls, nd_num, n_value, d_value, src_nd_matrix_stride,
                               src_n_stride, dst_d_stride, dst_nd_matrix_stride)


class DataCopyCO12DstParams(NamedTuple):
    """CO1 -> GM/L1 data_copy settings (sizes, strides, pre-quant, relu, NZ -> ND)."""

    n_size: int
    m_size: int
    dst_stride: int
    src_stride: int
    quant_pre: QuantModes = QuantModes.NoQuant
    relu_pre: int = 0
    channel_split: bool = False
    nz2nd_en: bool = False


class InitConstValueParams(NamedTuple):
    """init_const_value's iterations (uint16 fields) and the value written."""

    repeat_times: int = 0
    block_num: int = 0
    dst_gap: int = 0
    init_value: Any = 0


_UNIT = {TPosition.A1: 32, TPosition.B1: 32, TPosition.A2: 512, TPosition.B2: 512}


def init_const_value(dst: Any, init_const_value_params: Any) -> None:
    """Fill dst's iterations with init_value (module docstring)."""
    frame = _getframe(1)
    op = "init_const_value"
    c = _core.core()
    t = require_local(op, dst, "dst")
    p = init_const_value_params
    if not isinstance(p, InitConstValueParams):
        raise TypeError(f"{op}: expected InitConstValueParams, got {type(p).__name__}")
    unit = _UNIT.get(t.pos)
    if unit is None:
        raise PositionError(f"{op}: dst {t.describe()} must be in A1, B1, A2 or B2")
    if t.addr % unit:
        raise AlignmentError(f"{op}: dst {t.describe()} starts at byte {t.addr}, not {unit} B "
                             "aligned")
    for name in ("repeat_times", "block_num", "dst_gap"):
        v = int(getattr(p, name))
        if not 0 <= v <= 32767:
            raise ParamError(f"{op}: InitConstValueParams.{name}={v} is outside [0, 32767]")
    R, nb, gap = int(p.repeat_times), int(p.block_num), int(p.dst_gap)
    span = nb * unit
    step = (nb + gap) * unit
    end = t.addr + (R - 1) * step + span if R and nb else t.addr
    if end > t.hi:
        raise OutOfBoundsError(f"{op}: {R} iterations of {nb} x {unit} B (gap {gap}) reach byte "
                               f"{end}, past dst {t.describe()} ending at {t.hi}")
    isz = t.dtype.itemsize
    value = np.asarray(p.init_value).astype(t.arr.dtype)
    for r in range(R if nb else 0):
        e = t.e0 + r * step // isz
        t.arr[e:e + span // isz] = value
    pipe = "MTE2" if unit == 32 else "MTE1"
    emit(c, pipe, op, (), (access(t.space, t.addr, span, t.name, R, step),), R * span // isz,
         t.dtype.name, R, frame, None, (("block_num", nb), ("dst_gap", gap),
                                        ("value", value.item())))


__all__ = ["BlockMode", "DataCopyCO12DstParams", "DataCopyEnhancedParams", "DeqScale",
           "InitConstValueParams", "Nz2NdParamsFull", "SliceInfo", "init_const_value", "pad_t"]
