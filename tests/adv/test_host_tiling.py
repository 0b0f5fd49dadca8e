"""asc.lib.host (adv/host_tiling.py): the tiling generator built the way pyasc's tutorials build
it, the contract `check` (one test per rule: each message names field, value and limit) and
`effective` on hand-filled tilings."""

from __future__ import annotations

import logging
import random

import pytest

import ascendlab.asc.lib.host as host
from ascendlab.adv.tiling import align_up, cdiv, check, effective, l1_usable
from ascendlab.asc.runtime import config
from ascendlab.runtime.chips import get_chip
from ascendlab.runtime.enums import TPosition as KernelTPosition
from ascendlab.runtime.structs import TCubeTiling

FP16, FP32 = host.DataType.DT_FLOAT16, host.DataType.DT_FLOAT
B1 = get_chip("Ascend910B1")


def generate(m, n, k, dim=24, ab=FP16, c=FP32, bias=False, fix=None, single=False,
             traverse=None, c_pos=host.TPosition.GM):
    """A tiling built as pyasc's tutorials build one: (status, tiling, tiling api)."""
    cls = host.MatmulApiTiling if single else host.MultiCoreMatmulTiling
    api = cls(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, ab, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, ab, False)
    api.set_c_type(c_pos, host.CubeFormat.ND, c)
    api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    if not single:
        api.set_dim(dim)
    api.set_org_shape(m, n, k)
    api.set_shape(m, n, k)
    api.enable_bias(bias)
    if traverse is not None:
        api.set_traverse(traverse)
    if fix is not None:
        api.set_fix_split(*fix)
    api.set_buffer_space(-1, -1, -1)
    tiling = TCubeTiling()
    return api.get_tiling(tiling), tiling, api


def assert_valid(t, ab=FP16, bias=False, dim=24, chip=B1):
    """Passes check, covers the shape, and keeps each base block within its core's block."""
    nbytes = 2 if ab == FP16 else 4
    assert check(t, chip, nbytes, nbytes, bias, max_cores=dim) == []
    assert 1 <= t.used_core_num <= dim
    assert cdiv(t.m, t.single_core_m) * cdiv(t.n, t.single_core_n) == t.used_core_num
    assert t.single_core_k == t.k_a == t.k_b
    assert t.base_m <= align_up(t.single_core_m, 16) and t.base_n <= align_up(t.single_core_n, 16)
    e = effective(t, nbytes, nbytes, chip)
    assert (e.depth_a1, e.depth_b1) == (t.depth_a1, t.depth_b1)  # the generator fills them all
    # L1 keeps room for a bias row even without bias (the emulated Matmul holds a bias buffer)
    l1 = (t.depth_a1 * t.base_m + t.depth_b1 * t.base_n) * t.base_k * nbytes
    assert l1 + align_up(max(t.single_core_n, t.base_n) * 4, 64) <= l1_usable(chip)
    assert t.share_l1_size == l1 + (t.single_core_n * 4 if bias else 0)
    assert t.is_bias == int(bias)


# ---- platform and enums -------------------------------------------------------------------------
def test_platform_core_counts_follow_set_platform():
    p = host.get_ascendc_platform()
    assert (p.get_core_num(), p.get_core_num_aic(), p.get_core_num_aiv()) == (48, 24, 48)
    assert p.get_soc_version() == "Ascend910B2"  # the launch default (jit.COURSE_CHIP)
    config.set_platform(config.Backend.Model, config.Platform.Ascend310P3)
    p = host.get_ascendc_platform()  # coupled: one kind of core
    assert (p.get_core_num(), p.get_core_num_aic(), p.get_core_num_aiv()) == (8, 8, 8)
    assert host.PlatformAscendCManager.get_instance("Ascend910B3").get_core_num_aic() == 20


def test_host_enum_values_are_ascend_cs():
    assert (host.TPosition.GM, host.TPosition.VECCALC, host.TPosition.TSCM) == (0, 11, 13)
    assert host.TPosition.LCM is host.TPosition.VECCALC
    assert (host.CubeFormat.ND, host.CubeFormat.NZ, host.CubeFormat.COLUMN_MAJOR) == (0, 1, 8)
    assert (FP32, FP16, host.DataType.DT_INT8, host.DataType.DT_BF16) == (0, 1, 2, 27)
    assert [t.value for t in host.MatrixTraverse] == [0, 1, 2]


def test_kernel_enums_are_rejected_by_host_setters():
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    with pytest.raises(TypeError, match="host enums are separate from the kernel"):
        api.set_a_type(KernelTPosition.GM, host.CubeFormat.ND, FP16, False)


