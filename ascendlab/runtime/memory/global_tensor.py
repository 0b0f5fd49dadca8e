"""GlobalTensor: a typed window on GM (pyasc `asc.GlobalTensor`), with its views, scalar
get/set_value on the scalar unit and the argument checks of instructions that take one
(re-exported by memory/tensor.py, where LocalTensor lives)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import LaunchError
from .. import core as _core
from ..core import CoreState, access, emit, finding
from ..dtypes import DataType
from ..enums import CacheMode, CacheRwMode
from .gm import GUARD, GlobalAddress
from .shapeinfo import ShapeInfo

_getframe = sys._getframe
_new_obj = object.__new__
_EMPTY_SHAPE = ShapeInfo()


def _as_int(value: Any, what: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an integer, got {type(value).__name__} "
                        f"{value!r}") from None


class GlobalTensor:
    """A typed window on GM: `set_global_buffer(addr[, size])`, then `g[i:]` views by elements."""

    __slots__ = ("alloc", "offset", "dtype", "size", "shape_info", "cache_hint")

    def __init__(self) -> None:
        self.alloc = None
        self.offset = 0  # bytes from the argument's element 0
        self.dtype: DataType | None = None
        self.size: int | None = None  # elements declared by set_global_buffer, if any
        self.shape_info: ShapeInfo | None = None  # set_shape_info's ShapeInfo
        # set_l2_cache_hint's (CacheMode, CacheRwMode): recorded; the cycle model's L2 does not
        # follow cache hints (docs/cycle-model.md)
        self.cache_hint = (CacheMode.CACHE_MODE_NORMAL, CacheRwMode.RW)

    def set_global_buffer(self, buffer: Any = None, buffer_size: Any = None) -> None:
        """Point this tensor at `buffer` (a GlobalAddress such as `x + offset`)."""
        if isinstance(buffer, GlobalTensor):
            buffer = buffer.get_phy_addr()
        if not isinstance(buffer, GlobalAddress):
            raise ValueError("set_global_buffer needs a typed GlobalAddress (a kernel argument "
                             f"such as `x` or `x + offset`), got {type(buffer).__name__}")
        self.alloc = buffer.alloc
        self.offset = buffer.offset
        self.dtype = buffer.dtype
        self.size = _as_int(buffer_size, "buffer_size") if buffer_size else None

    def _view(self, index: Any) -> GlobalTensor:
        if self.alloc is None:
            raise ValueError("GlobalTensor used before set_global_buffer")
        g = _new_obj(GlobalTensor)
        g.alloc = self.alloc
        g.dtype = self.dtype
        g.offset = self.offset + index * self.dtype.itemsize
        size = self.size
        g.size = None if size is None else size - index
        g.shape_info = self.shape_info
        g.cache_hint = self.cache_hint
        return g

    def __getitem__(self, key: Any) -> GlobalTensor:
        if type(key) is slice:  # (slice cannot be subclassed)
            if key.stop is not None or key.step is not None:
                raise RuntimeError("Slice operation with provided stop and step is not "
                                   "supported for GlobalTensor (pyasc): use g[start:]")
            key = 0 if key.start is None else key.start
        return self._view(key if type(key) is int else key.__index__())

    def __add__(self, n: Any) -> GlobalTensor:
        return self._view(n.__index__())

    def get_size(self) -> int:
        """Elements: the declared buffer_size, else what remains of the argument."""
        if self.size is not None:
            return self.size
        return (self.alloc.nbytes - self.offset) // self.dtype.itemsize

    def get_phy_addr(self, offset: Any = 0) -> GlobalAddress:
        return GlobalAddress(self.alloc, self.offset + int(offset) * self.dtype.itemsize,
                             self.dtype)

    def name_at(self, index: int = 0) -> str:
        """'x[128]': the argument name and element index of this view's element `index`."""
        return f"{self.alloc.name}[{self.offset // self.dtype.itemsize + index}]"

    def _scalar(self, index: Any, op: str, frame: Any, write: bool) -> tuple[CoreState, int]:
        """Check a scalar access; returns the core and the byte offset in the argument."""
        c = _core.core()
        i = _as_int(index, f"GlobalTensor.{op} offset")
        isz = self.dtype.itemsize
        a = self.alloc
        off = self.offset + i * isz
        if off < 0 or off + isz > a.nbytes:
            finding(c, f"GlobalTensor.{op}: element {self.name_at(i)} is outside "
                    f"{a.name} ({a.nbytes // isz} elements)", frame)
            if not -GUARD <= off <= a.nbytes + GUARD - isz:
                raise IndexError(f"GlobalTensor.{op}: element {self.name_at(i)} is beyond the "
                                 f"guard zone of {a.name} {_core.where(c, frame)}")
            a.private()
        if write:
            a.private()
            a.mark_written()
        return c, off

    def get_value(self, offset: Any) -> Any:
        """Scalar read from GM (scalar pipe)."""
        frame = _getframe(1)
        c, off = self._scalar(offset, "get_value", frame, False)
        a = self.alloc
        isz = self.dtype.itemsize
        b = a.idx0 + off
        value = a.buf[b:b + isz].view(self.dtype.np)[0]
        emit(c, "S", "get_value", (access("GM", a.base + off, isz, a.name),), (), 1,
             self.dtype.name, 0, frame)
        return value.item() if self.dtype.is_int() else value

    def set_value(self, offset: Any, value: Any) -> None:
        """Scalar write to GM (scalar pipe); the value is converted to the tensor's dtype."""
        frame = _getframe(1)
        c, off = self._scalar(offset, "set_value", frame, True)
        a = self.alloc
        isz = self.dtype.itemsize
        b = a.idx0 + off
        a.buf[b:b + isz].view(self.dtype.np)[0] = np.asarray(value).astype(self.dtype.np)
        emit(c, "S", "set_value", (), (access("GM", a.base + off, isz, a.name),), 1,
             self.dtype.name, 0, frame, args=(("value", value),))

    def __getattr__(self, name: str) -> Any:
        return _unemulated_method("GlobalTensor", name)

    def __call__(self, index: Any) -> GlobalTensor:
        """g(i): pyasc's call operator, the same tensor from element i on (like g[i:])."""
        return call_view(self, index)

    def set_shape_info(self, shape_info: Any) -> None:
        """Attach a ShapeInfo (a logical shape; the data is not touched)."""
        self.shape_info = check_shape_info(shape_info, "GlobalTensor")

    def get_shape_info(self) -> ShapeInfo:
        """The ShapeInfo set on this tensor; an empty ShapeInfo() (shape_dim 0) if none was."""
        return self.shape_info if self.shape_info is not None else _EMPTY_SHAPE

    def set_l2_cache_hint(self, mode: Any = CacheMode.CACHE_MODE_NORMAL,
                          rw_mode: Any = CacheRwMode.RW) -> None:
        """Record the L2 cache policy for this tensor's accesses. It changes no emulated number:
        the cycle model's L2 (docs/cycle-model.md) does not follow cache hints."""
        self.cache_hint = (CacheMode(mode), CacheRwMode(rw_mode))

    def __repr__(self) -> str:
        if self.alloc is None:
            return "GlobalTensor(<unset>)"
        return f"GlobalTensor({self.name_at()}, {self.dtype.name})"


