"""Global memory: the kernel arguments in one virtual address space, with guard zones.

Each memory argument gets its own base address (spaced so that pointer arithmetic on one
argument never yields another's). Reads go straight to the caller's bytes; the first write (or
the first access outside the argument) makes a private device copy framed by two poisoned guard
zones of GUARD bytes, as pyasc's copy to the device would. An overrun then lands in the guard
(and is reported), never in another tensor, and the caller's array is written back only after
the kernel completes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import POISON
from ..dtypes import DataType

GUARD = 64 * 1024  # bytes of guard zone on each side of every argument
_SPACING = 1 << 40  # virtual distance between arguments' base addresses
_BASE0 = 1 << 40  # the first argument's base (never 0, like a real device pointer)


class GMAlloc:
    """One kernel argument in GM.

    `buf[idx0 + off]` is the byte at offset `off` of the argument: before the first write `buf`
    is the caller's own bytes (idx0 = 0); after it, the private copy guard|data|guard
    (idx0 = GUARD). Every write bumps `version` (mark_written), so values derived from the
    contents (`derived`, e.g. adv.Matmul's float32 copy of an operand) know when they are stale.
    """

    __slots__ = ("name", "index", "base", "dtype", "shape", "nbytes", "host", "buf", "mv",
                 "idx0", "written", "version", "derived")

    def __init__(self, name: str, index: int, host_bytes: np.ndarray, dtype: DataType,
                 shape: tuple[int, ...]) -> None:
        self.name = name
        self.index = index
        self.base = _BASE0 + index * _SPACING
        self.dtype = dtype
        self.shape = shape
        self.nbytes = int(host_bytes.size)
        self.host = host_bytes  # contiguous uint8 view of the caller's data
        self.buf = host_bytes
        self.mv = memoryview(host_bytes)  # buf's bytes: the copy fast paths slice it (cheaper)
        self.idx0 = 0
        self.written = False
        self.version = 0  # bumped by every write into the argument
        self.derived: dict[Any, tuple[int, Any]] = {}  # key -> (version it was made at, value)

    def mark_written(self) -> None:
        """Record a write (the device copy exists: call private() first)."""
        self.written = True
        self.version += 1

    def private(self) -> np.ndarray:
        """Make (once) and return the padded device copy; buf/idx0 then point into it."""
        if self.idx0 == 0:
            padded = np.empty(GUARD + self.nbytes + GUARD, dtype=np.uint8)
            padded[:GUARD] = POISON
            padded[GUARD + self.nbytes:] = POISON
            padded[GUARD:GUARD + self.nbytes] = self.host
            self.buf = padded
            self.mv = memoryview(padded)
            self.idx0 = GUARD
        return self.buf

    def array(self) -> np.ndarray:
        """The argument's current contents as a typed array of its shape (shares memory)."""
        data = self.buf[self.idx0:self.idx0 + self.nbytes]
        return data.view(self.dtype.np).reshape(self.shape)


class GlobalAddress:
    """A typed GM pointer (pyasc `asc.GlobalAddress`); `addr + n` moves by n elements."""

    __slots__ = ("alloc", "offset", "dtype")

    def __init__(self, alloc: GMAlloc, offset: int, dtype: DataType) -> None:
        self.alloc = alloc
        self.offset = offset  # bytes from the argument's element 0
        self.dtype = dtype

    def __add__(self, n: Any) -> GlobalAddress:
        return GlobalAddress(self.alloc, self.offset + int(n) * self.dtype.itemsize, self.dtype)

    __radd__ = __add__

    def __sub__(self, n: Any) -> GlobalAddress:
        return GlobalAddress(self.alloc, self.offset - int(n) * self.dtype.itemsize, self.dtype)

    def __int__(self) -> int:
        return self.alloc.base + self.offset

    def __index__(self) -> int:
        return self.alloc.base + self.offset

    def __repr__(self) -> str:
        return (f"GlobalAddress({self.alloc.name} + {self.offset // self.dtype.itemsize}, "
                f"{self.dtype.name})")
