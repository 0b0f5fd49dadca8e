"""copy: the vector unit's strided UB -> UB move (pyasc asc.copy, Ascend C Copy).

Facts relied on (Ascend C API reference Copy; pyasc asc.language.basic.data_copy.copy for the
signature):
- copy(dst, src, mask, repeat_time, repeat_params, is_set_mask=True): only the mask forms
  exist (a continuous int mask or a [low, high] bit mask), no count form.
- CopyRepeatParams(dst_stride, src_stride, dst_repeat_size, src_repeat_size): block strides
  inside a repeat and strides between repeats, all in 32 B blocks (pyasc defaults are 0).
- dtypes: 16- and 32-bit (int16, uint16, float16, bfloat16, int32, uint32, float32); dst and
  src the same; both 32 B aligned, in VECIN / VECCALC / VECOUT.
- One repeat moves 256 B (128 16-bit or 64 32-bit lanes); repeat_time is in [0, 255].
The move runs on PIPE_V like any vector instruction (it costs one elementwise repeat each).
Lanes the mask leaves out are not written. In counter mode (set_mask_count) the mask is the
element count, as for the other vector instructions.
"""

from __future__ import annotations

import sys
from typing import Any

from ..params import CopyRepeatParams, UnaryRepeatParams
from ..trace import register_op
from . import elementwise as _vec
from .forms import Form, _repeat_form

_getframe = sys._getframe

COPY_DTYPES = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32",
                         "float32"})
register_op("copy", "V", "elementwise", flops_per_elem=0, dtypes=COPY_DTYPES, replayable=False,
            module=__name__)


def copy(dst: Any, src: Any, mask: Any, repeat_time: Any, repeat_params: Any,
         is_set_mask: bool = True) -> None:
    """copy(dst, src, mask, repeat_time, CopyRepeatParams[, is_set_mask]): dst's masked lanes
    of each 256 B repeat = src's, with the strides of repeat_params (32 B blocks)."""
    op, frame = "copy", _getframe(1)
    c = _vec.current_vector_core(frame)
    _vec.vec_operand(op, dst, "dst", c, frame)
    _vec.vec_operand(op, src, "src", c, frame)
    _vec.dtype_check(op, COPY_DTYPES, c, frame, dst, src)
    if not isinstance(repeat_params, CopyRepeatParams):
        raise TypeError(f"{op}: repeat_params must be CopyRepeatParams, got "
                        f"{type(repeat_params).__name__}")
    if is_set_mask not in (True, False):
        raise TypeError(f"{op}: is_set_mask must be True or False, got {is_set_mask!r}")
    p = repeat_params
    # The same ranges as the other one-source forms: block strides uint16, repeat strides
    # checked against 255 (Ascend C's struct holds uint16; larger values are not emulated).
    params = UnaryRepeatParams(int(p.dst_stride), int(p.src_stride), int(p.dst_repeat_size),
                               int(p.src_repeat_size))
    f = _repeat_form(op, Form(), mask, int(repeat_time), params, bool(is_set_mask),
                     256 // dst.dtype.itemsize, c, frame)
    strides = ((params[0], params[2]), (params[1], params[3]))
    _vec.execute(c, op, dst, (src,), f, strides, lambda a, d: a, False, frame)


__all__ = ["COPY_DTYPES", "copy"]
