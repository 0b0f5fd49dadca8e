"""pyasc's `asc.runtime.jit`: the @jit decorator, JITFunction, and the placeholder arguments
MockTensor / MockValue that pyasc's compile-only tests launch kernels with.

On ascendlab a kernel launched with placeholders still runs on the emulator (which is how it
gets checked: signatures, overloads, dtypes, positions); a MockTensor is a zero-filled GM
argument of MOCK_BYTES bytes, a MockValue a zero scalar of its dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...runtime.dtypes import DataType
from ...runtime.launch.jit import ConstExpr, JITFunction, jit

__all__ = ["ConstExpr", "JITFunction", "MockTensor", "MockValue", "MOCK_BYTES", "jit"]

# Size of a MockTensor's GM buffer. pyasc's placeholder has no size (it is never run); 1 MiB
# holds every buffer pyasc's unit tests address. ASSUMPTION: chosen, not a hardware number.
MOCK_BYTES = 1 << 20


def _dtype(dtype: Any, what: str) -> DataType:
    if not isinstance(dtype, DataType):
        raise TypeError(f"{what}(dtype) needs an asc dtype such as asc.float16, got "
                        f"{type(dtype).__name__} {dtype!r}")
    return dtype


class MockTensor(np.ndarray):
    """A kernel memory argument without data (pyasc's MockTensor(dtype)): zeros, MOCK_BYTES
    long, of `dtype`. `.asc_dtype` is the asc dtype it was made with."""

    asc_dtype: DataType

    def __new__(cls, dtype: DataType) -> MockTensor:
        dt = _dtype(dtype, "MockTensor")
        obj = np.zeros(MOCK_BYTES // dt.itemsize, dtype=dt.np).view(cls)
        obj.asc_dtype = dt
        return obj

    def __array_finalize__(self, obj: Any) -> None:
        self.asc_dtype = getattr(obj, "asc_dtype", None)  # type: ignore[assignment]


def MockValue(dtype: DataType) -> np.generic:  # noqa: N802 - pyasc's name
    """A kernel scalar argument without a value (pyasc's MockValue(dtype)): zero of `dtype`."""
    return _dtype(dtype, "MockValue").np.type(0)