# pyasc tensor methods the emulator does not implement: using one raises, naming it.
_UNEMULATED_METHODS = {
    "GlobalTensor": frozenset(),
    "LocalTensor": frozenset({"print", "to_file"}),
}


def check_shape_info(value: Any, cls: str) -> ShapeInfo:
    if not isinstance(value, ShapeInfo):
        raise TypeError(f"{cls}.set_shape_info expects an asc.ShapeInfo, got "
                        f"{type(value).__name__} {value!r}")
    return value


def call_view(t: Any, index: Any) -> Any:
    """pyasc's `t(i)` (its BracketOp): a tensor of the same type at element i; it takes a
    run-time integer only."""
    if isinstance(index, bool) or not hasattr(index, "__index__"):
        raise RuntimeError(f"Tensor call operator is not supported with {index!r}")
    return t[index.__index__():]


def _unemulated_method(cls: str, name: str) -> Any:
    if name in _UNEMULATED_METHODS[cls]:
        raise NotImplementedError(f"{cls}.{name} is part of pyasc but ascendlab does not emulate "
                                  "it yet; docs/emulated-api.md lists what is emulated")
    raise AttributeError(f"'{cls}' object has no attribute {name!r}")


def require_global(op: str, t: Any, role: str) -> GlobalTensor:
    if not isinstance(t, GlobalTensor):
        raise TypeError(f"{op}: {role} must be a GlobalTensor, got {type(t).__name__}")
    if t.alloc is None:
        raise LaunchError(f"{op}: {role} GlobalTensor used before set_global_buffer")
    return t