# ---- the tutorials ------------------------------------------------------------------------------
def test_tutorial_matmul_mix():
    status, t, api = generate(512, 1024, 512, dim=48)  # m, n, k (the tutorial says m, k, n)
    assert status == 0 and api.last_error is None
    assert_valid(t, dim=48)
    assert (t.m, t.n, t.k_a) == (512, 1024, 512)
    assert api.get_core_num()[0] == t.used_core_num


def test_tutorial_matmul_cube_only():
    status, t, _ = generate(128, 30720, 64, dim=24)
    assert status == 0
    assert_valid(t, dim=24)
    assert t.used_core_num == 24 and t.single_core_n * 24 // (128 // t.single_core_m) >= 30720


def test_tutorial_matmul_leakyrelu_blocks_are_whole_base_blocks():
    # The kernel writes base_m x base_n blocks with no tail handling: the split must give it
    # single_core_m = 512 (2 x 256) and single_core_n = 640 (5 x 128) on 2 blocks.
    status, t, api = generate(1024, 640, 256, dim=2, bias=True, fix=(256, 128, -1),
                              traverse=host.MatrixTraverse.FIRSTM, c_pos=host.TPosition.VECCALC)
    assert status == 0
    assert_valid(t, bias=True, dim=2)
    assert (t.used_core_num, t.single_core_m, t.single_core_n) == (2, 512, 640)
    assert (t.base_m, t.base_n, t.iterate_order, t.is_bias) == (256, 128, 0, 1)
    assert (api.get_base_m(), api.get_base_n(), api.get_base_k()) == (256, 128, t.base_k)
    assert api.get_core_num() == (2, 2, 1)
    assert api.get_single_shape() == (512, 640, 256)


# ---- shapes, types, options ---------------------------------------------------------------------
@pytest.mark.parametrize("ab", [FP16, FP32])
@pytest.mark.parametrize("m,n,k", [(100, 70, 33), (1, 1, 1), (4096, 4096, 4096), (17, 1000, 300),
                                   (1000, 17, 4097), (256, 256, 256)])
def test_odd_shapes_with_tails(m, n, k, ab):
    status, t, _ = generate(m, n, k, dim=24, ab=ab)
    assert status == 0
    assert_valid(t, ab=ab, dim=24)
    kal = 16 if ab == FP16 else 8
    assert t.base_k % kal == 0 and t.base_m % 16 == 0 and t.base_n % 16 == 0


def test_big_fp16_shape_gets_ascend_like_blocks():
    _, t, _ = generate(4096, 4096, 4096, dim=24)
    assert (t.base_m, t.base_n, t.base_k) == (128, 256, 64)  # Ascend's default for fp16
    assert (t.step_k_a, t.depth_a1, t.db_l0a, t.db_l0b, t.db_l0c) == (4, 8, 2, 2, 1)
    _, t, _ = generate(4096, 4096, 4096, dim=24, ab=FP32)
    assert t.base_k % 8 == 0 and t.base_m * t.base_k * 4 * t.db_l0a <= 64 * 1024


def test_full_load_of_the_operand_the_order_reuses():
    # ORDER_M walks m fastest: a B panel holding the whole K (one L1 buffer) serves every m
    # block of its column, so B is read from GM once instead of once per m block.
    api = generate(1024, 1024, 1024, dim=8, fix=(128, 128, 64))[2]
    api.set_single_shape(512, 256, -1)
    t = TCubeTiling()
    assert api.get_tiling(t) == 0
    assert (t.step_k_b, t.depth_b1, t.iterate_order) == (16, 16, 0)  # 16 x 64 = K
    assert effective(t, 2, 2, B1).l1_buffers_b == 1
    assert_valid(t, dim=8)


def test_fp32_inputs_and_c_types():
    status, t, _ = generate(300, 200, 100, ab=FP32, c=FP32)
    assert status == 0 and t.base_k % 8 == 0
    assert generate(300, 200, 100, ab=FP16, c=FP16)[0] == 0
    status, t, api = generate(300, 200, 100, ab=FP32, c=FP16)
    assert status == -1 and t == TCubeTiling()
    assert "C DT_FLOAT16 with A/B DT_FLOAT" in api.last_error


