"""The cycle model against published Ascend 910B2 measurements (issue 18).

    python benchmarks/fidelity.py [--quick] [--rows NAME[,NAME...]]

Each row of ROWS is a piece of work with a figure measured on real hardware and its source;
the work runs on the emulator (on Ascend910B2) and the cycle model's figure is printed beside
it, with modelled / real. What is compared:

* benchmark-loop figures (matmul, swiglu): the published numbers time an op that runs again
  and again, so the modelled figure is cost.back_to_back(run): the footprint still in L2 from
  the previous iteration when it fits, plus the back-to-back launch overhead;
* single instructions (GM->UB copy, L1->L0A load): cycles from the instruction's start on its
  pipe to its result being ready;
* alignment: the bandwidth of a 32 B-aligned GM->UB copy over a 512 B-aligned one;
* launch: ChipSpec.launch_us on every core, isolated; a tiny op back to back.

Large problems are not emulated whole (the emulator runs ~5,000 instructions per second: a
4096^3 matmul is 0.46 M instructions, 8192^3 3.7 M). Their per-core programs are one loop
repeated, so the row emulates the same per-core work at two shorter loops (matmul: the same
core grid, 1 and 2 base blocks per core with the whole K; swiglu: 2 and 4 tiles per core),
costs both and extrapolates linearly to the real length (_loop_us). Whether the L2 is warm
is decided by the real problem's footprint (_loop_cost); the L2 reuse distances of a short
loop are those of the long one (the same steps). tests/analysis/test_fidelity.py checks the
extrapolation against a whole emulation (extrapolation_check).

Run time (one run, model 2.0): all rows 107 s of CPU (395 s wall on the shared 2-core dev
machine); 8192^3 is about 45 s of that CPU and --quick leaves it out.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ascendlab  # noqa: E402
from ascendlab.analysis.cost import back_to_back  # noqa: E402
from ascendlab.runtime.chips import get_chip  # noqa: E402
from benchmarks.fidelity_kernels import gm_to_ub, l1_to_l0a, swiglu  # noqa: E402

CHIP = "Ascend910B2"
MM_SRC = ("torch_npu fp16 matmul on Ascend910B2: github.com/zzc0721/torch-performance-test-data "
          "issue 109 (TFLOPS -> us)")
SW_SRC = "torch_npu swiglu fp16 on 910B: github.com/flagos-ai/FlagGems pull 6324 (kernel mode)"


@dataclass(frozen=True)
class Row:
    """One comparison: `measure()` returns the modelled figure in `unit`."""

    name: str
    work: str
    real: float
    unit: str
    source: str
    measure: Callable[[], float]
    slow: bool = False  # left out by --quick
    fit: bool = False  # the real figure set a model parameter (the row checks it is applied)


# ---- helpers ---------------------------------------------------------------------------------
def _loop_cost(run: Any, full_footprint: float) -> Any:
    """The loop's cost as a benchmark iteration: back_to_back when the real problem's footprint
    fits the L2 (it stays there from the previous iteration), else the cold-L2 cost (whose
    back_to_back_us still carries the back-to-back launch overhead)."""
    if full_footprint <= run.chip.l2_bytes:
        return back_to_back(run)
    return run.cost


def _loop_us(make: Callable[[int], Any], lengths: tuple[int, int], full: float,
             full_footprint: float) -> float:
    """Modelled back-to-back time (us) at loop length `full`: the line through the kernel
    times of make(length) at `lengths`, plus the back-to-back launch overhead."""
    points = []
    for n in lengths:
        cost = _loop_cost(make(n), full_footprint)
        kernel = cost.cycles / cost.chip.clock_mhz
        points.append((n, kernel))
    (x1, y1), (x2, y2) = points
    return y1 + (y2 - y1) * (full - x1) / (x2 - x1) + cost.back_to_back_us - kernel


# ---- matmul -------------------------------------------------------------------------------------
MM_BASE = (128, 256, 64)  # base M, N, K: CATLASS's A2 fp16 L0 tile (see matmul_run)


def matmul_run(m: int, n: int, k: int, blocks: int | None = None) -> Any:
    """fp16 x fp16 -> fp16 matmul (fp32 accumulation, as torch's fp16 matmul) through
    asc.adv.Matmul, host tiling on all 24 cube cores with the base block fixed to 128 x 256 x
    64 (CATLASS examples' L0TileShape for Atlas A2 fp16; the default host tiling picks thin
    blocks at 2048^3 that a tuned library avoids). blocks: keep the tiling's core grid but give
    each core only `blocks` base blocks (one column of them) and the whole K: the short loop
    that matmul_us extrapolates."""
    from tests.adv.matmul_kernels import mm_cube_only, operands

    tiling = get_host_tiling(m, n, k)
    if blocks is not None:
        m_cores = -(-m // tiling.single_core_m)
        n_cores = -(-n // tiling.single_core_n)
        tiling.single_core_m, tiling.single_core_n = blocks * MM_BASE[0], MM_BASE[1]
        tiling.m, tiling.n = m_cores * tiling.single_core_m, n_cores * tiling.single_core_n
        m, n = tiling.m, tiling.n
    a, b, bias = operands(m, k, n)
    c = np.zeros((m, n), np.float16)
    run = mm_cube_only[tiling.used_core_num](a, b, c, bias, tiling)
    if not np.array_equal(c, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)):
        raise AssertionError(f"matmul {m}x{k}x{n}: wrong result")
    return run


def get_host_tiling(m: int, n: int, k: int) -> Any:
    from tests.adv.matmul_kernels import host_tiling

    return host_tiling(m, n, k, dim=get_chip(CHIP).aic_cores, fix=MM_BASE, c="DT_FLOAT16")


def matmul_us(size: int, extrapolate: bool = False) -> float:
    """Modelled back-to-back time of a size^3 matmul; extrapolate: from 1 and 2 base blocks
    per core (see matmul_run) to the fullest core's count."""
    if not extrapolate:
        return back_to_back(matmul_run(size, size, size)).time_us
    full = get_host_tiling(size, size, size)
    per_core = (-(-full.single_core_m // MM_BASE[0])) * (-(-full.single_core_n // MM_BASE[1]))

    def make(blocks: int) -> Any:
        return matmul_run(size, size, size, blocks)

    return _loop_us(make, (1, 2), per_core, 6.0 * size * size)  # A, B, C fp16


# ---- swiglu (element-wise streaming) ---------------------------------------------------------
CORES_AIV = 48  # Ascend910B2's vector cores


def swiglu_run(cores: int, tr: int, tc: int, iters: int, flat: bool) -> tuple[Any, float]:
    """The swiglu kernel on `cores` blocks of `iters` tiles of tr x tc; flat: x is one row
    (each core a contiguous run of columns), else each core owns tr * iters whole rows of
    2 * tc columns. Returns (run, GM footprint in bytes)."""
    if flat:
        rows, cols, col_blocks, h, total = 1, tc * iters, cores, tc * iters * cores, 1
    else:
        rows, cols, col_blocks, h, total = tr * iters, tc, 1, tc, cores * tr * iters
    x = np.ones((total, 2 * h), np.float16)
    y = np.zeros((total, h), np.float16)
    run = swiglu[cores](x, y, h, rows, cols, col_blocks, tr, tc, iters)
    return run, float(x.nbytes + y.nbytes)


def swiglu_rows_us(rows: int, h: int, tr: int, lengths: tuple[int, int] = (2, 4)) -> float:
    """(rows, 2h) -> (rows, h) on all vector cores, tiles of tr whole rows; rows are split
    evenly, rounded up (the fullest core sets the time)."""
    per_core = -(-rows // CORES_AIV)

    def make(iters: int) -> Any:
        return swiglu_run(CORES_AIV, tr, h, iters, flat=False)[0]

    return _loop_us(make, lengths, per_core / tr, 6.0 * rows * h)


def swiglu_flat_us(n: int, tc: int = 4096, lengths: tuple[int, int] = (2, 4)) -> float:
    """1-D x of n elements: halves a | b, each core a contiguous run of tc-element tiles."""

    def make(iters: int) -> Any:
        return swiglu_run(CORES_AIV, 1, tc, iters, flat=True)[0]

    return _loop_us(make, lengths, n / 2 / CORES_AIV / tc, 3.0 * n)


def swiglu_full_us(rows: int, h: int, tr: int) -> float:
    """The same as swiglu_rows_us, emulated whole (rows rounded up per core to whole tiles)."""
    iters = -(-rows // CORES_AIV // tr)
    run, _ = swiglu_run(CORES_AIV, tr, h, iters, flat=False)
    return back_to_back(run).time_us


def extrapolation_check(rows: int = 48 * 14, h: int = 1024, tr: int = 2) -> tuple[float, float]:
    """(extrapolated, emulated whole) us of a swiglu whose rows fill whole tiles."""
    return swiglu_rows_us(rows, h, tr), swiglu_full_us(rows, h, tr)


# ---- single instructions ------------------------------------------------------------------------
def _instr_cycles(run: Any, op: str) -> float:
    """Start-to-ready cycles of the first `op` instruction of `run`."""
    i = next(k for k, e in enumerate(run.trace) if e[2] == op)
    return run.cost.end[i] - run.cost.start[i]


def gm_to_ub_cycles(nbytes: int = 8192, offset_bytes: int = 0) -> float:
    """One GM -> UB DataCopy of nbytes from a GM address offset_bytes past a 512 B boundary."""
    x = np.zeros((nbytes + 1024) // 2, np.float16)
    return _instr_cycles(gm_to_ub[1](x, offset_bytes // 2, nbytes // 2), "data_copy")


def aligned_ratio(nbytes: int = 64 * 1024) -> float:
    """Bandwidth of a 32 B-aligned GM -> UB copy over a 512 B-aligned one (one core)."""
    return gm_to_ub_cycles(nbytes, 0) / gm_to_ub_cycles(nbytes, 32)


def l1_to_l0a_cycles(nbytes: int = 32 * 1024) -> float:
    a = np.zeros(nbytes // 2, np.float16)
    return _instr_cycles(l1_to_l0a[1](a, nbytes // 512), "load_data")


# ---- launch -------------------------------------------------------------------------------------
def launch_isolated_us() -> float:
    chip = get_chip(CHIP)
    return chip.launch_us(chip.aiv_cores)


def tiny_op_us(rows: int = 256, h: int = 64) -> float:
    """swiglu of (rows, 2h) fp16 back to back, one tile of up to 32 rows per core, on the core
    count (a power of two) the model finds fastest: for us-scale ops the ADK advises tuning
    the core count against the launch overhead (头尾开销优化), as a tuned library does."""
    times = []
    for cores in (1, 2, 4, 8, 16):
        tr = rows // cores
        iters = max(1, tr // 32)
        run, _ = swiglu_run(cores, tr // iters, h, iters, flat=False)
        times.append(back_to_back(run).time_us)
    return min(times)


# ---- the table ----------------------------------------------------------------------------------
ROWS: list[Row] = [
    Row("mm1024", "fp16 matmul 1024^3", 21.9, "us", MM_SRC + ": 98.08 TF",
        lambda: matmul_us(1024)),
    Row("mm2048", "fp16 matmul 2048^3", 68.4, "us", MM_SRC + ": 251.01 TF",
        lambda: matmul_us(2048)),
    Row("mm4096", "fp16 matmul 4096^3", 437.0, "us", MM_SRC + ": 314.52 TF",
        lambda: matmul_us(4096, extrapolate=True)),
    Row("mm8192", "fp16 matmul 8192^3", 3600.0, "us", MM_SRC + ": 305.46 TF",
        lambda: matmul_us(8192, extrapolate=True), slow=True),
    Row("sw805MB", "swiglu fp16 [268435456], 805 MB moved", 667.2, "us",
        SW_SRC + ": 0.667183 ms", lambda: swiglu_flat_us(268435456), fit=True),
    Row("sw92MB", "swiglu fp16 [15000, 2048], 92 MB moved (fits L2)", 48.5, "us",
        SW_SRC + ": 0.048458 ms", lambda: swiglu_rows_us(15000, 1024, 4)),
    Row("gm2ub8K", "one 8 KB GM->UB DataCopy", 469.5, "cycles",
        "msopprof simulator CSV (910B), tile-ai/tilelang-ascend examples/cann-bench/foreach_norm:"
        " MOV_OUT_TO_UB 2 calls 939 cycles", gm_to_ub_cycles),
    Row("align32", "GM->UB bandwidth, 32 B- over 512 B-aligned", 0.70, "ratio",
        "asc-devkit docs 算子实践参考/SIMD算子性能优化/内存访问/GM地址尽量512B对齐.md (A2)",
        aligned_ratio, fit=True),
    Row("l1l0a32K", "one 32 KB L1->L0A load_data", 156.0, "cycles",
        "asc-devkit tests/perf/load_data_perf/README.md: 256 B/cycle, 28 cycles latency",
        l1_to_l0a_cycles, fit=True),
    Row("launch", "launch overhead, all cores, isolated", 20.5, "us",
        "asc-devkit docs 算子实践参考/性能分析/分析性能数据.md: 满核头开销约为20~21微秒",
        launch_isolated_us, fit=True),
    Row("tinyop", "swiglu fp16 [256, 128] back to back", 3.067, "us",
        SW_SRC + ": 0.003067 ms", tiny_op_us),
]


def measure(names: list[str] | None = None, quick: bool = False) -> list[tuple[Row, float, float]]:
    """(row, modelled, seconds) for the chosen rows."""
    ascendlab.configure(chip=CHIP)
    out = []
    for row in ROWS:
        if names and row.name not in names or quick and row.slow and not names:
            continue
        t0 = time.perf_counter()
        got = row.measure()
        out.append((row, got, time.perf_counter() - t0))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="leave out the slow rows (8192^3)")
    p.add_argument("--rows", default="", help="comma-separated row names")
    args = p.parse_args(argv)
    names = [r for r in args.rows.split(",") if r]
    t0 = time.perf_counter()
    print(f"{'row':9} {'work':50} {'real':>10} {'modelled':>10} {'ratio':>6}  unit"
          "       wall")
    for row, got, wall in measure(names, args.quick):
        print(f"{row.name:9} {row.work:50} {row.real:10.4g} {got:10.4g} {got / row.real:6.2f}"
              f"  {row.unit:7}{' fit' if row.fit else '    '} {wall:5.1f} s", flush=True)
    print(f"total wall {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
