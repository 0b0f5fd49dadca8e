"""asc.adv's Matmul configuration builders: get_normal_config ... get_mm_config and the
parameter records get_mm_config takes (the enums they use are in matmul_enums.py).

Facts (sources: pyasc python/asc/language/adv/matmul.py and types.py, python/asc/language/core/
enums.py for the values; Ascend C's matmul_config.h GetNormalConfig / GetMDLConfig /
GetSpecialMDLConfig / GetIBShareNormConfig / GetBasicConfig / GetSpecialBasicConfig /
GetMMConfig for which schedule flag each builder sets): every builder returns a MatmulConfig
whose keywords are MatmulConfig's field names; NORM sets do_norm, MDL do_multi_data_load,
SPECIALMDL do_special_mdl, IBSHARE do_ib_share_norm, the basic builders do_basic_block /
do_special_basic_block.

Limitations: the emulated Matmul keeps its MatmulConfig but runs the normal schedule whatever it
says (docs/adv.md): a config changes neither the results nor the modelled cycles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ParamError
from ..runtime.enums import IterateOrder
from .host_platform import ScheduleType
from .matmul import MatmulConfig
from .matmul_enums import BatchMode, MatmulConfigMode


@dataclass
class MatmulShapeParams:
    """Shape fields for get_mm_config."""

    single_core_m: int = 0
    single_core_n: int = 0
    single_core_k: int = 0
    basic_m: int = 0
    basic_n: int = 0
    basic_k: int = 0


@dataclass
class MatmulQuantParams:
    """Quantisation fields for get_mm_config."""

    is_per_tensor: bool = False
    has_anti_quant_offset: bool = False


@dataclass
class MatmulBatchParams:
    """Batch fields for get_mm_config (pyasc's first argument is is_b_batch -> is_n_batch)."""

    is_n_batch: bool = False
    batch_mode: int = BatchMode.BATCH_LESS_THAN_L1
    is_bias_batch: bool = False


@dataclass
class MatmulFuncParams:
    """Function switches for get_mm_config."""

    intrinsics_limit: bool = False
    en_vec_nd2_nz: bool = False
    enable_double_cache: bool = False
    enable_l1_cache: bool = False
    do_mte2_pre_load: int = 0
    iterate_order: int = IterateOrder.ORDER_M
    schedule_type: int = ScheduleType.INNER_PRODUCT
    enable_reuse: bool = True
    enable_ub_reuse: bool = False
    is_partial_output: bool = False
    is_a2_b2_shared: bool = False
    is_enable_channel_split: bool = False
    enable_kdim_reorder_load: bool = False


def get_normal_config(intrinsics_limit: bool = False, batch_loop: bool = False,
                      is_vec_nd2_nz: bool = False, bmm_mode: int = BatchMode.BATCH_LESS_THAN_L1,
                      is_msg_reuse: bool = True, iterate_order: int = IterateOrder.ORDER_M,
                      schedule_type: int = ScheduleType.INNER_PRODUCT,
                      en_unit_flag: bool = True) -> MatmulConfig:
    """The NORM schedule's MatmulConfig."""
    return MatmulConfig(do_norm=True, intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                        en_vec_nd2nz=is_vec_nd2_nz, batch_mode=bmm_mode,
                        enable_reuse=is_msg_reuse, iterate_order=iterate_order,
                        schedule_type=schedule_type, en_unit_flag=en_unit_flag)


def get_mdl_config(intrinsics_limit: bool = False, batch_loop: bool = False,
                   do_mte2_preload: int = 0, is_vec_nd2_nz: bool = False,
                   is_per_tensor: bool = False, has_anti_quant_offset: bool = False,
                   en_unit_flag: bool = False, is_msg_reuse: bool = True,
                   enable_ub_reuse: bool = True, enable_l1_cache_ub: bool = False,
                   enable_mix_dual_master: bool = False,
                   enable_kdim_reorder_load: bool = False) -> MatmulConfig:
    """The MDL (multi data load) schedule's MatmulConfig."""
    return MatmulConfig(do_norm=False, do_multi_data_load=True,
                        intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                        do_mte2_preload=do_mte2_preload, en_vec_nd2nz=is_vec_nd2_nz,
                        is_per_tensor=is_per_tensor, has_anti_quant_offset=has_anti_quant_offset,
                        en_unit_flag=en_unit_flag, enable_reuse=is_msg_reuse,
                        enable_ub_reuse=enable_ub_reuse, enable_l1_cache_ub=enable_l1_cache_ub,
                        enable_mix_dual_master=enable_mix_dual_master,
                        enable_kdim_reorder_load=enable_kdim_reorder_load)


def get_special_mdl_config(intrinsics_limit: bool = False, batch_loop: bool = False,
                           do_mte2_pre_load: int = 0, is_vec_nd2_nz: bool = False,
                           is_per_tensor: bool = False,
                           has_anti_quant_offset: bool = False) -> MatmulConfig:
    """The special MDL schedule's MatmulConfig."""
    return MatmulConfig(do_norm=False, do_special_mdl=True, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, do_mte2_preload=do_mte2_pre_load,
                        en_vec_nd2nz=is_vec_nd2_nz, is_per_tensor=is_per_tensor,
                        has_anti_quant_offset=has_anti_quant_offset)


def get_ib_share_norm_config(intrinsics_limit: bool = False, batch_loop: bool = False,
                             is_vec_nd2_nz: bool = False,
                             bmm_mode: int = BatchMode.BATCH_LESS_THAN_L1,
                             is_double_cache: bool = False,
                             en_unit_flag: bool = True) -> MatmulConfig:
    """The IBShare (shared L1 between cores) NORM schedule's MatmulConfig."""
    return MatmulConfig(do_norm=False, do_ib_share_norm=True, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, en_vec_nd2nz=is_vec_nd2_nz, batch_mode=bmm_mode,
                        enable_double_cache=is_double_cache, en_unit_flag=en_unit_flag)


def get_basic_config(basic_m: int, basic_n: int, basic_k: int, intrinsics_limit: bool = False,
                     batch_loop: bool = False,
                     bmm_mode: int = BatchMode.BATCH_LESS_THAN_L1) -> MatmulConfig:
    """The basic-block schedule's MatmulConfig (fixed base block basic_m x basic_n x basic_k)."""
    return MatmulConfig(do_norm=False, do_basic_block=True, basic_m=basic_m, basic_n=basic_n,
                        basic_k=basic_k, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, batch_mode=bmm_mode)


def get_special_basic_config(basic_m: int, basic_n: int, basic_k: int, single_core_m: int,
                             single_core_n: int, single_core_k: int, step_m: int, step_n: int,
                             intrinsics_limit: bool = False, batch_loop: bool = False,
                             bmm_mode: int = BatchMode.BATCH_LESS_THAN_L1) -> MatmulConfig:
    """The special basic-block schedule's MatmulConfig (shapes fixed at compile time)."""
    return MatmulConfig(do_norm=False, do_special_basic_block=True, basic_m=basic_m,
                        basic_n=basic_n, basic_k=basic_k, single_core_m=single_core_m,
                        single_core_n=single_core_n, single_core_k=single_core_k,
                        step_m=step_m, step_n=step_n, intrinsics_check=intrinsics_limit,
                        is_n_batch=batch_loop, batch_mode=bmm_mode)


_MODE_FLAG = {MatmulConfigMode.CONFIG_NORM: "do_norm",
              MatmulConfigMode.CONFIG_MDL: "do_multi_data_load",
              MatmulConfigMode.CONFIG_SPECIALMDL: "do_special_mdl",
              MatmulConfigMode.CONFIG_IBSHARE: "do_ib_share_norm"}


def get_mm_config(*args: Any, **kwargs: Any) -> MatmulConfig:
    """A MatmulConfig from a MatmulConfigMode (default NORM) and any of MatmulShapeParams,
    MatmulQuantParams, MatmulBatchParams, MatmulFuncParams, in any order."""
    opts: dict[str, Any] = {"do_norm": False, "iterate_order": IterateOrder.ORDER_M,
                            "schedule_type": ScheduleType.INNER_PRODUCT}
    mode = MatmulConfigMode.CONFIG_NORM
    for arg in (*args, *kwargs.values()):
        if isinstance(arg, MatmulConfigMode):
            mode = arg
        elif isinstance(arg, MatmulShapeParams):
            opts.update(vars(arg))
        elif isinstance(arg, MatmulQuantParams):
            opts.update(vars(arg))
        elif isinstance(arg, MatmulBatchParams):
            opts.update(vars(arg))
        elif isinstance(arg, MatmulFuncParams):
            f = arg
            opts.update(intrinsics_check=f.intrinsics_limit, en_vec_nd2nz=f.en_vec_nd2_nz,
                        enable_double_cache=f.enable_double_cache,
                        enable_l1_cache_ub=f.enable_l1_cache, do_mte2_preload=f.do_mte2_pre_load,
                        iterate_order=f.iterate_order, schedule_type=f.schedule_type,
                        enable_reuse=f.enable_reuse, enable_ub_reuse=f.enable_ub_reuse,
                        is_partial_output=f.is_partial_output, is_a2b2_shared=f.is_a2_b2_shared,
                        is_enable_channel_split=f.is_enable_channel_split,
                        enable_kdim_reorder_load=f.enable_kdim_reorder_load)
        else:
            raise TypeError(f"get_mm_config: {arg!r} is not a MatmulConfigMode or a Matmul*Params")
    for name, allowed in (("batch_mode", (1, 2, 3)), ("iterate_order", (0, 1, 2)),
                          ("schedule_type", (0, 1)), ("do_mte2_preload", (0, 1, 2))):
        if name in opts and int(opts[name]) not in allowed:
            raise ParamError(f"get_mm_config: {name}={int(opts[name])} is not one of {allowed}")
    opts[_MODE_FLAG[mode]] = True
    return MatmulConfig(**opts)


__all__ = ["MatmulBatchParams", "MatmulFuncParams", "MatmulQuantParams", "MatmulShapeParams",
           "get_basic_config", "get_ib_share_norm_config", "get_mdl_config", "get_mm_config",
           "get_normal_config", "get_special_basic_config", "get_special_mdl_config"]
