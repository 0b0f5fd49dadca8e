"""The Matmul enums pyasc has at the top level: asc.BatchMode, asc.IterateMode,
asc.MatmulConfigMode, asc.BatchOutMode, asc.LayoutMode (values: pyasc python/asc/language/core/
enums.py)."""

from __future__ import annotations

from enum import IntEnum


class BatchMode(IntEnum):
    """How a batch Matmul's batches sit against L1 (pyasc asc.BatchMode)."""

    NONE = 0
    BATCH_LESS_THAN_L1 = 1
    BATCH_LARGE_THAN_L1 = 2
    SINGLE_LARGE_THAN_L1 = 3


class IterateMode(IntEnum):
    """Which iterate forms a Matmul compiles in (pyasc asc.IterateMode, bit flags)."""

    ITERATE_MODE_NORMAL = 0b00000001
    ITERATE_MODE_ALL = 0b00000010
    ITERATE_MODE_BATCH = 0b00000100
    ITERATE_MODE_N_BATCH = 0b00001000
    ITERATE_MODE_DEFAULT = 0b11111111


class LayoutMode(IntEnum):
    """How a batched Matmul's operands lie in GM (pyasc asc.LayoutMode; iterate_batch emulates
    NORMAL)."""

    NONE = 0
    NORMAL = 1
    BSNGD = 2
    SBNGD = 3
    BNGS1S2 = 4


class MatmulConfigMode(IntEnum):
    """The schedule get_mm_config builds (pyasc asc.MatmulConfigMode)."""

    CONFIG_NORM = 1
    CONFIG_MDL = 2
    CONFIG_SPECIALMDL = 3
    CONFIG_IBSHARE = 4


class BatchOutMode(IntEnum):
    """How a batch Matmul writes its batches (pyasc asc.BatchOutMode)."""

    SINGLE_BATCH = 0
    MULTI_BATCH = 1
    DYNAMIC = 2


__all__ = ["BatchMode", "BatchOutMode", "IterateMode", "LayoutMode", "MatmulConfigMode"]
