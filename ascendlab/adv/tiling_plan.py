"""The Matmul tiling generator (part 2 of tiling.py's rules): `plan(problem)` picks the core
split, the base block, the L1 steps/depths and the L0 double buffering with a model of the
emulator's cost model (docs/adv.md, "Host tiling"); host_rules.py writes the plan into a
TCubeTiling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..analysis.cost import COST
from ..runtime.chips import ChipSpec
from .tiling import BIAS_ROW_BYTES, L0C_ELEM_BYTES, align_up, cdiv, k_align


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

