"""Lesson 01, First kernel: vector add, GM -> UB -> GM with data_copy, split by get_block_idx."""

from __future__ import annotations

from ..exercise import Exercise, cases

EXERCISES = (
    Exercise(
        id="01.vadd", lesson=1, title="Vector add: z = x + y on 8 cores",
        inputs=("x", "y"), outputs=("z",),
        reference=lambda a: a["x"] + a["y"],
        cases=cases((8 * 2048,), (8 * 1024,), dtype="float16", perf=0)
        + cases((8 * 1024,), dtype="float32", seed=7, prefix="fp32"),
        allowed_ops=frozenset({"data_copy", "add", "set_flag", "wait_flag", "pipe_barrier"}),
        requires=frozenset({"data_copy", "add"}),
        block_num=(8, 8),
        hint="each core takes n // 8 elements starting at get_block_idx() * (n // 8): copy x "
             "and y into UB, set_flag/wait_flag(MTE2_V), add, set_flag/wait_flag(V_MTE3), "
             "copy z back",
    ),
)
