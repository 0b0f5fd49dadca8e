"""asc.adv's Matmul config builders (ascendlab/adv/matmul_config.py): each sets its schedule
flag and passes its arguments under MatmulConfig's field names; get_mm_config applies every
parameter record it is given and checks their ranges."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import ParamError


def test_each_builder_sets_its_schedule_flag():
    assert asc.adv.get_normal_config().options["do_norm"] is True
    mdl = asc.adv.get_mdl_config(do_mte2_preload=1).options
    assert mdl["do_multi_data_load"] and not mdl["do_norm"] and mdl["do_mte2_preload"] == 1
    assert asc.adv.get_special_mdl_config().options["do_special_mdl"]
    assert asc.adv.get_ib_share_norm_config(is_double_cache=True).options == {
        **asc.adv.get_ib_share_norm_config().options, "enable_double_cache": True}
    basic = asc.adv.get_basic_config(64, 128, 32).options
    assert basic["do_basic_block"] and (basic["basic_m"], basic["basic_n"],
                                        basic["basic_k"]) == (64, 128, 32)
    special = asc.adv.get_special_basic_config(256, 256, 256, 16, 16, 16, 2, 2).options
    assert special["do_special_basic_block"] and special["step_n"] == 2


def test_get_mm_config_applies_the_records():
    cfg = asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_MDL,
                                asc.adv.MatmulShapeParams(128, 128, 128, 64, 64, 64),
                                asc.adv.MatmulQuantParams(True, False),
                                asc.adv.MatmulBatchParams(True),
                                asc.adv.MatmulFuncParams(False, True)).options
    assert cfg["do_multi_data_load"] and not cfg["do_norm"]
    assert cfg["single_core_m"] == 128 and cfg["basic_k"] == 64
    assert cfg["is_per_tensor"] and cfg["is_n_batch"] and cfg["en_vec_nd2nz"]
    assert asc.adv.get_mm_config().options["do_norm"]
    with pytest.raises(ParamError, match="schedule_type=3"):
        asc.adv.get_mm_config(asc.adv.MatmulFuncParams(schedule_type=3))
    with pytest.raises(TypeError, match="not a MatmulConfigMode"):
        asc.adv.get_mm_config(7)
    assert int(asc.IterateMode.ITERATE_MODE_DEFAULT) == 0xFF and int(asc.BatchMode.NONE) == 0


TILINGS: list = []


@asc.jit
def static_tiling_kernel(x: asc.GlobalAddress, cfg: asc.ConstExpr, dtype: asc.ConstExpr):
    t = asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, dtype)
    TILINGS.append(asc.adv.get_matmul_api_tiling(cfg, 524288, t, t, t, t))


def test_static_tiling_from_basic_shapes_and_unknown_fields():
    TILINGS.clear()
    x = np.zeros(8, np.float32)
    static_tiling_kernel[1](x, asc.adv.MatmulConfig(do_norm=False), asc.float16)
    static_tiling_kernel[1](x, asc.adv.get_basic_config(128, 256, 64), asc.float16)
    static_tiling_kernel[1](x, asc.adv.get_basic_config(128, 256, 256), asc.float32)
    plain, basic, big = TILINGS
    assert plain.base_m == plain.single_core_m == plain.db_l0a == -1
    assert plain.cfg.options == {"do_norm": False}
    # fp16 128 x 64 = 16 KiB of A <= 32 KiB (half of L0A): double buffered
    assert (basic.base_m, basic.base_n, basic.base_k, basic.db_l0a, basic.db_l0b,
            basic.is_bias) == (128, 256, 64, 2, 2, 1)
    assert basic.single_core_m == -1
    # fp32 128 x 256 = 128 KiB of A > 32 KiB: single buffered
    assert (big.db_l0a, big.db_l0b) == (1, 1)
    with pytest.raises(NotImplementedError, match="single-core shapes"):
        static_tiling_kernel[1](x, asc.adv.get_special_basic_config(64, 64, 64, 128, 128, 128,
                                                                    1, 1), asc.float16)


def test_an_unemulated_matmul_method_names_itself():
    from ascendlab.adv.matmul import Matmul

    mm = object.__new__(Matmul)  # no kernel needed: the lookup fails before any state is read
    with pytest.raises(NotImplementedError, match="Matmul.set_quant_scalar is part of pyasc"):
        mm.set_quant_scalar(1.0)
    with pytest.raises(AttributeError, match="no attribute 'not_pyasc'"):
        mm.not_pyasc  # noqa: B018
