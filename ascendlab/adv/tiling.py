"""The Matmul tiling rules shared by the host and the kernel side.

1. The contract (pure functions the kernel-side Matmul imports): `effective(t, ...)` turns a
   TCubeTiling, generated or filled by hand, into the values the kernel uses; `check(t, chip,
   ...)` lists every way a tiling is invalid for a chip.
2. The generator: `plan(problem)` picks the core split, the base block, the L1 steps/depths
   and the L0 double buffering with a model of the emulator's cost model (docs/adv.md, "Host
   tiling"). asc.lib.host's classes (host_tiling.py) drive it; host_rules.py applies Ascend
   C's rules around it and writes the plan into a TCubeTiling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..analysis.cost import COST
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


# ---- the generator -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """Everything get_tiling needs, validated: shapes in elements, budgets in bytes."""

    chip: ChipSpec
    m: int
    n: int
    k: int  # the computed K (set_shape); k_a/k_b of the tiling are the org K
    a_bytes: int
    b_bytes: int
    c_bytes: int
    bias: bool
    dim: int  # blocks allowed
    l1: int
    l0c: int
    base: tuple[int, int, int]  # set_fix_split, -1 = choose
    single: tuple[int, int]  # set_single_shape m, n, -1 = choose
    align: tuple[int, int]  # set_align_split m, n, 1 = none
    iterate_order: int


@dataclass(frozen=True)
class Plan:
    """One candidate tiling and its modelled cost."""

    key: tuple  # sort key: (cycles, GM bytes read, blocks, ragged, base_m > base_n)
    scm: int
    scn: int
    used: int
    m_dim: int
    n_dim: int
    bm: int
    bn: int
    bk: int
    l1a: tuple[int, int]  # A in L1: (step_ka, buffers)
    l1b: tuple[int, int]  # B in L1: (step_kb, buffers)
    db: tuple[int, int, int]  # db_l0a, db_l0b, db_l0c


def _splits(total: int, dim: int, unit: int, fixed: int) -> dict[int, int]:
    """{single_core size: blocks} for splitting `total` into at most `dim` blocks."""
    if fixed > 0:
        return {fixed: cdiv(total, fixed)}
    out: dict[int, int] = {}
    for d in range(1, dim + 1):
        size = min(align_up(cdiv(total, d), unit), total)
        out.setdefault(size, cdiv(total, size))
        if size <= unit:
            break
    return out


def _base_k(p: Problem, bm: int, bn: int, kal: int) -> int:
    """The largest base_k (multiple of kal, at most K aligned) whose A and B tiles each fit half
    of L0A / L0B (room to double-buffer); else fit them whole; 0 if not even that."""
    chip, k_al = p.chip, align_up(p.k, kal)
    for share in (2, 1):
        room = min(chip.l0a_bytes // share // (bm * p.a_bytes),
                   chip.l0b_bytes // share // (bn * p.b_bytes))
        bk = min(k_al, room // kal * kal)
        if bk >= kal:
            return bk
    return 0


def _l1_room(p: Problem, scn: int, bn: int) -> int:
    """L1 bytes for A and B tiles: the budget, less a bias row when there is a bias (check
    counts single_core_n*4; the emulated Matmul holds base_n*4 of it)."""
    return p.l1 - (align_up(max(scn, bn) * BIAS_ROW_BYTES, 64) if p.bias else 0)


def _l1_plans(p: Problem, k_iter: int, a_tile: int, b_tile: int, room: int, m_iter: int,
              n_iter: int, every: bool) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(A (step_ka, buffers), B (step_kb, buffers)) layouts of L1 that fit `room`. Streaming:
    steps 1..4 double-buffered (single-buffered at step 1 as a last resort). Full load: the
    operand the iterate order reuses (B for ORDER_M, A for ORDER_N) holds its whole K in one
    buffer, the other streams. With every=False only the first streaming layout that fits
    (the biggest step: Ascend's default shape of depth 8 = 2 x step 4)."""
    out = []
    for s in range(min(4, k_iter), 0, -1):
        if 2 * s * (a_tile + b_tile) <= room:
            out.append(((s, 2), (s, 2)))
            if not every:
                return out
    if not out and a_tile + b_tile <= room:
        out.append(((1, 1), (1, 1)))
    if every and k_iter > 1:
        reuse_b = p.iterate_order == 0 and m_iter > 1
        reuse_a = p.iterate_order == 1 and n_iter > 1
        for s in range(min(4, k_iter), 0, -1):
            if reuse_b and k_iter * b_tile + 2 * s * a_tile <= room:
                out.append(((s, 2), (k_iter, 1)))
            if reuse_a and k_iter * a_tile + 2 * s * b_tile <= room:
                out.append(((k_iter, 1), (s, 2)))
    return out


