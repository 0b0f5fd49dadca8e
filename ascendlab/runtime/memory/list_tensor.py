"""ListTensorDesc and TensorDesc: a list of tensors described in GM, read on the scalar unit
(pyasc asc.ListTensorDesc / asc.TensorDesc; layout and checks from Ascend C's
kernel_operator_list_tensor_impl.h).

The GM layout, in uint64 words from `data`:

    word 0                 ptr_offset: bytes from `data` to the pointer table
    words 1 ..             one descriptor per tensor: a word (dim | index << 32), then its dim
                           sizes; a list of bare pointers (dim 0) has one descriptor
                           (count << 32, then 0xffffffff) and ptr_offset 24
    words ptr_offset/8 ..  the tensors' GM addresses, one per tensor

The count is the high half of the first descriptor word when it is not 0, else the index of the
last descriptor + 1. With length and shape_size given (not 0xffffffff) they must equal the
list's byte length (ptr_offset + 8 * count) and its count.

    desc = asc.ListTensorDesc(data=x, length=n_bytes, shape_size=count)
    desc.get_size()                       # count
    p = desc.get_data_ptr(1, asc.float32) # a GlobalAddress to tensor 1
    t = asc.TensorDesc(asc.float32); t.set_shape_addr(addr)
    desc.get_desc(t, 1)                   # t.get_dim(), t.get_shape(k), t.get_data_obj()

On ascendlab a GM address is the emulator's: argument k of a launch (memory arguments, in
signature order) starts at `arg_address(k)`, so a host builds a list with `list_bytes`.
Every word read is a scalar GM read (a get_value event on the S pipe).

Limitations: set_shape_addr's address only has to be non-zero: the shape is kept in the
TensorDesc rather than written to local memory there. get_data_obj gives the GlobalTensor the
buffer size Ascend C computes, sizeof(T) times the element count, as its element count.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import OutOfBoundsError, ParamError
from .. import core as _core
from ..core import access, emit
from ..dtypes import DataType
from .gm import _BASE0, _SPACING, GlobalAddress, GMAlloc
from .tensor import GlobalTensor

_getframe = sys._getframe
UNCHECKED = 0xFFFFFFFF  # length / shape_size: "do not check"


def arg_address(index: int, byte_offset: int = 0) -> int:
    """The emulated GM address of byte `byte_offset` of memory argument `index` (0-based, in
    the kernel signature's order)."""
    return _BASE0 + int(index) * _SPACING + int(byte_offset)


def list_bytes(pointers: list[int], shapes: list[tuple[int, ...]] | None = None) -> np.ndarray:
    """The uint64 words of a list of `pointers` with their `shapes` (all of one rank), or of
    bare pointers when shapes is None, in the layout of the module docstring."""
    if shapes is None:  # the count goes in the high half of the one descriptor word
        words = [24, len(pointers) << 32, UNCHECKED]
    else:
        if len(shapes) != len(pointers) or len({len(s) for s in shapes}) != 1:
            raise ValueError("list_bytes: one shape per pointer, all of the same rank")
        dim = len(shapes[0])
        words = [8 + len(shapes) * (1 + dim) * 8]
        for i, s in enumerate(shapes):
            words += [dim | (i << 32), *s]
    return np.array(words + list(pointers), dtype=np.uint64)


class _Reader:
    """Scalar uint64 reads from one GM argument, each a get_value event."""

    def __init__(self, data: Any, op: str) -> None:
        if not isinstance(data, GlobalAddress):
            raise TypeError(f"{op}: data must be a GlobalAddress (a kernel argument), got "
                            f"{type(data).__name__}")
        self.alloc: GMAlloc = data.alloc
        self.offset = data.offset
        self.op = op

    def word(self, i: int, frame: Any) -> int:
        c = _core.core()
        a, off = self.alloc, self.offset + 8 * i
        if i < 0 or off < 0 or off + 8 > a.nbytes:
            raise OutOfBoundsError(f"{self.op}: word {i} of the list (bytes [{off}, {off + 8}) of"
                                   f" {a.name}) is outside {a.name} ({a.nbytes} B) "
                                   f"{_core.where(c, frame)}")
        b = a.idx0 + off
        emit(c, "S", "get_value", (access("GM", a.base + off, 8, a.name),), (), 1, "uint64", 0,
             frame)
        return int(a.buf[b:b + 8].view(np.uint64)[0])


def _pointer(addr: int, dtype: DataType, op: str, frame: Any) -> GlobalAddress:
    """The GlobalAddress of emulated GM address `addr` (inside one of the launch's arguments)."""
    c = _core.core()
    for a in c.launch.allocs.values():
        if a.base <= addr < a.base + a.nbytes:
            return GlobalAddress(a, addr - a.base, dtype)
    raise OutOfBoundsError(f"{op}: address {addr:#x} is not inside any GM argument of this "
                           f"launch (argument k starts at arg_address(k)) "
                           f"{_core.where(c, frame)}")


class TensorDesc:
    """One tensor of a ListTensorDesc: its dims, its index and its GM address."""

    def __init__(self, dtype: Any = None) -> None:
        self.dtype = DataType("float32") if dtype is None else DataType(dtype)
        self.dim = 0
        self.index = 0
        self.shape: tuple[int, ...] = ()
        self.shape_addr = 0
        self.ptr = 0

    def set_shape_addr(self, shape_ptr: Any) -> None:
        """Where get_desc writes the shape (must be set first; see Limitations)."""
        self.shape_addr = int(shape_ptr)
        if self.shape_addr == 0:
            raise ParamError(f"TensorDesc.set_shape_addr: shape_ptr is 0 (a null pointer) "
                             f"{_core.where(_core.core(), _getframe(1))}")

    def get_dim(self) -> int:
        return self.dim

    def get_index(self) -> int:
        return self.index

    def get_shape(self, offset: Any) -> int:
        """The size of dim `offset` (< get_dim())."""
        k = int(offset)
        if not 0 <= k < self.dim:
            raise OutOfBoundsError(f"TensorDesc.get_shape: offset {k} is outside the {self.dim} "
                                   f"dims {_core.where(_core.core(), _getframe(1))}")
        return self.shape[k]

    def get_data_ptr(self) -> GlobalAddress:
        return _pointer(self.ptr, self.dtype, "TensorDesc.get_data_ptr", _getframe(1))

    def get_data_obj(self) -> GlobalTensor:
        """A GlobalTensor on the data (its size as Ascend C sets it: see Limitations)."""
        size = self.dtype.itemsize
        for d in self.shape:
            size *= d
        g = GlobalTensor()
        g.set_global_buffer(_pointer(self.ptr, self.dtype, "TensorDesc.get_data_obj",
                                     _getframe(1)), size)
        return g

    def __repr__(self) -> str:
        return f"<TensorDesc {self.dtype.name} index {self.index} shape {self.shape}>"


class ListTensorDesc:
    """A list of GM tensors described in GM (see the module docstring)."""

    def __init__(self, data: Any = None, length: Any = UNCHECKED,
                 shape_size: Any = UNCHECKED) -> None:
        self.reader: _Reader | None = None
        self.count = 0
        if data is not None:
            self._decode(data, length, shape_size, _getframe(1))

    def init(self, data: Any, length: Any = UNCHECKED, shape_size: Any = UNCHECKED) -> None:
        """Decode the list at `data` (length and shape_size are only checked)."""
        self._decode(data, length, shape_size, _getframe(1))

    def _decode(self, data: Any, length: Any, shape_size: Any, frame: Any) -> None:
        r = _Reader(data, "ListTensorDesc")
        ptr_offset = r.word(0, frame)
        first = r.word(1, frame)
        dim, head = first & UNCHECKED, first >> 32
        size = 2 if dim == 0 else 1 + dim  # words per descriptor
        if ptr_offset % 8 or ptr_offset < 8 * (1 + size):
            self._bad(f"ptr_offset {ptr_offset} (word 0) is not a multiple of 8 past one "
                      f"descriptor of {size} words", frame)
        table = ptr_offset // 8
        count = head if head else (r.word(table - size, frame) >> 32) + 1
        if dim:
            ok = count == (ptr_offset - 8) // (size * 8) and (ptr_offset - 8) % (size * 8) == 0
        else:
            ok = r.word(2, frame) == UNCHECKED and ptr_offset == 24
        if not ok:
            self._bad(f"ptr_offset {ptr_offset}, dim {dim} and count {count} do not describe "
                      f"{'one descriptor of bare pointers' if not dim else 'the descriptors'}",
                      frame)
        length, shape_size = int(length), int(shape_size)
        if length != UNCHECKED and shape_size != UNCHECKED:
            if count != shape_size or length != ptr_offset + 8 * count:
                self._bad(f"shape_size={shape_size} and length={length} B do not match the "
                          f"list's {count} tensors and {ptr_offset + 8 * count} B", frame)
        self.reader, self.dim, self.size, self.table, self.count = r, dim, size, table, count

    def _bad(self, what: str, frame: Any) -> None:
        raise ParamError(f"ListTensorDesc: the list in GM is malformed: {what} "
                         f"{_core.where(_core.core(), frame)}")

    def _index(self, index: Any, op: str, frame: Any) -> tuple[_Reader, int]:
        if self.reader is None:
            raise ValueError(f"ListTensorDesc.{op}: the descriptor is empty; call init(data) "
                             f"first")
        i = int(index)
        if not 0 <= i < self.count:
            raise OutOfBoundsError(f"ListTensorDesc.{op}: index {i} is outside the list's "
                                   f"{self.count} tensors {_core.where(_core.core(), frame)}")
        return self.reader, i

    def get_size(self) -> int:
        """The number of tensors in the list."""
        return self.count

    def get_data_ptr(self, index: Any, dtype: Any) -> GlobalAddress:
        """A GlobalAddress (of `dtype`) to tensor `index`'s data."""
        frame = _getframe(1)
        r, i = self._index(index, "get_data_ptr", frame)
        return _pointer(r.word(self.table + i, frame), DataType(dtype),
                        "ListTensorDesc.get_data_ptr", frame)

    def get_desc(self, desc: Any, index: Any) -> None:
        """Fill `desc` with tensor `index`'s dims, index and address."""
        frame = _getframe(1)
        if not isinstance(desc, TensorDesc):
            raise TypeError(f"get_desc: desc must be an asc.TensorDesc, got {desc!r}")
        r, i = self._index(index, "get_desc", frame)
        if self.dim == 0:
            self._bad("get_desc needs shapes, but the list holds bare pointers (dim 0)", frame)
        if desc.shape_addr == 0:
            raise ParamError(f"ListTensorDesc.get_desc: call desc.set_shape_addr(...) first "
                             f"(Ascend C writes the shape there) "
                             f"{_core.where(_core.core(), frame)}")
        base = 1 + i * self.size
        desc.dim, desc.index = self.dim, i
        desc.ptr = r.word(self.table + i, frame)
        desc.shape = tuple(r.word(base + 1 + k, frame) for k in range(self.dim))

    def __repr__(self) -> str:
        return f"<ListTensorDesc of {self.count} tensors>"


__all__ = ["ListTensorDesc", "TensorDesc", "arg_address", "list_bytes"]
