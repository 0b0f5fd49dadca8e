"""Lesson 15, Python-first operators: Mish written in NumPy style with @ascend_kernel; the
lowering must make it one fused kernel."""

from __future__ import annotations

import numpy as np

from ..exercise import Exercise, cases

EXERCISES = (
    Exercise(
        id="15.mish", lesson=15, title="Mish as a Python-first operator: x * tanh(softplus(x))",
        inputs=("x",), outputs=("y",),
        reference=lambda a: a["x"] * np.tanh(np.log1p(np.exp(a["x"]))),
        cases=cases((48 * 1024,), (3000,), dtype="float32", perf=0),
        requires=frozenset({"exp", "ln"}),
        concept='mish(x) = x * tanh(softplus(x)), and softplus(x) = log(1 + exp(x))',
        api='exp, log and tanh from ascendlab.ops; the whole body lowers to one fused kernel',
        hint="softplus(x) = log(1 + exp(x)); return x * tanh(softplus(x)) using exp, log and "
             "tanh from ascendlab.ops. The whole body lowers to one fused kernel.",
    ),
)
