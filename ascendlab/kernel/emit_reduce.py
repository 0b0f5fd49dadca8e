"""Reduction kernels. A reduction node covers one contiguous run of axes, so its input reads
as [A, R, B] (A rows before the run, R reduced, B after) and reduces over R:

- B == 1 (the run is trailing, e.g. a mean over H, W): each row's R elements stream through UB
  in tiles, are folded element-wise into one float32 tile, and a vector `reduce_sum` /
  `reduce_max` finishes the row. Sums land straight in a VECOUT tile of row results (reduce_sum
  writes one element, any offset); a max goes through the scalar pipe (its dst needs 8 B
  alignment), with the V->S and S->V flags that orders.
- B > 1 (e.g. a sum over a batch axis): a tile of B elements is accumulated over the R rows
  with vector add / max; tiles are the units split over the cores.
Accumulation is in float32 whatever the input dtype.
"""

from __future__ import annotations

from .plan import Step, storage
from .source import ESIZE, Src, blocks_for, copy_in, copy_out, core_split, header, prod, tile_for

FOLD = {"sum": "add", "max": "max"}


def dims(step: Step) -> tuple[int, int, int]:
    n = step.nodes[0]
    shape, axes = n.args[0].shape, n.attrs["axes"]
    return prod(shape[:axes[0]]), prod(shape[axes[0]:axes[-1] + 1]), prod(shape[axes[-1] + 1:])


def _load(src: Src, dtype: str, gm: str, aligned: bool, into: str | None) -> str:
    """Load a tile into x0 (queue); return the float32 tensor holding it (cast for fp16)."""
    src(f"x0 = qx0.alloc_tensor(asc.{dtype})")
    copy_in(src, "x0", gm, "n", dtype, aligned)
    src("qx0.enque(x0)", f"x0 = qx0.deque(asc.{dtype})")
    if dtype == "float32":
        return "x0"
    src(f"asc.cast({into}, x0, asc.RoundMode.CAST_NONE, n)", "qx0.free_tensor(x0)")
    return into or "x0"


