"""Lesson 04, Vector instructions: GELU with the tanh approximation, from exp and arithmetic."""

from __future__ import annotations

import math

import numpy as np

from ..exercise import Exercise, cases, uniform_inputs


def gelu_tanh(a: dict) -> np.ndarray:
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in float64 (Hendrycks & Gimpel, 2016)."""
    x = a["x"]
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


EXERCISES = (
    Exercise(
        id="04.gelu", lesson=4, title="GELU (tanh approximation) in float32",
        inputs=("x",), outputs=("y",),
        reference=gelu_tanh,
        cases=cases((48 * 4096,), (48 * 2048,), dtype="float32", perf=0),
        make_inputs=uniform_inputs(-6.0, 6.0),
        allowed_ops=frozenset({"data_copy", "init_buffer", "alloc_tensor", "enque", "deque",
                               "free_tensor", "pipe_barrier", "add", "sub", "mul", "div",
                               "adds", "muls", "exp", "reciprocal", "duplicate", "axpy"}),
        requires=frozenset({"exp"}),
        concept='tanh is not a vector instruction; rewrite 0.5 (1 + tanh(v)) with the '
                'exponential, which is one',
        api='asc.mul, asc.muls, asc.add, asc.adds, asc.exp and asc.div, with a TBuf as scratch '
            'space for the intermediate values',
        hint="tanh is not a vector instruction, but 0.5 (1 + tanh(v)) = 1 / (1 + exp(-2 v)), "
             "so gelu(x) = x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3))): mul, mul, muls, "
             "add, muls, exp, adds, div",
    ),
)
