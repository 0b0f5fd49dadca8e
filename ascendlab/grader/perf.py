"""Performance: the challenge's roofline bound, the tier, and the profile of a replayed run.

The bound is the cycle model's memory roofline for the least traffic any correct kernel needs
(each input read once, each output written once) on all the cores the rules allow: the formulas
as ascendlab.analysis.cost (per-core GM port rate, capped by the HBM bandwidth shared among the
active cores). A challenge with compute that memory does not bound (a matmul) adds its own term
(ChallengeSpec.bound, e.g. cube_bound: the cube's fractal steps at the cost model's mmad rate,
spread over the cube cores); the bound is the larger. Cycles come from the grader's own cost
model on the replayed trace, never from the submission's process. The profile names this
bound "the tier bound" (beside the run's own roofline, "this run's own bound"), and its hot
lines show the submission's source (registered by the grader: tools.hotlines.remember_source).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.chips import get_chip
from .challenge import Case, ChallengeSpec
from .report import PerfReport


def bound_cycles(spec: ChallengeSpec, case: Case, chip: str,
                 arrays: dict[str, Any] | None = None) -> int:
    """The roofline of `case` on `chip` (cycles): memory, from the arrays' sizes, or the
    challenge's own term (spec.bound) when it is larger."""
    c = get_chip(chip)
    cores = min(spec.rules.block_range(chip)[1],
                c.aiv_cores if spec.rules.core_kind == "aiv" else c.aic_cores)
    if spec.rules.core_kind == "mix":
        cores *= 3  # each MIX block: one cube and two vector cores, each with its GM ports
    read = sum(int(np.prod(shape)) * np.dtype(dtype).itemsize
               for shape, dtype in spec.inputs_for(case).values())
    if arrays is not None:
        read = sum(arrays[n].nbytes for n in spec.inputs)
    write = sum(int(np.prod(shape)) * np.dtype(dtype).itemsize
                for shape, dtype in spec.outputs_for(case).values())
    hbm = c.hbm_gbps * 1e9 / (c.clock_mhz * 1e6)  # bytes per cycle, whole chip
    rd = min(c.gm_read_bytes_per_cycle, hbm / cores) * cores
    wr = min(c.gm_write_bytes_per_cycle, hbm / cores) * cores
    memory = max(1, int(read / rd + write / wr))
    return max(memory, int(spec.bound(case, chip))) if spec.bound is not None else memory


def cube_bound(m: int, n: int, k: int, dtype: str, chip: str, cores: int | None = None) -> int:
    """Cycles of the cube alone for an m x k @ k x n product on `cores` cube cores (default:
    all): 16 x 16 x (32 B / itemsize) fractal steps, at the cost model's mmad rate per step
    (runtime/cube/mmad.py _MMAD_RATE: fp16 1, fp32 1/4), evenly spread."""
    from ..runtime.cube.mmad import _MMAD_RATE

    c = get_chip(chip)
    c0 = 32 // np.dtype(dtype).itemsize
    steps = -(-m // 16) * -(-n // 16) * -(-k // c0) / _MMAD_RATE[np.dtype(dtype).name]
    return max(1, int(steps / (cores or c.aic_cores)))


def perf_report(spec: ChallengeSpec, case: Case, chip: str, run: Any,
                arrays: dict[str, Any] | None = None) -> PerfReport:
    """Cycles, bound, ratio, tier and profile of the replayed `run` of the performance case."""
    from ..tools.profile import profile

    bound = bound_cycles(spec, case, chip, arrays)
    cycles = int(run.cycles)
    prof = profile(run, tier_bound=bound)
    return PerfReport(chip=chip, case=case.name, cycles=cycles, bound_cycles=bound,
                      ratio=cycles / bound, tier=spec.tiers.tier(cycles, bound),
                      time_us=float(run.time_us), kernel_bound=run.cost.bound,
                      profile=str(prof), profile_html=prof._repr_html_())


__all__ = ["bound_cycles", "cube_bound", "perf_report"]