def emit_reduce(step: Step, dtypes: dict[int, str], cores: int, title: str) -> tuple[str, int, int]:
    a, r, b = dims(step)
    kind = step.nodes[0].op
    dt = dtypes[storage(step.inputs[0]).id]
    aligned = lambda count: count * ESIZE[dt] % 32 == 0  # noqa: E731
    src = Src()
    if b == 1:
        return _rows(src, step, kind, dt, a, r, aligned(r), cores, title)
    tile = tile_for(b, 2 * ESIZE[dt] + 2 * 4 + 4, a, cores)
    chunks = -(-b // tile)
    blocks, per_core = blocks_for(a * chunks, cores)
    header(src, title, [("TILE", tile, "elements per tile"), ("R", r, "rows reduced"),
                        ("B", b, "elements per row (kept)"), ("CHUNKS", chunks, "tiles per row"),
                        ("UNITS", a * chunks, f"tiles to produce, over {blocks} vector cores")])
    src("@asc.jit", f"def {step.name}(x0: asc.GlobalAddress, y0: asc.GlobalAddress, "
        f"per_core: int):")
    src.indent()
    _prologue(src, dt, "TILE * 4")
    src("t0 = work.get_with_offset(TILE, 0, asc.float32)", "for u in range(first, last):")
    src.indent()
    src("a = u // CHUNKS", "col = u % CHUNKS * TILE", "n = B - col", "if n > TILE:", "    n = TILE",
        "y0 = qy0.alloc_tensor(asc.float32)", "for i in range(R):")
    src.indent()
    x = _load(src, dt, "gx0[(a * R + i) * B + col:]", aligned(b), "t0")
    src("if i == 0:", f"    asc.adds(y0, {x}, 0.0, n)", "else:",
        f"    asc.{FOLD[kind]}(y0, y0, {x}, n)")
    if dt == "float32":
        src("qx0.free_tensor(x0)")
    src.dedent()
    if "scale" in step.attrs:
        src(f"asc.muls(y0, y0, {step.attrs['scale']!r}, n)")
    src("qy0.enque(y0)", "y0 = qy0.deque(asc.float32)")
    copy_out(src, "gy0[a * B + col:]", "y0", "n", "float32", b % 8 == 0)
    src("qy0.free_tensor(y0)")
    return src.text(), blocks, per_core


def _prologue(src: Src, dt: str, work: str, out: str = "TILE * 4") -> None:
    core_split(src, "UNITS")
    src("gx0 = asc.GlobalTensor()", "gx0.set_global_buffer(x0)", "gy0 = asc.GlobalTensor()",
        "gy0.set_global_buffer(y0)", "pipe = asc.TPipe()",
        "qx0 = asc.TQue(asc.TPosition.VECIN, 2)", f"pipe.init_buffer(qx0, 2, TILE * {ESIZE[dt]})",
        "qy0 = asc.TQue(asc.TPosition.VECOUT, 1)", f"pipe.init_buffer(qy0, 1, {out})",
        "work = asc.TBuf(asc.TPosition.VECCALC)", f"pipe.init_buffer(work, {work})")


def _rows(src: Src, step: Step, kind: str, dt: str, a: int, r: int, aligned: bool, cores: int,
          title: str) -> tuple[str, int, int]:
    tile = tile_for(r, 2 * ESIZE[dt] + 3 * 4)
    chunks = -(-r // tile)
    blocks, per_core = blocks_for(a, cores)
    out = min(per_core, 2048)
    header(src, title, [("TILE", tile, "elements per tile"), ("R", r, "elements per row"),
                        ("CHUNKS", chunks, "tiles per row"),
                        ("UNITS", a, f"rows, split over {blocks} vector cores"),
                        ("OUT", out, "row results gathered in UB before one copy out")])
    src("@asc.jit", f"def {step.name}(x0: asc.GlobalAddress, y0: asc.GlobalAddress, "
        f"per_core: int):")
    src.indent()
    _prologue(src, dt, "TILE * 4 * 3 + 32", "OUT * 4")
    src("acc = work.get_with_offset(TILE, 0, asc.float32)",
        "cur = work.get_with_offset(TILE, TILE * 4, asc.float32)",
        "tmp = work.get_with_offset(TILE, TILE * 8, asc.float32)",
        "res = work.get_with_offset(8, TILE * 12, asc.float32)",
        "for base in range(first, last, OUT):")
    src.indent()
    src("count = last - base", "if count > OUT:", "    count = OUT")
    if kind == "sum":
        src("y0 = qy0.alloc_tensor(asc.float32)")
    src("for j in range(count):")
    src.indent()
    src("row = base + j")
    whole = "acc" if chunks > 1 else None
    if chunks > 1:
        src("for c in range(CHUNKS):")
        src.indent()
        src("col = c * TILE", "n = R - col", "if n > TILE:", "    n = TILE")
        x = _load(src, dt, "gx0[row * R + col:]", aligned, "cur")
        src("if c == 0:", f"    asc.adds(acc, {x}, 0.0, n)", "else:",
            f"    asc.{FOLD[kind]}(acc, acc, {x}, n)")
        if dt == "float32":
            src("qx0.free_tensor(x0)")
        src.dedent()
        src("n = TILE")
    else:
        src("n = R")
        whole = _load(src, dt, "gx0[row * R:]", aligned, "cur")
    if kind == "sum":
        src(f"asc.reduce_sum(y0[j:], {whole}, tmp, n)")
    else:
        src(f"asc.reduce_max(res, {whole}, tmp, n)",
            "asc.set_flag(asc.HardEvent.V_S, 0)", "asc.wait_flag(asc.HardEvent.V_S, 0)",
            "gy0.set_value(row, res.get_value(0))",
            "asc.set_flag(asc.HardEvent.S_V, 0)", "asc.wait_flag(asc.HardEvent.S_V, 0)")
    if chunks == 1 and dt == "float32":
        src("qx0.free_tensor(x0)")
    src.dedent()
    if kind == "sum":
        if "scale" in step.attrs:
            src(f"asc.muls(y0, y0, {step.attrs['scale']!r}, count)")
        src("qy0.enque(y0)", "y0 = qy0.deque(asc.float32)")
        copy_out(src, "gy0[base:]", "y0", "count", "float32", False)
        src("qy0.free_tensor(y0)")
    return src.text(), blocks, per_core
