"""pyasc's kernel API on the ascendlab emulator: `import ascendlab.asc as asc`.

The names and signatures are pyasc's (../shared/reference/pyasc-api-surface.md). A pyasc name
that the emulator does not implement yet resolves to a stub that raises NotImplementedError
naming it when used; docs/emulated-api.md lists what is emulated.
"""

from __future__ import annotations

import builtins as _builtins
import sys as _sys
from typing import Any as _Any

from ..adv.matmul import set_sys_workspace
from ..runtime.cube.fixpipe import fixpipe
from ..runtime.cube.mmad import load_data, mmad
from ..runtime.dma import copy as _dma
from ..runtime.dtypes import (
    DataType,
    double,
    float16,
    float32,
    float64,
    float_,
    half,
    int8,
    int16,
    int32,
    int64,
    int_,
    uint8,
    uint16,
    uint32,
    uint64,
    void,
)
from ..runtime.enums import (
    CMPMODE,
    CubeFormat,
    FixpipeConfig,
    HardEvent,
    IterateOrder,
    MaskMode,
    PipeID,
    QuantModes,
    ReduceOrder,
    RoundMode,
    SelMode,
    TPosition,
)
from ..runtime.framework.queue import TBuf, TQue, TQueBind
from ..runtime.framework.tpipe import TPipe, get_tpipe_ptr
from ..runtime.framework.tpipe import local_tensor_auto as LocalTensorAuto
from ..runtime.launch.jit import ConstExpr, jit
from ..runtime.memory.gm import GlobalAddress
from ..runtime.memory.shapeinfo import ShapeInfo, array
from ..runtime.memory.tensor import GlobalTensor, LocalTensor
from ..runtime.params import (
    BinaryRepeatParams,
    CopyRepeatParams,
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    FixpipeParamsV220,
    LoadData2DParams,
    LoadData3DParamsV1,
    LoadData3DParamsV2,
    LoadData3DParamsV2Pro,
    MmadParams,
    Nd2NzParams,
    UnaryRepeatParams,
)
from ..runtime.properties import (
    DEFAULT_C0_SIZE,
    ONE_BLK_SIZE,
    TOTAL_L0C_SIZE,
    TOTAL_L1_SIZE,
    Property,
    property,
)
from ..runtime.scalar.debug import dump_tensor, printf
from ..runtime.structs import Field, Struct, StructField
from ..runtime.sync.flags import (
    ascend_is_aic,
    ascend_is_aiv,
    get_block_idx,
    get_block_num,
    get_data_block_size_in_bytes,
    get_sub_block_idx,
    get_sub_block_num,
    get_task_ratio,
    pipe_barrier,
    reset_mask,
    set_flag,
    set_mask_count,
    set_mask_norm,
    set_vector_mask,
    sync_all,
    wait_flag,
)
from ..runtime.vector import elementwise as _vec
from ..runtime.vector.cast import cast
from ..runtime.vector.cmpsel import compare, select
from ..runtime.vector.reduce import (
    reduce_max,
    reduce_min,
    reduce_sum,
    whole_reduce_max,
    whole_reduce_min,
    whole_reduce_sum,
)
from ..runtime.vector.rows import (
    BrcbRepeatParams,
    block_reduce_max,
    block_reduce_min,
    block_reduce_sum,
    brcb,
    pair_reduce_sum,
    repeat_reduce_sum,
)

