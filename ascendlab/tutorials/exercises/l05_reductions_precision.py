"""Lesson 05, Reductions and precision: float16 rows summed with float32 accumulation."""

from __future__ import annotations

import numpy as np

from ..exercise import Exercise, cases, uniform_inputs

EXERCISES = (
    Exercise(
        id="05.row_sum", lesson=5, title="Row sums of float16 data, accumulated in float32",
        inputs=("x",), outputs=("y",),
        reference=lambda a: np.sum(a["x"], axis=1),
        cases=cases((96, 4096), (48, 2048), dtype="float16", perf=0),
        make_inputs=uniform_inputs(0.0, 1.0),
        output_spec=lambda case: {"y": ((case.shape[0],), "float32")},
        allowed_ops=frozenset({"data_copy", "data_copy_pad", "init_buffer", "alloc_tensor",
                               "enque", "deque", "free_tensor", "set_flag", "wait_flag",
                               "pipe_barrier", "cast", "reduce_sum", "whole_reduce_sum",
                               "add", "duplicate"}),
        requires=frozenset({"cast"}),
        concept='a float16 sum of thousands of values near 0.5 loses more than the precision '
                'threshold allows: accumulate in a wider type',
        api='asc.cast (RoundMode.CAST_NONE) of each row to float32, then asc.reduce_sum with a '
            'scratch tensor',
        hint="a float16 sum of 4096 values near 0.5 is off by more than float32's threshold "
             "(2^-13): cast each row to float32 first (asc.cast(w, x_l, "
             "asc.RoundMode.CAST_NONE, cols)), then reduce_sum(s[r:], w, tmp, cols)",
    ),
)
