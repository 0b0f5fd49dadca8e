"""load_3d (img2col): load_data(dst, src, LoadData3DParamsV1 / V2 / V2Pro), L1 -> L0A on MTE1.

The feature map sits in L1 (A1) in the 5HD layout NC1HWC0 of one image: C1 blocks of
(l1_h, l1_w, c0) with c0 = 32 B / sizeof(T) (16 fp16, 32 int8, 8 fp32), so channel c of pixel
(h, w) is element ((c // c0 * l1_h + h) * l1_w + w) * c0 + c % c0. load_3d reads it as the
im2col matrix of a convolution (Ascend C Load3D: "image to column ... 将多维feature map转为
二维矩阵"; CCE img2colv2_cbuf_to_ca: the matrix is (Ho*Wo) rows by (Hk*Wk*Ci) columns):

    Wo = (l1_w + pad_left + pad_right - dilation_w * (filter_w - 1) - 1) // stride_w + 1
    Ho = (l1_h + pad_top + pad_bottom - dilation_h * (filter_h - 1) - 1) // stride_h + 1
    row m (< M = Ho * Wo) is output pixel (ho, wo) = divmod(m, Wo)
    column k (< K = channel_size * filter_h * filter_w) is (c1, kh, kw, c0) with c0 fastest:
        k = ((c1 * filter_h + kh) * filter_w + kw) * c0 + c0_index
    im2col[m, k] = fmap[c1 * c0 + c0_index, h, w] with
        h = ho * stride_h - pad_top + kh * dilation_h
        w = wo * stride_w - pad_left + kw * dilation_w
    and the padding value where (h, w) falls outside the map.

The column order is the weights' FRACTAL_Z order (C1 * Hk * Wk, N1, N0, C0): the filter loaded
into L0B from FRACTAL_Z lines up with these columns, which is what lets mmad compute the
convolution. ASSUMPTION: no public page the project holds spells the column order out; this one
is the one FRACTAL_Z requires.

The way in (tests/runtime/test_img2col_route.py): an NHWC map in GM is already the ND matrix
(H*W rows, C columns), and data_copy(a1, gm, Nd2NzParams(1, H*W, C, 0, C, H*W, 1, 0)) turns it
into NZ, which for that matrix is NC1HWC0 with the channels zero-padded to c0 (MTE2, on the
cube core). An NCHW map goes through UB on a vector core: trans_data_to_5hd turns 16 channel
planes into 16-channel pixel rows per repeat, the result returns to GM, then a plain data_copy
brings it into A1.

LoadData3DParamsV2 writes rows [m_start_pt, m_start_pt + m_extension) and columns
[k_start_pt, k_start_pt + k_extension) of that matrix into L0A as ZZ fractals (16 x c0, row
major over (m1, k1), row major inside: the layout mmad reads). en_transpose (fp16 only) writes
the transposed window (K x M, 16 x 16 fractals row major over (k1, m1)). Rows of the last
fractal past m_extension (or past M) hold the padding value (ASSUMPTION: undocumented).

LoadData3DParamsV1 writes repeat_time fractals, repeat r at dst + r * jump_stride * 512 B.
Fractal rows are 16 consecutive output pixels starting at the one whose window's top-left is
(left_top_h, left_top_w) (may be negative: padding); columns are the c0 channels of block
c1_index at kernel tap (fetch_filter_h, fetch_filter_w). repeat_mode 0 moves to the next tap
(w fastest, then h, then c1) each repeat, repeat_mode 1 to the next 16 pixels (ASSUMPTION: the
repeat directions as the CCE load3dv1 docs describe them, in the project's own reading).

LoadData3DParamsV2Pro takes l1_h / l1_w / pad_list from the FMATRIX register (FMATRIX_B when
f_matrix_ctrl): set_fmatrix, or the last v1/v2 load, which set it as Ascend C's default
IsResetLoad3dConfig does, and the padding value from set_load_data_padding_value.
ASSUMPTION (bit layout, in the order of the CCE intrinsic's arguments): ext_config =
k_extension | m_extension << 16 | k_start_pt << 32 | m_start_pt << 48; filter_config bytes
0..5 = stride_w, stride_h, filter_w, filter_h, dilation_w, dilation_h (the default
0x10101010101 sets all six to 1). A zero k or m extension (pyasc's default ext_config 0) is a
no-op, recorded as an event without accesses.

Cost: one MTE1 event whose write Access is the L0A bytes, priced like load_data 2D: bytes /
ChipSpec.l1_to_l0a_bytes_per_cycle and the 28-cycle latency of analysis/cost.py (asc-devkit
tests/perf/load_data_perf, docs/cycle-model.md). ASSUMPTION: load_3d streams at load_data
2D's rate (no published Load3D throughput); each L0A byte costs one L1 read either way.

Limitations: B1 -> B2 (img2col into L0B) is not emulated (its fractal order is not documented
in a source the project holds); channel_size must be a multiple of c0 (the 4/8-channel small-C
modes, c_size=1 and en_small_k are not emulated); set_load_data_repeat with repeat_time > 1
and a non-zero set_load_data_boundary (the L1 wrap-around) raise NotImplementedError.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import numpy as np

from ...errors import AlignmentError, DTypeError, ParamError, PositionError
from .. import core as _core
from ..core import access, emit
from ..enums import TPosition
from ..memory.checks import check_align, check_local_span, check_range, nop
from ..memory.tensor import LocalTensor, check_core_kind, require_local
from ..params import LoadData3DParamsV1, LoadData3DParamsV2, LoadData3DParamsV2Pro
from ..trace import register_op

register_op("load_data_3d", "MTE1", "dma", module=__name__)

_getframe = sys._getframe
FRACTAL = 512
OP = "load_data"
FORMS = (LoadData3DParamsV1, LoadData3DParamsV2, LoadData3DParamsV2Pro)


class Geometry(NamedTuple):
    """One load_3d with every setting resolved (from the params and the registers)."""

    l1_h: int
    l1_w: int
    pad_list: tuple  # (left, right, top, bottom)
    channel_size: int
    stride_w: int
    stride_h: int
    filter_w: int
    filter_h: int
    dilation_w: int
    dilation_h: int
    pad_value: float

    def out_hw(self) -> tuple[int, int]:
        """(Ho, Wo) of the convolution this geometry describes."""
        pl, pr, pt, pb = self.pad_list
        ho = (self.l1_h + pt + pb - self.dilation_h * (self.filter_h - 1) - 1) // self.stride_h + 1
        wo = (self.l1_w + pl + pr - self.dilation_w * (self.filter_w - 1) - 1) // self.stride_w + 1
        return ho, wo


def im2col_block(fmap: np.ndarray, g: Geometry, rows: np.ndarray, cols: np.ndarray,
                 dtype: Any) -> np.ndarray:
    """im2col[rows][:, cols] of fmap (C1, H, W, c0) under g; rows >= M, and taps outside the
    map, hold g.pad_value. (len(rows), len(cols)) of dtype."""
    c0 = fmap.shape[3]
    ho_n, wo_n = g.out_hw()
    m_total = ho_n * wo_n
    ho, wo = np.divmod(rows, wo_n)
    c0i = cols % c0
    t = cols // c0
    kw = t % g.filter_w
    t //= g.filter_w
    kh = t % g.filter_h
    c1 = t // g.filter_h
    pl, _, pt, _ = g.pad_list
    h = (ho * g.stride_h - pt)[:, None] + (kh * g.dilation_h)[None, :]
    w = (wo * g.stride_w - pl)[:, None] + (kw * g.dilation_w)[None, :]
    ok = (h >= 0) & (h < g.l1_h) & (w >= 0) & (w < g.l1_w) & (rows < m_total)[:, None]
    out = np.full((len(rows), len(cols)), g.pad_value, dtype=dtype)
    hh, ww = np.where(ok, h, 0), np.where(ok, w, 0)
    vals = fmap[np.broadcast_to(c1, ok.shape), hh, ww, np.broadcast_to(c0i, ok.shape)]
    out[ok] = vals[ok]
    return out


def _pads(c: Any, struct: str, pad_list: Any, frame: Any) -> tuple:
    pads = tuple(int(v) for v in pad_list)
    if len(pads) != 4:
        raise ParamError(f"{OP}: {struct}.pad_list={pads} must hold 4 values (left, right, top, "
                         f"bottom) {_core.where(c, frame)}")
    for name, v in zip(("left", "right", "top", "bottom"), pads):
        check_range(c, OP, struct, f"pad_list {name}", v, 0, 255, frame)
    return pads


def _check_filter(c: Any, struct: str, vals: dict, frame: Any) -> None:
    for name, lo, hi in (("l1_h", 1, 32767), ("l1_w", 1, 32767), ("stride_w", 1, 63),
                         ("stride_h", 1, 63), ("dilation_filter_w", 1, 255),
                         ("dilation_filter_h", 1, 255)):
        if name in vals:
            check_range(c, OP, struct, name, vals[name], lo, hi, frame)
    for name in ("filter_w", "filter_h"):
        check_range(c, OP, struct, name, vals[name], 1, 511, frame)


def _repeat_register(c: Any, frame: Any) -> None:
    """The registers load_3d reads that the emulation supports only at their defaults."""
    boundary = c.lib.get("set_load_data_boundary", 0)
    if boundary:
        raise NotImplementedError(f"{OP}: load_3d after set_load_data_boundary({boundary}) is "
                                  f"not emulated (the L1 wrap-around); emulated: boundary 0 "
                                  f"{_core.where(c, frame)}")
    rp = c.lib.get("load_data_repeat")
    if rp is not None and rp.repeat_time > 1:
        raise NotImplementedError(f"{OP}: load_3d with set_load_data_repeat(repeat_time="
                                  f"{rp.repeat_time}) is not emulated; emulated: one load per "
                                  f"instruction (repeat_time 0 or 1) {_core.where(c, frame)}")


def _operands(c: Any, dst: Any, src: Any, params: Any, frame: Any) -> tuple:
    check_core_kind(c, "L1", OP, frame)
    dst = require_local(OP, dst, "dst")
    if type(src) is not LocalTensor:
        raise TypeError(f"{OP}: load_3d ({type(params).__name__}) reads a LocalTensor in "
                        f"A1/B1, got {type(src).__name__}")
    src = require_local(OP, src, "src")
    if (src.pos, dst.pos) == (TPosition.B1, TPosition.B2):
        raise NotImplementedError(f"{OP}: load_3d B1 -> B2 (img2col into L0B) is not emulated; "
                                  f"emulated: A1 -> A2 {_core.where(c, frame)}")
    if (src.pos, dst.pos) != (TPosition.A1, TPosition.A2):
        raise PositionError(f"{OP}: {src.pos.name} -> {dst.pos.name} is not a load_3d route "
                            f"(routes: A1->A2, B1->B2); dst {dst.describe()}, src "
                            f"{src.describe()} {_core.where(c, frame)}")
    dt = dst.dtype
    if src.dtype != dt:
        raise DTypeError(f"{OP}: dst is {dt.name} but src is {src.dtype.name}; load_3d does not "
                         f"convert {_core.where(c, frame)}")
    if not dt.is_numeric() or dt.itemsize not in (1, 2, 4):
        raise DTypeError(f"{OP}: load_3d of {dt.name} is not supported (1, 2 or 4-byte types) "
                         f"{_core.where(c, frame)}")
    check_align(c, OP, dst, "dst", c.chip.l0ab_align, frame, " (one fractal)")
    check_align(c, OP, src, "src", 32, frame)
    return dst, src


def _fmap(c: Any, src: LocalTensor, g: Geometry, frame: Any) -> tuple[np.ndarray, int]:
    """src's feature map as a (C1, H, W, c0) view and its byte length (span checked)."""
    isz = src.dtype.itemsize
    c0 = 32 // isz
    c1 = g.channel_size // c0
    nbytes = c1 * g.l1_h * g.l1_w * c0 * isz
    check_local_span(c, src, nbytes, OP, "src (the C1 x l1_h x l1_w x c0 feature map)", frame)
    e = src.e0
    return src.arr[e:e + nbytes // isz].reshape(c1, g.l1_h, g.l1_w, c0), nbytes


def _channels(c: Any, struct: str, channel_size: int, c0: int, frame: Any) -> None:
    if channel_size < 1 or channel_size % c0:
        raise NotImplementedError(
            f"{OP}: {struct}.channel_size={channel_size} is not a positive multiple of c0={c0}; "
            f"the small-channel modes are not emulated: pad the channels to a multiple of {c0} "
            f"{_core.where(c, frame)}")


def _store(c: Any, dst: LocalTensor, src: LocalTensor, block: np.ndarray, src_bytes: int,
           transpose: bool, frame: Any, args: tuple) -> None:
    """Write an (m, k) im2col block into dst as ZZ fractals (or transposed) and emit."""
    dt = dst.dtype
    c0 = 32 // dt.itemsize
    mr, kc = block.shape  # whole fractals already: mr % 16 == 0, kc % c0 == 0
    m1, k1 = mr // 16, kc // c0
    nbytes = mr * kc * dt.itemsize
    check_local_span(c, dst, nbytes, OP, "dst", frame)
    e = dst.e0
    if transpose:  # A = block^T (K x M), 16 x 16 fractals row major over (k1, m1)
        frac = block.reshape(m1, 16, k1, 16).transpose(2, 0, 3, 1)
    else:  # ZZ: (m1, k1, 16, c0)
        frac = block.reshape(m1, 16, k1, c0).transpose(0, 2, 1, 3)
    dst.arr[e:e + mr * kc] = frac.reshape(-1)
    emit(c, "MTE1", "load_data_3d", (access("L1", src.addr, src_bytes, src.name),),
         (access(dst.space, dst.addr, nbytes, dst.name),), mr * kc, dt.name,
         nbytes // FRACTAL, frame, None, args)


def _window(c: Any, dst: LocalTensor, src: LocalTensor, g: Geometry, k_start: int, k_ext: int,
            m_start: int, m_ext: int, transpose: bool, struct: str, frame: Any,
            args: tuple) -> None:
    """The v2 / v2Pro body: an m_ext x k_ext window of the im2col matrix into dst."""
    dt = dst.dtype
    c0 = 32 // dt.itemsize
    _channels(c, struct, g.channel_size, c0, frame)
    _check_filter(c, struct, {"l1_h": g.l1_h, "l1_w": g.l1_w, "stride_w": g.stride_w,
                              "stride_h": g.stride_h, "filter_w": g.filter_w,
                              "filter_h": g.filter_h, "dilation_filter_w": g.dilation_w,
                              "dilation_filter_h": g.dilation_h}, frame)
    for name, v, lo in (("k_extension", k_ext, 1), ("m_extension", m_ext, 1),
                        ("k_start_pt", k_start, 0), ("m_start_pt", m_start, 0)):
        check_range(c, OP, struct, name, v, lo, 65535, frame)
    if transpose and dt.itemsize != 2:
        raise DTypeError(f"{OP}: {struct}.en_transpose needs a 2-byte type (16 x 16 fractals), "
                         f"got {dt.name} {_core.where(c, frame)}")
    ho, wo = g.out_hw()
    if ho < 1 or wo < 1:
        raise ParamError(f"{OP}: {struct}: the dilated {g.filter_h} x {g.filter_w} filter does "
                         f"not fit the padded {g.l1_h} x {g.l1_w} map (Ho={ho}, Wo={wo}) "
                         f"{_core.where(c, frame)}")
    m_total, k_total = ho * wo, g.channel_size * g.filter_h * g.filter_w
    if k_start % c0 or k_ext % c0:
        raise AlignmentError(f"{OP}: {struct}.k_start_pt={k_start} and k_extension={k_ext} must "
                             f"be multiples of c0={c0} ({dt.name}) {_core.where(c, frame)}")
    if k_start + k_ext > k_total:
        raise ParamError(f"{OP}: {struct}: columns [{k_start}, {k_start + k_ext}) overrun "
                         f"K = channel_size x filter_h x filter_w = {k_total} "
                         f"{_core.where(c, frame)}")
    if m_start + m_ext > m_total:
        raise ParamError(f"{OP}: {struct}: rows [{m_start}, {m_start + m_ext}) overrun M = Ho x "
                         f"Wo = {ho} x {wo} = {m_total} {_core.where(c, frame)}")
    if transpose and (m_start % 16 or m_ext % 16):
        raise AlignmentError(f"{OP}: {struct}.en_transpose needs m_start_pt={m_start} and "
                             f"m_extension={m_ext} in whole 16-row fractals "
                             f"{_core.where(c, frame)}")
    if m_ext % 16 and m_start + m_ext != m_total:
        raise AlignmentError(f"{OP}: {struct}.m_extension={m_ext} must be a multiple of 16 unless "
                             f"it reaches the last row (m_start_pt + m_extension = M = "
                             f"{m_total}) {_core.where(c, frame)}")
    _repeat_register(c, frame)
    fmap, sbytes = _fmap(c, src, g, frame)
    mr = -(-m_ext // 16) * 16
    rows = np.arange(m_start, m_start + mr)
    rows = np.where(rows < m_start + m_ext, rows, m_total)  # past the window: padding
    block = im2col_block(fmap, g, rows, np.arange(k_start, k_start + k_ext), dt.np)
    _store(c, dst, src, block, sbytes, transpose, frame, args)


def _v2(c: Any, dst: LocalTensor, src: LocalTensor, p: LoadData3DParamsV2, frame: Any) -> None:
    s = "LoadData3DParamsV2"
    pads = _pads(c, s, p.pad_list, frame)
    fw = int(p.filter_w) + 256 * bool(p.filter_size_w)
    fh = int(p.filter_h) + 256 * bool(p.filter_size_h)
    g = Geometry(int(p.l1_h), int(p.l1_w), pads, int(p.channel_size), int(p.stride_w),
                 int(p.stride_h), fw, fh, int(p.dilation_filter_w), int(p.dilation_filter_h),
                 p.pad_value)
    # as Ascend C's default IsResetLoad3dConfig: the load sets FMATRIX and the padding value
    c.lib.setdefault("fmatrix", {})[int(bool(p.f_matrix_ctrl))] = (g.l1_h, g.l1_w, pads)
    c.lib["load_data_padding_value"] = p.pad_value
    args = (("geometry", tuple(g)), ("k", (int(p.k_start_pt),
                                                           int(p.k_extension))),
            ("m", (int(p.m_start_pt), int(p.m_extension))), ("transpose", bool(p.en_transpose)))
    _window(c, dst, src, g, int(p.k_start_pt), int(p.k_extension), int(p.m_start_pt),
            int(p.m_extension), bool(p.en_transpose), s, frame, args)


def _v2pro(c: Any, dst: LocalTensor, src: LocalTensor, p: LoadData3DParamsV2Pro,
           frame: Any) -> None:
    s = "LoadData3DParamsV2Pro"
    if p.en_small_k:
        raise NotImplementedError(f"{OP}: {s}.en_small_k=True is not emulated "
                                  f"{_core.where(c, frame)}")
    ext, flt = int(p.ext_config), int(p.filter_config)
    if not ext & 0xFFFF or not (ext >> 16) & 0xFFFF:  # a zero extension moves nothing
        nop(c, "MTE1", "load_data_3d", dst.dtype.name, frame,
            (("v2pro", tuple(int(v) for v in p)),))
        return
    reg = int(bool(p.f_matrix_ctrl))
    fm = c.lib.get("fmatrix", {}).get(reg)
    if fm is None:
        raise ParamError(f"{OP}: {s} reads register {('FMATRIX', 'FMATRIX_B')[reg]}, which no "
                         f"set_fmatrix or v1/v2 load has set {_core.where(c, frame)}")
    k_ext, m_ext = ext & 0xFFFF, (ext >> 16) & 0xFFFF
    k_start, m_start = (ext >> 32) & 0xFFFF, (ext >> 48) & 0xFFFF
    b = [(flt >> (8 * i)) & 0xFF for i in range(6)]
    fw = b[2] + 256 * bool(p.filter_size_w)
    fh = b[3] + 256 * bool(p.filter_size_h)
    g = Geometry(fm[0], fm[1], fm[2], int(p.channel_size), b[0], b[1], fw, fh, b[4], b[5],
                 c.lib.get("load_data_padding_value", 0))
    args = (("geometry", tuple(g)), ("k", (k_start, k_ext)),
            ("m", (m_start, m_ext)), ("transpose", bool(p.en_transpose)))
    _window(c, dst, src, g, k_start, k_ext, m_start, m_ext, bool(p.en_transpose), s, frame,
            args)


def _v1(c: Any, dst: LocalTensor, src: LocalTensor, p: LoadData3DParamsV1, frame: Any) -> None:
    s = "LoadData3DParamsV1"
    dt = dst.dtype
    c0 = 32 // dt.itemsize
    pads = _pads(c, s, p.pad_list, frame)
    v = {k: int(x) for k, x in p._asdict().items() if k not in ("pad_list", "pad_value")}
    if v["c_size"]:
        raise NotImplementedError(f"{OP}: {s}.c_size=1 (4-channel expansion) is not emulated "
                                  f"{_core.where(c, frame)}")
    _check_filter(c, s, v, frame)
    for name, lo, hi in (("c1_index", 0, 4095), ("fetch_filter_w", 0, 254),
                         ("fetch_filter_h", 0, 254), ("left_top_w", -255, 32767),
                         ("left_top_h", -255, 32767), ("jump_stride", 1, 127),
                         ("repeat_mode", 0, 1), ("repeat_time", 1, 255)):
        check_range(c, OP, s, name, v[name], lo, hi, frame)
    for name, val, lim in (("fetch_filter_w", v["fetch_filter_w"], v["filter_w"]),
                           ("fetch_filter_h", v["fetch_filter_h"], v["filter_h"])):
        if val >= lim:
            raise ParamError(f"{OP}: {s}.{name}={val} is not a tap of a filter of size {lim} "
                             f"{_core.where(c, frame)}")
    c1_total = v["c1_index"] + 1
    g = Geometry(v["l1_h"], v["l1_w"], pads, c1_total * c0, v["stride_w"], v["stride_h"],
                 v["filter_w"], v["filter_h"], v["dilation_filter_w"], v["dilation_filter_h"],
                 p.pad_value)
    c.lib.setdefault("fmatrix", {})[0] = (g.l1_h, g.l1_w, pads)
    c.lib["load_data_padding_value"] = p.pad_value
    ho, wo = g.out_hw()
    pl, _, pt, _ = pads
    if (v["left_top_h"] + pt) % g.stride_h or (v["left_top_w"] + pl) % g.stride_w:
        raise ParamError(f"{OP}: {s}: left_top (h={v['left_top_h']}, w={v['left_top_w']}) is not "
                         f"the top-left of a window (pad + left_top must be a multiple of the "
                         f"stride) {_core.where(c, frame)}")
    p0 = (v["left_top_h"] + pt) // g.stride_h * wo + (v["left_top_w"] + pl) // g.stride_w
    rep, mode, jump = v["repeat_time"], v["repeat_mode"], v["jump_stride"]
    tap0 = (v["c1_index"] * g.filter_h + v["fetch_filter_h"]) * g.filter_w + v["fetch_filter_w"]
    check_local_span(c, dst, ((rep - 1) * jump + 1) * FRACTAL, OP, "dst", frame)
    _repeat_register(c, frame)
    taps_total = c1_total * g.filter_h * g.filter_w
    e = dst.e0
    per = 16 * c0
    for r in range(rep):
        tap = tap0 + (r if mode == 0 else 0)
        if tap >= taps_total:
            raise ParamError(f"{OP}: {s}: repeat {r} moves past the last tap of c1 block "
                             f"{v['c1_index']} {_core.where(c, frame)}")
    fmap, sbytes = _fmap(c, src, g, frame)  # C1 blocks 0..c1_index
    for r in range(rep):
        tap = tap0 + (r if mode == 0 else 0)
        start = p0 + (16 * r if mode == 1 else 0)
        rows = np.arange(start, start + 16)
        block = im2col_block(fmap, g, rows, np.arange(tap * c0, tap * c0 + c0), dt.np)
        at = e + r * jump * (FRACTAL // dt.itemsize)
        dst.arr[at:at + per] = block.reshape(-1)
    emit(c, "MTE1", "load_data_3d", (access("L1", src.addr, sbytes, src.name),),
         (access(dst.space, dst.addr, FRACTAL, dst.name, rep, jump * FRACTAL),), rep * per,
         dt.name, rep, frame, None,
         (("form", "V1"), ("geometry", tuple(g)), ("p0", p0), ("tap0", tap0),
          ("repeat", (rep, mode, jump))))


def load_data_3d(dst: Any, src: Any, params: Any, frame: Any) -> None:
    """load_data with a LoadData3DParams* form (called by cube.mmad.load_data)."""
    c = _core.current or _core.core()
    dst, src = _operands(c, dst, src, params, frame)
    if isinstance(params, LoadData3DParamsV2):
        _v2(c, dst, src, params, frame)
    elif isinstance(params, LoadData3DParamsV2Pro):
        _v2pro(c, dst, src, params, frame)
    else:
        _v1(c, dst, src, params, frame)


__all__ = ["FORMS", "Geometry", "im2col_block", "load_data_3d"]
