"""reduce_sum/max/min and whole_reduce_sum/max/min: results, float16 accumulation order and
saturation, first-occurrence indices, the work buffer, strides, orders and the rules."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import AlignmentError, DTypeError, OutOfBoundsError, ParamError, PositionError
from ascendlab.runtime.vector import elementwise as _vec
from ascendlab.runtime.vector.reduce import (
    reduce_max,
    reduce_min,
    reduce_sum,
    tmp_min_elements,
    whole_reduce_max,
    whole_reduce_min,
    whole_reduce_sum,
)

from .vector_harness import Ref, expect, launch

O = asc.ReduceOrder


# ---- references ----------------------------------------------------------------------------
def ref_tree(v: np.ndarray) -> np.ndarray:
    """Pairwise tree sum of v (length a power of two) in v's dtype, float16 saturating."""
    v = v.copy()
    while v.size > 1:
        with np.errstate(over="ignore"):
            s = v[0::2] + v[1::2]
        if v.dtype == np.float16:
            s = np.clip(s.astype(np.float32), -65504, 65504).astype(np.float16)
        v = s
    return v[0]


def ref_reduce_sum_count(x: np.ndarray, n: int) -> np.floating:
    L = 256 // x.itemsize
    R = -(-n // L)
    pad = np.zeros(R * L, x.dtype)
    pad[:n] = x[:n]
    acc = x.dtype.type(0)
    for r in range(R):
        with np.errstate(over="ignore"):
            acc = acc + ref_tree(pad[r * L:(r + 1) * L])
        if x.dtype == np.float16:
            acc = np.float16(np.clip(np.float32(acc), -65504, 65504))
    return acc


def tensors(src, dst_n=16, tmp_n=None, dst_init=None, dst_dtype=None, tmp_dtype=None):
    dt = src.dtype.name
    tmp_n = tmp_n if tmp_n is not None else 4096
    return [("S", dt, src.size, src),
            ("D", dst_dtype or dt, dst_n, dst_init),
            ("T", tmp_dtype or dt, tmp_n)]


# ---- reduce_sum ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,n", [("float32", 1000), ("float32", 64), ("float16", 777),
                                     ("float16", 128 * 9)])
