"""The Matmul tiling rules shared by the host and the kernel side.

1. The contract (pure functions the kernel-side Matmul imports): `effective(t, ...)` turns a
   TCubeTiling, generated or filled by hand, into the values the kernel uses; `check(t, chip,
   ...)` lists every way a tiling is invalid for a chip.
2. The generator: `plan(problem)` picks the core split, the base block, the L1 steps/depths
   and the L0 double buffering with a model of the emulator's cost model (docs/adv.md, "Host
   tiling"); it lives in tiling_plan.py and is re-exported here. asc.lib.host's classes
   (host_tiling.py) drive it; host_rules.py applies Ascend C's rules around it and writes the
   plan into a TCubeTiling.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..runtime.chips import CHIPS, ChipSpec, get_chip

# ---- the contract: what the emulated Matmul reads from a TCubeTiling ---------------------------
KFC_L1_RESERVED = 128  # bytes: Ascend C's TOTAL_L1_SIZE = 512 KiB - 128 on 910B (arch 2201)
BIAS_ROW_BYTES = 4  # bias row in L1 counted as float32 (single_core_n * 4 B)
L0C_ELEM_BYTES = 4  # L0C accumulates float inputs in 4-byte elements


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def align_up(a: int, b: int) -> int:
    return cdiv(a, b) * b


def l1_usable(chip: ChipSpec) -> int:
    """Bytes of L1 a Matmul may use: TOTAL_L1_SIZE (910B reserves 128 B for the KFC messages)."""
    return chip.l1_bytes - (KFC_L1_RESERVED if chip.arch == 2201 else 0)


def k_align(a_bytes: int, b_bytes: int) -> int:
    """base_k granularity: 32 B of K per fractal row (16 for 2-byte, 8 for 4-byte A/B)."""
    return 32 // min(a_bytes, b_bytes)


class Effective(NamedTuple):
    """The values the emulated Matmul uses, after defaults for hand-filled (zero) fields."""

    used_core_num: int
    m: int
    n: int
    k_a: int
    k_b: int
    single_core_m: int
    single_core_n: int
    single_core_k: int
    base_m: int
    base_n: int
    base_k: int
    step_m: int  # base blocks per L1 load along m
    step_n: int
    step_ka: int  # base_k slices per L1 load of A
    step_kb: int
    depth_a1: int  # A base tiles (base_m x base_k) held in L1
    depth_b1: int
    l1_buffers_a: int  # 1 or 2: depth_a1 // (step_m * step_ka), clamped to 1..2
    l1_buffers_b: int
    db_l0a: int  # 1 or 2 (2 = ping-pong)
    db_l0b: int
    db_l0c: int
    iterate_order: int  # 0 = ORDER_M (M fastest), 1 = ORDER_N
    is_bias: bool


def _l0_limits(chip: ChipSpec | str | None) -> tuple[int, int, int]:
    """(L0A, L0B, L0C) bytes of `chip`; with None the smallest of all emulated chips."""
    specs = list(CHIPS.values()) if chip is None else [get_chip(chip)]
    return (min(c.l0a_bytes for c in specs), min(c.l0b_bytes for c in specs),
            min(c.l0c_bytes for c in specs))


def _db(field: int, tile_bytes: int, capacity: int) -> int:
    if field in (1, 2):
        return field
    return 2 if 2 * tile_bytes <= capacity else 1


def effective(t: Any, a_bytes: int, b_bytes: int,
              chip: ChipSpec | str | None = None) -> Effective:
    """The values the kernel uses from tiling `t` (see docs/adv.md for each rule).

    With `chip` None, automatic L0 double buffering (db_l0* = 0) is decided against the
    smallest L0A/L0B/L0C of the emulated chips, so the result does not depend on a session.
    """
    step_m, step_n = max(1, int(t.step_m)), max(1, int(t.step_n))
    step_ka = int(t.step_k_a) if t.step_k_a > 0 else 1
    step_kb = int(t.step_k_b) if t.step_k_b > 0 else 1
    depth_a1 = max(int(t.depth_a1), step_m * step_ka)
    depth_b1 = max(int(t.depth_b1), step_n * step_kb)
    l0a, l0b, l0c = _l0_limits(chip)
    bm, bn, bk = int(t.base_m), int(t.base_n), int(t.base_k)
    return Effective(
        used_core_num=int(t.used_core_num), m=int(t.m), n=int(t.n), k_a=int(t.k_a),
        k_b=int(t.k_b), single_core_m=int(t.single_core_m), single_core_n=int(t.single_core_n),
        single_core_k=int(t.single_core_k), base_m=bm, base_n=bn, base_k=bk,
        step_m=step_m, step_n=step_n, step_ka=step_ka, step_kb=step_kb,
        depth_a1=depth_a1, depth_b1=depth_b1,
        l1_buffers_a=min(2, depth_a1 // (step_m * step_ka)),
        l1_buffers_b=min(2, depth_b1 // (step_n * step_kb)),
        db_l0a=_db(int(t.db_l0a), bm * bk * a_bytes, l0a),
        db_l0b=_db(int(t.db_l0b), bk * bn * b_bytes, l0b),
        db_l0c=_db(int(t.db_l0c), bm * bn * L0C_ELEM_BYTES, l0c),
        iterate_order=int(t.iterate_order) if t.iterate_order in (0, 1) else 0,
        is_bias=bool(t.is_bias),
    )


_POSITIVE = ("used_core_num", "m", "n", "k_a", "k_b", "single_core_m", "single_core_n",
             "single_core_k", "base_m", "base_n", "base_k")


def check(t: Any, chip: ChipSpec | str, a_bytes: int, b_bytes: int, bias: bool,
          max_cores: int | None = None, *, kernel: bool = True) -> list[str]:
    """Every way tiling `t` is invalid for `chip` (empty: valid). Each message names the
    field(s), the value(s) and the limit. `max_cores` is the kernel's block limit (aiv_cores for
    a MIX kernel, aic_cores for a cube-only one); None means chip.aiv_cores. kernel=False
    leaves out what only the emulated Matmul needs (k_a == k_b, coverage of m x n by
    used_core_num): the host's own check of a tiling Ascend C allows."""
    chip = get_chip(chip)
    limit = chip.aiv_cores if max_cores is None else max_cores
    errs = [f"{f} = {int(getattr(t, f))} must be >= 1" for f in _POSITIVE if getattr(t, f) < 1]
    bad = {f for f in _POSITIVE if getattr(t, f) < 1}
    kal = k_align(a_bytes, b_bytes)
    for f, unit, why in (("base_m", 16, "16-row fractals"), ("base_n", 16, "16-column fractals"),
                         ("base_k", kal, f"32 B of K per fractal row with {min(a_bytes, b_bytes)}"
                                         "-byte A/B")):
        if f not in bad and getattr(t, f) % unit:
            errs.append(f"{f} = {int(getattr(t, f))} is not a multiple of {unit} ({why})")
    if kernel and t.k_a != t.k_b:
        errs.append(f"k_a = {int(t.k_a)} differs from k_b = {int(t.k_b)}: the emulated Matmul "
                    "needs k_a == k_b")
    if t.used_core_num > limit:
        errs.append(f"used_core_num = {int(t.used_core_num)} exceeds max_cores {limit} "
                    f"(the kernel's block limit on {chip.name})")
    if kernel and not bad & {"m", "n", "single_core_m", "single_core_n", "used_core_num"}:
        blocks = cdiv(t.m, t.single_core_m) * cdiv(t.n, t.single_core_n)
        if blocks > t.used_core_num:
            errs.append(f"coverage: ceil(m/single_core_m)*ceil(n/single_core_n) = "
                        f"ceil({int(t.m)}/{int(t.single_core_m)})*ceil({int(t.n)}/"
                        f"{int(t.single_core_n)}) = {blocks} blocks exceed used_core_num "
                        f"{int(t.used_core_num)}: part of C would not be computed")
    if bad & {"base_m", "base_n", "base_k"}:
        return errs
    e = effective(t, a_bytes, b_bytes, chip)
    bm, bn, bk = e.base_m, e.base_n, e.base_k
    for mem, expr, dims, size, db, cap in (
            ("L0A", f"base_m*base_k*{a_bytes} B", f"{bm}*{bk}*{a_bytes} B", bm * bk * a_bytes,
             ("db_l0a", e.db_l0a, t.db_l0a), chip.l0a_bytes),
            ("L0B", f"base_k*base_n*{b_bytes} B", f"{bk}*{bn}*{b_bytes} B", bk * bn * b_bytes,
             ("db_l0b", e.db_l0b, t.db_l0b), chip.l0b_bytes),
            ("L0C", f"base_m*base_n*{L0C_ELEM_BYTES} B", f"{bm}*{bn}*{L0C_ELEM_BYTES} B",
             bm * bn * L0C_ELEM_BYTES, ("db_l0c", e.db_l0c, t.db_l0c), chip.l0c_bytes)):
        if size * db[1] > cap:
            auto = "" if db[2] in (1, 2) else f" ({db[0]} = {int(db[2])}: automatic)"
            errs.append(f"{mem}: {expr} x {db[0]} = {dims} x {db[1]} = {size * db[1]} B "
                        f"exceeds the {cap} B of {mem} on {chip.name}{auto}")
    a1 = e.depth_a1 * bm * bk * a_bytes
    b1 = e.depth_b1 * bk * bn * b_bytes
    row = int(t.single_core_n) * BIAS_ROW_BYTES if bias and t.single_core_n > 0 else 0
    cap = l1_usable(chip)
    if a1 + b1 + row > cap:
        bias_txt = f" + single_core_n*{BIAS_ROW_BYTES} B bias = {row} B" if row else ""
        errs.append(f"L1: depth_a1*base_m*base_k*{a_bytes} B + depth_b1*base_k*base_n*{b_bytes} B"
                    f" = {e.depth_a1}*{bm}*{bk}*{a_bytes} + {e.depth_b1}*{bk}*{bn}*{b_bytes} = "
                    f"{a1} + {b1} B{bias_txt}, total {a1 + b1 + row} B, exceeds the {cap} B of "
                    f"L1 usable on {chip.name}")
    return errs


_GENERATOR = frozenset({"Plan", "Problem", "plan"})


def __getattr__(name: str) -> Any:
    """The generator's names (tiling_plan.py, which imports this module), importable from
    here: looked up there on first use."""
    if name in _GENERATOR:
        from . import tiling_plan

        return getattr(tiling_plan, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
