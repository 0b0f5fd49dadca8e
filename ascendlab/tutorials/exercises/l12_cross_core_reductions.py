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
        concept="one core doing all the work leaves the other cores idle: split the rows "
                "between cores, and combine the partial results only once every core has "
                "written its own",
        api="asc.get_block_idx / asc.get_block_num for each core's rows, a GM workspace "
            "argument, asc.sync_all between the phases, asc.add to combine",
        hint="one core reads all of x; give each core a slice of the rows, let each write its "
             "partial column sums to a GM workspace, and combine them once every core is done",
    ),
)
