"""Lesson 14, Profiling, advice and autotuning: the exercise tunes GeLU to its roofline."""

from __future__ import annotations

import numpy as np

from ..exercise import Exercise, cases

GELU_K = 1.702  # GeLU(x) ~ x * sigmoid(1.702 x) (Hendrycks & Gimpel 2016, section 2)

EXERCISES = (
    Exercise(
        id="14.tune_gelu", lesson=14, title="Tune GeLU to within 1.5x of its roofline bound",
        inputs=("x",), outputs=("y",), reference=lambda a: a["x"] / (1 + np.exp(-GELU_K * a["x"])),
        cases=cases((48 * 8192,), dtype="float32", perf=0),
        requires=frozenset({"exp", "div"}),
        cycle_target=1.5, block_num=(1, 48),
        concept='the kernel uses one core, one buffer and a small tile: each knob leaves a pipe '
                "idle; the advisor's report says which",
        api="the launch's core count and the kernel's tile and buffers arguments; "
            'ascendlab.autotune ranks the choices',
        hint="use all 48 vector cores, 2 buffers (double buffering) and a tile of a few "
             "thousand elements; ascendlab.autotune ranks the choices",
    ),
)
