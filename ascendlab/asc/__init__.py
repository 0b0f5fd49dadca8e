"""pyasc's kernel API on the ascendlab emulator: `import ascendlab.asc as asc`.

The names and signatures are pyasc's (../shared/reference/pyasc-api-surface.md). A pyasc name
that the emulator does not implement yet resolves to a stub that raises NotImplementedError
naming it when used; docs/emulated-api.md lists what is emulated.
"""

from __future__ import annotations

import builtins
import sys
from typing import Any

from ..runtime import dma as _dma
from ..runtime import vector as _vec
from ..runtime.dtypes import (
    DataType,
    double,
    float16,
    float32,
    float64,
    float_,
    half,
    int8,
    int16,
    int32,
    int64,
    int_,
    uint8,
    uint16,
    uint32,
    uint64,
    void,
)
from ..runtime.enums import (
    CMPMODE,
    CubeFormat,
    FixpipeConfig,
    HardEvent,
    IterateOrder,
    MaskMode,
    PipeID,
    QuantModes,
    ReduceOrder,
    RoundMode,
    SelMode,
    TPosition,
)
from ..runtime.launch import ConstExpr, jit
from ..runtime.memory import GlobalAddress
from ..runtime.params import (
    BinaryRepeatParams,
    CopyRepeatParams,
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    FixpipeParamsV220,
    LoadData2DParams,
    MmadParams,
    Nd2NzParams,
    UnaryRepeatParams,
)
from ..runtime.queue import TBuf, TPipe, TQue, TQueBind
from ..runtime.sync import (
    ascend_is_aic,
    ascend_is_aiv,
    get_block_idx,
    get_block_num,
    get_data_block_size_in_bytes,
    pipe_barrier,
    reset_mask,
    set_flag,
    set_mask_count,
    set_mask_norm,
    set_vector_mask,
    sync_all,
    wait_flag,
)
from ..runtime.tensor import GlobalTensor, LocalTensor
from . import lib, runtime  # noqa: F401 - asc.lib.runtime / asc.runtime.config as attributes
from ._unemulated import UNEMULATED, unemulated

_getframe = sys._getframe

data_copy = _dma.data_copy
data_copy_pad = _dma.data_copy_pad


def _binary(name: str) -> Any:
    def op(dst: Any, src0: Any, src1: Any, *args: Any, **kwargs: Any) -> None:
        _vec.binary(name, dst, src0, src1, args, kwargs, _getframe(1))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Vector {name}: {name}(dst, src0, src1, count) or "
                  f"{name}(dst, src0, src1, mask, repeat_times, BinaryRepeatParams"
                  "[, is_set_mask]).")
    return op


def _unary(name: str) -> Any:
    def op(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
        _vec.unary(name, dst, src, args, kwargs, _getframe(1))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Vector {name}: {name}(dst, src, count) or "
                  f"{name}(dst, src, mask, repeat_times, UnaryRepeatParams[, is_set_mask]).")
    return op


def _scalar(name: str) -> Any:
    def op(dst: Any, src: Any, scalar: Any, *args: Any, **kwargs: Any) -> None:
        _vec.scalar_op(name, dst, src, scalar, args, kwargs, _getframe(1))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Vector {name}: {name}(dst, src, scalar, count) or "
                  f"{name}(dst, src, scalar, mask, repeat_times, UnaryRepeatParams"
                  "[, is_set_mask]); the scalar is cast to src's dtype.")
    return op


for _name in _vec.BINARY:
    globals()[_name] = _binary(_name)
for _name in _vec.UNARY:
    globals()[_name] = _unary(_name)
for _name in _vec.SCALAR:
    globals()[_name] = _scalar(_name)


def axpy(dst: Any, src: Any, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst = src * scalar + dst: axpy(dst, src, scalar, count) or the mask form."""
    _vec.axpy(dst, src, scalar, args, kwargs, _getframe(1))


def duplicate(dst: Any, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """Fill dst with scalar: duplicate(dst, scalar, count) or duplicate(dst, scalar, mask,
    repeat_times, dst_block_stride, dst_repeat_stride)."""
    _vec.duplicate(dst, scalar, args, kwargs, _getframe(1))


def range(*args: Any) -> Any:  # noqa: A001 - pyasc's name
    """A runtime loop (pyasc asc.range): range(stop) / range(start, stop[, step])."""
    return builtins.range(*args)


static_range = range  # unrolled at compile time in pyasc; the same loop when emulated


def ceildiv(a: int, b: int) -> int:
    """Ceiling division (works on the host and in kernels)."""
    return -(-a // b)


def __getattr__(name: str) -> Any:
    if name in UNEMULATED:
        return unemulated(f"asc.{name}")
    raise AttributeError(f"module 'asc' has no attribute {name!r} (not a pyasc name either)")
