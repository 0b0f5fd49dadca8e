"""Sorting on the vector unit (Atlas A2 layout): sort32, mrg_sort, sort and the helpers around
them (get_sort_len, get_sort_offset, get_mrg_sort_result, asc.adv.concat / extract).

Facts relied on (Ascend C API reference Sort32, MrgSort, Sort, GetSortLen, GetSortOffset,
GetMrgSortResult, Concat, Extract; asc-devkit impl/basic_api/kernel_operator_proposal_intf_impl.h
and dav_c220/kernel_operator_proposal_impl.h; pyasc asc.language.basic.proposal: signatures):
- A sorted element is an 8 B (score, index) struct: the score in the low bytes (float32: 4 B;
  float16: 2 B, then 2 reserved bytes), the uint32 index in the high 4 B. So one struct is
  2 float32 or 4 float16 elements: get_sort_offset(i) = i * 2 and get_sort_len(n) = n * 2
  in elements (pyasc emits GetSortLen<float> / GetSortOffset<float>); on the Atlas inference
  chips (Ascend310P) a struct is an 8-element region proposal, so both return 8 * n there.
- sort32(dst, src0, src1, repeat_time): each repeat sorts 32 scores of src0 with their uint32
  indices from src1 in descending order of score; equal scores keep their input order.
  src0 / src1 advance 32 elements per repeat, dst 32 structs (256 B). repeat_time in [0, 255].
- mrg_sort(dst, MrgSortSrcList, element_count_list, sorted_num, valid_bit, repeat_time
  [, is_exhausted_suspension]) or mrg_sort(dst, list, MrgSort4Info): merges 2-4 sorted lists of
  structs (valid_bit 0b11, 0b111 or 0b1111) into one descending list; each repeat advances
  sources and dst by the total length of the lists. With exhausted suspension the merge stops
  when one list runs out; get_mrg_sort_result() then returns how many structs of each list
  were written (the VMS4_SR register). The region-proposal forms (Ascend310P) are in
  vector/proposal.py.
- sort(dst, concat, index, tmp, repeat_time, is_full_sort=False): sort32 on each group of 32,
  and with is_full_sort a merge of all groups into one descending list (tmp is scratch).
- adv.concat(concat, src, tmp, repeat_time) is `concat = src` on these chips (the handle is
  re-pointed, no instruction); adv.extract(dst_value, dst_index, sorted, repeat_time) splits
  repeat_time * 32 structs into their scores and indices.
Assumptions: equal scores from different lists merge in list order; the reserved bytes of a
float16 struct are left as they were; sort32 / mrg_sort / sort cost one "reduce"-class repeat
per 32 structs (the chip's sort rate is not published); a struct count of a list may be 0.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import DTypeError, ParamError
from .. import core as _core
from ..core import access, finding
from ..memory.tensor import LocalTensor
from ..trace import register_op
from . import elementwise as _vec
from .reduce import _finish, _int, operand

_getframe = sys._getframe

SCORE = frozenset({"float16", "float32"})
for _op in ("sort32", "mrg_sort", "sort"):
    register_op(_op, "V", "reduce", flops_per_elem=1, dtypes=SCORE, replayable=False,
                module=__name__)
register_op("extract", "V", "elementwise", dtypes=SCORE, replayable=False, module=__name__)

A2_SORT_ARCHS = frozenset({2201, 3002, 3102, 5102, 3003, 3113, 3510})  # asc-devkit's list


def struct_elems(c: Any, isz: int) -> int:
    """Elements of a 4-byte-index sort struct on this chip (Atlas A2: 8 B; else 8 elements)."""
    return 8 // isz if c.chip.arch in A2_SORT_ARCHS else 8


def get_sort_len(elem_count: Any) -> int:
    """Elements that elem_count sorted structs take (as GetSortLen<float>)."""
    n = int(elem_count.__index__()) & 0xFFFFFFFF
    return n * struct_elems(_core.core(), 4)


def get_sort_offset(elem_offset: Any) -> int:
    """Element offset of sorted struct elem_offset (as GetSortOffset<float>)."""
    n = int(elem_offset.__index__()) & 0xFFFFFFFF
    return n * struct_elems(_core.core(), 4)


def get_mrg_sort_result() -> tuple[int, int, int, int]:
    """Structs of each list the last exhausted-suspension mrg_sort wrote (VMS4_SR)."""
    return tuple(_core.core().lib.get("vms4_sr", (0, 0, 0, 0)))  # type: ignore[return-value]


class MrgSortSrcList:
    """The 2-4 sorted source lists of mrg_sort (pyasc asc.MrgSortSrcList(dtype, src1, ...))."""

    def __init__(self, dtype: Any, src1: Any, src2: Any, src3: Any = None,
                 src4: Any = None) -> None:
        self.dtype = dtype
        self.srcs = (src1, src2, src3, src4)


@dataclass(frozen=True)
class MrgSort4Info:
    """mrg_sort's list lengths (structs), suspension flag, valid lists and repeats."""

    element_lengths: tuple[int, ...] | list[int]
    if_exhausted_suspension: bool = False
    valid_bit: int = 15
    repeat_times: int = 1


