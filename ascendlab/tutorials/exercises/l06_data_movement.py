"""Lesson 06, Data movement and layouts: strided DataCopyParams, data_copy_pad, the attention
layout change done by the DMA."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...grader.challenge import Case
from ..exercise import Exercise, cases


def _merged(a: dict[str, np.ndarray]) -> np.ndarray:
    b, h, s, d = a["x"].shape
    return a["x"].transpose(0, 2, 1, 3).reshape(b, s, h * d)


def _merged_spec(case: Case) -> dict[str, Any]:
    b, h, s, d = case.shape
    return {"y": ((b, s, h * d), case.dtype)}


EXERCISES = (
    Exercise(
        id="06.merge_heads", lesson=6,
        title="Merge heads: (b, h, s, d) -> (b, s, h*d) with a strided copy-out",
        inputs=("x",), outputs=("y",), reference=_merged, output_spec=_merged_spec,
        cases=cases((2, 4, 128, 64), (1, 8, 64, 32), (3, 2, 96, 16), dtype="float16", perf=0),
        # the layout change is the DMA's job: no vector instruction may do it
        allowed_ops=frozenset({"data_copy", "init_buffer", "alloc_tensor", "enque", "deque",
                               "free_tensor", "set_flag", "wait_flag", "pipe_barrier"}),
        requires=frozenset({"data_copy"}),
        concept='the layout change is done by the copy-out alone: each head writes its rows into '
                'every h-th slot of a token row, so in GM its rows are h*d elements apart while '
                'in UB they are packed',
        api="yg.set_global_buffer at the head's first token in y; asc.DataCopyParams(block_count,"
            ' block_len, src_stride, dst_stride) with lengths and gaps in 32 B units, passed to '
            'asc.data_copy as repeat_params',
        hint="head hi of batch bi starts at y + bi*s*h*d + hi*d; its copy-out is "
             "DataCopyParams(seq_tile, d*2//32, 0, (h-1)*d*2//32): seq_tile rows of d "
             "float16, packed in UB, h*d elements apart in GM",
    ),
)
