"""AIPP (AI Core pre-processing): set_aipp_functions configures it, load_image_to_local moves
a crop of an image from GM into L1 (A1 / B1) through it, on MTE2.

Facts relied on (Ascend C API reference SetAippFunctions and LoadImageToLocal; pyasc
asc.language.core.aipp_types / basic.common / basic.data_copy for the names and fields):
- set_aipp_functions(src0[, src1], input_format, AippParams(dtype, ...)) only sets the AIPP
  registers: it changes what the next load_image_to_local computes and moves no data.
- Input formats: RGB888_U8 (3 interleaved uint8 channels), XRGB8888_U8 (4; the chip drops the
  4th and keeps X, R, G unless is_swap_ax moves X behind: RGBX), YUV400_U8 (1 channel),
  YUV420SP_U8 (a Y plane in src0, interleaved UV at half resolution in src1).
- Swaps: is_swap_rb exchanges channels 0 and 2 (RGB888, XRGB8888), is_swap_uv channels 1 and 2
  (YUV420SP). Data type conversion (output dtype != uint8):
  out = (in - dtc_mean - dtc_min) * dtc_var per channel (int8: in - dtc_mean).
- Channel padding: mode 0 pads each pixel to 32 B (32 int8 / uint8 or 16 float16 channels),
  mode 1 to 4 channels, with c_padding_value.
- LoadImageToLocalParams(horiz_size, vert_size, horiz_start_pos, vert_start_pos,
  src_horiz_size, top/bot/left/right_pad_size, sid): a vert_size x horiz_size crop at
  (vert_start_pos, horiz_start_pos) of an image src_horiz_size pixels wide, surrounded by the
  pad sizes; the result lands in L1 pixel by pixel (row-major, C0 channels per pixel).
  is_single_line_copy reads one line only.
Assumptions: area padding mode 0 fills with padding_value_ch0..3 per channel; float results
are rounded once to float16, int8 results saturate. A load with no preceding
set_aipp_functions is a finding (the chip would read whatever the registers hold) and moves
nothing.
Limitations: colour space conversion (is_enable_csc) and area padding modes other than 0 raise
NotImplementedError.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from ...errors import DTypeError, OutOfBoundsError, PositionError
from .. import core as _core
from ..core import access, emit, finding
from ..dtypes import DataType
from ..memory.tensor import GlobalTensor, LocalTensor
from ..trace import register_op

_getframe = sys._getframe

register_op("load_image_to_local", "MTE2", "dma", replayable=False, module=__name__)


class AippInputFormat(IntEnum):
    """pyasc asc.AippInputFormat (the chip's format codes)."""

    YUV420SP_U8 = 0
    XRGB8888_U8 = 1
    RGB888_U8 = 4
    YUV400_U8 = 9


@dataclass
class AippPaddingParams:
    padding_mode: int = 0
    padding_value_ch0: float = 0
    padding_value_ch1: float = 0
    padding_value_ch2: float = 0
    padding_value_ch3: float = 0


@dataclass
class AippSwapParams:
    is_swap_rb: bool = False
    is_swap_uv: bool = False
    is_swap_ax: bool = False


@dataclass
class AippSingleLineParams:
    is_single_line_copy: bool = False


@dataclass
class AippDataTypeConvParams:
    dtc_mean_ch0: int = 0
    dtc_mean_ch1: int = 0
    dtc_mean_ch2: int = 0
    dtc_min_ch0: float = 0.0
    dtc_min_ch1: float = 0.0
    dtc_min_ch2: float = 0.0
    dtc_var_ch0: float = 1.0
    dtc_var_ch1: float = 1.0
    dtc_var_ch2: float = 1.0
    dtc_round_mode: int = 0


@dataclass
class AippChannelPaddingParams:
    c_padding_mode: int = 0
    c_padding_value: float = 0


@dataclass
class AippColorSpaceConvParams:
    is_enable_csc: bool = False
    csc_matrix: tuple = field(default=(), repr=False)  # not emulated

    def __init__(self, is_enable_csc: bool = False, **matrix: int) -> None:
        self.is_enable_csc = is_enable_csc
        self.csc_matrix = tuple(sorted(matrix.items()))


class AippParams:
    """The AIPP configuration: output dtype and the optional stages' parameters."""

    def __init__(self, dtype: Any, padding_params: AippPaddingParams | None = None,
                 swap_params: AippSwapParams | None = None,
                 single_line_params: AippSingleLineParams | None = None,
                 dtc_params: AippDataTypeConvParams | None = None,
                 c_padding_params: AippChannelPaddingParams | None = None,
                 csc_params: AippColorSpaceConvParams | None = None) -> None:
        self.dtype = DataType(dtype)
        if self.dtype.name not in ("int8", "uint8", "float16"):
            raise DTypeError(f"AippParams: dtype must be int8, uint8 or float16, got "
                             f"{self.dtype.name}")
        self.padding = padding_params or AippPaddingParams()
        self.swap = swap_params or AippSwapParams()
        self.single_line = single_line_params or AippSingleLineParams()
        self.dtc = dtc_params or AippDataTypeConvParams()
        self.c_padding = c_padding_params or AippChannelPaddingParams()
        self.csc = csc_params or AippColorSpaceConvParams()


@dataclass(frozen=True)
class LoadImageToLocalParams:
    """The crop and area padding of load_image_to_local (pixels)."""

    horiz_size: int = 2
    vert_size: int = 2
    horiz_start_pos: int = 0
    vert_start_pos: int = 0
    src_horiz_size: int = 2
    top_pad_size: int = 0
    bot_pad_size: int = 0
    left_pad_size: int = 0
    right_pad_size: int = 0
    sid: int = 0


def set_aipp_functions(*args: Any) -> None:
    """set_aipp_functions(src0[, src1], input_format, AippParams): configure AIPP."""
    c = _core.core()
    if len(args) == 3:
        src0, src1, fmt, cfg = args[0], None, args[1], args[2]
    elif len(args) == 4:
        src0, src1, fmt, cfg = args
    else:
        raise TypeError(f"set_aipp_functions: expected (src0, input_format, config) or (src0, "
                        f"src1, input_format, config), got {len(args)} arguments")
    fmt = AippInputFormat(int(fmt))
    for role, g in (("src0", src0), ("src1", src1)):
        if g is not None and (not isinstance(g, GlobalTensor) or g.alloc is None):
            raise TypeError(f"set_aipp_functions: {role} must be a GlobalTensor with a buffer")
    if fmt == AippInputFormat.YUV420SP_U8 and src1 is None:
        raise TypeError("set_aipp_functions: YUV420SP_U8 needs src1 (the UV plane)")
    if not isinstance(cfg, AippParams):
        raise TypeError(f"set_aipp_functions: config must be AippParams, got "
                        f"{type(cfg).__name__}")
    c.lib["aipp"] = (src0, src1, fmt, cfg)


def _gm_bytes(g: GlobalTensor, n: int, what: str, c: Any, frame: Any) -> np.ndarray:
    a = g.alloc
    if g.offset + n > a.nbytes:
        raise OutOfBoundsError(f"load_image_to_local: the image needs {n} B of {what} "
                               f"{a.name} from byte {g.offset}, which holds {a.nbytes} B "
                               f"{_core.where(c, frame)}")
    return a.buf[a.idx0 + g.offset:a.idx0 + g.offset + n]


def _pixels(cfg: AippParams, fmt: AippInputFormat, src0: GlobalTensor, src1: Any,
            p: LoadImageToLocalParams, rows: int, c: Any, frame: Any
            ) -> tuple[np.ndarray, tuple]:
    """(rows, horiz_size, channels) float64 crop after the swaps, and the GM reads."""
    W, r0, c0, w = p.src_horiz_size, p.vert_start_pos, p.horiz_start_pos, p.horiz_size
    ch = {AippInputFormat.RGB888_U8: 3, AippInputFormat.XRGB8888_U8: 4,
          AippInputFormat.YUV400_U8: 1, AippInputFormat.YUV420SP_U8: 1}[fmt]
    n = (r0 + rows) * W * ch
    img = _gm_bytes(src0, n, "src0", c, frame).reshape(r0 + rows, W, ch)
    reads = (access("GM", src0.alloc.base + src0.offset, n, src0.alloc.name),)
    crop = img[r0:r0 + rows, c0:c0 + w].astype(np.float64)
    if fmt == AippInputFormat.YUV420SP_U8:
        half = (r0 + rows + 1) // 2
        uv = _gm_bytes(src1, half * W, "src1", c, frame).reshape(half, W // 2, 2)
        reads += (access("GM", src1.alloc.base + src1.offset, half * W, src1.alloc.name),)
        rr = np.arange(r0, r0 + rows) // 2
        cc = np.arange(c0, c0 + w) // 2
        crop = np.concatenate([crop, uv[rr][:, cc].astype(np.float64)], axis=2)
        if cfg.swap.is_swap_uv:
            crop = crop[..., [0, 2, 1]]
    elif fmt == AippInputFormat.XRGB8888_U8:
        crop = crop[..., [1, 2, 3]] if cfg.swap.is_swap_ax else crop[..., :3]
    if cfg.swap.is_swap_rb and fmt in (AippInputFormat.RGB888_U8, AippInputFormat.XRGB8888_U8):
        crop = crop[..., [2, 1, 0]]
    return crop, reads


def _convert(x: np.ndarray, cfg: AippParams) -> np.ndarray:
    """Data type conversion of (.., channels) values into cfg.dtype."""
    d, k = cfg.dtc, x.shape[-1]
    mean = np.array([d.dtc_mean_ch0, d.dtc_mean_ch1, d.dtc_mean_ch2][:k], dtype=np.float64)
    if cfg.dtype.name == "uint8":
        return x.astype(np.uint8)
    if cfg.dtype.name == "int8":
        return np.clip(x - mean, -128, 127).astype(np.int8)
    mn = np.array([d.dtc_min_ch0, d.dtc_min_ch1, d.dtc_min_ch2][:k], dtype=np.float64)
    var = np.array([d.dtc_var_ch0, d.dtc_var_ch1, d.dtc_var_ch2][:k], dtype=np.float64)
    return ((x - mean - mn) * var).astype(np.float16)


def load_image_to_local(dst: Any, load_data_params: Any) -> None:
    """load_image_to_local(dst, LoadImageToLocalParams): the configured image crop into L1."""
    op, frame = "load_image_to_local", _getframe(1)
    c = _core.core()
    p = load_data_params
    if not isinstance(p, LoadImageToLocalParams):
        raise TypeError(f"{op}: load_data_params must be LoadImageToLocalParams, got "
                        f"{type(p).__name__}")
    if not isinstance(dst, LocalTensor) or dst.space != "L1":
        raise PositionError(f"{op}: dst must be a LocalTensor in A1 / B1 (L1), got "
                            f"{dst.describe() if isinstance(dst, LocalTensor) else dst!r} "
                            f"{_core.where(c, frame)}")
    state = c.lib.get("aipp")
    if state is None:
        finding(c, f"{op}: no set_aipp_functions before it on this core, so AIPP reads "
                f"whatever its registers hold; nothing was moved", frame, kind="aipp")
        return
    src0, src1, fmt, cfg = state
    if dst.dtype != cfg.dtype:
        raise DTypeError(f"{op}: dst {dst.describe()} is {dst.dtype.name} but AippParams "
                         f"outputs {cfg.dtype.name} {_core.where(c, frame)}")
    if cfg.csc.is_enable_csc:
        raise NotImplementedError(f"{op}: colour space conversion (is_enable_csc) is not "
                                  f"emulated")
    if int(cfg.padding.padding_mode) != 0:
        raise NotImplementedError(f"{op}: area padding mode {cfg.padding.padding_mode} is not "
                                  f"emulated (mode 0 is)")
    rows = 1 if cfg.single_line.is_single_line_copy else p.vert_size
    crop, reads = _pixels(cfg, fmt, src0, src1, p, rows, c, frame)
    pad = [cfg.padding.padding_value_ch0, cfg.padding.padding_value_ch1,
           cfg.padding.padding_value_ch2, cfg.padding.padding_value_ch3][:crop.shape[2]]
    H = p.top_pad_size + rows + p.bot_pad_size
    W = p.left_pad_size + p.horiz_size + p.right_pad_size
    C0 = 4 if int(cfg.c_padding.c_padding_mode) == 1 else 32 // cfg.dtype.itemsize
    out = np.full((H, W, C0), cfg.c_padding.c_padding_value, dtype=np.float64).astype(
        cfg.dtype.np)
    out[:, :, :crop.shape[2]] = np.asarray(pad, dtype=np.float64).astype(cfg.dtype.np)
    out[p.top_pad_size:p.top_pad_size + rows,
        p.left_pad_size:p.left_pad_size + p.horiz_size, :crop.shape[2]] = _convert(crop, cfg)
    n = out.size
    if dst.addr + n * dst.dtype.itemsize > dst.hi:
        finding(c, f"{op}: writes {n} elements into {dst.describe()}, whose buffer holds "
                f"{(dst.hi - dst.addr) // dst.dtype.itemsize}", frame)
    if dst.addr + n * dst.dtype.itemsize > c.chip.capacity("L1"):
        raise OutOfBoundsError(f"{op}: {n} elements from {dst.describe()} leave L1 "
                               f"{_core.where(c, frame)}")
    dst.arr[dst.e0:dst.e0 + n] = out.ravel()
    writes = (access("L1", dst.addr, n * dst.dtype.itemsize, dst.name),)
    emit(c, "MTE2", op, reads, writes, n, dst.dtype.name, 1, frame, None,
         (("format", fmt.name), ("crop", (rows, p.horiz_size)), ("c0", C0)))


__all__ = ["AippChannelPaddingParams", "AippColorSpaceConvParams", "AippDataTypeConvParams",
           "AippInputFormat", "AippPaddingParams", "AippParams", "AippSingleLineParams",
           "AippSwapParams", "LoadImageToLocalParams", "load_image_to_local",
           "set_aipp_functions"]
