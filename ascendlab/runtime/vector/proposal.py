"""Region-proposal instructions of the Atlas inference chips (Ascend310P): rp_sort16,
mrg_sort4, proposal_concat, proposal_extract.

Facts relied on (Ascend C API reference RpSort16, MrgSort4, ProposalConcat, ProposalExtract;
asc-devkit impl/basic_api/dav_c220/kernel_operator_proposal_impl.h; pyasc
asc.language.basic.proposal for the signatures):
- A region proposal is 8 elements of the operand dtype (float16: 16 B, float32: 32 B):
  x1, y1, x2, y2, score, label and two reserved elements.
- proposal_concat(dst, src, repeat_time, mode_number): each repeat writes 16 consecutive src
  elements into field mode_number (0 x1, 1 y1, 2 x2, 3 y2, 4 score, 5 label) of 16 proposals
  of dst; proposal_extract(dst, src, repeat_time, mode_number) reads that field of 16
  proposals into 16 consecutive elements. repeat_time in [0, 255], mode_number in [0, 5].
- rp_sort16(dst, src, repeat_time): each repeat sorts 16 proposals by score, largest first;
  equal scores keep their input order.
- mrg_sort4(dst, MrgSortSrcList, MrgSort4Info): merges 2-4 sorted proposal lists by score.
- dst and src are float16 or float32 (the same), 32 B aligned.
- On the Atlas A2/A3 chips (Ascend910B) Ascend C reports all four as "not supported on
  current device": its NPU build compiles them to nothing and its CPU-debug build aborts. The
  emulator reports a finding (an error with strict=True) and leaves memory unchanged.
Assumptions: each costs one "reduce"-class (sorts) or "elementwise"-class repeat per 16
proposals; proposal_concat leaves the other fields of the proposals unchanged.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import DTypeError
from .. import core as _core
from ..core import access
from ..memory.tensor import LocalTensor
from ..trace import register_op
from . import elementwise as _vec
from .reduce import _finish, _int, operand
from .sort import SCORE, is_a2, merge_lists, struct_view, unsupported

_getframe = sys._getframe

for _op in ("rp_sort16", "mrg_sort4"):
    register_op(_op, "V", "reduce", flops_per_elem=1, dtypes=SCORE, replayable=False,
                module=__name__)
for _op in ("proposal_concat", "proposal_extract"):
    register_op(_op, "V", "elementwise", dtypes=SCORE, replayable=False, module=__name__)

INFERENCE = "Atlas inference AI Core"


def _pair(op: str, dst: Any, src: Any, frame: Any) -> tuple[Any, LocalTensor, LocalTensor]:
    c = _vec.current_vector_core(frame)
    d = operand(op, dst, "dst", c, frame)
    s = operand(op, src, "src", c, frame)
    if d.dtype.name not in SCORE or s.dtype != d.dtype:
        raise DTypeError(f"{op}: dst {d.describe()} and src {s.describe()} must share float16 "
                         f"or float32 {_core.where(c, frame)}")
    return c, d, s


def _field(op: str, dst: Any, src: Any, repeat_time: Any, mode_number: Any, frame: Any,
           concat: bool) -> None:
    c, d, s = _pair(op, dst, src, frame)
    R = _int(op, "repeat_time", repeat_time, 0, 255, c, frame)
    m = _int(op, "mode_number", mode_number, 0, 5, c, frame)
    if is_a2(c):
        unsupported(c, op, frame, INFERENCE)
        return
    n = 16 * R
    props, flat = (d, s) if concat else (s, d)
    _vec.span_check(op, props, 8 * n, "dst" if concat else "src", c, frame)
    _vec.span_check(op, flat, n, "src" if concat else "dst", c, frame)
    field = props.e0 + 8 * np.arange(n) + m  # element m of each proposal
    if concat:
        d.arr[field] = s.arr[s.e0:s.e0 + n]
    else:
        d.arr[d.e0:d.e0 + n] = s.arr[field]
    isz = d.dtype.itemsize
    span = (access("UB", props.addr, 8 * n * isz, props.name),)
    line = (access("UB", flat.addr, n * isz, flat.name),)
    reads, writes = (line, span) if concat else (span, line)
    _finish(c, op, reads, writes, n, d.dtype.name, R, frame,
            (("repeat_time", R), ("mode_number", m)))


def proposal_concat(dst: Any, src: Any, repeat_time: Any, mode_number: Any) -> None:
    """proposal_concat(dst, src, repeat_time, mode_number): 16 src elements per repeat into
    field mode_number of 16 proposals of dst."""
    _field("proposal_concat", dst, src, repeat_time, mode_number, _getframe(1), True)


def proposal_extract(dst: Any, src: Any, repeat_time: Any, mode_number: Any) -> None:
    """proposal_extract(dst, src, repeat_time, mode_number): field mode_number of 16 proposals
    of src per repeat into 16 consecutive dst elements."""
    _field("proposal_extract", dst, src, repeat_time, mode_number, _getframe(1), False)


def rp_sort16(dst: Any, src: Any, repeat_time: Any) -> None:
    """rp_sort16(dst, src, repeat_time): 16 region proposals per repeat, highest score first."""
    op, frame = "rp_sort16", _getframe(1)
    c, d, s = _pair(op, dst, src, frame)
    R = _int(op, "repeat_time", repeat_time, 0, 255, c, frame)
    if is_a2(c):
        unsupported(c, op, frame, INFERENCE)
        return
    isz = d.dtype.itemsize
    n, nb = 16 * R, 8 * isz
    rows = struct_view(s, n, op, "src", c, frame, nb).copy()
    scores = rows[:, 4 * isz:5 * isz].copy().view(d.dtype.np).ravel().astype(np.float64)
    out = struct_view(d, n, op, "dst", c, frame, nb)
    for g in range(0, n, 16):
        out[g:g + 16] = rows[g + np.argsort(-scores[g:g + 16], kind="stable")]
    _finish(c, op, (access("UB", s.addr, n * nb, s.name),),
            (access("UB", d.addr, n * nb, d.name),), n, d.dtype.name, R, frame,
            (("repeat_time", R),))


def mrg_sort4(dst: Any, src: Any, params: Any) -> None:
    """mrg_sort4(dst, MrgSortSrcList, MrgSort4Info): merge 2-4 sorted region-proposal lists."""
    op, frame = "mrg_sort4", _getframe(1)
    c = _vec.current_vector_core(frame)
    if is_a2(c):
        operand(op, dst, "dst", c, frame)
        unsupported(c, op, frame, INFERENCE)
        return
    isz = dst.dtype.itemsize if isinstance(dst, LocalTensor) and dst.dtype else 2
    merge_lists(op, dst, src, params, 8 * isz, 4 * isz, c, frame)


__all__ = ["mrg_sort4", "proposal_concat", "proposal_extract", "rp_sort16"]
