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
        concept='each core handles its own slice of the arrays; the data must reach the Unified '
                'Buffer before the vector unit adds it, and the sum must be complete before it is'
                ' copied back: two cross-pipe dependencies, each needs its own flag',
        api='GlobalTensor.set_global_buffer, asc.LocalTensor in VECIN/VECOUT, asc.data_copy, '
            'asc.add, asc.set_flag/asc.wait_flag with HardEvent.MTE2_V and HardEvent.V_MTE3',
        hint="each core takes n // 8 elements starting at get_block_idx() * (n // 8): copy x "
             "and y into UB, set_flag/wait_flag(MTE2_V), add, set_flag/wait_flag(V_MTE3), "
             "copy z back",
    ),
)
