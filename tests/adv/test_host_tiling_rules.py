"""asc.lib.host: Ascend C's rules around the generator (adv/host_rules.py) and the batch tiling
(adv/host_batch.py): what the setters record, what get_tiling copies into the tiling, and the
adjustments (single shape, sparse, OUTER_PRODUCT, batch in L1)."""

from __future__ import annotations

import pytest

import ascendlab.asc.lib.host as host
from ascendlab.adv.host_rules import fix_split_error, k0
from ascendlab.runtime.structs import TCubeTiling

FP16, FP32 = host.DataType.DT_FLOAT16, host.DataType.DT_FLOAT


def make(cls=host.MultiCoreMatmulTiling, m=256, n=256, k=256, dim=None, ab=FP16):
    api = cls(host.get_ascendc_platform())
    for setter in (api.set_a_type, api.set_b_type):
        setter(host.TPosition.GM, host.CubeFormat.ND, ab, False)
    if dim is not None:
        api.set_dim(dim)
    api.set_shape(m, n, k)
    return api


def tiled(api):
    t = TCubeTiling()
    assert api.get_tiling(t) == 0, api.last_error
    return t


def test_k0_and_fix_split_error_follow_as_type():
    assert (k0(FP32), k0(FP16), k0(host.DataType.DT_INT8)) == (8, 16, 32)
    assert fix_split_error(32, 16, 8, FP32) is None
    assert "base_k = 8" in fix_split_error(32, 16, 8, FP16)
    assert "base_n = 0" in fix_split_error(-1, 0, -1, FP16)


def test_get_base_reports_the_fixed_split_then_the_tiling():
    api = make(m=1024, n=1024, k=1024, dim=8)
    assert (api.get_base_m(), api.get_base_n(), api.get_base_k()) == (-1, -1, -1)
    api.set_fix_split(64, -1, -1)
    assert (api.get_base_m(), api.get_base_n(), api.get_base_k()) == (64, -1, -1)
    t = tiled(api)
    assert (api.get_base_m(), api.get_base_n(), api.get_base_k()) == (64, t.base_n, t.base_k)
    api.set_fix_split(-1, 32, -1)  # -1 leaves the reported value as it is
    assert (api.get_base_m(), api.get_base_n()) == (64, 32)


def test_defaults_are_ascend_cs():
    # DT_FLOAT A/B/C, one core, ORDER_M when nothing is set
    api = host.MultiCoreMatmulTiling()
    api.set_shape(32, 16, 8)
    t = tiled(api)
    assert (t.used_core_num, t.m, t.n, t.k_a, t.k_b, t.base_k % 8) == (1, 32, 16, 8, 8, 0)
    assert (t.batch_m, t.batch_n, t.single_batch_m, t.single_batch_n) == (1, 1, 1, 1)
    assert api.get_core_num() == (1, 1, 1)


def test_single_shape_tiles_one_block_and_reports_set_dim():
    api = make(m=32, n=32, k=32)
    assert api.get_single_shape() == (0, 0, 0) and api.get_core_num() == (0, 0, 0)
    api.set_single_shape(32, 16, 8)
    t = tiled(api)
    assert (t.used_core_num, t.single_core_m, t.single_core_n, t.single_core_k) == (1, 32, 16, 8)
    assert (t.m, t.n, t.k_a) == (32, 32, 32)
    assert api.get_single_shape() == (32, 16, 8)
    assert api.get_core_num() == (1, 1, 2)  # ceil(32/32), ceil(32/16)
    api.set_single_shape(-1, -1, 64)
    assert api.get_tiling(t) == -1 and "single_k = 64 exceeds the shape's 32" in api.last_error


def test_set_dim_without_single_shape_splits_as_before():
    api = make(m=1024, n=1024, k=128, dim=8)
    t = tiled(api)
    assert t.used_core_num <= 8 and api.get_core_num()[0] == t.used_core_num


def test_layouts_and_batch_num_are_copied():
    api = make(cls=host.MatmulApiTiling, m=32, n=256, k=64)
    api.set_a_layout(2, 32, 1, 3, 64)
    api.set_b_layout(2, 256, 1, 3, 64)
    api.set_c_layout(2, 32, 1, 3, 256)
    api.set_batch_num(3)
    t = tiled(api)
    assert (t.a_layout_info_b, t.a_layout_info_s, t.a_layout_info_n, t.a_layout_info_g,
            t.a_layout_info_d) == (2, 32, 1, 3, 64)
    assert (t.b_layout_info_s, t.b_layout_info_d) == (256, 64)
    assert (t.c_layout_info_b, t.c_layout_info_s1, t.c_layout_info_g, t.c_layout_info_s2) == (
        2, 32, 3, 256)
    assert t.batch_num == 3


def test_batch_info_for_normal_fills_the_layouts():
    api = make(cls=host.MatmulApiTiling, m=32, n=256, k=64)
    api.set_batch_info_for_normal(3, 2, 32, 256, 64)
    t = tiled(api)
    assert (t.a_layout_info_b, t.a_layout_info_s, t.a_layout_info_n, t.a_layout_info_g,
            t.a_layout_info_d) == (3, 32, 1, 1, 64)
    assert (t.b_layout_info_b, t.b_layout_info_s, t.b_layout_info_d) == (2, 256, 64)
    assert (t.c_layout_info_b, t.c_layout_info_s1, t.c_layout_info_s2) == (3, 32, 256)


