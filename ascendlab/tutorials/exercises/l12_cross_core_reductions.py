"""Lesson 12, Reductions across cores: column sums of a tall matrix, partials through a GM
workspace (or atomics) and a second phase after sync_all."""

from __future__ import annotations

import numpy as np

from ..exercise import Exercise, cases, uniform_inputs

EXERCISES = (
    Exercise(
        id="12.column_sums", lesson=12,
        title="Column sums of a tall matrix on every vector core",
        inputs=("x",), outputs=("y",),
        reference=lambda a: np.sum(a["x"], axis=0),
        cases=cases((8192, 64), (3000, 32), (40, 64), dtype="float16", perf=0),
        make_inputs=uniform_inputs(0.0, 1.0),
        output_spec=lambda case: {"y": ((case.shape[1],), "float32")},
        cycle_target=4.0, workspace_bytes=64 * 1024,
        hint="one core reads all of x; give each core a slice of the rows, let each write its "
             "partial column sums to a GM workspace, and combine them once every core is done",
    ),
)
