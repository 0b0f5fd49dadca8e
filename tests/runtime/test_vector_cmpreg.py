"""compare / select through the cmpMask register, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import ParamError

from .vector_harness import Ref, expect, launch

S = asc.SelMode
P = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
RNG = np.random.default_rng(3)
BITS = RNG.integers(0, 256, 128).astype(np.uint8)
A = RNG.standard_normal(128).astype(np.float32)
B = RNG.standard_normal(128).astype(np.float32)


def _bits(n: int) -> np.ndarray:
    return np.unpackbits(BITS, bitorder="little")[:n].astype(bool)


def _compare_then_get(d, a, b):
    asc.compare(a, b, asc.CMPMODE.LT, mask=48, repeat_params=asc.BinaryRepeatParams())
    asc.get_cmp_mask(d)


def test_compare_register_form_writes_the_masked_lanes_bits():
    a = RNG.standard_normal(128).astype(np.float16)
    b = RNG.standard_normal(128).astype(np.float16)
    out, run = launch(_compare_then_get, [("A", "float16", 128, a), ("B", "float16", 128, b),
                                          ("D", "uint8", 128)], [Ref("D"), Ref("A"), Ref("B")])
    want = np.zeros(128, bool)
    want[:48] = a[:48] < b[:48]
    np.testing.assert_array_equal(out[:16], np.packbits(want, bitorder="little"))
    assert (out[16:] == 0xFF).all()  # the rest of the never-set register: poison bytes
    (ev,) = run.events(op="compare_cmpmask")
    assert ev.pipe == "V" and ev.count == 48 and not ev.writes


def _spr(d, m, a, b):
    asc.set_cmp_mask(m)
    asc.select(d, a, b, repeat_times=2, repeat_params=P, sel_mode=S.VSEL_CMPMASK_SPR)


def test_select_mode0_uses_the_registers_bits_every_repeat():
    out, run = launch(_spr, [("M", "uint8", 128, BITS), ("A", "float32", 128, A),
                             ("B", "float32", 128, B), ("D", "float32", 128)],
                      [Ref("D"), Ref("M"), Ref("A"), Ref("B")])
    pick = np.tile(_bits(64), 2)
    np.testing.assert_array_equal(out, np.where(pick, A, B))
    (ev,) = run.events(op="select_cmpmask")
    assert ev.count == 128 and ev.repeats == 2


def _scalar(d, m, a, s):
    asc.set_cmp_mask(s)
    asc.select(d, m, a, 2, P)


def test_select_scalar_register_form_takes_the_scalar_from_the_register():
    s = np.full(32, 7.5, np.float32)
    out, _ = launch(_scalar, [("M", "uint8", 128, BITS), ("A", "float32", 128, A),
                              ("S", "float32", 32, s), ("D", "float32", 128)],
                    [Ref("D"), Ref("M"), Ref("A"), Ref("S")])
    np.testing.assert_array_equal(out, np.where(_bits(128), A, np.float32(7.5)))


def _tensor(d, m, a, b, t):
    asc.set_cmp_mask(t)
    asc.select(d, a, b, repeat_times=2, repeat_params=P, sel_mode=S.VSEL_TENSOR_TENSOR_MODE)


@pytest.mark.parametrize("addr, ok", [(0, True), (1 << 30, False)])
def test_select_mode2_reads_bits_at_the_registers_address(addr, ok):
    t = np.zeros(16, np.int64)
    t[0] = addr  # M is placed first, at UB address 0
    tensors = [("M", "uint8", 128, BITS), ("AB", "float32", 256, np.concatenate([A, B])),
               ("T", "int64", 16, t), ("D", "float32", 128)]  # the harness has 4 GM slots
    args = [Ref("D"), Ref("M"), Ref("AB"), Ref("AB", 128), Ref("T")]
    if ok:
        out, _ = launch(_tensor, tensors, args)
        np.testing.assert_array_equal(out, np.where(_bits(128), A, B))
    else:
        expect(Exception, ["VSEL_TENSOR_TENSOR_MODE", "outside UB"], _tensor, tensors, args)


def test_compare_register_form_checks_the_mask():
    expect(ParamError, ["mask=512"], lambda a, b: asc.compare(
        a, b, asc.CMPMODE.LT, mask=512, repeat_params=P),
        [("A", "float16", 128, np.zeros(128, np.float16)),
         ("D", "float16", 128, np.zeros(128, np.float16))], [Ref("A"), Ref("D")])
