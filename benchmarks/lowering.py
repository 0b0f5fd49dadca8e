"""Python-first operators: modelled cycles of the generated kernels against hand-written ones.

    python benchmarks/lowering.py [--chip Ascend910B2] [--runs 3]

Swish (x * sigmoid(beta x), fp16, 2^20 elements) against the challenge's honest reference
(tests/grader/solutions/swish_honest.py); the ControlNet++ fusion (B=2, C=64, H=W=64, fp16)
against the three hand-written kernels of tests/kernel/fusion_reference.py. Cycles are the
cycle model's (the sum over an op's kernels: they run one after another). Prints, per op, the
lowering / reference ratio (issue #14's target: <= 1.5) and the fused / unfused ratio (must
be < 1), with min and median over the runs (the model is deterministic, so they agree; the
emulator's wall time, which is not, is printed too). Exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ascendlab  # noqa: E402
from tests.kernel.fusion_reference import run_reference  # noqa: E402


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def swish_case(ex, honest, cores: int) -> tuple[int, int, int]:
    """(lowering, reference, unfused) cycles for Swish."""
    x = np.random.default_rng(0).uniform(-8, 8, 1 << 20).astype(np.float16)
    ex.swish(x)
    lowered = sum(r.cycles for r in ex.swish.runs)
    y = np.zeros_like(x)
    honest.launch(x, y, 1.0, cores)
    reference = ascendlab.last_run().cycles
    return lowered, reference, ex.swish.explain().unfused_cycles


def fusion_case(ex, cores: int) -> tuple[int, int, int]:
    xs = ex.condition_inputs(b=2, c=64, h=64, w=64)
    op = ex.adaptive_condition_fuse
    op(*xs)
    lowered = sum(r.cycles for r in op.runs)
    _, runs = run_reference(op.params, *xs, cores=cores)
    return lowered, sum(r.cycles for r in runs), op.explain().unfused_cycles


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--chip", default="Ascend910B2")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    ascendlab.configure(chip=args.chip)
    cores = ascendlab.get_chip(args.chip).aiv_cores
    ex = _load(ROOT / "examples" / "python_first.py", "python_first")
    honest = _load(ROOT / "tests" / "grader" / "solutions" / "swish_honest.py", "swish_honest")
    ok = True
    for name, case in (("swish", lambda: swish_case(ex, honest, cores)),
                       ("fusion", lambda: fusion_case(ex, cores))):
        ratios, fused, walls = [], [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            lowered, reference, unfused = case()
            walls.append(time.perf_counter() - t0)
            ratios.append(lowered / reference)
            fused.append(lowered / unfused)
        print(f"{name:>6}: lowering {lowered:,} cycles, hand-written {reference:,}, unfused "
              f"{unfused:,}")
        print(f"        lowering / hand-written: min {min(ratios):.3f} median "
              f"{statistics.median(ratios):.3f} (target <= 1.5)")
        print(f"        fused / unfused:         min {min(fused):.3f} median "
              f"{statistics.median(fused):.3f} (target < 1)")
        print(f"        emulator wall time per run: min {min(walls):.2f} s median "
              f"{statistics.median(walls):.2f} s")
        ok = ok and max(ratios) <= 1.5 and max(fused) < 1.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