def _cost(p: Problem, scm: int, mb: int, scn: int, nb: int, bm: int, bn: int, bk: int,
          l1a: tuple[int, int], l1b: tuple[int, int], db: tuple[int, int, int]) -> tuple:
    """Modelled cycles of the biggest block, and its GM bytes read (docs/adv.md). Each pipe's
    busy time is summed instruction by instruction as the cost model charges it (setup, a
    per-burst or per-fractal charge, bytes / rate): MTE2 (GM -> L1, one burst per row), MTE1
    (L1 -> L0, per fractal), the cube and FixPipe (one burst per row) overlap after the first
    loads arrive; a single-buffered L0C serialises FixPipe with the cube, and GM reads and
    writes share one port."""
    chip, cc = p.chip, COST
    m_iter, n_iter, k_iter = cdiv(scm, bm), cdiv(scn, bn), cdiv(p.k, bk)
    blocks, used = m_iter * n_iter, mb * nb
    # An operand is read once when a whole K panel fits one L1 buffer and stays resident:
    # the one the iterate order reuses (B for ORDER_M) always does; the other only if all its
    # panels fit its buffers.
    order_m = p.iterate_order == 0
    full_a = l1a[0] >= k_iter and (not order_m or m_iter <= l1a[1])
    full_b = l1b[0] >= k_iter and (order_m or n_iter <= l1b[1])
    rd, wr, l2 = chip.gm_rates(min(used, chip.aic_cores))  # the cost model's port rates
    a_reads = (1 if full_a else n_iter) * scm * p.k * p.a_bytes
    b_reads = (1 if full_b else m_iter) * scn * p.k * p.b_bytes
    # L2 (as the cost model has it): a tile read R times in the launch comes from HBM once,
    # each read paying 1/R of it; a read that is mostly L2 takes the core's L2 port
    reuse_a = nb * (1 if full_a else n_iter)  # reads of one A tile, over all cores
    reuse_b = mb * (1 if full_b else m_iter)
    t_a = a_reads / reuse_a / rd + a_reads * (reuse_a - 1) / reuse_a / l2
    t_b = b_reads / reuse_b / rd + b_reads * (reuse_b - 1) / reuse_b / l2
    loads_a = m_iter if full_a else blocks * cdiv(k_iter, l1a[0])
    loads_b = n_iter if full_b else blocks * cdiv(k_iter, l1b[0])
    rows_b = min(l1b[0] * bk, p.k)  # B's ND rows run along K
    mte2 = (t_a + t_b + loads_a * (cc.dma_setup + cc.dma_block * (bm - 1))
            + loads_b * (cc.dma_setup + cc.dma_block * (rows_b - 1)))
    c0 = 32 // p.a_bytes
    fa, fb = (bm // 16) * cdiv(bk, c0), cdiv(bk, c0) * (bn // 16)  # fractals per L0 slice
    steps = blocks * k_iter
    mte1 = steps * (2 * cc.dma_setup + fa * 512 / chip.l1_to_l0a_bytes_per_cycle
                    + fb * 512 / chip.l1_to_l0b_bytes_per_cycle)
    cube = steps * (cc.cube_setup + (bm // 16) * (bn // 16) * cdiv(bk, 16)
                    * (4 if p.a_bytes == 4 else 1))
    written = scm * scn * p.c_bytes
    fix = blocks * (cc.dma_setup + cc.fix_setup + cc.dma_block * (bm - 1)) + written / wr
    first = (cc.dma_latency + (min(l1a[0], k_iter) * bm + min(l1b[0], k_iter) * bn) * bk
             * p.a_bytes / rd)
    # the HBM port carries the writes and the reads nobody else makes; the L2 port the rest
    hbm_port = written / wr + (t_a if reuse_a < 2 else 0) + (t_b if reuse_b < 2 else 0)
    l2_port = (t_a if reuse_a >= 2 else 0) + (t_b if reuse_b >= 2 else 0)
    cycles = max(cube + (fix if db[2] == 1 else 0), mte2, mte1, fix, hbm_port, l2_port) + first
    ragged = (mb > 1 and scm % bm != 0) or (nb > 1 and scn % bn != 0)
    return (round(cycles), a_reads + b_reads, used, ragged, bm > bn)


def _candidates(p: Problem, scm: int, mb: int, scn: int, nb: int, bm: int, bn: int,
                kal: int, every: bool) -> list[Plan]:
    """The plans of one core split and base block (every=False: the default L1 layout)."""
    chip = p.chip
    bk = p.base[2] if p.base[2] > 0 else _base_k(p, bm, bn, kal)
    a_tile, b_tile = bm * bk * p.a_bytes, bk * bn * p.b_bytes
    if bk <= 0 or a_tile > chip.l0a_bytes or b_tile > chip.l0b_bytes:
        return []
    db = (2 if 2 * a_tile <= chip.l0a_bytes else 1, 2 if 2 * b_tile <= chip.l0b_bytes else 1,
          2 if 2 * bm * bn * L0C_ELEM_BYTES <= p.l0c else 1)
    room = _l1_room(p, scn, bn)
    return [Plan(_cost(p, scm, mb, scn, nb, bm, bn, bk, l1a, l1b, db), scm, scn, mb * nb, mb,
                  nb, bm, bn, bk, l1a, l1b, db)
            for l1a, l1b in _l1_plans(p, cdiv(p.k, bk), a_tile, b_tile, room, cdiv(scm, bm),
                                      cdiv(scn, bn), every)]


def _bases_mn(p: Problem, scm: int, scn: int) -> list[tuple[int, int]]:
    """base_m x base_n candidates for a core block: set_fix_split's, else, for each area up to
    Ascend's 128 x 256 (L0C holds it once) down to a quarter of it, the shape with the least
    padding (ties: base_m <= base_n), none above the block aligned to 16."""
    bm_fix, bn_fix, _ = p.base
    cap = p.l0c // L0C_ELEM_BYTES  # elements; both fixed: the user's choice if L0C holds it
    top = cap if bm_fix > 0 and bn_fix > 0 else min(cap, 128 * 256)
    ms = [bm_fix] if bm_fix > 0 else range(16, min(256, align_up(scm, 16)) + 1, 16)
    ns = [bn_fix] if bn_fix > 0 else range(16, min(256, align_up(scn, 16)) + 1, 16)
    best: dict[int, tuple] = {}
    for bm in ms:
        for bn in ns:
            if bm * bn > top:
                continue
            pad = cdiv(scm, bm) * bm * cdiv(scn, bn) * bn
            key = (pad, bm > bn)
            if bm * bn not in best or key < best[bm * bn][0]:
                best[bm * bn] = (key, bm, bn)
    areas = sorted(best, reverse=True)
    keep = [a for a in areas if a * 4 >= areas[0]] if areas else []
    return [(best[a][1], best[a][2]) for a in keep]


def plan(p: Problem) -> Plan | str:
    """The cheapest tiling for problem `p` (a Plan), or why there is none (a str): every core
    split, base block and L1 layout (steps, full loads) is costed."""
    kal = k_align(p.a_bytes, p.b_bytes)
    bm_fix, bn_fix, _ = p.base
    unit_m = math.lcm(16, p.align[0], bm_fix if bm_fix > 0 else 1)
    unit_n = math.lcm(16, p.align[1], bn_fix if bn_fix > 0 else 1)
    best: Plan | None = None
    for scm, mb in _splits(p.m, p.dim, unit_m, p.single[0]).items():
        for scn, nb in _splits(p.n, p.dim, unit_n, p.single[1]).items():
            if mb * nb > p.dim:
                continue
            for base in _bases_mn(p, scm, scn):
                for c in _candidates(p, scm, mb, scn, nb, *base, kal, every=True):
                    if best is None or c.key < best.key:
                        best = c
    if best is not None:
        return best
    if p.single[0] > 0 and p.single[1] > 0 and (cdiv(p.m, p.single[0]) * cdiv(p.n, p.single[1])
                                                 > p.dim):
        return (f"set_single_shape {p.single[0]} x {p.single[1]} needs "
                f"{cdiv(p.m, p.single[0]) * cdiv(p.n, p.single[1])} blocks for {p.m} x {p.n}, "
                f"more than set_dim {p.dim}")
    return (f"no base block fits: L1 budget {p.l1} B, L0C budget {p.l0c} B, L0A {p.chip.l0a_bytes}"
            f" B, L0B {p.chip.l0b_bytes} B on {p.chip.name} (set_fix_split {p.base})")