@pytest.mark.parametrize("dtype", [host.DataType.DT_BF16, host.DataType.DT_INT8])
def test_unsupported_dtype_returns_minus_one_and_says_why(dtype, caplog):
    with caplog.at_level(logging.WARNING, logger="ascendlab.host"):
        status, t, api = generate(128, 128, 128, ab=dtype)
    assert status == -1
    assert t == TCubeTiling()  # untouched: no garbage
    assert f"A {dtype.name} / B {dtype.name}" in api.last_error
    assert "MatmulApi Tiling" in caplog.text and dtype.name in caplog.text


def test_bias_row_is_counted_in_l1():
    _, off, _ = generate(512, 640, 256, dim=4, bias=False)
    _, on, _ = generate(512, 640, 256, dim=4, bias=True)
    assert (off.is_bias, on.is_bias) == (0, 1)
    assert on.share_l1_size - off.share_l1_size == on.single_core_n * 4
    assert_valid(on, bias=True, dim=4)


def test_single_core_tiling_computes_the_whole_shape():
    status, t, api = generate(1000, 300, 200, single=True)
    assert status == 0
    assert (t.used_core_num, t.single_core_m, t.single_core_n, t.single_core_k) == (1, 1000, 300,
                                                                                   200)
    assert_valid(t, dim=1)
    assert not hasattr(api, "set_dim")


def test_traverse_firstn_sets_iterate_order_1():
    assert generate(256, 256, 64, traverse=host.MatrixTraverse.FIRSTN)[1].iterate_order == 1
    assert generate(256, 256, 64)[1].iterate_order == 0  # Ascend C's default is FIRSTM


def test_get_tiling_resets_a_reused_struct():
    api = generate(256, 256, 64)[2]
    t = TCubeTiling(batch_m=5, trans_length=7, step_k_a=99)
    assert api.get_tiling(t) == 0
    assert (t.batch_m, t.trans_length) == (1, 0)  # Ascend C's batch_m is 1 for every class
    assert t.step_k_a != 99
    with pytest.raises(TypeError, match="TCubeTiling"):
        api.get_tiling({})


# ---- validation ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fix,m,words", [
    ((256, 128, -1), 100, ["base_m = 256", "112"]),
    ((256, 256, -1), 1024, ["262144 B exceeds the 131072 B of L0C"]),
])
def test_fix_split_is_validated(fix, m, words):
    status, t, api = generate(m, 1024, 256, dim=8, fix=fix)
    assert status == -1 and t == TCubeTiling()
    for w in words:
        assert w in api.last_error


def test_set_single_shape_and_align_split():
    api = generate(1024, 1024, 128, dim=8)[2]
    api.set_single_shape(256, 512, -1)
    t = TCubeTiling()
    assert api.get_tiling(t) == 0
    assert (t.used_core_num, t.single_core_m, t.single_core_n) == (8, 256, 512)
    api.set_single_shape(128, 128, -1)  # 64 blocks on 8 cores: Ascend C leaves it to the kernel
    assert api.get_tiling(t) == 0
    assert (t.used_core_num, t.single_core_m, t.single_core_n) == (8, 128, 128)
    assert check(t, B1, 2, 2, False, 8)[0].startswith("coverage:")  # the emulated Matmul's rule
    api = generate(1000, 1000, 128, dim=24)[2]
    api.set_align_split(96, 80, -1)
    assert api.get_tiling(t) == 0
    assert t.single_core_m % 96 == 0 and t.single_core_n % 80 == 0
    assert_valid(t)


def test_shapes_must_agree():
    api = host.MultiCoreMatmulTiling()
    api.set_dim(4)
    api.set_org_shape(256, 256, 64, 128)  # ka != kb only places A's and B's blocks in GM
    t = TCubeTiling()
    assert api.get_tiling(t) == 0 and (t.k_a, t.k_b, t.single_core_k) == (64, 128, 64)
    api.set_org_shape(256, 256, 64)
    api.set_shape(128, 256, 64)
    assert api.get_tiling(TCubeTiling()) == -1 and "whole org m x n" in api.last_error
    assert api.set_shape(0, 1, 1) == -1


def test_buffer_space_limits_l1():
    api = generate(2048, 2048, 2048, dim=24)[2]
    assert api.set_buffer_space(64 * 1024, -1, -1) == 0
    t = TCubeTiling()
    assert api.get_tiling(t) == 0
    assert t.share_l1_size <= 64 * 1024
    assert_valid(t)
    assert api.set_buffer_space(l1_usable(B1) + 1) == -1 and "l1_size" in api.last_error


def test_unemulated_parts_say_so():
    api = host.MultiCoreMatmulTiling()
    with pytest.raises(NotImplementedError, match="set_mad_type"):
        api.set_mad_type(host.MatrixMadType.HF32)
    api.set_shape(64, 64, 64)
    api.set_matmul_config_params(1, True)
    with pytest.raises(NotImplementedError, match="enable_l1_cache_ub"):
        api.get_tiling(TCubeTiling())


