"""Replay, part 4: the events of asc.adv.Matmul (ascendlab/adv/matmul_engine.py).

The library does not move bytes through L1/L0: it records the cube pipeline's instructions and
computes C with numpy on the GM operands. Replay cannot re-issue those events through
runtime/cube/mmad.py (their operands are the library's own NZ tiles), so it gives each of them the
meaning the recorded operands say, and computes with that meaning in the grader's process:

    data_copy  "Matmul ND2NZ"  GM rows x cols (row pitch = the GM Access's stride) -> an L1 tile
    data_copy  "Matmul bias"   GM cols float32 -> an L1 bias row
    load_data  "Matmul"        a slice of an L1 tile -> L0A / L0B: the source Access's address
                               and stride locate it (stride = the tile's height x 32 B, the
                               offset inside a 32 B column block = the first row, the block =
                               the first c0 column), its length x count give its extent
    mmad       "Matmul"        L0C = (init ? 0 (+ bias) : L0C) + L0A[:m, :k] @ L0B[:k, :n] in
                               float32, the library's order of additions
    fixpipe    "Matmul"        L0C -> GM rows x cols, cast to the output dtype (atomic: added)
    data_copy  "Matmul get_tensor_c"  GM -> UB bytes, rows x row bytes, both pitches the stride

Each event is rebuilt from those parameters (operand sizes, counts, repeats, arguments as the
library records them) and must equal the recorded one; flags ("mm" keys) and the cross-core
messages of MIX kernels (mm_request / mm_serve / mm_done / mm_wait_result) are checked for
their form and re-emitted. So the outputs come only from what the recorded instructions
compute: a changed operand computes with the changed operand, a dropped load leaves its L0
slot empty (ReplayError) or stale, numpy writes to C are not in the trace (the judge's hashes
catch them), and the cost model charges the rebuilt events.

Limitations: the L1/L0 contents are held as logical matrices (the tiles' NZ bytes are not
materialised, as in the library); A and B are read from GM when their ND2NZ copy is replayed
(the library reads them at the block's mmad: they differ only if the kernel rewrites A or B
in GM between the two).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...runtime.core import CoreState
from ...runtime.cube.mmad import _MMAD_RATE, FRACTAL
from ...runtime.dtypes import DataType
from ...runtime.trace import Access, Event, Sync, event
from .operands import Replayer

_new = tuple.__new__
_MM_DTYPES = frozenset({"float16", "float32"})


def _ceil(x: int, a: int) -> int:
    return -(-x // a) * a


def _acc(space: str, addr: int, nbytes: int, name: str, count: int = 1,
         stride: int = 0) -> Access:
    return _new(Access, (space, addr, nbytes, name, count, stride))


def _event(e: Event, reads: tuple, writes: tuple, count: int, dtype: str, repeats: int,
           args: tuple, pipe: str | None = None) -> Event:
    """The event the library records for these operands (core, file and line as recorded)."""
    return event(e.core, pipe or e.pipe, e.op, reads, writes, count, dtype, repeats, e.file,
                 e.line, None, args)


class Shadow:
    """The logical contents of the library's L1 / L0 tiles: (core, space) -> {byte address:
    (bytes, matrix)}."""

    def __init__(self) -> None:
        self.tiles: dict[tuple[int, str], dict[int, tuple[int, np.ndarray]]] = {}

    def put(self, c: CoreState, a: Access, value: np.ndarray) -> None:
        if not 0 <= a.addr or a.addr + a.nbytes > c.chip.capacity(a.space):
            raise ValueError(f"{a.space} bytes [{a.addr}, {a.addr + a.nbytes}) are outside "
                             f"the memory ({c.chip.capacity(a.space)} B)")
        per = self.tiles.setdefault((c.idx, a.space), {})
        lo, hi = a.addr, a.addr + a.nbytes
        for addr in [k for k, (n, _v) in per.items() if k < hi and lo < k + n]:
            del per[addr]  # overwritten
        per[a.addr] = (a.nbytes, value)

    def at(self, c: CoreState, space: str, addr: int, what: str) -> np.ndarray:
        got = self.tiles.get((c.idx, space), {}).get(addr)
        if got is None:
            raise ValueError(f"{what} reads {space}+{addr}, where no Matmul instruction put a "
                             "tile")
        return got[1]

    def containing(self, c: CoreState, space: str, addr: int) -> tuple[int, int, np.ndarray]:
        for base, (n, v) in self.tiles.get((c.idx, space), {}).items():
            if base <= addr < base + n:
                return base, n, v
        raise ValueError(f"load_data reads {space}+{addr}, where no Matmul ND2NZ copy put a "
                         "tile")


def _shadow(rp: Replayer) -> Shadow:
    s = getattr(rp, "adv_shadow", None)
    if s is None:
        s = rp.adv_shadow = Shadow()
    return s


def _gm_matrix(rp: Replayer, a: Access, dt: DataType, rows: int, cols: int,
               pitch: int) -> tuple[Any, int, np.ndarray]:
    """(alloc, byte offset, rows x cols view with row pitch `pitch` bytes) of a GM Access."""
    g = rp.glob(a, dt.name)
    alloc, off, isz = g.alloc, g.offset, dt.itemsize
    end = off + (rows - 1) * pitch + cols * isz
    if off < 0 or end > alloc.nbytes or pitch < cols * isz or pitch % isz:
        raise ValueError(f"{rows} x {cols} {dt.name} at byte {off} (pitch {pitch} B) is outside "
                         f"{alloc.name} ({alloc.nbytes} B)")
    view = np.ndarray((rows, cols), dt.np, alloc.buf, alloc.idx0 + off, (pitch, isz))
    return alloc, off, view


# ---- the instructions ---------------------------------------------------------------------
def _nd2nz(rp: Replayer, c: CoreState, e: Event) -> Event:
    a = dict(e.args)
    rows, cols, dt = int(a["rows"]), int(a["cols"]), DataType(e.dtype)
    src, dst = e.reads[0], e.writes[0]
    isz = dt.itemsize
    if rows < 1 or cols < 1 or dst.space != "L1" or dst.nbytes < (
            _ceil(rows, 16) * _ceil(cols, 32 // isz) * isz):
        raise ValueError(f"{rows} x {cols} {dt.name} does not fit L1 tile {dst}")
    _a, _o, view = _gm_matrix(rp, src, dt, rows, cols, src.stride)
    _shadow(rp).put(c, dst, view.copy())
    return _event(e, (_acc("GM", src.addr, cols * isz, src.name, rows, src.stride),),
                  (_acc("L1", dst.addr, dst.nbytes, dst.name),), rows * cols, dt.name, rows,
                  (("adv", "Matmul ND2NZ"), ("rows", rows), ("cols", cols)), "MTE2")


def _bias(rp: Replayer, c: CoreState, e: Event) -> Event:
    src, dst = e.reads[0], e.writes[0]
    cols = e.count
    f32 = DataType("float32")
    _a, _o, view = _gm_matrix(rp, src, f32, 1, cols, cols * 4)
    out = _acc("L1", dst.addr, _ceil(cols * 4, 32), "mm.bias")
    _shadow(rp).put(c, out, view[0].copy())
    return _event(e, (_acc("GM", src.addr, cols * 4, src.name),), (out,), cols, "float32", 1,
                  (("adv", "Matmul bias"),), "MTE2")


def _load_data(rp: Replayer, c: CoreState, e: Event) -> Event:
    src, dst = e.reads[0], e.writes[0]
    dt = DataType(e.dtype)
    c0 = 32 // dt.itemsize
    frac = int(dict(e.args)["fractals"])
    if dst.space not in ("L0A", "L0B") or src.space != "L1" or src.nbytes % FRACTAL or (
            src.stride < src.nbytes or src.stride % 32 or src.count < 1):
        raise ValueError(f"load_data {src} -> {dst} is not a slice of an NZ tile")
    q, nblk = src.nbytes // FRACTAL, src.count  # 16-row groups, c0-column blocks
    if dst.space == "L0A" or c0 == 16:
        fracs = {q * nblk}
    else:  # float32 B: fractals of 8 rows x 16 columns
        fracs = {(2 * q - 1) * -(-nblk // 2), 2 * q * -(-nblk // 2)}
    if frac not in fracs:
        raise ValueError(f"load_data of {q * 16} rows x {nblk * c0} columns moves {fracs} "
                         f"fractals, not {frac}")
    base, tile_bytes, tile = _shadow(rp).containing(c, "L1", src.addr)
    sub = src.addr - base
    blk, row0 = divmod(sub, src.stride)
    tall = src.stride // 32
    if row0 % 32 or row0 // 32 + q * 16 > tall or (blk + nblk) * src.stride > tile_bytes:
        raise ValueError(f"load_data slice at L1+{src.addr} runs outside its tile")
    row0 //= 32
    padded = np.zeros((tall, tile_bytes // src.stride * c0), tile.dtype)
    held = tile[:tall, :padded.shape[1]]
    padded[:held.shape[0], :held.shape[1]] = held
    part = padded[row0:row0 + q * 16, blk * c0:(blk + nblk) * c0].copy()
    out = _acc(dst.space, dst.addr, frac * FRACTAL, f"mm.{dst.space[-1]}2")
    _shadow(rp).put(c, out, part)
    return _event(e, (_acc("L1", src.addr, src.nbytes, src.name, nblk, src.stride),), (out,),
                  frac * FRACTAL // dt.itemsize, dt.name, frac,
                  (("adv", "Matmul"), ("fractals", frac)), "MTE1")


def _mmad(rp: Replayer, c: CoreState, e: Event) -> Event:
    a = dict(e.args)
    m, n, k, init = int(a["m"]), int(a["n"]), int(a["k"]), bool(a["init"])
    at = e.dtype
    if at not in _MM_DTYPES or min(m, n, k) < 1:
        raise ValueError(f"mmad {m} x {n} x {k} of {at!r} is not a Matmul step")
    c0 = 32 // DataType(at).itemsize
    m1, n1, k1 = -(-m // 16), -(-n // 16), -(-k // c0)
    ra, rb = e.reads[0], e.reads[1]
    out = e.writes[0]
    sh = _shadow(rp)
    left = sh.at(c, "L0A", ra.addr, "mmad")
    right = sh.at(c, "L0B", rb.addr, "mmad")
    if left.shape[0] < m or left.shape[1] < k or right.shape[0] < k or right.shape[1] < n or (
            str(left.dtype) != at or str(right.dtype) != at):
        raise ValueError(f"mmad {m} x {n} x {k} {at}: L0A holds {left.dtype}{list(left.shape)},"
                         f" L0B {right.dtype}{list(right.shape)}")
    c_acc = _acc("L0C", out.addr, m1 * n1 * 1024, "mm.CO1")
    reads = (_acc("L0A", ra.addr, m1 * k1 * FRACTAL, "mm.A2"),
             _acc("L0B", rb.addr, k1 * n1 * FRACTAL, "mm.B2"))
    acc = np.zeros((m, n), np.float32)  # as the library: 0 (+ bias), then += each K slice
    if init and len(e.reads) == 3:
        bias = sh.at(c, "L1", e.reads[2].addr, "mmad (bias)")
        if bias.shape[0] < n:
            raise ValueError(f"mmad: the bias row holds {bias.shape[0]} values, not {n}")
        reads += (_acc("L1", e.reads[2].addr, _ceil(n * 4, 32), "mm.bias"),)
        acc += bias[:n].astype(np.float32)
    elif not init:
        prev = sh.at(c, "L0C", out.addr, "mmad (accumulate)")
        if prev.shape != (m, n):
            raise ValueError(f"mmad accumulates {m} x {n} onto an L0C block of {prev.shape}")
        acc = prev.copy()
        reads += (c_acc,)
    acc += left[:m, :k].astype(np.float32) @ right[:k, :n].astype(np.float32)
    sh.put(c, c_acc, acc)
    return _event(e, reads, (c_acc,), m * n * k, at, m1 * n1 * k1,
                  (("m", m), ("n", n), ("k", k), ("init", init), ("rate", _MMAD_RATE[at]),
                   ("adv", "Matmul")), "M")


def _fixpipe(rp: Replayer, c: CoreState, e: Event) -> Event:
    a = dict(e.args)
    atomic = bool(a["atomic"])
    dst, src = e.writes[0], e.reads[0]
    dt = DataType(e.dtype)
    isz = dt.itemsize
    rows = e.repeats
    cols = dst.nbytes // isz
    if dt.name not in _MM_DTYPES or rows < 1 or cols < 1 or dst.count != rows:
        raise ValueError(f"fixpipe of {rows} x {cols} {dt.name} is not a Matmul write-back")
    acc = _shadow(rp).at(c, "L0C", src.addr, "fixpipe")
    if acc.shape != (rows, cols):
        raise ValueError(f"fixpipe writes {rows} x {cols} but L0C holds {list(acc.shape)}")
    alloc, off, view = _gm_matrix(rp, dst, dt, rows, cols, dst.stride)
    out = acc.astype(dt.np) if dt.name != "float32" else acc
    alloc.private()  # the buffer moves: take the view again
    alloc.mark_written()
    view = np.ndarray((rows, cols), dt.np, alloc.buf, alloc.idx0 + off, (dst.stride, isz))
    if atomic:
        out = (view.copy() + out).astype(dt.np)
    view[...] = out
    gm = _acc("GM", dst.addr, cols * isz, dst.name, rows, dst.stride)
    reads = (_acc("L0C", src.addr, -(-rows // 16) * -(-cols // 16) * 1024, "mm.CO1"),)
    return _event(e, reads + ((gm,) if atomic else ()), (gm,), rows * cols, dt.name, rows,
                  (("adv", "Matmul"), ("atomic", atomic),
                   ("quant", "F322F16" if isz == 2 else "NoQuant")), "FIX")


def _to_ub(rp: Replayer, c: CoreState, e: Event) -> Event:
    src, dst = e.reads[0], e.writes[0]
    dt = DataType(e.dtype)
    isz = dt.itemsize
    rows, rb = e.repeats, src.nbytes
    if dst.space != "UB" or rows < 1 or rb < isz or rb % isz or src.stride != dst.stride:
        raise ValueError(f"get_tensor_c copy {src} -> {dst} is not a block copy into UB")
    _a, _o, view = _gm_matrix(rp, src, DataType("uint8"), rows, rb, src.stride)
    mem = c.mem("UB")
    end = dst.addr + (rows - 1) * dst.stride + rb
    if dst.addr < 0 or end > mem.size:
        raise ValueError(f"get_tensor_c writes UB bytes up to {end}, past the UB ({mem.size})")
    np.lib.stride_tricks.as_strided(mem[dst.addr:], shape=(rows, rb), strides=(dst.stride, 1),
                                    writeable=True)[...] = view
    return _event(e, (_acc("GM", src.addr, rb, src.name, rows, src.stride),),
                  (_acc("UB", dst.addr, rb, dst.name, rows, dst.stride),), rows * rb // isz,
                  dt.name, rows, (("adv", "Matmul get_tensor_c"),), "MTE2")


# ---- flags and cross-core messages --------------------------------------------------------
def _flag(rp: Replayer, c: CoreState, e: Event) -> Event:
    s, a = e.sync, dict(e.args)
    if s is None or s.implicit or len(s.key) != 4 or s.key[0] != "mm" or (
            a.get("event") != f"{s.src}_{s.dst}") or set(a) != {"event", "event_id", "adv"}:
        raise ValueError(f"{e.op} is not a Matmul flag: {s}, {a}")
    kind, pipe = ("set", s.src) if e.op == "set_flag" else ("wait", s.dst)
    if s.kind != kind or e.pipe != pipe or e.reads or e.writes or e.count or e.dtype:
        raise ValueError(f"{e.op} on {e.pipe} does not match its flag {s}")
    if kind == "wait" and pipe == "V":
        c.v_pending.clear()  # as the library: its wait on V orders earlier vector work
    return e


_MESSAGES = {  # op -> (sync kind, to/from argument, client side, tag)
    "mm_request": ("xset", "to", True, "request"),
    "mm_serve": ("xwait", "from", False, "request"),
    "mm_done": ("xset", "to", False, "done"),
    "mm_wait_result": ("xwait", "from", True, "done"),
}


def _message(rp: Replayer, c: CoreState, e: Event) -> Event:
    kind, role, client, tag = _MESSAGES[e.op]
    a, s = dict(e.args), e.sync
    other = a.get(role)
    mine, theirs = ("aiv", "aic") if client else ("aic", "aiv")
    if rp.kinds.get(e.core) != mine or rp.kinds.get(other) != theirs:
        raise ValueError(f"{e.op} must go from a{'' if client else 'n'} {mine.upper()} core to "
                         f"an {theirs.upper()} core of the launch (core {e.core} -> {other})")
    cl, sv = (e.core, other) if client else (other, e.core)
    key = ("xcore", cl, sv, tag) if tag == "request" else ("xcore", sv, cl, tag)
    src = s.src if s is not None else ""
    want = _new(Sync, (kind, src, "S", key, False))
    pipes = {"request": ("S", "MTE2"), "done": ("FIX",)}[tag]
    if s != want or src not in pipes or e.pipe != (src if kind == "xset" else "S") or (
            set(a) != {"adv", role} or a["adv"] != "Matmul"):
        raise ValueError(f"{e.op} is not a Matmul message: sync {s}, args {a}")
    if e.reads or e.writes or e.count or e.dtype or e.repeats:
        raise ValueError(f"{e.op} records no operands")
    return e


_BY_TAG = {
    ("data_copy", "Matmul ND2NZ"): _nd2nz,
    ("data_copy", "Matmul bias"): _bias,
    ("data_copy", "Matmul get_tensor_c"): _to_ub,
    ("load_data", "Matmul"): _load_data,
    ("mmad", "Matmul"): _mmad,
    ("fixpipe", "Matmul"): _fixpipe,
    **{(op, "Matmul"): _message for op in _MESSAGES},
}
MATMUL_OPS = frozenset(_MESSAGES)  # the ops only the Matmul records
# every op a kernel using asc.adv.Matmul records (for a challenge's Rules.allowed_ops)
ADV_MATMUL_OPS = MATMUL_OPS | {"data_copy", "load_data", "mmad", "fixpipe", "set_flag",
                               "wait_flag"}


def replay_matmul(rp: Replayer, c: CoreState, events: Sequence[Event], i: int) -> int:
    """Re-emit event i of asc.adv.Matmul (see the module docstring); returns 1 (events used)."""
    e = events[i]
    tag = dict(e.args)["adv"]
    fn = _BY_TAG.get((e.op, tag))
    if fn is None and e.op in ("set_flag", "wait_flag") and str(tag).startswith("Matmul "):
        fn = _flag
    if fn is None:
        raise ValueError(f"{e.op} labelled {tag!r} is not an instruction asc.adv.Matmul issues")
    if e.op in ("data_copy", "load_data", "mmad", "fixpipe") and (
            e.sync is not None or len(e.writes) != 1 or not e.reads):
        raise ValueError(f"{e.op} of asc.adv.Matmul has one destination, sources and no sync")
    c.append(fn(rp, c, e))
    return 1


__all__ = ["ADV_MATMUL_OPS", "MATMUL_OPS", "replay_matmul"]
