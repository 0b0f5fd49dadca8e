"""pyasc's enums, with the values pyasc gives them (reference/pyasc-api-surface.md section 2.4)."""

from __future__ import annotations

from enum import Enum, IntEnum


class TPosition(IntEnum):
    """Logical buffer positions; each maps to one physical memory (see SPACE_OF)."""

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
    MAX = 12


# Physical memory of each position (ADK 通用说明和约束). C2 (BiasTable) and CO2 are not emulated.
SPACE_OF: dict[int, str] = {
    TPosition.GM: "GM",
    TPosition.A1: "L1", TPosition.B1: "L1", TPosition.C1: "L1",
    TPosition.A2: "L0A", TPosition.B2: "L0B", TPosition.CO1: "L0C",
    TPosition.VECIN: "UB", TPosition.VECOUT: "UB", TPosition.VECCALC: "UB",
}

VECTOR_POSITIONS = frozenset({TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC})


class HardEvent(IntEnum):
    """SRC_DST pipe pairs for set_flag/wait_flag, in pyasc's order (values 0-34)."""

    MTE2_MTE1 = 0
    MTE1_MTE2 = 1
    MTE1_M = 2
    M_MTE1 = 3
    MTE2_V = 4
    V_MTE2 = 5
    MTE3_V = 6
    V_MTE3 = 7
    M_V = 8
    V_M = 9
    V_V = 10
    MTE3_MTE1 = 11
    MTE1_MTE3 = 12
    MTE1_V = 13
    MTE2_M = 14
    M_MTE2 = 15
    V_MTE1 = 16
    M_FIX = 17
    FIX_M = 18
    MTE3_MTE2 = 19
    MTE2_MTE3 = 20
    S_V = 21
    V_S = 22
    S_MTE2 = 23
    MTE2_S = 24
    S_MTE3 = 25
    MTE3_S = 26
    MTE2_FIX = 27
    FIX_MTE2 = 28
    FIX_S = 29
    M_S = 30
    FIX_MTE3 = 31
    MTE1_FIX = 32
    FIX_MTE1 = 33
    FIX_FIX = 34

    @property
    def pipes(self) -> tuple[str, str]:
        """(producer pipe, consumer pipe), e.g. MTE2_V -> ("MTE2", "V")."""
        src, dst = self.name.split("_")
        return src, dst


class PipeID(IntEnum):
    """Hardware pipes as pyasc numbers them."""

    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6
    PIPE_MTE4 = 7
    PIPE_MTE5 = 8
    PIPE_V2 = 9
    PIPE_FIX = 10

    @property
    def pipe(self) -> str:
        """The trace's pipe name ("V", "MTE2", ... or "ALL")."""
        return self.name[5:]


# The pipes the trace uses, in the order msprof's PipeUtilization lists them.


class CubeFormat(IntEnum):
    ND = 0
    NZ = 1


class RoundMode(IntEnum):
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6


class CMPMODE(IntEnum):
    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SelMode(IntEnum):
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


class MaskMode(IntEnum):
    NORMAL = 0
    COUNTER = 1


class ReduceOrder(IntEnum):
    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


class QuantModes(IntEnum):
    """Fixpipe pre-quantisation modes (ADK Fixpipe QuantMode_t); only NoQuant/F322F16 emulated."""

    NoQuant = 0
    F322F16 = 1
    F322BF16 = 2
    DEQF16 = 3
    VDEQF16 = 4
    QF322B8_PRE = 5
    VQF322B8_PRE = 6
    REQ8 = 7
    VREQ8 = 8


class IterateOrder(IntEnum):
    ORDER_M = 0
    ORDER_N = 1
    UNDEF = 2


class FixpipeConfig(Enum):
    """Fixpipe output layout: row-major ND (NZ2ND conversion on) or NZ kept as is."""

    cfg_row_major = "row_major"
    cfg_nz = "nz"


class Hardware(IntEnum):
    """Physical memories as pyasc numbers them (asc.Hardware: LocalMemAllocator's memory)."""

    GM = 0
    UB = 1
    L1 = 2
    L0A = 3
    L0B = 4
    L0C = 5
    BIAS = 6
    FIXBUF = 7
    MAX = 8


# The emulated memories of Hardware values (BIAS and FIXBUF are not emulated).
HARDWARE_SPACE: dict[int, str] = {Hardware.UB: "UB", Hardware.L1: "L1", Hardware.L0A: "L0A",
                                  Hardware.L0B: "L0B", Hardware.L0C: "L0C"}


class CacheMode(IntEnum):
    """GlobalTensor.set_l2_cache_hint's L2 cache policy (pyasc asc.CacheMode)."""

    CACHE_MODE_NORMAL = 0
    CACHE_MODE_DISABLE = 1
    CACHE_MODE_LAST = 2
    CACHE_MODE_PERSISTENT = 4


class CacheRwMode(IntEnum):
    """Which accesses set_l2_cache_hint's policy applies to (pyasc asc.CacheRwMode)."""

    READ = 1
    WRITE = 2
    RW = 3


class DataFormat(IntEnum):
    """A ShapeInfo's data layout (pyasc asc.DataFormat); kept on the ShapeInfo as its int."""

    ND = 0
    NZ = 1
    NCHW = 2
    NC1HWC0 = 3
    NHWC = 4
