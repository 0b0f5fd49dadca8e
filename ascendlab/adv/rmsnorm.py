"""asc.adv.rmsnorm on the emulator: Ascend C's RmsNorm over the last axis of [B, S, H].

    asc.adv.rmsnorm(dst, src, gamma, epsilon, tiling, temp_buffer=None, basic_block=False)
    asc.adv.RmsNormTiling(b_length=, s_length=, h_length=, original_h_length=,
                          reciprocal_of_h_length=, ...)

Facts (sources: pyasc python/asc/language/adv/normalization.py and tiling.py RmsNormTiling; the
Ascend C API reference page "RmsNorm"):
- src and dst are [B, S, H] (H padded to 32 B: tiling.h_length; the real width is
  original_h_length), gamma is [H]; dtypes float16 or float32, all three the same.
- For each of the B*S rows: dst = src / sqrt(mean(src^2) + epsilon) * gamma, the mean over the
  original_h_length real columns (times reciprocal_of_h_length, 1/H).
- The tiling comes from the host (GetRmsNormTilingInfo); temp_buffer is the uint8
  sharedTmpBuffer; src, dst, gamma and temp_buffer must not overlap.

One Event on PIPE_V, "adv.rmsnorm", reading src and gamma, writing dst and the whole temp_buffer.
Limitations: computed in float64 and rounded once to the operand dtype (float16 inputs are
computed in float32 by the library; the emulation is at least as accurate). The padding
columns [original_h_length, h_length) are written with the same formula. The chunking fields
(main_bs_length, loop_round, tail_*) are not used: the result does not depend on them.
basic_block does not change the result. The cycle model charges one reduction pass.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..errors import DTypeError, ParamError
from ..runtime.structs import Field, Struct
from .math import F16_F32, run_math

_getframe = sys._getframe
OP = "adv.rmsnorm"



class RmsNormTiling(Struct):
    """RmsNorm tiling (pyasc asc.adv.RmsNormTiling), filled by the host."""

    b_length = Field("int32", 0, "bLength")
    s_length = Field("int32", 0, "sLength")
    h_length = Field("int32", 0, "hLength")
    original_h_length = Field("int32", 0, "originalHLength")
    reciprocal_of_h_length = Field("float32", 0.0, "reciprocalOfHLength")
    main_bsh_length = Field("int32", 0, "mainBshLength")
    main_bs_length = Field("int32", 0, "mainBsLength")
    main_bs_length_align = Field("int32", 0, "mainBsLengthAlign")
    loop_round = Field("int32", 0, "loopRound")
    input_tail_pos = Field("int32", 0, "inputTailPos")
    tail_bsh_length = Field("int32", 0, "tailBshLength")
    tail_bs_length = Field("int32", 0, "tailBsLength")


def rmsnorm(dst: Any, src: Any, gamma: Any, epsilon: Any, tiling: Any, temp_buffer: Any = None,
            basic_block: bool = False) -> None:
    """dst = src / sqrt(mean(src^2 over the last axis) + epsilon) * gamma, per row
    (pyasc asc.adv.rmsnorm)."""
    frame = _getframe(1)
    if not isinstance(tiling, RmsNormTiling):
        raise TypeError(f"{OP}: tiling must be an asc.adv.RmsNormTiling, got "
                        f"{type(tiling).__name__}")
    rows = int(tiling.b_length) * int(tiling.s_length)
    h, h0 = int(tiling.h_length), int(tiling.original_h_length)
    if rows <= 0 or h <= 0 or not 0 < h0 <= h:
        raise ParamError(f"{OP}: tiling b_length={tiling.b_length}, s_length={tiling.s_length}, "
                         f"h_length={h}, original_h_length={h0} describe no [B, S, H] with "
                         "0 < original_h_length <= h_length; fill it on the host")
    for t, role in ((src, "src"), (gamma, "gamma")):
        name = getattr(getattr(t, "dtype", None), "name", None)
        if name != getattr(getattr(dst, "dtype", None), "name", "") or name not in F16_F32:
            raise DTypeError(f"{OP}: dst and {role} must both be float16 or float32, got "
                             f"{getattr(dst.dtype, 'name', None)} and {name}")
    if (h * src.dtype.itemsize) % 32:
        raise ParamError(f"{OP}: h_length={h} x {src.dtype.itemsize} B is not a multiple of "
                         "32 B")
    recip = float(tiling.reciprocal_of_h_length) or 1.0 / h0
    eps = float(np.asarray(epsilon).astype(src.dtype.np))

    def compute(x: np.ndarray, d: np.ndarray) -> np.ndarray:
        g = gamma.arr[gamma.e0:gamma.e0 + h].astype(np.float64)
        x2 = x.astype(np.float64).reshape(rows, h)
        ms = (x2[:, :h0] ** 2).sum(axis=1, keepdims=True) * recip
        with np.errstate(all="ignore"):
            return (x2 / np.sqrt(ms + eps) * g).astype(d.dtype).ravel()

    run_math(OP, frame, dst, (src,), rows * h, temp_buffer, None, compute,
             extra=(("rows", rows), ("h_length", h), ("original_h_length", h0),
                    ("epsilon", eps)), side=((gamma, h, "gamma"),))


__all__ = ["RmsNormTiling", "rmsnorm"]
