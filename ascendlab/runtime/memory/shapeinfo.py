"""pyasc's `asc.array` (a small typed array living in the kernel, a C array on the device) and
`asc.ShapeInfo` (a tensor's logical shape, the shape before padding, and its data format), which
`LocalTensor.set_shape_info` attaches to a tensor for library routines such as adv.softmax.

pyasc (python/asc/language/core/array.py, types.py):
  array(dtype, length, fill_value=None)   `length` elements, all `fill_value` when given
  array(dtype, values)                    the values, converted to dtype
  ShapeInfo()                             an empty shape (shape_dim 0)
  ShapeInfo(shape, original_shape=None, data_format=DataFormat.ND)
ShapeInfo packs the dims as uint32; without original_shape the original shape is the shape
(Ascend C's ShapeInfo constructor copies it).

Limitations: an array made without values or fill_value holds zeros (the device's is
uninitialised stack memory); data_format is kept as an int (asc.DataFormat's value; ND = 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DataType

MAX_SHAPE_DIM = 8  # Ascend C ShapeInfo holds at most K_MAX_SHAPE_DIM = 8 dimensions
_UINT32_MAX = 2**32 - 1


class Array:
    """A fixed-length typed array made in a kernel by `asc.array` (pyasc `Array`)."""

    __slots__ = ("dtype", "values")

    def __init__(self, dtype: DataType, values: np.ndarray) -> None:
        self.dtype = dtype
        self.values = values  # (length,) of dtype.np

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, index: Any) -> Any:
        return self.values[int(index)].item()

    def __setitem__(self, index: Any, value: Any) -> None:
        self.values[int(index)] = np.asarray(value).astype(self.dtype.np)

    def __iter__(self) -> Any:
        return iter(self.values.tolist())

    def __repr__(self) -> str:
        return f"asc.array({self.dtype!r}, {self.values.tolist()})"


def array(dtype: Any, length_or_values: Any, fill_value: Any = None) -> Array:
    """asc.array(dtype, length[, fill_value]) or asc.array(dtype, values)."""
    dt = DataType(dtype)
    if not dt.is_numeric():
        raise RuntimeError("Array dtype must be integer or float")
    if isinstance(length_or_values, (int, np.integer)):
        length = int(length_or_values)
        if length <= 0:
            raise RuntimeError("Array length must be a positive integer")
        values = np.zeros(length, dtype=dt.np)
        if fill_value is not None:
            values[:] = np.asarray(fill_value).astype(dt.np)
        return Array(dt, values)
    if fill_value is not None:
        raise RuntimeError("fill_value cannot be provided together with initial values")
    try:
        values = np.asarray(list(length_or_values)).astype(dt.np)
    except (TypeError, ValueError):
        raise TypeError(f"asc.array({dt!r}, ...): expected a length or a sequence of numbers, "
                        f"got {length_or_values!r}") from None
    if values.ndim != 1 or not len(values):
        raise RuntimeError(f"asc.array({dt!r}, ...): needs a non-empty flat sequence, got "
                           f"{length_or_values!r}")
    return Array(dt, values)


def _dims(value: Any, what: str) -> tuple[int, ...]:
    """A shape argument (Array, tuple or list of ints) as a tuple of uint32 dims."""
    seq = value.values.tolist() if isinstance(value, Array) else value
    try:
        dims = tuple(int(v) for v in seq)
    except (TypeError, ValueError):
        raise TypeError(f"ShapeInfo {what} must be an asc.array of ints (or a tuple of ints), "
                        f"got {value!r}") from None
    if not 1 <= len(dims) <= MAX_SHAPE_DIM:
        raise ValueError(f"ShapeInfo {what} {dims} has {len(dims)} dimensions; Ascend C's "
                         f"ShapeInfo holds 1 to {MAX_SHAPE_DIM}")
    for d in dims:
        if not 0 <= d <= _UINT32_MAX:
            raise ValueError(f"ShapeInfo {what} {dims}: dimension {d} is not a uint32")
    return dims


class ShapeInfo:
    """pyasc `asc.ShapeInfo`: the logical shape, the original (unpadded) shape and the data
    format that `LocalTensor.set_shape_info` attaches to a tensor. Immutable."""

    __slots__ = ("dims", "original_dims", "data_format")

    def __init__(self, shape: Any = None, original_shape: Any = None,
                 data_format: Any = None) -> None:
        if shape is None:
            if original_shape is not None:
                raise ValueError("ShapeInfo(original_shape=...) needs a shape as well")
            dims: tuple[int, ...] = ()
            orig: tuple[int, ...] = ()
        else:
            dims = _dims(shape, "shape")
            orig = dims if original_shape is None else _dims(original_shape, "original_shape")
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "original_dims", orig)
        object.__setattr__(self, "data_format", 0 if data_format is None else int(data_format))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ShapeInfo is immutable: make a new one and set_shape_info it")

    @property
    def shape_dim(self) -> int:
        """Number of dimensions of the shape (0 for an empty ShapeInfo)."""
        return len(self.dims)

    @property
    def original_shape_dim(self) -> int:
        return len(self.original_dims)

    def shape(self, dim: Any) -> int:
        """Extent of dimension `dim` (pyasc ShapeInfo.shape(dim))."""
        return self.dims[self._dim(dim, self.dims)]

    def original_shape(self, dim: Any) -> int:
        """Extent of dimension `dim` of the original (unpadded) shape."""
        return self.original_dims[self._dim(dim, self.original_dims)]

    @staticmethod
    def _dim(dim: Any, dims: tuple[int, ...]) -> int:
        d = int(dim)
        if not 0 <= d < len(dims):
            raise IndexError(f"ShapeInfo dimension {d} is outside the shape {dims}")
        return d

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShapeInfo) and other.dims == self.dims
                and other.original_dims == self.original_dims
                and other.data_format == self.data_format)

    def __hash__(self) -> int:
        return hash((self.dims, self.original_dims, self.data_format))

    def __repr__(self) -> str:
        if not self.dims:
            return "ShapeInfo()"
        extra = "" if self.original_dims == self.dims else f", original={self.original_dims}"
        fmt = f", data_format={self.data_format}" if self.data_format else ""
        return f"ShapeInfo({self.dims}{extra}{fmt})"


def rows_and_width(dims: tuple[int, ...]) -> tuple[int, int]:
    """(m, k) of a shape as Ascend C's last-axis routines see it: k is the last dimension, m
    the product of the others (GetLastAxisShapeND)."""
    k = dims[-1]
    m = 1
    for d in dims[:-1]:
        m *= d
    return m, k


__all__ = ["Array", "ShapeInfo", "array", "get_shape_size", "rows_and_width"]


def get_shape_size(shape_info: Any) -> int:
    """The product of shape_info's dims (Ascend C GetShapeSize: 1 for a ShapeInfo without
    dims); the original shape is not used."""
    if not isinstance(shape_info, ShapeInfo):
        raise TypeError(f"get_shape_size expects an asc.ShapeInfo, got "
                        f"{type(shape_info).__name__} {shape_info!r}")
    size = 1
    for d in shape_info.dims:
        size *= d
    return size
