"""compare (bitmask in UB) and select (by a bitmask): modes, forms, strides and the rules."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import DTypeError, OutOfBoundsError, ParamError
from ascendlab.runtime.vector import elementwise as _vec
from ascendlab.runtime.vector.cmpsel import compare, select

from .vector_harness import Ref, expect, launch

C = asc.CMPMODE
S = asc.SelMode
NPCMP = {C.LT: np.less, C.GT: np.greater, C.EQ: np.equal, C.LE: np.less_equal,
         C.GE: np.greater_equal, C.NE: np.not_equal}


def bits_of(mask_bytes: np.ndarray, n: int) -> np.ndarray:
    return np.unpackbits(mask_bytes.view(np.uint8), bitorder="little")[:n].astype(bool)


def _pair(dtype: str, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    if dtype == "int32":
        a = rng.integers(-3, 3, n).astype(np.int32)
        b = rng.integers(-3, 3, n).astype(np.int32)
    else:
        a = rng.integers(-3, 3, n).astype(dtype) / 2
        b = rng.integers(-3, 3, n).astype(dtype) / 2
    return a.astype(dtype), b.astype(dtype)


# ---- compare ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mode", list(C), ids=lambda m: m.name)
def test_compare_count_form_every_mode(dtype, mode):
    a, b = _pair(dtype, 512, seed=int(mode))
    out, run = launch(compare, [("A", dtype, 512, a), ("B", dtype, 512, b),
                                ("D", "uint8", 64, np.full(64, 0xAA, np.uint8))],
                      [Ref("D"), Ref("A"), Ref("B"), mode, 512])
    np.testing.assert_array_equal(out, np.packbits(NPCMP[mode](a, b), bitorder="little"))
    (ev,) = run.events(op="compare")
    assert ev.count == 512 and ev.writes[0].nbytes == 64 and ev.dtype == dtype


def test_compare_int32_eq_int8_dst_and_partial_count():
    a, b = _pair("int32", 128)
    init = np.full(32, 0x55, np.int8)
    out, _ = launch(compare, [("A", "int32", 128, a), ("B", "int32", 128, b),
                              ("D", "int8", 32, init)],
                    [Ref("D"), Ref("A"), Ref("B")], {"cmp_mode": C.EQ, "count": 64})
    np.testing.assert_array_equal(out[:8].view(np.uint8),
                                  np.packbits(a[:64] == b[:64], bitorder="little"))
    assert (out[8:] == 0x55).all()  # 64 elements = 8 bytes; the rest untouched


def test_compare_nan_is_unordered():
    a = np.full(64, np.nan, np.float32)
    a[1] = 1.0
    b = np.ones(64, np.float32)
    out, _ = launch(compare, [("A", "float32", 64, a), ("B", "float32", 64, b),
                              ("D", "uint8", 32)], [Ref("D"), Ref("A"), Ref("B"), C.NE, 64])
    assert list(bits_of(out, 64)[:3]) == [True, False, True]
    out, _ = launch(compare, [("A", "float32", 64, a), ("B", "float32", 64, b),
                              ("D", "uint8", 32)], [Ref("D"), Ref("A"), Ref("B"), C.GE, 64])
    assert bits_of(out, 64).sum() == 1


def test_compare_repeat_form_ignores_mask_and_packs_repeats():
    # Atlas A2: the mask is reserved (every lane is compared); repeat i's 128 bits go to dst
    # bytes [16 i, 16 i + 16); src0 repeats 16 blocks apart, src1 contiguous
    a, b = _pair("float16", 1024, seed=5)
    p = asc.BinaryRepeatParams(1, 1, 1, 8, 16, 8)
    out, run = launch(compare, [("A", "float16", 1024, a), ("B", "float16", 1024, b),
                                ("D", "uint8", 64, np.full(64, 7, np.uint8))],
                      [Ref("D"), Ref("A"), Ref("B"), C.LT, 10, 3, p])
    src0 = np.concatenate([a[256 * r:256 * r + 128] for r in range(3)])
    want = np.packbits(src0 < b[:384], bitorder="little")
    np.testing.assert_array_equal(out[:48], want)
    assert (out[48:] == 7).all()
    (ev,) = run.events(op="compare")
    assert ev.repeats == 3 and ev.reads[0].count == 3 and ev.reads[0].stride == 512


def test_compare_count_must_fill_256_byte_repeats():
    a = np.zeros(128, np.float32)
    expect(ParamError, ["count=100", "400 B", "multiple of 256 B"],
            compare, [("A", "float32", 128, a), ("B", "float32", 128, a), ("D", "uint8", 32)],
            [Ref("D"), Ref("A"), Ref("B"), C.LT, 100])


def test_compare_dtype_rules():
    f = np.zeros(128, np.float32)
    i = np.zeros(128, np.int32)
    expect(DTypeError, ["int32", "only CMPMODE.EQ", "LT"],
            compare, [("A", "int32", 128, i), ("B", "int32", 128, i), ("D", "uint8", 32)],
            [Ref("D"), Ref("A"), Ref("B"), C.LT, 128])
    expect(DTypeError, ["dst", "float32", "uint8 or int8"],
            compare, [("A", "float32", 128, f), ("B", "float32", 128, f), ("D", "float32", 8)],
            [Ref("D"), Ref("A"), Ref("B"), C.LT, 128])
    expect(DTypeError, ["src1", "int32 but src0 is float32"],
            compare, [("A", "float32", 128, f), ("B", "int32", 128, i), ("D", "uint8", 32)],
            [Ref("D"), Ref("A"), Ref("B"), C.EQ, 128])
    expect(DTypeError, ["src0", "uint16", "supported"],
            compare, [("A", "uint16", 128, np.zeros(128, np.uint16)),
                      ("B", "uint16", 128, np.zeros(128, np.uint16)), ("D", "uint8", 32)],
            [Ref("D"), Ref("A"), Ref("B"), C.EQ, 128])
    expect(ParamError, ["cmp_mode=9", "CMPMODE"],
            compare, [("A", "float32", 128, f), ("B", "float32", 128, f), ("D", "uint8", 32)],
            [Ref("D"), Ref("A"), Ref("B"), 9, 128])


def test_compare_dst_too_small_is_a_memcheck_finding():
    f = np.zeros(512, np.float32)
    expect(OutOfBoundsError, ["compare", "dst", "64 elements"],
            compare, [("A", "float32", 512, f), ("B", "float32", 512, f), ("D", "uint8", 32)],
            [Ref("D"), Ref("A"), Ref("B"), C.LT, 512])


# ---- select -----------------------------------------------------------------------------------
def _sel_inputs(dtype, n, nbytes=64, seed=1):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n).astype(dtype)
    b = -rng.uniform(0, 1, n).astype(dtype)
    m = rng.integers(0, 256, nbytes).astype(np.uint8)
    return a, b, m


def test_select_tensor_tensor_mode_count_form_with_tail():
    a, b, m = _sel_inputs("float16", 320)
    init = np.full(320, 9, np.float16)
    out, run = launch(select, [("M", "uint8", 64, m), ("A", "float16", 320, a),
                               ("B", "float16", 320, b), ("D", "float16", 320, init)],
                      [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_TENSOR_TENSOR_MODE, 300])
    bits = bits_of(m, 300)
    np.testing.assert_array_equal(out[:300], np.where(bits, a[:300], b[:300]))
    assert (out[300:] == 9).all()
    (ev,) = run.events(op="select")
    assert ev.count == 300 and ev.reads[-1].nbytes == 38  # 300 bits of sel_mask


def test_select_cmpmask_mode_reuses_the_first_repeat_bits():
    a, b, m = _sel_inputs("float16", 320, seed=2)
    out, run = launch(select, [("M", "uint8", 64, m), ("A", "float16", 320, a),
                               ("B", "float16", 320, b), ("D", "float16", 320)],
                      [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_CMPMASK_SPR, 300])
    bits = bits_of(m, 128)[np.arange(300) % 128]
    np.testing.assert_array_equal(out[:300], np.where(bits, a[:300], b[:300]))
    assert run.events(op="select")[0].reads[-1].nbytes == 16


def test_select_tensor_scalar_mode_casts_the_scalar():
    a, _, m = _sel_inputs("float32", 128, seed=3)
    out, run = launch(select, [("M", "uint32", 8, m.view(np.uint32)[:8]),
                               ("A", "float32", 128, a), ("D", "float32", 128)],
                      [Ref("D"), Ref("M"), Ref("A"), 0.1],
                      {"sel_mode": S.VSEL_TENSOR_SCALAR_MODE, "count": 100})
    bits = bits_of(m[:32], 100)
    np.testing.assert_array_equal(out[:100], np.where(bits, a[:100], np.float32(0.1)))
    assert ("scalar", float(np.float32(0.1))) in run.events(op="select")[0].args


def test_select_repeat_form_mode0_mask_and_strides():
    # half, 3 repeats of 128 lanes, 100 active; src0 repeats 16 blocks apart; mode 0: each
    # repeat selects with the same 128 bits
    a, b, m = _sel_inputs("float16", 768, seed=4)
    init = np.full(384, 5, np.float16)
    p = asc.BinaryRepeatParams(1, 1, 1, 8, 16, 8)
    out, _ = launch(select, [("M", "uint8", 64, m), ("A", "float16", 768, a),
                             ("B", "float16", 768, b), ("D", "float16", 384, init)],
                    [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_CMPMASK_SPR, 100, 3, p])
    bits = bits_of(m, 128)
    want = init.copy()
    for r in range(3):
        want[128 * r:128 * r + 100] = np.where(bits[:100], a[256 * r:256 * r + 100],
                                               b[128 * r:128 * r + 100])
    np.testing.assert_array_equal(out, want)


def test_select_repeat_form_mode2_consumes_the_mask_continuously():
    a, b, m = _sel_inputs("float32", 128, seed=5)
    init = np.full(128, 5, np.float32)
    mask = [(1 << 63) | 0xF0F]  # lanes 0-3, 8-11, 63
    p = asc.BinaryRepeatParams()
    out, _ = launch(select, [("M", "uint16", 32, m.view(np.uint16)[:32]),
                             ("A", "float32", 128, a), ("B", "float32", 128, b),
                             ("D", "float32", 128, init)],
                    [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_TENSOR_TENSOR_MODE, mask, 2,
                     p])
    bits = bits_of(m, 128)
    want = init.copy()
    for r in range(2):
        for lane in [0, 1, 2, 3, 8, 9, 10, 11, 63]:
            k = 64 * r + lane
            want[k] = a[k] if bits[k] else b[k]
    np.testing.assert_array_equal(out, want)


def test_select_scalar_mode_repeat_form_consumes_the_mask_continuously():
    a, _, m = _sel_inputs("float16", 256, seed=8)
    init = np.full(256, 5, np.float16)
    out, _ = launch(select, [("M", "uint8", 64, m), ("A", "float16", 256, a),
                             ("D", "float16", 256, init)],
                    [Ref("D"), Ref("M"), Ref("A"), -1.5, S.VSEL_TENSOR_SCALAR_MODE, 64, 2,
                     asc.BinaryRepeatParams()])
    bits = bits_of(m, 256)
    want = init.copy()
    for r in range(2):
        k = slice(128 * r, 128 * r + 64)
        want[k] = np.where(bits[k], a[k], np.float16(-1.5))
    np.testing.assert_array_equal(out, want)


def test_select_all_keyword_repeat_form():
    a, b, m = _sel_inputs("float32", 64, seed=7)
    out, _ = launch(select, [("M", "uint8", 32, m[:32]), ("A", "float32", 64, a),
                             ("B", "float32", 64, b), ("D", "float32", 64)],
                    [], {"dst": Ref("D"), "sel_mask": Ref("M"), "src0": Ref("A"),
                         "src1": Ref("B"), "sel_mode": S.VSEL_TENSOR_TENSOR_MODE, "mask": 64,
                         "repeat_times": 1, "repeat_params": asc.BinaryRepeatParams()})
    np.testing.assert_array_equal(out, np.where(bits_of(m, 64), a, b))


def test_select_counter_mode():
    a, b, m = _sel_inputs("float32", 256, seed=6)
    out, _ = launch(select, [("M", "uint8", 64, m), ("A", "float32", 256, a),
                             ("B", "float32", 256, b), ("D", "float32", 256)],
                    [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_TENSOR_TENSOR_MODE, 150, 1,
                     asc.BinaryRepeatParams()], pre=(asc.set_mask_count,))
    bits = bits_of(m, 150)
    np.testing.assert_array_equal(out[:150], np.where(bits, a[:150], b[:150]))
    assert (out[150:] == 0).all()


def test_select_rules():
    a, b, m = _sel_inputs("float32", 64)
    base = [("M", "uint8", 32, m[:32]), ("A", "float32", 64, a), ("B", "float32", 64, b),
            ("D", "float32", 64)]
    expect(ParamError, ["VSEL_TENSOR_SCALAR_MODE", "scalar src1", "LocalTensor"],
            select, base, [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_TENSOR_SCALAR_MODE, 64])
    expect(ParamError, ["VSEL_CMPMASK_SPR", "LocalTensor src1", "float"],
            select, base, [Ref("D"), Ref("M"), Ref("A"), 1.0, S.VSEL_CMPMASK_SPR, 64])
    expect(ParamError, ["count=-1", ">= 0"],
            select, base, [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_CMPMASK_SPR, -1])
    expect(ParamError, ["sel_mode=5", "SelMode"],
            select, base, [Ref("D"), Ref("M"), Ref("A"), Ref("B"), 5, 64])
    expect(DTypeError, ["sel_mask", "float32", "uint8"],
            select, base, [Ref("D"), Ref("A"), Ref("A"), Ref("B"), S.VSEL_CMPMASK_SPR, 64])
    i = np.zeros(64, np.int32)
    expect(DTypeError, ["dst", "int32", "float16, float32"],
            select, [("M", "uint8", 32, m[:32]), ("A", "int32", 64, i), ("B", "int32", 64, i),
                     ("D", "int32", 64)],
            [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_TENSOR_TENSOR_MODE, 64])
    # the register forms (test_vector_cmpreg.py) check their own operands
    expect(DTypeError, ["dst", "src0", "float16 or float32"],
            select, [("M", "uint8", 32, m[:32]), ("A", "int32", 64, i), ("D", "int32", 64)],
            [Ref("D"), Ref("M"), Ref("A"), 1, asc.BinaryRepeatParams()])


def test_select_short_sel_mask_is_a_memcheck_finding():
    a = np.zeros(512, np.float16)
    expect(OutOfBoundsError, ["select", "sel_mask", "64 elements"],
            select, [("M", "uint8", 32, np.zeros(32, np.uint8)), ("A", "float16", 512, a),
                     ("B", "float16", 512, a), ("D", "float16", 512)],
            [Ref("D"), Ref("M"), Ref("A"), Ref("B"), S.VSEL_TENSOR_TENSOR_MODE, 512])


def test_registered_cost_classes():
    assert _vec.VECTOR_OPS["compare"] == "compare"
    assert _vec.VECTOR_OPS["select"] == "elementwise"