def test_batches_must_fit_l1():
    api = make(cls=host.BatchMatmulTiling, m=512, n=512, k=512)
    api.set_batch_num(8)  # 8 x (A + B) fp16 = 8 MiB
    assert api.get_tiling(TCubeTiling()) == -1
    assert "(512*512 + 512*512)*8*2 = 8388608 B exceeds the 524160 B of L1" in api.last_error
    api.set_batch_info_for_normal(8, 8, 512, 512, 512)  # NORMAL: Ascend C does not check
    assert api.get_tiling(TCubeTiling()) == 0
    api = make(cls=host.BatchMatmulTiling, m=128, n=128, k=128)
    api.set_batch_num(3)  # 3 x (A + B) fp16 = 192 KiB
    assert tiled(api).batch_num == 3


def test_batch_tiling_is_one_core():
    api = make(cls=host.BatchMatmulTiling, m=32, n=32, k=32)
    assert not hasattr(api, "set_dim") and api.get_core_num() == (0, 0, 0, 0, 0)
    t = tiled(api)
    assert t.used_core_num == 1 and api.get_core_num() == (1, 1, 1, 1, 1)


@pytest.mark.parametrize("m,n,k,dim,dense,sparse", [
    (512, 1024, 512, 48, 80, 64),  # aligned down to 64
    (32, 32, 16, 1, 16, 64),  # at most 64: 64
    (3072, 3072, 1024, 24, 128, 128),  # already a multiple of 64
])
def test_sparse_aligns_base_k_to_64(m, n, k, dim, dense, sparse):
    api = make(m=m, n=n, k=k, dim=dim)
    before = tiled(api)
    assert before.base_k == dense
    api.set_sparse(True)
    t = tiled(api)
    assert t.base_k == sparse
    assert (t.single_core_m, t.single_core_n, t.base_m, t.base_n) == (
        before.single_core_m, before.single_core_n, before.base_m, before.base_n)


def test_outer_product_needs_whole_k_with_mdl():
    api = make(m=4096, n=4096, k=4096, dim=24)
    api.set_matmul_config_params(1, False, host.ScheduleType.OUTER_PRODUCT)
    assert api.get_tiling(TCubeTiling()) == -1
    assert "base_k = 64 < 4096" in api.last_error
    api = make(m=256, n=256, k=64, dim=4)  # base_k covers K: accepted
    api.set_matmul_config_params(host.MatmulConfigParams(
        1, False, host.ScheduleType.OUTER_PRODUCT))
    assert api.get_tiling(TCubeTiling()) == 0


@pytest.mark.parametrize("traverse,base,steps", [
    (host.MatrixTraverse.FIRSTM, (128, 128), (1, 2)),  # base_n halved, step_n 2
    (host.MatrixTraverse.FIRSTN, (64, 256), (2, 1)),  # base_m halved, step_m 2
])
def test_outer_product_halves_the_base_when_two_blocks_overflow_l0c(traverse, base, steps):
    api = make(m=4096, n=4096, k=4096, dim=24)
    inner = tiled(api)
    assert (inner.base_m, inner.base_n, inner.db_l0c) == (128, 256, 1)  # 128 KiB: L0C once
    api.set_matmul_config_params(0, False, host.ScheduleType.OUTER_PRODUCT, traverse)
    t = tiled(api)
    assert (t.base_m, t.base_n, t.step_m, t.step_n) == (*base, *steps)
    assert (t.single_core_m, t.single_core_n) == (inner.single_core_m, inner.single_core_n)
    assert t.iterate_order == traverse - 1


def test_config_traverse_replaces_set_traverse():
    api = make(m=256, n=256, k=64, dim=4)
    api.set_traverse(host.MatrixTraverse.FIRSTN)
    assert tiled(api).iterate_order == 1
    api.set_matmul_config_params()  # traverse NOSET: the generator's ORDER_M
    assert tiled(api).iterate_order == 0


def test_recorded_options_do_not_change_the_tiling():
    api = make(m=1000, n=700, k=300, dim=24)
    plain = tiled(api)
    assert api.set_split_range(32, 32, 32, 16, 16, 16) == 0
    assert api.set_double_buffer(True, True, True, True, True) == 0
    assert api.set_single_range(512, 512, 512, 16, 16, 16) == 0
    assert api.set_dequant_type(host.DequantType.TENSOR) == 0
    assert api.enable_multi_core_split_k(True) is None
    assert tiled(api) == plain


def test_set_fix_split_checks_alignment_when_called():
    # Ascend C's SetFixSplit: base_m/base_n multiples of 16, base_k of the K in 32 B of A's
    # type as set at the call (DT_FLOAT until set_a_type: 8)
    api = host.MatmulApiTiling()
    assert api.set_fix_split(32, 16, 8) == 0 and api.get_base_k() == 8
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, FP16, False)
    for fix, words in (((100, 128, -1), "base_m = 100 must be -1 or a multiple of 16"),
                       ((128, 128, 24), "base_k = 24 must be -1 or a multiple of 16"),
                       ((0, -1, -1), "base_m = 0")):
        assert api.set_fix_split(*fix) == -1 and words in api.last_error
    assert api.get_base_m() == 32  # a refused call changes nothing


def test_dim_defaults_to_one_and_is_bounded():
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_shape(64, 64, 64)
    t = TCubeTiling()
    assert api.get_tiling(t) == 0 and t.used_core_num == 1  # Ascend C's blockDim starts at 1
    assert api.set_dim(0) == -1 and api.set_dim(49) == -1 and "1..48" in api.last_error
    assert api.set_dim(48) == 0 and api.get_tiling(TCubeTiling()) == 0


def test_split_k_flag_is_recorded_and_the_generator_keeps_k_whole():
    api = host.MultiCoreMatmulTiling()
    assert api.enable_multi_core_split_k(True) is None
    api.set_dim(8)
    api.set_shape(256, 256, 256)
    t = TCubeTiling()
    assert api.get_tiling(t) == 0 and t.single_core_k == 256
