"""Emulation speed of asc.adv.Matmul: fp16 A @ B -> fp32 C with the host tiling (cube-only
kernel of tests/adv/matmul_kernels.py on Ascend910B2), against numpy's float32 product on one
BLAS thread, measured in the same run.

    python benchmarks/matmul_speed.py [--repeat 3] [--shape 1024,1024,1024] [--shape ...] [--pool]

For each shape and repeat, interleaved so that all see the same machine load:
  emulated      the launch as shipped (its matrix products on one BLAS thread, runtime/launch/jit.py
                one_blas_thread)
  pool          (--pool) the same launch with numpy's BLAS thread pool left at its default
  numpy 1 thr.  a.astype(float32) @ b.astype(float32) with BLAS limited to one thread
Prints min and median wall seconds (and the emulation's CPU seconds: on a loaded shared
machine wall time also counts the waits for a core, CPU time only the work) and the ratios
emulated / numpy and pool / emulated. Issue 16's targets: 1024^3 at most 4x numpy (1 thread);
3072x1024x3072 at most 1.5 s.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ascendlab  # noqa: E402
from ascendlab.runtime.launch import jit as _launch  # noqa: E402
from tests.adv.matmul_kernels import host_tiling, mm_cube_only, operands  # noqa: E402

CHIP = "Ascend910B2"


def _emulate(a, b, c, bias, tiling, pool: bool) -> tuple[float, float]:
    """(wall, CPU) seconds of one launch."""
    saved = getattr(_launch, "one_blas_thread", None)  # None: a version without it
    if pool and saved is not None:
        _launch.one_blas_thread = contextlib.nullcontext
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        mm_cube_only[tiling.used_core_num](a, b, c, bias, tiling)
        return time.perf_counter() - t0, time.process_time() - c0
    finally:
        if saved is not None:
            _launch.one_blas_thread = saved


def _numpy(a, b) -> float:
    with threadpool_limits(1, user_api="blas"):
        t0 = time.perf_counter()
        _ = a.astype(np.float32) @ b.astype(np.float32)
        return time.perf_counter() - t0


def _line(name: str, xs: list[float]) -> str:
    return f"  {name:<14} min {min(xs):7.3f} s   median {statistics.median(xs):7.3f} s"


def bench(m: int, k: int, n: int, repeat: int, with_pool: bool) -> None:
    chip = ascendlab.runtime.chips.get_chip(CHIP)
    a, b, bias = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    tiling = host_tiling(m, n, k, dim=chip.aic_cores)
    _emulate(a, b, c, bias, tiling, False)  # warm up (compiles the kernel)
    if not np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32)):  # no bias
        raise SystemExit("wrong result")
    emu, cpu, pool, ref = [], [], [], []
    for _ in range(repeat):
        wall, used = _emulate(a, b, c, bias, tiling, False)
        emu.append(wall)
        cpu.append(used)
        if with_pool:
            pool.append(_emulate(a, b, c, bias, tiling, True)[0])
        ref.append(_numpy(a, b))
    ratios = [e / r for e, r in zip(emu, ref)]
    print(f"Matmul fp16 {m}x{k} @ {k}x{n} -> fp32, {tiling.used_core_num} blocks on {CHIP} "
          f"({len(ascendlab.last_run().trace):,} events)")
    print(_line("emulated", emu))
    print(_line("  its CPU time", cpu))
    if pool:
        print(_line("pool", pool))
    print(_line("numpy 1 thr.", ref))
    print(f"  emulated / numpy: min {min(ratios):.2f}x  median {statistics.median(ratios):.2f}x")
    if pool:
        speedup = [p / e for p, e in zip(pool, emu)]
        print(f"  pool / emulated: min {min(speedup):.2f}x  median "
              f"{statistics.median(speedup):.2f}x")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--shape", action="append", default=None,
                   help="m,k,n (repeatable; default 1024,1024,1024 and 3072,1024,3072)")
    p.add_argument("--pool", action="store_true",
                   help="also time the launch on the default BLAS thread pool (slow)")
    args = p.parse_args(argv)
    ascendlab.configure(chip=CHIP)
    for shape in args.shape or ["1024,1024,1024", "3072,1024,3072"]:
        m, k, n = (int(v) for v in shape.split(","))
        bench(m, k, n, args.repeat, args.pool)
    return 0


if __name__ == "__main__":
    sys.exit(main())