# ---- the (score, index) structs in UB ---------------------------------------------------------
def struct_view(t: LocalTensor, n: int, op: str, role: str, c: Any, frame: Any,
                nbytes: int = 8) -> np.ndarray:
    """n structs of nbytes at t as an (n, nbytes) uint8 view of UB (writes go to UB)."""
    _vec.span_check(op, t, n * nbytes // t.dtype.itemsize, role, c, frame)
    return c.mem("UB")[t.addr:t.addr + nbytes * n].reshape(n, nbytes)


def _scores(rows: np.ndarray, dt: np.dtype, at: int) -> np.ndarray:
    return rows[:, at:at + dt.itemsize].copy().view(dt).ravel().astype(np.float64)


def unsupported(c: Any, op: str, frame: Any, chips: str) -> None:
    """Report an instruction this chip lacks: Ascend C's NPU build skips it (no effect), its
    CPU-debug build aborts (ASCENDC_REPORT_NOT_SUPPORT); a finding here, an error if strict."""
    finding(c, f"{op} is not supported on {c.chip.name} ({chips} only): the NPU build skips "
            f"it, so it has no effect", frame, NotImplementedError, "chip")


def _desc_order(scores: np.ndarray) -> np.ndarray:
    """Indices that order scores descending, equal scores in input order (stable)."""
    return np.argsort(-scores, kind="stable")


def sort32(dst: Any, src0: Any, src1: Any, repeat_time: Any) -> None:
    """sort32(dst, src0, src1, repeat_time): 32 (score, index) structs per repeat, descending."""
    op, frame = "sort32", _getframe(1)
    c, d, s, ix, R = _sort_operands(op, dst, src0, src1, repeat_time, frame)
    if not is_a2(c):
        unsupported(c, op, frame, "Atlas A2/A3")
        return
    _sort_groups(c, op, d, s, ix, R, 32, frame)
    _emit(c, op, d, (s, ix), R, 32 * R, frame, (("repeat_time", R),))


def sort(dst: Any, concat: Any, index: Any, tmp: Any, repeat_time: Any,
         is_full_sort: bool = False) -> None:
    """sort(dst, concat, index, tmp, repeat_time, is_full_sort=False): sort32 per group of 32;
    with is_full_sort all repeat_time * 32 structs in one descending order."""
    op, frame = "sort", _getframe(1)
    if is_full_sort not in (True, False):
        raise TypeError(f"{op}: is_full_sort must be True or False, got {is_full_sort!r}")
    c, d, s, ix, R = _sort_operands(op, dst, concat, index, repeat_time, frame)
    _a2_layout_only(c, op, frame)
    t = operand(op, tmp, "tmp", c, frame)
    _sort_groups(c, op, d, s, ix, R, 32 * R if is_full_sort else 32, frame)
    scratch = (access("UB", t.addr, 8 * 32 * R, t.name),) if is_full_sort else ()
    _emit(c, op, d, (s, ix), R, 32 * R, frame,
          (("repeat_time", R), ("is_full_sort", bool(is_full_sort))), scratch)


def _sort_operands(op: str, dst: Any, src0: Any, src1: Any, repeat_time: Any, frame: Any
                   ) -> tuple:
    c = _vec.current_vector_core(frame)
    d = operand(op, dst, "dst", c, frame)
    s = operand(op, src0, "src0", c, frame)
    ix = operand(op, src1, "src1", c, frame)
    if s.dtype.name not in SCORE or d.dtype != s.dtype:
        raise DTypeError(f"{op}: dst {d.describe()} and src0 {s.describe()} must share float16 "
                         f"or float32 {_core.where(c, frame)}")
    if ix.dtype.name != "uint32":
        raise DTypeError(f"{op}: the index operand {ix.describe()} must be uint32 "
                         f"{_core.where(c, frame)}")
    R = _int(op, "repeat_time", repeat_time, 0, c.chip.max_repeat_times, c, frame)
    return c, d, s, ix, R


def is_a2(c: Any) -> bool:
    """Whether the chip sorts (score, index) structs (else region proposals)."""
    return c.chip.arch in A2_SORT_ARCHS


def _a2_layout_only(c: Any, op: str, frame: Any) -> None:
    if not is_a2(c):
        raise NotImplementedError(f"{op} on {c.chip.name} works on region proposals, which "
                                  f"ascendlab emulates only for rp_sort16, mrg_sort4, "
                                  f"proposal_concat and proposal_extract {_core.where(c, frame)}")


def _sort_groups(c: Any, op: str, d: LocalTensor, s: LocalTensor, ix: LocalTensor, R: int,
                 group: int, frame: Any) -> None:
    n = 32 * R
    _vec.span_check(op, s, n, "src0", c, frame)
    _vec.span_check(op, ix, n, "src1", c, frame)
    scores = s.arr[s.e0:s.e0 + n].copy()
    idx = ix.arr[ix.e0:ix.e0 + n].copy()
    out = struct_view(d, n, op, "dst", c, frame)
    isz = s.dtype.itemsize
    for g in range(0, n, group):
        order = g + _desc_order(scores[g:g + group].astype(np.float64))
        out[g:g + group, :isz] = scores[order].view(np.uint8).reshape(-1, isz)
        out[g:g + group, 4:] = idx[order].view(np.uint8).reshape(-1, 4)


def _emit(c: Any, op: str, d: LocalTensor, srcs: tuple, R: int, n: int, frame: Any,
          args: tuple, extra_writes: tuple = ()) -> None:
    reads = tuple(access("UB", t.addr, n * t.dtype.itemsize, t.name) for t in srcs)
    writes = (access("UB", d.addr, 8 * n, d.name),) + extra_writes
    _finish(c, op, reads, writes, n, d.dtype.name, R, frame, args)


# ---- mrg_sort -----------------------------------------------------------------------------------
_VALID = {0b11: 2, 0b111: 3, 0b1111: 4}


def mrg_sort(dst: Any, sort_list: Any, *args: Any, **kwargs: Any) -> None:
    """mrg_sort(dst, MrgSortSrcList, element_count_list, sorted_num, valid_bit, repeat_time
    [, is_exhausted_suspension]) or mrg_sort(dst, MrgSortSrcList, MrgSort4Info)."""
    op, frame = "mrg_sort", _getframe(1)
    c = _vec.current_vector_core(frame)
    _a2_layout_only(c, op, frame)
    merge_lists(op, dst, sort_list, _mrg_params(op, args, kwargs), 8, 0, c, frame)


def _mrg_params(op: str, args: tuple, kwargs: dict) -> MrgSort4Info:
    b = _vec.bind_overload(("params",), 1, args, kwargs)
    if b is not None and isinstance(b["params"], MrgSort4Info):
        return b["params"]
    names = ("element_count_list", "sorted_num", "valid_bit", "repeat_time",
             "is_exhausted_suspension")
    b = _vec.bind_overload(names, 4, args, kwargs)
    if b is None:
        raise TypeError(f"{op}: expected (dst, sort_list, MrgSort4Info) or (dst, sort_list, "
                        f"{', '.join(names)}); got {len(args)} positional and {sorted(kwargs)} "
                        f"keyword arguments")
    susp = b.get("is_exhausted_suspension", False)
    if susp not in (True, False):
        raise TypeError(f"{op}: is_exhausted_suspension must be True or False, got {susp!r}")
    return MrgSort4Info(tuple(b["element_count_list"]), bool(susp), b["valid_bit"],
                        b["repeat_time"])


def merge_lists(op: str, dst: Any, sort_list: Any, p: Any, nbytes: int, score_at: int, c: Any,
                frame: Any) -> None:
    """Merge 2-4 descending lists of nbytes-structs whose score sits score_at bytes in."""
    if not isinstance(sort_list, MrgSortSrcList):
        raise TypeError(f"{op}: sort_list must be MrgSortSrcList, got {type(sort_list).__name__}")
    if not isinstance(p, MrgSort4Info):
        raise TypeError(f"{op}: params must be MrgSort4Info, got {type(p).__name__}")
    d = operand(op, dst, "dst", c, frame)
    if d.dtype.name not in SCORE:
        raise DTypeError(f"{op}: dst {d.describe()} must be float16 or float32 "
                         f"{_core.where(c, frame)}")
    vb = _int(op, "valid_bit", p.valid_bit, 0, 15, c, frame)
    if vb not in _VALID:
        raise ParamError(f"{op}: valid_bit={vb:#06b} must be 0b0011, 0b0111 or 0b1111 "
                         f"{_core.where(c, frame)}")
    k = _VALID[vb]
    R = _int(op, "repeat_times", p.repeat_times, 1, c.chip.max_repeat_times, c, frame)
    lens = [_int(op, f"element_count_list[{i}]", v, 0, 4095, c, frame)
            for i, v in enumerate(list(p.element_lengths)[:k])]
    srcs = [operand(op, t, f"src{i + 1}", c, frame) for i, t in enumerate(sort_list.srcs[:k])]
    total = sum(lens)
    for i, t in enumerate(srcs):
        if t.dtype != d.dtype:
            raise DTypeError(f"{op}: src{i + 1} {t.describe()} is {t.dtype.name} but dst is "
                             f"{d.dtype.name} {_core.where(c, frame)}")
        if t.addr < d.addr + nbytes * total * R and d.addr < t.addr + nbytes * lens[i] * R:
            finding(c, f"{op}: src{i + 1} {t.describe()} overlaps dst {d.describe()}, which "
                    f"the instruction does not support", frame)
    step = nbytes * total // d.dtype.itemsize  # elements each repeat advances
    counts = [0] * k
    for r in range(R):
        lists = [struct_view(t[r * step], n, op, f"src{i + 1}", c, frame, nbytes).copy()
                 for i, (t, n) in enumerate(zip(srcs, lens))]
        merged, counts = _merge(lists, d.dtype.np, score_at, bool(p.if_exhausted_suspension))
        if len(merged):
            struct_view(d[r * step], len(merged), op, "dst", c, frame, nbytes)[:] = merged
    c.lib["vms4_sr"] = tuple(counts + [0] * (4 - k))
    reads = tuple(access("UB", t.addr, nbytes * n, t.name, R, nbytes * total)
                  for t, n in zip(srcs, lens))
    writes = (access("UB", d.addr, nbytes * total, d.name, R, nbytes * total),)
    _finish(c, op, reads, writes, total * R, d.dtype.name, max(1, -(-total * R // 32)), frame,
            (("lengths", tuple(lens)), ("valid_bit", vb), ("repeat_times", R),
             ("exhausted_suspension", bool(p.if_exhausted_suspension))))


def _merge(lists: list[np.ndarray], dt: np.dtype, score_at: int, suspend: bool
           ) -> tuple[np.ndarray, list[int]]:
    """Merge descending struct lists; with suspend, stop when one list is used up."""
    rows = np.concatenate(lists)
    which = np.concatenate([np.full(len(x), i) for i, x in enumerate(lists)])
    order = _desc_order(_scores(rows, dt, score_at))  # stable: list order among equals
    if suspend and len(order):
        sizes = np.array([len(x) for x in lists])
        used = np.zeros(len(lists), dtype=np.int64)
        for pos, j in enumerate(order):
            used[which[j]] += 1
            if used[which[j]] == sizes[which[j]]:
                order = order[:pos + 1]
                break
    counts = [int(np.sum(which[order] == i)) for i in range(len(lists))]
    return rows[order], counts


# ---- asc.adv.concat / asc.adv.extract -----------------------------------------------------------
def adv_concat(concat: Any, src: Any, tmp: Any, repeat_time: Any) -> None:
    """asc.adv.concat(concat, src, tmp, repeat_time): on Atlas A2 chips `concat = src`."""
    op, frame = "concat", _getframe(1)
    c = _vec.current_vector_core(frame)
    s = operand(op, src, "src", c, frame)
    if s.dtype.name not in SCORE:
        raise DTypeError(f"adv.{op}: src must be float16 or float32, got {s.dtype.name}")
    _int(op, "repeat_time", repeat_time, 0, 255, c, frame)
    _a2_layout_only(c, f"adv.{op}", frame)
    if not isinstance(concat, LocalTensor):
        raise TypeError(f"adv.{op}: concat must be a LocalTensor, got {type(concat).__name__}")
    concat.dtype = s.dtype
    concat.set_addr_with_offset(s, 0)


def adv_extract(dst_value: Any, dst_index: Any, sorted_: Any, repeat_time: Any) -> None:
    """asc.adv.extract(dst_value, dst_index, sorted, repeat_time): scores and indices of
    repeat_time * 32 sorted structs."""
    op, frame = "extract", _getframe(1)
    c = _vec.current_vector_core(frame)
    v = operand(op, dst_value, "dst_value", c, frame)
    ix = operand(op, dst_index, "dst_index", c, frame)
    s = operand(op, sorted_, "sorted", c, frame)
    if v.dtype.name not in SCORE or s.dtype != v.dtype or ix.dtype.name != "uint32":
        raise DTypeError(f"adv.{op}: dst_value and sorted must share float16 or float32 and "
                         f"dst_index must be uint32; got {v.dtype.name}, {s.dtype.name}, "
                         f"{ix.dtype.name} {_core.where(c, frame)}")
    _a2_layout_only(c, f"adv.{op}", frame)
    R = _int(op, "repeat_time", repeat_time, 0, 255, c, frame)
    n = 32 * R
    rows = struct_view(s, n, op, "sorted", c, frame)
    _vec.span_check(op, v, n, "dst_value", c, frame)
    _vec.span_check(op, ix, n, "dst_index", c, frame)
    v.arr[v.e0:v.e0 + n] = rows[:, :v.dtype.itemsize].copy().view(v.dtype.np).ravel()
    ix.arr[ix.e0:ix.e0 + n] = rows[:, 4:].copy().view(np.uint32).ravel()
    reads = (access("UB", s.addr, 8 * n, s.name),)
    writes = (access("UB", v.addr, n * v.dtype.itemsize, v.name),
              access("UB", ix.addr, 4 * n, ix.name))
    _finish(c, op, reads, writes, n, v.dtype.name, 2 * R, frame, (("repeat_time", R),))


__all__ = ["MrgSort4Info", "MrgSortSrcList", "adv_concat", "adv_extract", "get_mrg_sort_result",
           "get_sort_len", "get_sort_offset", "is_a2", "merge_lists", "mrg_sort", "sort", "sort32",
           "struct_view", "unsupported"]
