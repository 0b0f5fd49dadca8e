"""Scalar-unit arithmetic: scalar_cast and the 64-bit bit counts (ADK 标量计算).

    asc.scalar_cast(2.5, asc.int32, asc.RoundMode.CAST_ROUND)   # 3
    asc.scalar_get_sff_value(28, 1)        # 2: bit 2 is the lowest 1 of 0b11100
    asc.scalar_get_count_of_value(16, 0)   # 63: zeros among the 64 bits of 0x10
    asc.scalar_count_leading_zero(0x0fffffffffffffff)   # 4
    asc.count_bits_cnt_same_as_sign_bit(0x0f00000000000000)   # 3

Each call is one event on the scalar pipe S (no memory touched, no sync edge) and returns the
value the chip computes: ints as Python ints, a float16 as a numpy float16.

Inputs are taken as the C++ signatures do: value_in is converted to uint64_t (two's
complement: -1 is all ones) for the bit counts and to int64_t for
count_bits_cnt_same_as_sign_bit; scalar_cast takes a float (its value rounded to float32
first). A value that does not fit 64 bits is an error here (the C++ compiler would truncate).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import DTypeError, ParamError
from .. import core as _core
from ..core import emit
from ..dtypes import DataType
from ..enums import RoundMode
from ..trace import register_op
from ..vector.cast import converter

_getframe = sys._getframe

OPS = ("scalar_cast", "scalar_get_sff_value", "scalar_get_count_of_value",
       "scalar_count_leading_zero", "count_bits_cnt_same_as_sign_bit")
for _op in OPS:
    # an ALU op of the scalar unit: the cycle model charges S-pipe events without a sync edge
    # no cycles (ASSUMPTION: about one scalar cycle, below the model's resolution)
    register_op(_op, "S", "sync", replayable=False, module=__name__)

_U64 = (1 << 64) - 1

# scalar_cast conversions (pyasc scalar_cast docs: float -> half with CAST_ODD; float -> int32
# with CAST_ROUND, CAST_CEIL, CAST_FLOOR, CAST_RINT)
_CAST_MODES = {"float16": frozenset({RoundMode.CAST_ODD}),
               "int32": frozenset({RoundMode.CAST_ROUND, RoundMode.CAST_CEIL,
                                   RoundMode.CAST_FLOOR, RoundMode.CAST_RINT})}


def _record(op: str, frame: Any, args: tuple) -> None:
    c = _core.core()
    emit(c, "S", op, (), (), 0, "", 0, frame, None, args)


def _u64(value: Any, op: str) -> int:
    v = int(value)
    if not -(1 << 63) <= v <= _U64:
        raise ParamError(f"{op}: value_in={v} does not fit 64 bits (uint64_t / int64_t)")
    return v & _U64


def _bit(count_value: Any, op: str) -> int:
    b = int(count_value)
    if b not in (0, 1):
        raise ParamError(f"{op}: count_value must be 0 or 1, got {b}")
    return b


def scalar_cast(value_in: Any, dtype: Any, round_mode: Any) -> Any:
    """value_in (a float, taken as float32) converted to dtype (asc.int32 or asc.float16/half)
    with round_mode, by the rules of the vector cast."""
    frame = _getframe(1)
    dt = DataType(dtype)
    modes = _CAST_MODES.get(dt.name)
    if modes is None:
        raise DTypeError(f"scalar_cast: unsupported target dtype {dt!r}; supported: asc.int32, "
                         "asc.float16 (asc.half)")
    try:
        mode = RoundMode(int(round_mode))
    except ValueError:
        raise ParamError(f"scalar_cast: {round_mode!r} is not a RoundMode") from None
    if mode not in modes:
        raise ParamError(f"scalar_cast: float32 -> {dt.name} takes "
                         + ", ".join(sorted(m.name for m in modes)) + f", not {mode.name}")
    x = np.array([value_in], dtype=np.float32)
    out = converter("float32", dt.name, mode)(x)[0]
    _record("scalar_cast", frame, (("dtype", dt.name), ("round_mode", mode.name)))
    return int(out) if dt.is_int() else np.float16(out)


def scalar_get_sff_value(value_in: Any, count_value: Any) -> int:
    """Position of the lowest bit equal to count_value (0 or 1) in value_in as uint64; -1 when
    there is none."""
    frame = _getframe(1)
    v = _u64(value_in, "scalar_get_sff_value")
    b = _bit(count_value, "scalar_get_sff_value")
    x = v if b else ~v & _U64
    _record("scalar_get_sff_value", frame, (("count_value", b),))
    return (x & -x).bit_length() - 1 if x else -1


def scalar_get_count_of_value(value_in: Any, count_value: Any) -> int:
    """How many of value_in's 64 bits (as uint64) equal count_value (0 or 1)."""
    frame = _getframe(1)
    v = _u64(value_in, "scalar_get_count_of_value")
    b = _bit(count_value, "scalar_get_count_of_value")
    ones = bin(v).count("1")
    _record("scalar_get_count_of_value", frame, (("count_value", b),))
    return ones if b else 64 - ones


def scalar_count_leading_zero(value_in: Any) -> int:
    """Zeros above the highest 1 of value_in as uint64 (64 for 0)."""
    frame = _getframe(1)
    v = _u64(value_in, "scalar_count_leading_zero")
    _record("scalar_count_leading_zero", frame, ())
    return 64 - v.bit_length()


def count_bits_cnt_same_as_sign_bit(value_in: Any) -> int:
    """How many bits below the sign bit of value_in (as int64), from bit 62 down, equal the
    sign bit before the first that differs; -1 for 0 and -1 (all bits equal)."""
    frame = _getframe(1)
    v = _u64(value_in, "count_bits_cnt_same_as_sign_bit")
    _record("count_bits_cnt_same_as_sign_bit", frame, ())
    if v in (0, _U64):
        return -1
    x = ~v & _U64 if v >> 63 else v  # make the sign bit 0: count leading zeros below it
    return 63 - x.bit_length()
