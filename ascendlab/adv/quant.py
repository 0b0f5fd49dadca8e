"""asc.adv.quant on the emulator: Ascend C's AscendQuant, per-tensor, to int8.

    asc.adv.quant(dst, src, scale, offset, count=None, temp_buffer=None, reuse_source=False,
                  config=None)
    asc.adv.QuantConfig(calc_count=0, offset_count=0, scale_count=0, work_local_size=0)

Facts (sources: pyasc python/asc/language/adv/quantization.py and types.py QuantConfig; the
Ascend C API reference page "AscendQuant" (atlasascendc_api_07_0818), whose algorithm runs on
the vector unit in these steps):
  1. src, scale and offset in float are converted to half;
  2. tmp1 = Muls(src, scale)   (half)
  3. tmp2 = Adds(tmp1, offset) (half)
  4. dst = Cast(tmp2) half -> int8_t, rounding half to even ("四舍六入五成双").
- dst is int8; src float16 or float32; temp_buffer the uint8 sharedTmpBuffer (without it the
  library takes UB left free); src and dst must not overlap, nor temp_buffer either of them.
- QuantConfig is AscendQuantConfig (calcCount, offsetCount, scaleCount, workLocalSize), a
  compile-time template argument.

One Event on PIPE_V, "adv.quant", reads src and writes dst and the whole temp_buffer.
Limitations: only the per-tensor form (scalar scale and offset) is emulated; a LocalTensor
scale or offset (per-channel) raises NotImplementedError. The cast to int8 saturates to
[-128, 127] (ASSUMPTION: the page does not say what happens out of range). The config's counts
do not change the per-tensor result; its calc_count is used as the element count when count is
None and calc_count > 0 (ASSUMPTION). The cycle model charges one vector pass for the call.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import DTypeError, ParamError
from ..runtime.memory.tensor import LocalTensor
from .math import run_math

_getframe = sys._getframe



@dataclass(frozen=True)
class QuantConfig:
    """AscendQuantConfig: element, offset and scale counts and the work buffer size (all
    uint32, >= 0)."""

    calc_count: int = 0
    offset_count: int = 0
    scale_count: int = 0
    work_local_size: int = 0

    def __post_init__(self) -> None:
        for name in ("calc_count", "offset_count", "scale_count", "work_local_size"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or not 0 <= v < 2**32:
                raise ParamError(f"QuantConfig: {name}={v!r} must be an integer in [0, 2**32)")


def quant(dst: Any, src: Any, scale: Any, offset: Any, count: Any = None,
          temp_buffer: Any = None, reuse_source: bool = False,
          config: QuantConfig | None = None) -> None:
    """dst(int8) = round_half_even(half(src) * half(scale) + half(offset)), saturated
    (pyasc asc.adv.quant, per tensor)."""
    frame = _getframe(1)
    if isinstance(scale, LocalTensor) or isinstance(offset, LocalTensor):
        raise NotImplementedError("adv.quant: per-channel quantisation (a LocalTensor scale or "
                                  "offset) is not emulated; pass float scalars (per tensor)")
    if config is not None and not isinstance(config, QuantConfig):
        raise TypeError(f"adv.quant: config must be an asc.adv.QuantConfig, got "
                        f"{type(config).__name__}")
    for t, role, ok in ((dst, "dst", ("int8",)), (src, "src", ("float16", "float32"))):
        name = getattr(getattr(t, "dtype", None), "name", None)
        if name not in ok:
            raise DTypeError(f"adv.quant: {role} is {name}; it must be {' or '.join(ok)}")
    if count is None and config is not None and config.calc_count:
        count = config.calc_count
    s, o = np.float16(float(scale)), np.float16(float(offset))

    def compute(x: np.ndarray, d: np.ndarray) -> np.ndarray:
        h = x.astype(np.float16)  # step 1 (float32 -> half, round to nearest even)
        y = (h * s) + o  # steps 2 and 3, each rounded to half
        return np.clip(np.rint(y.astype(np.float64)), -128, 127).astype(np.int8)  # step 4

    run_math("adv.quant", frame, dst, (src,), count, temp_buffer, None, compute,
             extra=(("scale", float(s)), ("offset", float(o))))


__all__ = ["QuantConfig", "quant"]