# py-common: atomics, scalar-unit arithmetic and registers, cache/profiling hints
# isort: off
from ..runtime.sync.block import ib_set, ib_wait, notify_next_block, wait_pre_block
from ..runtime.dma.atomic import (
    AtomicDtype,
    AtomicOp,
    get_store_atomic_config,
    set_atomic_add,
    set_atomic_max,
    set_atomic_min,
    set_atomic_none,
    set_atomic_type,
    set_store_atomic_config,
)
from ..runtime.scalar.hints import (
    CacheLine,
    DcciDst,
    MemDsbT,
    data_cache_clean_and_invalid,
    data_cache_preload,
    data_sync_barrier,
    dump_acc_chk_point,
    get_icache_preload_status,
    icache_preload,
    metrics_prof_start,
    metrics_prof_stop,
    print_time_stamp,
)
from ..runtime.scalar.registers import (
    FmatrixMode,
    LoadDataRepeatParam,
    get_cmp_mask,
    set_cmp_mask,
    set_fix_pipe_pre_quant_flag,
    set_fmatrix,
    set_load_data_boundary,
    set_load_data_padding_value,
    set_load_data_repeat,
    set_pad_value,
)
from ..runtime.scalar.ops import (
    count_bits_cnt_same_as_sign_bit,
    scalar_cast,
    scalar_count_leading_zero,
    scalar_get_count_of_value,
    scalar_get_sff_value,
)
from ..runtime.scalar.sysvar import (
    CheckLocalMemoryIAParam,
    VdeqInfo,
    check_local_memory_ia,
    get_arch_version,
    get_hccl_context,
    get_program_counter,
    get_sys_workspace,
    get_system_cycle,
    init_soc_state,
    set_deq_scale,
    set_hccl_context,
    set_hf32_mode,
    set_hf32_trans_mode,
    set_mm_layout_transform,
    trap,
)
# isort: on
# isort: split
# py-core: TBufPool, LocalMemAllocator, TensorDesc / ListTensorDesc, compare_scalar, enums
from ..runtime.enums import CacheMode, CacheRwMode, DataFormat, Hardware
from ..runtime.framework.local_mem import LocalMemAllocator
from ..runtime.framework.tbufpool import TBufPool
from ..runtime.memory.list_tensor import ListTensorDesc, TensorDesc
from ..runtime.memory.shapeinfo import get_shape_size
from ..runtime.vector.cmpscalar import compare_scalar

# isort: split
# py-move: data movement, gather and sort (vector_copy, vector_transpose, vector_gather,
# vector_sort, vector_proposal, aipp)
# py-adv: cross-core flags of hand-written MIX kernels; the Matmul config enums
from ..adv.host_platform import ScheduleType
from ..adv.matmul_enums import (
    BatchMode,
    BatchOutMode,
    IterateMode,
    LayoutMode,
    MatmulConfigMode,
)
from ..runtime.dma.aipp import (
    AippChannelPaddingParams,
    AippColorSpaceConvParams,
    AippDataTypeConvParams,
    AippInputFormat,
    AippPaddingParams,
    AippParams,
    AippSingleLineParams,
    AippSwapParams,
    LoadImageToLocalParams,
    load_image_to_local,
    set_aipp_functions,
)
from ..runtime.sync.cross_core import cross_core_set_flag, cross_core_wait_flag
from ..runtime.vector.copy import copy
from ..runtime.vector.gather import (
    GatherMaskMode,
    GatherMaskParams,
    GatherRepeatParams,
    bilinear_interpolation,
    gather,
    gather_mask,
    gatherb,
    get_gather_mask_remain_count,
    scatter,
)
from ..runtime.vector.proposal import mrg_sort4, proposal_concat, proposal_extract, rp_sort16
from ..runtime.vector.sort import (
    MrgSort4Info,
    MrgSortSrcList,
    get_mrg_sort_result,
    get_sort_len,
    get_sort_offset,
    mrg_sort,
    sort,
    sort32,
)
from ..runtime.vector.transpose import (
    TransDataTo5HDParams,
    TransposeParamsExt,
    TransposeType,
    trans_data_to_5hd,
    transpose,
)

# py-rest: fused cast instructions (vector_fused_cast, vector_cast_deq), data-copy / cube
# parameter structs and init_const_value (params_more), structured-sparse matmul (cube_sparse)
# isort: off
from ..runtime.cube.sparse import load_data_with_sparse, mmad_with_sparse
from ..runtime.dma.params_more import (
    BlockMode,
    DataCopyCO12DstParams,
    DataCopyEnhancedParams,
    DeqScale,
    InitConstValueParams,
    Nz2NdParamsFull,
    SliceInfo,
    init_const_value,
    pad_t,
)
from ..runtime.vector.cast_deq import cast_deq
from ..runtime.vector.fused_cast import add_deq_relu, add_relu_cast, mul_cast, sub_relu_cast
# isort: on
from . import adv, lib, runtime  # noqa: F401 - asc.adv, asc.lib.runtime, asc.runtime.config
from ._unemulated import UNEMULATED as _UNEMULATED
from ._unemulated import unemulated as _unemulated

