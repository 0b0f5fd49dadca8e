"""pyasc's instruction parameter structs, field names and defaults as pyasc declares them.

They are immutable NamedTuples: cheap to build inside a kernel loop, hashable (so the vector
unit can cache index plans per parameter set) and printable. Ranges are checked where an
instruction uses them, so the error names the instruction.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class BinaryRepeatParams(NamedTuple):
    """Strides of a two-source repeat-form vector instruction, in 32 B blocks (uint8 each)."""

    dst_blk_stride: int = 1
    src0_blk_stride: int = 1
    src1_blk_stride: int = 1
    dst_rep_stride: int = 8
    src0_rep_stride: int = 8
    src1_rep_stride: int = 8


class UnaryRepeatParams(NamedTuple):
    """Strides of a one-source repeat-form vector instruction, in 32 B blocks."""

    dst_blk_stride: int = 1
    src_blk_stride: int = 1
    dst_rep_stride: int = 8
    src_rep_stride: int = 8


class CopyRepeatParams(NamedTuple):
    """Strides of the vector copy; pyasc's defaults are 0 (unlike C++'s)."""

    dst_stride: int = 0
    src_stride: int = 0
    dst_repeat_size: int = 0
    src_repeat_size: int = 0


class DataCopyParams(NamedTuple):
    """Strided DMA: block_count blocks of block_len x 32 B; strides are gaps in 32 B blocks."""

    block_count: int = 1
    block_len: int = 0
    src_stride: int = 0
    dst_stride: int = 0


class DataCopyExtParams(NamedTuple):
    """data_copy_pad's DMA: block_len in bytes; GM-side stride in bytes, UB-side in 32 B blocks."""

    block_count: int = 1
    block_len: int = 0
    src_stride: int = 0
    dst_stride: int = 0
    rsv: int = 0


class DataCopyPadExtParams(NamedTuple):
    """Padding of data_copy_pad GM->UB: paddings in elements (<= 32 B each side)."""

    dtype: Any = None
    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: Any = 0


class DataCopyPadParams(NamedTuple):
    """Legacy padding struct; padding_value must be 0."""

    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: int = 0


class Nd2NzParams(NamedTuple):
    """GM (ND, row-major) -> L1 (NZ fractals) conversion during data_copy; all fields required."""

    nd_num: int
    n_value: int
    d_value: int
    src_nd_matrix_stride: int
    src_d_value: int
    dst_nz_c0_stride: int
    dst_nz_n_stride: int
    dst_nz_matrix_stride: int


class LoadData2DParams(NamedTuple):
    """L1 -> L0A/L0B (or GM -> L0) fractal load; units are 512 B fractals."""

    start_index: int = 0
    repeat_times: int = 1
    src_stride: int = 0
    sid: int = 0
    dst_gap: int = 0
    if_transpose: bool = False
    addr_mode: int = 0


class LoadData3DParamsV1(NamedTuple):
    """load_3d v1 (img2col, one 16 x c0 fractal per repeat); pad_list is (left, right, top,
    bottom). Semantics and ranges: runtime/cube/img2col.py."""

    pad_list: Any = (0, 0, 0, 0)
    l1_h: int = 1
    l1_w: int = 1
    c1_index: int = 0
    fetch_filter_w: int = 0
    fetch_filter_h: int = 0
    left_top_w: int = 0
    left_top_h: int = 0
    stride_w: int = 1
    stride_h: int = 1
    filter_w: int = 1
    filter_h: int = 1
    dilation_filter_w: int = 1
    dilation_filter_h: int = 1
    jump_stride: int = 1
    repeat_mode: int = 0
    repeat_time: int = 1
    c_size: int = 0
    pad_value: Any = 0


class LoadData3DParamsV2(NamedTuple):
    """load_3d v2 (img2col of an m_extension x k_extension window of the im2col matrix);
    pad_list is (left, right, top, bottom). Semantics and ranges: runtime/cube/img2col.py."""

    pad_list: Any = (0, 0, 0, 0)
    l1_h: int = 1
    l1_w: int = 1
    channel_size: int = 1
    k_extension: int = 1
    m_extension: int = 1
    k_start_pt: int = 0
    m_start_pt: int = 0
    stride_w: int = 1
    stride_h: int = 1
    filter_w: int = 1
    filter_h: int = 1
    dilation_filter_w: int = 1
    dilation_filter_h: int = 1
    en_transpose: bool = False
    pad_value: Any = 0
    filter_size_w: bool = False
    filter_size_h: bool = False
    f_matrix_ctrl: bool = False


class LoadData3DParamsV2Pro(NamedTuple):
    """load_3d v2 with its geometry packed in two uint64 words and the feature map taken from
    the FMATRIX register (set_fmatrix, or the last v1/v2 load). Bit layout: cube/img2col.py."""

    channel_size: int = 0
    en_transpose: bool = False
    en_small_k: bool = False
    filter_size_w: bool = False
    filter_size_h: bool = False
    f_matrix_ctrl: bool = False
    ext_config: int = 0
    filter_config: int = 0x10101010101


class MmadParams(NamedTuple):
    """mmad shape and accumulation control; m, n, k in [0, 4095].

    cmatrix_init_val=True starts C from 0 (Ascend C's default); False accumulates into C.
    en_ssparse / en_winograd_a / en_winograd_b are pyasc's flags of the other MmadParams form
    (structured sparsity, Winograd); mmad rejects them set (not emulated).
    """

    m: int
    n: int
    k: int
    unit_flag: int = 0
    fm_offset: int = 0
    filter_offset: int = 0
    is_bias: bool = False
    cmatrix_source: bool = False
    cmatrix_init_val: bool = True
    k_direction_align: bool = False
    en_ssparse: bool = False
    en_winograd_a: bool = False
    en_winograd_b: bool = False


class FixpipeParamsV220(NamedTuple):
    """L0C -> GM move of a matmul result (910B FixPipe)."""

    n_size: int = 0
    m_size: int = 0
    src_stride: int = 0
    dst_stride: int = 0
    quant_pre: Any = 0
    deq_scalar: Any = 0
    nd_num: int = 1
    src_nd_stride: int = 0
    dst_nd_stride: int = 0
    relu_en: bool = False
    unit_flag: int = 0
    is_channel_split: bool = False
