"""asc.property(...): the Ascend C constants a kernel reads at compile time (pyasc Property).

Values are the chip's (Ascend C kernel_utils_constants.h): on arch 2201 (910B) TOTAL_L1_SIZE
is 512 KiB minus the 128 B KFC_L1_RESERVER_SIZE the Matmul server keeps.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import core as _core


class Property(NamedTuple):
    """A named Ascend C constant (pyasc asc.Property)."""

    name: str
    dtype: str


DEFAULT_C0_SIZE = Property("::AscendC::DEFAULT_C0_SIZE", "int32")
ONE_BLK_SIZE = Property("::AscendC::ONE_BLK_SIZE", "int16")
TOTAL_L1_SIZE = Property("::AscendC::TOTAL_L1_SIZE", "int32")
TOTAL_L0C_SIZE = Property("::AscendC::TOTAL_L0C_SIZE", "int32")

KFC_L1_RESERVE = 128  # Ascend C: KFC_L1_RESERVER_SIZE on __NPU_ARCH__ 2201


def property(prop: Any) -> int:  # noqa: A001 - pyasc's name
    """The value of `prop` on the running core's chip."""
    chip = _core.core().chip
    if prop == DEFAULT_C0_SIZE or prop == ONE_BLK_SIZE:
        return 32
    if prop == TOTAL_L1_SIZE:
        return chip.l1_bytes - (KFC_L1_RESERVE if chip.arch == 2201 else 0)
    if prop == TOTAL_L0C_SIZE:
        return chip.l0c_bytes
    raise ValueError(f"asc.property: {prop!r} is not one of DEFAULT_C0_SIZE, ONE_BLK_SIZE, "
                     "TOTAL_L1_SIZE, TOTAL_L0C_SIZE")
