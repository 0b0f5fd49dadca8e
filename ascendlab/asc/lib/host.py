"""pyasc's `asc.lib.host`: the Matmul host tiling (MultiCoreMatmulTiling, MatmulApiTiling,
BatchMatmulTiling), the platform query and the host enums, on the emulator. The implementation is
ascendlab/adv/host_tiling.py, host_multicore.py and host_batch.py (rules: host_rules.py,
tiling.py); docs/adv.md ("Host tiling") gives the rules.

    import asc.lib.host as host
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    ...
    t.get_tiling(tiling)  # fills an asc.adv.TCubeTiling; 0 ok, -1 failed (see t.last_error)
"""

from __future__ import annotations

from ...adv.host_batch import BatchMatmulTiling
from ...adv.host_multicore import MultiCoreMatmulTiling
from ...adv.host_tiling import (
    CubeFormat,
    DataType,
    DequantType,
    MatmulApiTiling,
    MatmulApiTilingBase,
    MatmulConfigParams,
    MatrixMadType,
    MatrixTraverse,
    PlatformAscendC,
    PlatformAscendCManager,
    ScheduleType,
    TPosition,
    get_ascendc_platform,
)

__all__ = [
    "BatchMatmulTiling",
    "CubeFormat",
    "DataType",
    "DequantType",
    "MatmulApiTiling",
    "MatmulApiTilingBase",
    "MatmulConfigParams",
    "MatrixMadType",
    "MatrixTraverse",
    "MultiCoreMatmulTiling",
    "PlatformAscendC",
    "PlatformAscendCManager",
    "ScheduleType",
    "TPosition",
    "get_ascendc_platform",
]
