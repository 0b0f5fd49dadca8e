"""The cycle model's memory rules (cost.py applies them): what one DMA instruction costs on its
pipe and GM port, and which GM reads the L2 serves (reuse, capacity, a warm L2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..runtime.chips import ChipSpec

if TYPE_CHECKING:
    from .cost import CostTable


def l2_misses(gm_reads: list[tuple], reuse: dict[tuple, int], distinct: int, l2_bytes: int,
              active: int) -> dict[tuple, int]:
    """Reads of each GM tile that miss the L2 (the rest hit): the first, and, when the distinct
    bytes read exceed the L2, every re-read whose reuse distance does: the cores read at the
    same pace (ASSUMPTION), so between two reads of a tile at read offsets t0 < t1 of their
    cores the chip reads about (t1 - t0) * active bytes, and an LRU L2 still holds the tile
    when that is at most its size."""
    if distinct <= l2_bytes:
        return {}  # every tile fits: one miss each (the default)
    window = l2_bytes / max(1, active)
    last: dict[tuple, int] = {}
    misses: dict[tuple, int] = {}
    for r in sorted(gm_reads, key=lambda r: r[6]):
        key, t = r[1], r[6]
        if reuse[key] > 1:
            seen = last.get(key)
            if seen is None or t - seen > window:
                misses[key] = misses.get(key, 0) + 1
            last[key] = t
    return misses






def l2_hits(gm_reads: list[tuple], written: dict[tuple, int], arrays: tuple, dma_cache: dict,
            table: CostTable, chip: ChipSpec, rates: tuple[float, float, float, float],
            active: int, warm_l2: bool) -> tuple[int, float]:
    """Cost every GM read once L2 reuse is known (module docstring): fills occ, lat, port and
    fixed of the reads; returns (bytes no longer read from HBM, as counted, and L2 hit bytes)."""
    occ, lat, port, fixed = arrays
    rd_rate, wr_rate, l2_rate, slow_rate = rates
    reuse: dict[tuple, int] = {}
    for r in gm_reads:
        reuse[r[1]] = reuse.get(r[1], 0) + 1
    distinct = sum(k[1] * k[2] for k in reuse)
    misses = l2_misses(gm_reads, reuse, distinct, chip.l2_bytes, active)
    # warm L2: the previous identical launch left the footprint (bytes read and written) in L2
    # if it fits; a larger footprint evicted itself on the way (ASSUMPTION: LRU-like)
    warm = warm_l2 and distinct + sum(k[1] * k[2] for k in written if k not in reuse) \
        <= chip.l2_bytes
    hits = 0
    gm_hit = 0.0
    for i, key, moved, repeats, dst, slow, _t in gm_reads:
        w = written.get(key)
        r = reuse[key]
        if warm or w is not None and w < i:
            hit = float(moved)  # bytes a GM write produced (or the last launch left) are in L2
        elif r > 1:
            hit = moved * (r - misses.get(key, 1)) / r  # the misses spread over the reads
        else:
            hit = 0.0
        dkey = ("GM", dst, moved, repeats, hit, slow)
        got = dma_cache.get(dkey)
        if got is None:
            got = dma_cache[dkey] = dma_cost(table, chip, "GM", dst, moved, repeats, rd_rate,
                                              wr_rate, hit, l2_rate, slow_rate if slow else 1.0)
        occ[i], lat[i], port[i] = got
        fixed[i] = occ[i] - port[i]
        if hit * 2 > moved:  # mostly L2 hits: the transfer takes the core's L2 port
            port[i] = -port[i]
        hits += int(hit)
        gm_hit += hit
    return hits, gm_hit


def dma_cost(table: CostTable, chip: ChipSpec, src: str, dst: str, nbytes: int, blocks: int,
              rd_rate: float, wr_rate: float, hit: float = 0.0,
              l2_rate: float = 1.0, slow: float = 1.0) -> tuple[float, float, float]:
    """(pipe occupancy, latency, GM port occupancy) of one DMA instruction; `hit` bytes of a
    GM read come from L2; a GM transfer off the 512 B alignment runs at `slow` of the rate."""
    setup = table.dma_setup + table.dma_block * max(0, blocks - 1)
    if src == "GM":
        t = ((nbytes - hit) / rd_rate + hit / l2_rate) / slow
        return setup + t, table.dma_latency, t
    if dst == "GM":
        t = nbytes / wr_rate / slow
        extra = table.fix_setup if src == "L0C" else 0
        return setup + extra + t, table.dma_latency, t
    # L1 -> L0: a load_data's repeats are 512 B fractals streamed at the L1 -> L0 rate, not
    # separate bursts: no per-burst charge; the start latency overlaps the previous load
    if dst == "L0A":
        return nbytes / chip.l1_to_l0a_bytes_per_cycle, table.l0_load_latency, 0.0
    if dst == "L0B":
        return nbytes / chip.l1_to_l0b_bytes_per_cycle, table.l0_load_latency, 0.0
    # UB->UB on the vector pipe, UB<->L1 on coupled chips: at the vector rate
    return setup + nbytes / chip.vector_bytes_per_cycle, table.local_dma_latency, 0.0
