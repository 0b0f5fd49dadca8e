"""Replay, part 2b: the per-row vector instructions of runtime/vector/rows.py (block_reduce_sum
/ max / min, pair_reduce_sum, repeat_reduce_sum, brcb) written by a kernel's author. Each
handler rebuilds the call from the recorded lanes, repeat count and strides and issues it
through the runtime's own function, like the other vector handlers (vector.py). The asc.adv
softmax records some of them too; those events carry ("adv", "softmax") and replay within the
library call (adv_softmax.py)."""

from __future__ import annotations

from typing import Any

from ...runtime.core import CoreState
from ...runtime.dtypes import DataType
from ...runtime.trace import Event
from ...runtime.vector import rows as _rows
from .operands import Replayer
from .operands import trampoline as _trampoline
from .vector import _first_lane, _mask_of


def _src(rp: Replayer, c: CoreState, e: Event, lanes: tuple[int, ...], blk: int,
         rep: int) -> Any:
    """src again: its repeat-form Access starts at the first active lane."""
    r = e.reads[0]
    if not (r.nbytes or r.count):
        return rp.local(c, r, e.dtype)
    isz = DataType(e.dtype).itemsize
    return rp.local(c, r, e.dtype, r.addr - _first_lane(lanes, isz, blk, rep) * isz)


def _row_reduce(rp: Replayer, c: CoreState, e: Event) -> None:
    """block_reduce_* and pair_reduce_sum: (dst, src, repeat, mask, dst_rep_stride,
    src_blk_stride, src_rep_stride)."""
    a = dict(e.args)
    lanes = tuple(a["lanes"])
    blk, rep = a["src_blk_stride"], a["src_rep_stride"]
    dst = rp.local(c, e.writes[0], e.dtype)
    src = _src(rp, c, e, lanes, blk, rep)
    fn = getattr(_rows, e.op)
    _trampoline(e.file, e.line, False)(
        fn, (dst, src, a["repeat_time"], _mask_of(lanes), a["dst_rep_stride"], blk, rep), {})


def _repeat_reduce(rp: Replayer, c: CoreState, e: Event) -> None:
    """repeat_reduce_sum: a count mask when the lanes are the leading ones (is_set_mask), else
    the lanes as the core's vector mask (is_set_mask=False), as the recorded call had it."""
    a = dict(e.args)
    lanes = tuple(a["lanes"])
    blk, rep = a["src_blk_stride"], a["src_rep_stride"]
    dst = rp.local(c, e.writes[0], e.dtype)
    src = _src(rp, c, e, lanes, blk, rep)
    mask = _mask_of(lanes)
    tramp = _trampoline(e.file, e.line, False)
    call = (dst, src, a["repeat_time"])
    strides = (0, blk, a["dst_rep_stride"], rep)  # dst_blk_stride has no effect (not recorded)
    if isinstance(mask, int) and mask > 0:
        tramp(_rows.repeat_reduce_sum, call + (mask,) + strides, {})
        return
    low_high = tuple(mask) if not isinstance(mask, int) else (0, 0)
    was = c.vector_mask
    c.vector_mask = low_high
    try:
        tramp(_rows.repeat_reduce_sum, call + (0,) + strides, {"is_set_mask": False})
    finally:
        c.vector_mask = was


def _brcb(rp: Replayer, c: CoreState, e: Event) -> None:
    a = dict(e.args)
    dst = rp.local(c, e.writes[0], e.dtype)
    src = rp.local(c, e.reads[0], e.dtype)
    params = _rows.BrcbRepeatParams(a["dst_blk_stride"], a["dst_rep_stride"])
    _trampoline(e.file, e.line, False)(_rows.brcb, (dst, src, a["repeat_times"], params), {})


ROW_HANDLERS: dict[str, Any] = {
    "block_reduce_sum": _row_reduce, "block_reduce_max": _row_reduce,
    "block_reduce_min": _row_reduce, "pair_reduce_sum": _row_reduce,
    "repeat_reduce_sum": _repeat_reduce, "brcb": _brcb,
}

__all__ = ["ROW_HANDLERS"]
