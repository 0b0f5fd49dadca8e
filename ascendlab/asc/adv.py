"""pyasc's `asc.adv` on the emulator: the Matmul object, tiling structs and adv.softmax.

Names pyasc has here that ascendlab does not emulate yet resolve to stubs that raise
NotImplementedError when used (docs/emulated-api.md).
"""

from __future__ import annotations

from typing import Any as _Any

from ..adv.matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from ..adv.softmax import softmax
from ..runtime.structs import SoftmaxTiling, TCubeTiling
from ..runtime.vector_sort import adv_concat as concat
from ..runtime.vector_sort import adv_extract as extract
from ._unemulated import unemulated as _unemulated

# pyasc asc.language.adv names not emulated yet
UNEMULATED_ADV: frozenset[str] = frozenset("""
MatmulApiStaticTiling RmsNormTiling rmsnorm quant softmax_flash_v2 get_api_tiling
get_normal_config get_mdl_config get_special_mdl_config get_ib_share_norm_config acos acosh
asin asinh atan atanh cos cosh sin sinh tan tanh erf erfc digamma lgamma log ceil floor frac
round trunc sign power xor axpy exp swiglu MatmulBatchParams MatmulFuncParams
MatmulQuantParams MatmulShapeParams QuantConfig get_basic_config get_matmul_api_tiling
get_mm_config get_special_basic_config
""".split())

__all__ = ["Matmul", "MatmulConfig", "MatmulType", "SoftmaxTiling", "TCubeTiling",
           "concat", "extract", "register_matmul", "softmax"]


def __getattr__(name: str) -> _Any:
    if name in UNEMULATED_ADV:
        return _unemulated(f"asc.adv.{name}")
    raise AttributeError(f"module 'asc.adv' has no attribute {name!r}")
