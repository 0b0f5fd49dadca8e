"""GlobalTensor: a typed window on GM (pyasc `asc.GlobalTensor`), with its views, scalar
get/set_value on the scalar unit and the argument checks of instructions that take one
(re-exported by tensor.py, where LocalTensor lives)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..errors import LaunchError
from . import core as _core
from .core import CoreState, access, emit, finding
from .dtypes import DataType
from .memory import GUARD, GlobalAddress

_getframe = sys._getframe
_new_obj = object.__new__


def _as_int(value: Any, what: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an integer, got {type(value).__name__} "
                        f"{value!r}") from None


class GlobalTensor:
    """A typed window on GM: `set_global_buffer(addr[, size])`, then `g[i:]` views by elements."""

    __slots__ = ("alloc", "offset", "dtype", "size")

    def __init__(self) -> None:
        self.alloc = None
        self.offset = 0  # bytes from the argument's element 0
        self.dtype: DataType | None = None
        self.size: int | None = None  # elements declared by set_global_buffer, if any

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
        return g

    def __getitem__(self, key: Any) -> GlobalTensor:
        if isinstance(key, slice):
            if key.stop is not None or key.step is not None:
                raise RuntimeError("Slice operation with provided stop and step is not "
                                   "supported for GlobalTensor (pyasc): use g[start:]")
            key = 0 if key.start is None else key.start
        return self._view(key.__index__())

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

    def __call__(self, index: Any) -> Any:
        raise NotImplementedError("GlobalTensor(index) (pyasc's bracket operator) is not "
                                  "emulated; use g[index:] for a view or g.get_value(index)")

    def __repr__(self) -> str:
        if self.alloc is None:
            return "GlobalTensor(<unset>)"
        return f"GlobalTensor({self.name_at()}, {self.dtype.name})"


# pyasc tensor methods the emulator does not implement: using one raises, naming it.
_UNEMULATED_METHODS = {
    "GlobalTensor": frozenset({"set_l2_cache_hint", "set_shape_info", "get_shape_info"}),
    "LocalTensor": frozenset({"print", "to_file"}),
}


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
