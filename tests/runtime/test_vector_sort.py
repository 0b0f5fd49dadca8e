"""sort32, mrg_sort, sort, adv.extract and the sort helpers (ascendlab/runtime/vector/sort.py)
against numpy: the (score, index) layout, descending stable order, merges, suspension."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import DTypeError, ParamError

from .vector_harness import Ref, expect, launch


def _structs(out, dtype):
    """(scores, indices) of 8 B structs held in an array of `dtype`."""
    raw = np.ascontiguousarray(out).view(np.uint8).reshape(-1, 8)
    isz = np.dtype(dtype).itemsize
    return raw[:, :isz].copy().view(dtype).ravel(), raw[:, 4:].copy().view(np.uint32).ravel()


def _desc(scores, idx):
    o = np.argsort(-scores.astype(np.float64), kind="stable")
    return scores[o], idx[o]


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_sort32_each_group_descending_stable(dtype):
    rng = np.random.default_rng(3)
    s = rng.integers(-5, 5, 96).astype(dtype)  # many ties: order must stay stable
    ix = np.arange(96, dtype=np.uint32) + 1000
    n_out = 96 * 8 // np.dtype(dtype).itemsize
    out, run = launch(asc.sort32, [("S", dtype, 96, s), ("I", "uint32", 96, ix),
                                   ("D", dtype, n_out)], [Ref("D"), Ref("S"), Ref("I"), 3])
    got_s, got_i = _structs(out, dtype)
    for g in range(3):
        ws, wi = _desc(s[32 * g:32 * g + 32], ix[32 * g:32 * g + 32])
        np.testing.assert_array_equal(got_s[32 * g:32 * g + 32], ws)
        np.testing.assert_array_equal(got_i[32 * g:32 * g + 32], wi)
    (e,) = [e for e in run.trace if e.op == "sort32"]
    assert e.pipe == "V" and e.repeats == 3


def test_sort_full_and_extract():
    s = np.random.default_rng(5).standard_normal(128).astype(np.float32)
    ix = np.arange(128, dtype=np.uint32)

    def call(d, src, i, t, v, k):
        asc.sort(d, src, i, t, 4, is_full_sort=True)
        asc.adv.extract(v, k, d, 4)

    tensors = [("S", "float32", 128, s), ("I", "uint32", 128, ix), ("D", "float32", 256),
               ("T", "float32", 256), ("V", "float32", 128), ("K", "uint32", 128)]
    args = [Ref("D"), Ref("S"), Ref("I"), Ref("T"), Ref("V"), Ref("K")]
    vals, _ = launch(call, tensors, args, out="V")
    keys, _ = launch(call, tensors, args, out="K")
    np.testing.assert_array_equal(vals, np.sort(s)[::-1])
    np.testing.assert_array_equal(keys, np.argsort(-s, kind="stable"))


def _sorted_list(rng, n, base):
    s = np.sort(rng.integers(0, 20, n).astype(np.float32))[::-1].copy()
    raw = np.zeros((n, 8), np.uint8)
    raw[:, :4] = s.view(np.uint8).reshape(n, 4)
    raw[:, 4:] = (np.arange(n, dtype=np.uint32) + base).view(np.uint8).reshape(n, 4)
    return raw.view(np.float32).ravel(), s


def test_mrg_sort_merges_four_lists_and_suspends():
    rng = np.random.default_rng(7)
    lists = [_sorted_list(rng, 16, 100 * k) for k in range(4)]
    tensors = [("L", "float32", 128, np.concatenate([x[0] for x in lists])),
               ("D", "float32", 128)]
    res = []

    def merge(d, a, b, c, e, suspend=False):
        asc.mrg_sort(d, asc.MrgSortSrcList(asc.float32, a, b, c, e), [16, 16, 16, 16],
                     [0, 0, 0, 0], 15, 1, is_exhausted_suspension=suspend)
        res.append(asc.get_mrg_sort_result())

    args = [Ref("D")] + [Ref("L", 32 * k) for k in range(4)]
    out, run = launch(merge, tensors, args)
    scores, idx = _structs(out, np.float32)
    allv = np.concatenate([x[1] for x in lists])
    alli = np.concatenate([np.arange(16, dtype=np.uint32) + 100 * k for k in range(4)])
    ws, wi = _desc(allv, alli)  # equal scores: earlier list first
    np.testing.assert_array_equal(scores, ws)
    np.testing.assert_array_equal(idx, wi)
    assert res[-1] == (16, 16, 16, 16)
    out, _ = launch(lambda *a: merge(*a, suspend=True), tensors, args)
    counts = res[-1]
    assert 16 in counts and sum(counts) < 64
    got = _structs(out, np.float32)[0][:sum(counts)]
    np.testing.assert_array_equal(got, ws[:sum(counts)])


def test_sort_helpers_per_chip():
    seen = []
    launch(lambda d: seen.append((asc.get_sort_len(100), asc.get_sort_offset(10))),
           [("D", "float32", 8)], [Ref("D")])
    launch(lambda d: seen.append((asc.get_sort_len(100), asc.get_sort_offset(10))),
           [("D", "float32", 8)], [Ref("D")], chip="Ascend310P3")
    assert seen == [(200, 20), (800, 80)]  # 2 float32 per struct; 8-element region proposals


def test_sort_rules():
    s = np.zeros(32, np.float16)
    expect(DTypeError, ["sort32", "uint32"], asc.sort32,
           [("S", "float16", 32, s), ("I", "int32", 32, np.zeros(32, np.int32)),
            ("D", "float16", 128)], [Ref("D"), Ref("S"), Ref("I"), 1])

    def bad(d, a, b):
        asc.mrg_sort(d, asc.MrgSortSrcList(asc.float16, a, b), [4, 4], [0, 0], 5, 1)

    expect(ParamError, ["valid_bit", "0b0101"], bad,
           [("A", "float16", 16, s[:16]), ("B", "float16", 16, s[:16]), ("D", "float16", 64)],
           [Ref("D"), Ref("A"), Ref("B")])
    expect(NotImplementedError, ["sort32", "Ascend310P3"], asc.sort32,
           [("S", "float16", 32, s), ("I", "uint32", 32, np.zeros(32, np.uint32)),
            ("D", "float16", 128)], [Ref("D"), Ref("S"), Ref("I"), 1], chip="Ascend310P3")
