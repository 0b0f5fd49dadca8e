"""asc.lib.host's enums and platform: Ascend C's matmul_tiling enums (names and values of
matmul_tiling_base.h, as pyasc binds them in python/asc/lib/host/bindings/Enums.cpp) and
`get_ascendc_platform()`. The tiling classes that use them are in host_tiling.py,
host_multicore.py and host_batch.py."""

from __future__ import annotations

from enum import IntEnum

from ..runtime.chips import ChipSpec, get_chip
from ..runtime.launch.jit import SESSION


# ---- host enums: matmul_tiling::*, separate from the kernel's asc.TPosition etc. ---------------
class TPosition(IntEnum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 11  # alias of VECCALC
    SPM = 12
    SHM = 12  # alias of SPM
    TSCM = 13
    MAX = 14


class CubeFormat(IntEnum):
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7
    ROW_MAJOR = 0  # alias of ND
    COLUMN_MAJOR = 8


class DataType(IntEnum):
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_STRING = 13
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_QINT8 = 18
    DT_QINT16 = 19
    DT_QINT32 = 20
    DT_QUINT8 = 21
    DT_QUINT16 = 22
    DT_STRING_REF = 24
    DT_DUAL = 25
    DT_VARIANT = 26
    DT_BF16 = 27
    DT_UNDEFINED = 28
    DT_INT4 = 29
    DT_UINT1 = 30
    DT_INT2 = 31
    DT_BFLOAT16 = 33
    DT_MAX = 40


class MatrixTraverse(IntEnum):
    NOSET = 0  # Ascend C's tiling then uses FIRSTM
    FIRSTM = 1  # M varies fastest (iterate_order 0)
    FIRSTN = 2  # N varies fastest (iterate_order 1)


class MatrixMadType(IntEnum):
    NORMAL = 0
    HF32 = 1
    MXMODE = 2


class DequantType(IntEnum):
    SCALAR = 0
    TENSOR = 1


class ScheduleType(IntEnum):
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1


# ---- platform ------------------------------------------------------------------------------------
class PlatformAscendC:
    """Ascend C's PlatformAscendC for one emulated SoC (pyasc: host.get_ascendc_platform())."""

    def __init__(self, chip: ChipSpec | str) -> None:
        self.chip = get_chip(chip)

    def get_core_num(self) -> int:
        """GetCoreNum: vector cores on a separated (910B) chip, AI Cores on a coupled one."""
        return self.chip.aiv_cores

    def get_core_num_aic(self) -> int:
        """GetCoreNumAic: cube cores (AI Cores on a coupled chip)."""
        return self.chip.aic_cores

    def get_core_num_aiv(self) -> int:
        """GetCoreNumAiv: vector cores (AI Cores on a coupled chip)."""
        return self.chip.aiv_cores

    def get_soc_version(self) -> str:
        """The SoC name, e.g. 'Ascend910B1' (Ascend C returns its SocVersion enum instead)."""
        return self.chip.name

    def __repr__(self) -> str:
        return f"<PlatformAscendC {self.chip.name}>"


class PlatformAscendCManager:
    """pyasc's PlatformAscendCManager: get_instance(soc_version) gives the platform of a SoC."""

    @staticmethod
    def get_instance(soc_version: str | None = None) -> PlatformAscendC:
        """The platform of `soc_version`, or of the chip config.set_platform chose."""
        return PlatformAscendC(soc_version if soc_version is not None else SESSION.options.chip)


def get_ascendc_platform() -> PlatformAscendC:
    """The platform of the SoC chosen by config.set_platform (by default the launch default,
    Ascend910B2)."""
    return PlatformAscendCManager.get_instance()