def test_every_generated_tiling_passes_check():
    rng = random.Random(2025)
    sizes = [1, 15, 16, 17, 100, 255, 256, 640, 1000, 2049]
    for _ in range(40):
        m, n, k = (rng.choice(sizes) for _ in range(3))
        dim, ab, bias = rng.choice([1, 2, 7, 24, 48]), rng.choice([FP16, FP32]), rng.random() < .5
        fix = rng.choice([None, (16, 16, -1), (64, -1, -1), (-1, 128, -1)])
        if fix and (fix[0] > align_up(m, 16) or fix[1] > align_up(n, 16)):
            fix = None
        status, t, api = generate(m, n, k, dim=dim, ab=ab, bias=bias, fix=fix)
        assert status == 0, (m, n, k, dim, api.last_error)
        assert_valid(t, ab=ab, bias=bias, dim=dim)


# ---- check: one test per rule -------------------------------------------------------------------
def kmatmul_tiling(**changes):
    """The hand-filled tiling of pyasc's K:matmul test (m = n = k = 256, base 64 x 64 x 64)."""
    fields = dict(used_core_num=16, m=256, n=256, k_a=256, k_b=256, single_core_m=64,
                  single_core_n=64, single_core_k=256, base_m=64, base_n=64, base_k=64,
                  depth_a1=1, depth_b1=1, step_m=1, step_n=1, share_mode=0, is_bias=1)
    return TCubeTiling(**{**fields, **changes})


def test_hand_tiling_of_kmatmul_is_valid():
    assert check(kmatmul_tiling(), B1, 4, 4, True, max_cores=48) == []
    assert check(kmatmul_tiling(), B1, 2, 2, False, max_cores=24) == []


def test_check_positive_fields():
    assert check(kmatmul_tiling(m=0), B1, 2, 2, False, 48) == ["m = 0 must be >= 1"]
    errs = check(kmatmul_tiling(base_k=-16), B1, 2, 2, False, 48)
    assert errs == ["base_k = -16 must be >= 1"]


@pytest.mark.parametrize("field,value,nbytes,unit", [
    ("base_m", 40, 2, 16), ("base_n", 24, 4, 16), ("base_k", 24, 2, 16), ("base_k", 12, 4, 8)])
def test_check_alignment(field, value, nbytes, unit):
    errs = check(kmatmul_tiling(**{field: value}), B1, nbytes, nbytes, False, 48)
    assert len(errs) == 1
    assert errs[0].startswith(f"{field} = {value} is not a multiple of {unit} (")


def test_check_k_a_equals_k_b():
    errs = check(kmatmul_tiling(k_b=128), B1, 2, 2, False, 48)
    assert errs == ["k_a = 256 differs from k_b = 128: the emulated Matmul needs k_a == k_b"]


def test_check_l0a():
    t = kmatmul_tiling(base_m=128, base_k=160, db_l0a=2)
    assert check(t, B1, 2, 2, False, 48) == [
        "L0A: base_m*base_k*2 B x db_l0a = 128*160*2 B x 2 = 81920 B exceeds the 65536 B of "
        "L0A on Ascend910B1"]
    assert check(kmatmul_tiling(base_m=128, base_k=160), B1, 2, 2, False, 48) == []  # auto: 1


def test_check_l0b():
    errs = check(kmatmul_tiling(base_n=256, base_k=160), B1, 2, 2, False, 48)
    assert errs == ["L0B: base_k*base_n*2 B x db_l0b = 160*256*2 B x 1 = 81920 B exceeds the "
                    "65536 B of L0B on Ascend910B1 (db_l0b = 0: automatic)"]


def test_check_l0c_depends_on_the_chip():
    t = kmatmul_tiling(base_m=256, base_n=256, single_core_m=256, single_core_n=256,
                       used_core_num=1)
    assert check(t, B1, 2, 2, False, 48) == [
        "L0C: base_m*base_n*4 B x db_l0c = 256*256*4 B x 1 = 262144 B exceeds the 131072 B of "
        "L0C on Ascend910B1 (db_l0c = 0: automatic)"]
    assert check(t, "Ascend310P3", 2, 2, False, 8) == []  # 256 KiB of L0C


