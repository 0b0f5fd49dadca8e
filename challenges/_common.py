"""Shared by the days' spec.py files: a ChallengeSpec whose inputs have their own shapes.

ChallengeSpec.make_inputs wants every input of `case.shape`; a bias (cols,), a weight (C, C)
or the keys of an attention head do not fit that. ShapedSpec asks `input_spec(case)` for
each input's (shape, dtype) instead (the grader's bound_cycles reads the arrays' real sizes).
A spec.py loads this file with load_common() (the grader loads spec.py by path, so the
challenges folder is not a package).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec

Shapes = Mapping[str, tuple[tuple[int, ...], str]]


@dataclass(frozen=True, kw_only=True)
class ShapedSpec(ChallengeSpec):
    """A ChallengeSpec with per-input shapes: input_spec(case) -> {name: (shape, dtype)}."""

    input_spec: Callable[[Case], Shapes]

    def make_inputs(self, case: Case) -> dict[str, np.ndarray]:
        want = self.input_spec(case)
        arrays = {k: np.ascontiguousarray(v) for k, v in self.generate(case).items()}
        for name in self.inputs:
            a = arrays.get(name)
            shape, dtype = want[name]
            if a is None or a.shape != tuple(shape) or a.dtype != np.dtype(dtype):
                got = None if a is None else f"{a.dtype}{a.shape}"
                raise ValueError(f"{self.name}: generate() gave {name}={got}, want "
                                 f"{dtype}{tuple(shape)} for case {case.name}")
        return {name: arrays[name] for name in self.inputs}


def signed(rng: np.random.Generator, n: int, lo: float, hi: float) -> np.ndarray:
    """n values with |v| uniform in [lo, hi] and a random sign."""
    return rng.choice([-1.0, 1.0], n) * rng.uniform(lo, hi, n)


# DMA, the TPipe/TQue framework, flags and barriers, casts and the element-wise vector math
# (swish's set): what the vector days allow unless their README says more.
VECTOR_OPS = frozenset({
    "data_copy", "data_copy_pad", "init_buffer", "alloc_tensor", "enque", "deque",
    "free_tensor", "set_flag", "wait_flag", "pipe_barrier", "sync_all", "get_value",
    "set_value", "cast", "add", "sub", "mul", "div", "max", "min", "adds", "muls", "maxs",
    "mins", "exp", "ln", "abs", "reciprocal", "sqrt", "rsqrt", "relu", "duplicate", "axpy",
    "fused_mul_add", "mul_add_dst", "compare", "select",
})
REDUCE_OPS = frozenset({"reduce_sum", "reduce_max", "reduce_min", "whole_reduce_sum",
                        "whole_reduce_max", "whole_reduce_min"})