_getframe = _sys._getframe

data_copy = _dma.data_copy
data_copy_pad = _dma.data_copy_pad


# what each binary instruction computes per element (fused forms round once, like an FMA)
_BINARY_FORMULA = {
    "add": "src0 + src1", "sub": "src0 - src1", "mul": "src0 * src1", "div": "src0 / src1",
    "max": "max(src0, src1)", "min": "min(src0, src1)", "bitwise_and": "src0 & src1",
    "bitwise_or": "src0 | src1", "add_relu": "max(src0 + src1, 0)",
    "sub_relu": "max(src0 - src1, 0)", "fused_mul_add": "src0 * dst + src1",
    "fused_mul_add_relu": "max(src0 * dst + src1, 0)", "mul_add_dst": "src0 * src1 + dst",
}


def _binary(name: str) -> _Any:
    def op(dst: _Any, src0: _Any, src1: _Any, *args: _Any, **kwargs: _Any) -> None:
        _vec.binary(name, dst, src0, src1, args, kwargs, _getframe(1))

    op.__name__ = op.__qualname__ = name
    formula = _BINARY_FORMULA.get(name)
    op.__doc__ = ((f"Vector {name}, dst = {formula}: " if formula else f"Vector {name}: ")
                  + f"{name}(dst, src0, src1, count) or "
                  f"{name}(dst, src0, src1, mask, repeat_times, BinaryRepeatParams"
                  "[, is_set_mask]).")
    return op


def _unary(name: str) -> _Any:
    def op(dst: _Any, src: _Any, *args: _Any, **kwargs: _Any) -> None:
        _vec.unary(name, dst, src, args, kwargs, _getframe(1))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Vector {name}: {name}(dst, src, count) or "
                  f"{name}(dst, src, mask, repeat_times, UnaryRepeatParams[, is_set_mask]).")
    return op


def _scalar(name: str) -> _Any:
    def op(dst: _Any, src: _Any, scalar: _Any, *args: _Any, **kwargs: _Any) -> None:
        _vec.scalar_op(name, dst, src, scalar, args, kwargs, _getframe(1))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Vector {name}: {name}(dst, src, scalar, count) or "
                  f"{name}(dst, src, scalar, mask, repeat_times, UnaryRepeatParams"
                  "[, is_set_mask]); the scalar is cast to src's dtype.")
    return op


for _name in _vec.BINARY:
    globals()[_name] = _binary(_name)
for _name in _vec.UNARY:
    globals()[_name] = _unary(_name)
for _name in _vec.SCALAR:
    globals()[_name] = _scalar(_name)
del _name


def axpy(dst: _Any, src: _Any, scalar: _Any, *args: _Any, **kwargs: _Any) -> None:
    """dst = src * scalar + dst: axpy(dst, src, scalar, count) or the mask form."""
    _vec.axpy(dst, src, scalar, args, kwargs, _getframe(1))


def duplicate(dst: _Any, scalar: _Any, *args: _Any, **kwargs: _Any) -> None:
    """Fill dst with scalar: duplicate(dst, scalar, count) or duplicate(dst, scalar, mask,
    repeat_times, dst_block_stride, dst_repeat_stride)."""
    _vec.duplicate(dst, scalar, args, kwargs, _getframe(1))


def range(*args: _Any) -> _Any:  # noqa: A001 - pyasc's name
    """A runtime loop (pyasc asc.range): range(stop) / range(start, stop[, step])."""
    return _builtins.range(*args)


static_range = range  # unrolled at compile time in pyasc; the same loop when emulated


def ceildiv(a: int, b: int) -> int:
    """Ceiling division (works on the host and in kernels)."""
    return -(-a // b)


__all__ = sorted(n for n in globals() if not n.startswith("_")
                 and n not in ("annotations", "adv", "lib", "runtime"))


def __getattr__(name: str) -> _Any:
    if name in _UNEMULATED:
        return _unemulated(f"asc.{name}")
    raise AttributeError(f"module 'asc' has no attribute {name!r} (not a pyasc name either)")