def test_check_l1_and_the_bias_row():
    t = kmatmul_tiling(depth_a1=64, base_m=128)
    errs = check(t, B1, 2, 2, False, 48)
    assert len(errs) == 1 and errs[0].startswith("L1: depth_a1*base_m*base_k*2 B")
    assert "64*128*64*2" in errs[0] and "exceeds the 524160 B of L1 usable on Ascend910B1" in (
        errs[0])
    # 63 tiles of 8 KiB leave 8064 B of L1: no room for a 2048-column bias row (8192 B)
    full = kmatmul_tiling(depth_a1=31, depth_b1=32, single_core_n=2048)
    assert check(full, B1, 2, 2, False, 48) == []
    errs = check(full, B1, 2, 2, True, 48)
    assert len(errs) == 1 and "single_core_n*4 B bias" in errs[0]


def test_check_used_cores_and_coverage():
    errs = check(kmatmul_tiling(), B1, 2, 2, False, max_cores=8)
    assert errs == ["used_core_num = 16 exceeds max_cores 8 (the kernel's block limit on "
                    "Ascend910B1)"]
    errs = check(kmatmul_tiling(used_core_num=15), B1, 2, 2, False, 48)
    assert errs == ["coverage: ceil(m/single_core_m)*ceil(n/single_core_n) = ceil(256/64)*"
                    "ceil(256/64) = 16 blocks exceed used_core_num 15: part of C would not be "
                    "computed"]


# ---- effective ----------------------------------------------------------------------------------
def test_effective_of_the_hand_filled_kmatmul_tiling():
    e = effective(kmatmul_tiling(), 4, 4)
    assert (e.step_m, e.step_n, e.step_ka, e.step_kb) == (1, 1, 1, 1)
    assert (e.depth_a1, e.depth_b1, e.l1_buffers_a, e.l1_buffers_b) == (1, 1, 1, 1)
    assert (e.db_l0a, e.db_l0b, e.db_l0c) == (2, 2, 2)  # 16 KiB tiles: two fit everywhere
    assert (e.iterate_order, e.is_bias) == (0, True)
    assert (e.single_core_m, e.single_core_n, e.single_core_k, e.base_k) == (64, 64, 256, 64)


def test_effective_defaults_and_clamps():
    t = kmatmul_tiling(step_m=0, step_k_a=2, depth_a1=1, depth_b1=3, iterate_order=7,
                       base_m=128, base_n=256, base_k=128, db_l0c=0)
    e = effective(t, 2, 2)
    assert (e.step_m, e.step_ka, e.depth_a1, e.l1_buffers_a) == (1, 2, 2, 1)
    assert (e.depth_b1, e.l1_buffers_b) == (3, 2)  # 3 tiles of step 1: clamped to 2 buffers
    assert e.iterate_order == 0
    assert (e.db_l0a, e.db_l0b) == (2, 1)  # 32 KiB A tile: two fit; 64 KiB B tile: one
    assert e.db_l0c == 1 and effective(t, 2, 2, "Ascend310P3").db_l0c == 2  # 128 KiB C tile
    assert effective(kmatmul_tiling(db_l0a=1, iterate_order=1), 2, 2)[19:21] == (1, 2)


def test_effective_of_a_generated_tiling_is_its_fields():
    _, t, _ = generate(4096, 4096, 4096)
    e = effective(t, 2, 2, B1)
    assert (e.step_ka, e.depth_a1, e.l1_buffers_a, e.db_l0a, e.db_l0c) == (
        t.step_k_a, t.depth_a1, 2, t.db_l0a, t.db_l0c)


@pytest.mark.parametrize("m,n,k,dim,fix,expected", [
    (512, 1024, 512, 48, None, (48, 64, 176, 64, 176, 80, 1, 2, 2)),
    (128, 30720, 64, 24, None, (24, 64, 2560, 64, 256, 64, 1, 2, 2)),
    (1024, 640, 256, 2, (256, 128, -1), (2, 512, 640, 256, 128, 64, 1, 2, 1)),
    (4096, 4096, 4096, 24, None, (24, 1376, 512, 128, 256, 64, 4, 8, 1)),
    (3072, 3072, 1024, 24, None, (24, 3072, 128, 128, 128, 128, 2, 4, 2)),
])
def test_the_examples_in_docs_adv(m, n, k, dim, fix, expected):
    """docs/adv.md (Host tiling) shows these: a change to the generator or the cost model that
    moves them should update the table."""
    t = generate(m, n, k, dim=dim, fix=fix)[1]
    assert (t.used_core_num, t.single_core_m, t.single_core_n, t.base_m, t.base_n, t.base_k,
            t.step_k_a, t.depth_a1, t.db_l0c) == expected
