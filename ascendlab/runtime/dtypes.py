"""pyasc's DataType objects (asc.float16, asc.int32, ...) mapped onto numpy dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DTypeError

_NUMPY = {
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64,
    "bool": np.bool_,
}


class DataType:
    """A pyasc element type; compares equal by name, knows its numpy dtype and byte size.

    There is one instance per name (DataType("float16") is asc.float16), so the emulator's hot
    paths can compare dtypes by identity."""

    __slots__ = ("name", "np", "itemsize")
    _instances: dict[str, DataType] = {}

    def __new__(cls, name: Any) -> DataType:
        if isinstance(name, DataType):
            return name
        key = str(name)
        if key.startswith("torch."):
            key = key[6:]
        inst = cls._instances.get(key)
        if inst is None:
            inst = object.__new__(cls)
            inst._init(key)
            cls._instances[key] = inst
        return inst

    def __reduce__(self) -> tuple:
        return (DataType, (self.name,))

    def _init(self, name: str) -> None:
        if name.startswith("torch."):
            name = name[6:]
        if name == "bfloat16":
            raise DTypeError("bfloat16 is not supported by pyasc (DataType.sizeof fails for it); "
                             "use float16 or float32")
        if name != "void" and name not in _NUMPY:
            raise DTypeError(f"unknown data type {name!r}; pyasc supports "
                             + ", ".join(n for n in _NUMPY if n != "bool"))
        self.name = name
        self.np = np.dtype(_NUMPY[name]) if name != "void" else None
        self.itemsize = self.np.itemsize if self.np is not None else 0

    def sizeof(self) -> int:
        """Bytes per element (pyasc: ``x.dtype.sizeof()``)."""
        if self.np is None:
            raise DTypeError("void has no size")
        return self.itemsize

    def is_int(self) -> bool:
        return self.np is not None and self.np.kind in "iu"

    def is_float(self) -> bool:
        return self.np is not None and self.np.kind == "f"

    def is_signed(self) -> bool:
        return self.np is not None and self.np.kind in "if"

    def is_unsigned(self) -> bool:
        return self.np is not None and self.np.kind == "u"

    def is_numeric(self) -> bool:
        return self.is_int() or self.is_float()

    # Equality and hashing are by identity (object's): one instance per name makes that the
    # same as comparing names, and keeps dict lookups keyed by dtype in C.

    def __repr__(self) -> str:
        return f"asc.{self.name}"

    __str__ = __repr__


int8, int16, int32, int64 = (DataType(n) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (DataType(n) for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (DataType(n) for n in ("float16", "float32", "float64"))
void = DataType("void")
bool_ = DataType("bool")
# pyasc aliases
half, float_, double, int_ = float16, float32, float64, int32

def from_numpy(dtype: Any) -> DataType:
    """DataType of a numpy dtype (or anything str() renders as a dtype name, e.g. torch dtypes)."""
    name = str(dtype)
    if name.startswith("torch."):
        name = name[6:]
    return DataType(name if name in _NUMPY or name == "bfloat16" else np.dtype(dtype).name)
