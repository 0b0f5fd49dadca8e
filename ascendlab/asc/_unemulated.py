"""pyasc names the emulator knows of but does not implement yet.

Using one raises NotImplementedError naming it and pointing at docs/emulated-api.md, so a
script fails loudly at the first unemulated call instead of silently computing something else.
"""

from __future__ import annotations

from typing import Any, NoReturn

DOCS = "docs/emulated-api.md"

# From pyasc's asc.language.{basic,core,fwk,adv} __all__ lists (hicann/pyasc), minus what
# ascendlab.asc implements.
UNEMULATED: frozenset[str] = frozenset("""
data_sync_barrier get_hccl_context get_sys_workspace set_aipp_functions set_atomic_add
set_atomic_max set_atomic_min set_atomic_none set_atomic_type set_hccl_context set_hf32_mode
set_hf32_trans_mode set_mm_layout_transform data_cache_clean_and_invalid
get_icache_preload_status icache_preload transpose trans_data_to_5hd copy
print_time_stamp dump_acc_chk_point scalar_cast scalar_get_sff_value get_arch_version
get_program_counter get_system_cycle trap add_deq_relu bilinear_interpolation mul_cast
add_relu_cast sub_relu_cast gather_mask get_gather_mask_remain_count gather gatherb
proposal_concat proposal_extract scatter cast_deq set_deq_scale load_data_with_transpose
get_cmp_mask set_cmp_mask sort sort32 mrg_sort mrg_sort4 rp_sort16
ib_set ib_wait set_pad_value load_image_to_local
set_fix_pipe_pre_quant_flag AippChannelPaddingParams AippColorSpaceConvParams
AippDataTypeConvParams AippPaddingParams AippParams AippSingleLineParams AippSwapParams
AippInputFormat BlockMode CacheLine DcciDst DeqScale
GatherMaskMode MemDsbT pad_t TransposeType
number inline MrgSortSrcList DataCopyEnhancedParams GatherMaskParams
GatherRepeatParams InitConstValueParams LoadImageToLocalParams MrgSort4Info SliceInfo
TransDataTo5HDParams TransposeParamsExt Nz2NdParamsFull DataCopyCO12DstParams
LoadData2DParamsV2 LoadData2dTransposeParams LoadData2dTransposeParamsV2 LoadData3DParamsV1
LoadData3DParamsV2 LoadData3DParamsV2Pro LoadDataRepeatParam static_assert
CompileOptions CodegenOptions LaunchOptions
AtomicDtype AtomicOp CO2Layout CheckLocalMemoryIAParam
VdeqInfo check_local_memory_ia count_bits_cnt_same_as_sign_bit data_cache_preload
get_mrg_sort_result get_sort_len get_sort_offset get_store_atomic_config
init_const_value init_soc_state load_data_with_sparse metrics_prof_start metrics_prof_stop
mmad_with_sparse notify_next_block scalar_count_leading_zero scalar_get_count_of_value
set_load_data_boundary set_load_data_padding_value set_load_data_repeat set_store_atomic_config
wait_pre_block
""".split())


class _Unemulated:
    """Stands in for a pyasc name ascendlab does not emulate: any use raises."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def _raise(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(f"{self._name} is part of pyasc but ascendlab does not emulate "
                                  f"it yet; {DOCS} lists what is emulated")

    __call__ = _raise

    def __getattr__(self, attr: str) -> NoReturn:
        raise NotImplementedError(f"{self._name}.{attr} is part of pyasc but ascendlab does not "
                                  f"emulate it yet; {DOCS} lists what is emulated")

    def __repr__(self) -> str:
        return f"<pyasc {self._name}: not emulated by ascendlab>"


def unemulated(name: str) -> _Unemulated:
    return _Unemulated(name)
