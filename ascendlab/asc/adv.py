"""pyasc's `asc.adv` on the emulator: the Matmul object, tiling structs, adv.softmax and the
element-wise math routines (acos ... trunc, power, xor, axpy).

Names pyasc has here that ascendlab does not emulate yet resolve to stubs that raise
NotImplementedError when used (docs/emulated-api.md).
"""

from __future__ import annotations

from typing import Any as _Any

from ..adv import math as _math
from ..adv.math import axpy, exp, power, xor
from ..adv.matmul import Matmul, MatmulConfig, MatmulType, register_matmul
from ..adv.matmul_config import (
    MatmulBatchParams,
    MatmulFuncParams,
    MatmulQuantParams,
    MatmulShapeParams,
    get_basic_config,
    get_ib_share_norm_config,
    get_mdl_config,
    get_mm_config,
    get_normal_config,
    get_special_basic_config,
    get_special_mdl_config,
)
from ..adv.matmul_static import MatmulApiStaticTiling, get_matmul_api_tiling
from ..adv.quant import QuantConfig, quant
from ..adv.rmsnorm import RmsNormTiling, rmsnorm
from ..adv.softmax import softmax
from ..runtime.structs import SoftmaxTiling, TCubeTiling
from ..runtime.vector.sort import adv_concat as concat
from ..runtime.vector.sort import adv_extract as extract
from ._unemulated import unemulated as _unemulated

# pyasc asc.language.adv names not emulated yet
UNEMULATED_ADV: frozenset[str] = frozenset("""
softmax_flash_v2 get_api_tiling swiglu
""".split())

# the element-wise math routines (acos ... trunc): one function each, made in adv/math.py
for _name in _math.UNARY_MATH:
    globals()[_name] = getattr(_math, _name)
del _name

__all__ = ["Matmul", "MatmulApiStaticTiling", "MatmulBatchParams", "MatmulConfig",
           "MatmulFuncParams", "MatmulQuantParams", "MatmulShapeParams", "MatmulType",
           "QuantConfig", "RmsNormTiling", "SoftmaxTiling", "TCubeTiling", "axpy", "concat",
           "exp", "extract",
           "get_basic_config", "get_ib_share_norm_config", "get_matmul_api_tiling",
           "get_mdl_config", "get_mm_config", "get_normal_config", "get_special_basic_config",
           "get_special_mdl_config", "power", "quant", "register_matmul", "rmsnorm", "softmax",
           "xor", *_math.UNARY_MATH]


def __getattr__(name: str) -> _Any:
    if name in UNEMULATED_ADV:
        return _unemulated(f"asc.adv.{name}")
    raise AttributeError(f"module 'asc.adv' has no attribute {name!r}")
