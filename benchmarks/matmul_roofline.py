"""A large fp16 matmul through asc.adv.Matmul: modelled cycles against the chip's cube roofline.

    python benchmarks/matmul_roofline.py [--chip Ascend910B2] [--m 3072 --k 1024 --n 3072]
                                         [--mode cube|mix] [--target 0.70]

The tiling comes from asc.lib.host.MultiCoreMatmulTiling (what a pyasc user gets); the kernel
is the cube-only (or MIX) Matmul kernel of tests/adv/matmul_kernels.py. Prints the modelled
cycles, the cube roofline (MACs / (4096 per cycle x cube cores)), their ratio, the pipes'
utilisation and the emulator's wall time. Issue #7's target: ratio >= 0.70. Exits 1 when
--target is given and the ratio is below it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ascendlab  # noqa: E402
from tests.adv.matmul_kernels import host_tiling, mm_cube_only, mm_mix, operands  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--chip", default="Ascend910B2")
    p.add_argument("--m", type=int, default=3072)
    p.add_argument("--k", type=int, default=1024)
    p.add_argument("--n", type=int, default=3072)
    p.add_argument("--mode", choices=("cube", "mix"), default="cube")
    p.add_argument("--target", type=float, default=None,
                   help="exit 1 if cube roofline / modelled cycles is below this (issue: 0.70)")
    args = p.parse_args(argv)
    ascendlab.configure(chip=args.chip)
    chip = ascendlab.runtime.chips.get_chip(args.chip)
    m, k, n = args.m, args.k, args.n
    a, b, bias = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    cores = chip.aic_cores if args.mode == "cube" else chip.aiv_cores
    t0 = time.perf_counter()
    tiling = host_tiling(m, n, k, dim=cores)
    if args.mode == "cube":
        run = mm_cube_only[tiling.used_core_num](a, b, c, bias, tiling)
    else:
        ws = np.zeros(16 << 20, np.uint8)
        run = mm_mix[-(-tiling.used_core_num // 2)](a, b, c, tiling, ws)
    emulated = time.perf_counter() - t0
    t0 = time.perf_counter()
    cost = run.cost
    modelled = time.perf_counter() - t0
    if not np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32)):
        print("wrong result")
        return 1
    roofline = m * n * k / (chip.cube_macs_per_cycle * chip.aic_cores)
    ratio = roofline / run.cycles
    print(f"fp16 matmul {m}x{k} @ {k}x{n} -> fp32 on {chip.name} ({args.mode}, "
          f"{tiling.used_core_num} blocks): base {tiling.base_m}x{tiling.base_n}x{tiling.base_k}, "
          f"single {tiling.single_core_m}x{tiling.single_core_n}, depth_a1/b1 "
          f"{tiling.depth_a1}/{tiling.depth_b1}, step_ka/kb {tiling.step_k_a}/{tiling.step_k_b}, "
          f"order {tiling.iterate_order}, db_l0c {tiling.db_l0c}")
    print(f"  modelled cycles   {run.cycles:>12,}   ({len(run.trace):,} events)")
    print(f"  cube roofline     {roofline:>12,.0f}   (all {chip.aic_cores} cube cores at "
          f"{chip.cube_macs_per_cycle} MAC/cycle)")
    print(f"  ratio             {ratio:12.3f}   (issue target 0.70)")
    print(f"  model bound       {cost.bound:>12}   efficiency {cost.efficiency:.3f}")
    util = ", ".join(f"{p} {cost.utilization(p):.2f}" for p in ("MTE2", "MTE1", "M", "FIX"))
    print(f"  pipe utilisation  {util}")
    print(f"  wall: emulation {emulated:.2f} s, cycle model {modelled:.2f} s")
    if args.target is not None and ratio < args.target:
        print(f"  below the target of {args.target:.2f}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