def test_reduce_sum_count_form_matches_tree_then_sequential(dtype, n):
    rng = np.random.default_rng(n)
    x = np.zeros(-(-n // 64) * 64 + 64, dtype)
    x[:n] = rng.uniform(-4, 4, n).astype(dtype)
    init = np.full(16, 3, dtype)
    out, run = launch(reduce_sum, tensors(x, dst_init=init), [Ref("D"), Ref("S"), Ref("T"), n])
    want = ref_reduce_sum_count(x, n)
    assert out[0] == want
    assert (out[1:] == 3).all()
    assert abs(float(out[0]) - x[:n].astype(np.float64).sum()) < (1e-3 if dtype == "float32"
                                                                 else 2.0)
    (ev,) = run.events(op="reduce_sum")
    assert ev.count == n and ev.repeats == -(-n * x.itemsize // 256)


def test_float16_accumulation_order_count_vs_mask_form():
    # one repeat [2048, 1, 1, 1, 0...]: tree (2048+1)+(1+1) = 2048 + 2 = 2050 (a sequential
    # sum would stay at 2048); four repeats whose sums are 2048, 1, 1, 1: the count form adds
    # them in order (2048 + 1 rounds back to 2048 each time), the mask form uses a tree (2050)
    one = np.zeros(128, np.float16)
    one[:4] = [2048, 1, 1, 1]
    out, _ = launch(reduce_sum, tensors(one), [Ref("D"), Ref("S"), Ref("T"), 128])
    assert out[0] == 2050
    four = np.zeros(512, np.float16)
    four[[0, 128, 256, 384]] = [2048, 1, 1, 1]
    out, _ = launch(reduce_sum, tensors(four), [Ref("D"), Ref("S"), Ref("T"), 512])
    assert out[0] == 2048
    out, _ = launch(reduce_sum, tensors(four), [Ref("D"), Ref("S"), Ref("T"), 128, 4, 8])
    assert out[0] == 2050


def test_float16_sums_saturate_at_65504():
    # ReduceSum.md / WholeReduceSum.md: [60000, 60000, -30000, 100] -> 65504 - 29900 ("35604"
    # in exact arithmetic; every float16 addition rounds: -29900 -> -29904, 35600 -> 35584)
    x = np.zeros(128, np.float16)
    x[:4] = [60000, 60000, -30000, 100]
    out, _ = launch(reduce_sum, tensors(x), [Ref("D"), Ref("S"), Ref("T"), 128])
    assert out[0] == 35584
    # across repeats in order: 60000 + 60000 saturates, then - 60000
    y = np.zeros(384, np.float16)
    y[[0, 128, 256]] = [60000, 60000, -60000]
    out, _ = launch(reduce_sum, tensors(y), [Ref("D"), Ref("S"), Ref("T"), 384])
    assert out[0] == 5504
    neg = -y
    out, _ = launch(reduce_sum, tensors(neg), [Ref("D"), Ref("S"), Ref("T"), 384])
    assert out[0] == -5504


def test_reduce_sum_mask_form_bit_mask_stride_and_long_repeat():
    x = np.arange(1024, dtype=np.float32) % 17
    mask = [(1 << 63) | 0b101]  # lanes 0, 2, 63
    # src_rep_stride 16 blocks: repeats start at elements 0, 128, 256, ...
    out, run = launch(reduce_sum, tensors(x), [Ref("D"), Ref("S"), Ref("T"), mask, 8, 16])
    idx = np.array([r * 128 + lane for r in range(8) for lane in (0, 2, 63)])
    assert out[0] == x[idx].sum()
    (ev,) = run.events(op="reduce_sum")
    assert ev.reads[0].count == 8 and ev.reads[0].stride == 512
    big = np.ones(300 * 64, np.float32)  # repeat_time may exceed 255 for reduce_*
    out, _ = launch(reduce_sum, tensors(big), [Ref("D"), Ref("S"), Ref("T"), 64, 300, 8])
    assert out[0] == 300 * 64


def test_reduce_sum_work_buffer_any_size_recorded_as_written():
    x = np.ones(8320, np.float16)
    # ReduceSum.md: 8320 halves, 65 repeats -> 80 elements minimum; any size is accepted
    out, run = launch(reduce_sum, tensors(x, tmp_n=16), [Ref("D"), Ref("S"), Ref("T"), 128,
                                                         65, 8])
    assert out[0] == 8320
    (ev,) = run.events(op="reduce_sum")
    tmp_w = [w for w in ev.writes if w.addr != ev.writes[0].addr]
    assert tmp_w and tmp_w[0].nbytes == 16 * 2  # clipped to the 16-element buffer
    out, run = launch(reduce_sum, tensors(x, tmp_n=160), [Ref("D"), Ref("S"), Ref("T"), 8320])
    assert out[0] == 8320
    assert run.events(op="reduce_sum")[0].writes[1].nbytes == 80 * 2


# ---- reduce_max / reduce_min -----------------------------------------------------------------
def test_reduce_max_min_first_occurrence_with_ties_count_form():
    x = np.zeros(320, np.float16)
    x[:300] = np.linspace(-1, 1, 300).astype(np.float16)
    x[[7, 250]] = 9.0  # tie for the max: the first wins
    x[[130, 131]] = -9.0
    x[300:] = 100  # beyond count: ignored
    init = np.full(16, 5, np.float16)
    out, _ = launch(reduce_max, tensors(x, dst_init=init),
                    [Ref("D"), Ref("S"), Ref("T"), 300, True])
    assert out[0] == 9 and out.view(np.uint16)[1] == 7 and out[2] == 5
    out, _ = launch(reduce_min, tensors(x, dst_init=init),
                    [Ref("D"), Ref("S"), Ref("T"), 300], {"cal_index": True})
    assert out[0] == -9 and out.view(np.uint16)[1] == 130
    out, _ = launch(reduce_max, tensors(x, dst_init=init), [Ref("D"), Ref("S"), Ref("T"), 300])
    assert out[0] == 9 and out[1] == 5  # no index requested: dst[1] untouched


def test_reduce_max_float32_index_bits_and_mask_form_index():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(1000).astype(np.float32)
    x = np.concatenate([x, np.zeros(24, np.float32)])
    x[[500, 900]] = 50.0
    out, _ = launch(reduce_max, tensors(x), [Ref("D"), Ref("S"), Ref("T"), 1000, True])
    assert out[0] == 50 and out.view(np.uint32)[1] == 500
    # mask form: lanes 3 and 70 of three repeats that start 16 blocks (256 halves) apart;
    # the index is repeat * 128 + lane, not the element offset
    h = np.zeros(768, np.float16)
    h[256 + 70] = 7.0
    h[512 + 3] = 7.0
    h[5] = 99.0  # lane 5 is masked out
    out, _ = launch(reduce_max, tensors(h), [Ref("D"), Ref("S"), Ref("T"),
                                             [1 << 3, 1 << 6], 3, 16, True])
    assert out[0] == 7 and out.view(np.uint16)[1] == 1 * 128 + 70
    out, _ = launch(reduce_min, tensors(-h), [Ref("D"), Ref("S"), Ref("T"),
                                              [1 << 3, 1 << 6], 3, 16, True])
    assert out[0] == -7 and out.view(np.uint16)[1] == 198


def test_reduce_max_work_buffer_minimum_from_docs():
    # ReduceMax.md examples: 176, 544, 1056, 32, 1024 (no index) and 288 (float32) elements
    assert tmp_min_elements("max", 65, 128, 16, True) == 176
    assert tmp_min_elements("max", 255, 128, 16, True) == 544
    assert tmp_min_elements("max", 511, 128, 16, True) == 1056
    assert tmp_min_elements("max", 4, 128, 16, True) == 32
    assert tmp_min_elements("max", 511, 128, 16, False) == 1024
    assert tmp_min_elements("min", 130, 64, 8, True) == 288
    assert tmp_min_elements("sum", 65, 128, 16, False) == 80
    x = np.ones(8320, np.float16)
    out, run = launch(reduce_max, tensors(x, tmp_n=176),
                      [Ref("D"), Ref("S"), Ref("T"), 128, 65, 8, True])
    assert out[0] == 1 and out.view(np.uint16)[1] == 0
    (ev,) = run.events(op="reduce_max")
    assert ev.writes[1].nbytes == 176 * 2 and ev.writes[0].nbytes == 4
    expect(OutOfBoundsError, ["reduce_max", "shared_tmp_buffer", "documented minimum", "176"],
            reduce_max, tensors(x, tmp_n=160), [Ref("D"), Ref("S"), Ref("T"), 128, 65, 8, True])


def test_float16_index_limit():
    x = np.zeros(70016, np.float16)
    expect(ParamError, ["65535", "element 69999"],
            reduce_max, tensors(x, tmp_n=2048), [Ref("D"), Ref("S"), Ref("T"), 70000, True])


# ---- whole_reduce_sum ------------------------------------------------------------------------
def test_whole_reduce_sum_float32_mask_and_dst_stride():
    x = np.arange(256, dtype=np.float32)
    init = np.full(16, -1, np.float32)
    out, run = launch(whole_reduce_sum, [("S", "float32", 256, x), ("D", "float32", 16, init)],
                      [Ref("D"), Ref("S"), 50, 3, 2, 1, 8])
    want = init.copy()
    for r in range(3):
        want[2 * r] = ref_tree(np.concatenate([x[64 * r:64 * r + 50], np.zeros(14, np.float32)]))
    np.testing.assert_array_equal(out, want)
    (ev,) = run.events(op="whole_reduce_sum")
    assert ev.count == 150 and ev.repeats == 3
    assert ev.writes[0].count == 3 and ev.writes[0].stride == 8


def test_whole_reduce_sum_half_saturation_bit_mask_and_block_stride():
    x = np.zeros(512, np.float16)
    x[:4] = [60000, 60000, -30000, 100]
    out, _ = launch(whole_reduce_sum, [("S", "float16", 512, x), ("D", "float16", 16)],
                    [Ref("D"), Ref("S"), 128, 1, 1, 1, 8])
    assert out[0] == 35584  # the docs' example, rounded to float16 at each step
    y = np.arange(512, dtype=np.float16)
    # src_blk_stride 2: lanes 16..31 come from block 2 (elements 32..47); bit mask lanes 0, 17
    out, _ = launch(whole_reduce_sum, [("S", "float16", 512, y), ("D", "float16", 16)],
                    [Ref("D"), Ref("S"), [(1 << 17) | 1, 0], 2, 1, 2, 16])
    assert list(out[:2]) == [0 + 33, 256 + 289]


def test_whole_reduce_sum_uses_the_mask_register_when_not_set():
    x = np.ones(128, np.float32)
    out, _ = launch(whole_reduce_sum, [("S", "float32", 128, x), ("D", "float32", 16)],
                    [Ref("D"), Ref("S"), 64, 2, 1, 1, 8], {"is_set_mask": False},
                    pre=(lambda: asc.set_vector_mask(10),))
    assert list(out[:3]) == [10, 10, 0]


def test_whole_reduce_sum_counter_mode():
    x = np.ones(256, np.float32)
    out, _ = launch(whole_reduce_sum, [("S", "float32", 256, x), ("D", "float32", 16)],
                    [Ref("D"), Ref("S"), 150, 1, 1, 1, 8], pre=(asc.set_mask_count,))
    assert list(out[:4]) == [64, 64, 22, 0]


# ---- whole_reduce_max / min -------------------------------------------------------------------
def _wmax_input():
    x = np.zeros(384, np.float16)
    x[:128] = np.linspace(-1, 1, 128).astype(np.float16)
    x[[10, 100]] = 5.0  # tie inside repeat 0: lane 10 wins
    x[128 + 127] = 3.0
    x[256:] = -2.0  # all equal: lane 0
    return x


@pytest.mark.parametrize("order,stride,want", [
    (O.ORDER_VALUE_INDEX, 1, [(0, "v", 5), (1, "i", 10), (2, "v", 3), (3, "i", 127),
                              (4, "v", -2), (5, "i", 0)]),
    (O.ORDER_INDEX_VALUE, 2, [(0, "i", 10), (1, "v", 5), (4, "i", 127), (5, "v", 3),
                              (8, "i", 0), (9, "v", -2)]),
    (O.ORDER_ONLY_VALUE, 2, [(0, "v", 5), (2, "v", 3), (4, "v", -2)]),
    (O.ORDER_ONLY_INDEX, 1, [(0, "u32", 10), (1, "u32", 127), (2, "u32", 0)]),
], ids=lambda v: getattr(v, "name", None))
def test_whole_reduce_max_orders(order, stride, want):
    x = _wmax_input()
    init = np.full(32, 77, np.float16)
    out, run = launch(whole_reduce_max, [("S", "float16", 384, x), ("D", "float16", 32, init)],
                      [Ref("D"), Ref("S"), 128, 3, stride, 1, 8], {"order": order})
    touched = set()
    for pos, kind, v in want:
        if kind == "v":
            assert out[pos] == v
            touched.add(pos)
        elif kind == "i":
            assert out.view(np.uint16)[pos] == v
            touched.add(pos)
        else:
            assert out.view(np.uint32)[pos] == v
            touched |= {2 * pos, 2 * pos + 1}
    assert all(out[i] == 77 for i in range(32) if i not in touched)
    (ev,) = run.events(op="whole_reduce_max")
    assert ("order", order.name) in ev.args


def test_whole_reduce_min_float32_bit_mask_lane_index():
    x = np.arange(128, dtype=np.float32)[::-1].copy()
    x[64 + 40] = -5
    mask = [(1 << 40) | (1 << 63) | (1 << 1)]
    out, _ = launch(whole_reduce_min, [("S", "float32", 128, x), ("D", "float32", 16)],
                    [Ref("D"), Ref("S"), mask, 2, 1, 1, 8])
    assert out[0] == x[63] and out.view(np.uint32)[1] == 63
    assert out[2] == -5 and out.view(np.uint32)[3] == 40


# ---- rules -------------------------------------------------------------------------------------
def test_dtype_rules():
    xi = np.zeros(64, np.int32)
    expect(DTypeError, ["reduce_sum", "int32", "supported: float16, float32"],
            reduce_sum, tensors(xi), [Ref("D"), Ref("S"), Ref("T"), 64])
    xf = np.zeros(64, np.float32)
    expect(DTypeError, ["shared_tmp_buffer", "float16 but dst is float32"],
            reduce_max, tensors(xf, tmp_dtype="float16"), [Ref("D"), Ref("S"), Ref("T"), 64])
    expect(DTypeError, ["src", "float32 but dst is float16"],
            whole_reduce_sum, tensors(xf, dst_dtype="float16"),
            [Ref("D"), Ref("S"), 64, 1, 1, 1, 8])


def test_dst_alignment_rules():
    x = np.ones(128, np.float16)
    expect(AlignmentError, ["reduce_max", "dst", "4 B aligned"],
            reduce_max, tensors(x), [Ref("D", 1), Ref("S"), Ref("T"), 128])
    out, _ = launch(reduce_sum, tensors(x), [Ref("D", 1), Ref("S"), Ref("T"), 128])
    assert out[1] == 128  # a sum's dst needs only 2 B alignment
    expect(AlignmentError, ["src", "32 B aligned"],
            reduce_sum, tensors(x), [Ref("D"), Ref("S", 8), Ref("T"), 64])


def test_work_buffer_must_be_in_ub():
    x = np.ones(128, np.float16)
    expect(PositionError, ["shared_tmp_buffer", "A1"],
            reduce_sum, [("S", "float16", 128, x), ("D", "float16", 16),
                         ("T", "float16", 256, None, asc.TPosition.A1)],
            [Ref("D"), Ref("S"), Ref("T"), 128], chip="Ascend310P3")


def test_parameter_rules():
    x = np.ones(128, np.float16)
    t = [("S", "float16", 128, x), ("D", "float16", 16)]
    expect(ParamError, ["repeat_time=256", "[0, 255]"],
            whole_reduce_sum, t, [Ref("D"), Ref("S"), 128, 256, 1, 1, 8])
    expect(ParamError, ["selects no lane"],
            whole_reduce_max, t, [Ref("D"), Ref("S"), [0, 0], 1, 1, 1, 8])
    expect(ParamError, ["mask=129", "[1, 128]"],
            reduce_sum, tensors(x), [Ref("D"), Ref("S"), Ref("T"), 129, 1, 8])
    expect(ParamError, ["order=7", "ReduceOrder"],
            whole_reduce_min, t, [Ref("D"), Ref("S"), 128, 1, 1, 1, 8, 7])
    expect(ParamError, ["count=-1"],
            reduce_sum, tensors(x), [Ref("D"), Ref("S"), Ref("T"), -1])
    with pytest.raises(TypeError, match="shared_tmp_buffer, count"):
        launch(reduce_sum, tensors(x), [Ref("D"), Ref("S"), Ref("T")])


def test_registered_cost_classes():
    for op in ("reduce_sum", "reduce_max", "reduce_min", "whole_reduce_sum",
               "whole_reduce_max", "whole_reduce_min"):
        assert _vec.VECTOR_OPS[op] == "reduce"
