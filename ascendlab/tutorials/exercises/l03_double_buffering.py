"""Lesson 03, Queues and double buffering: TPipe/TQue with two buffers per queue."""

from __future__ import annotations

from ..exercise import Exercise, cases

EXERCISES = (
    Exercise(
        id="03.axpy", lesson=3, title="Double-buffered z = a * x + y",
        inputs=("x", "y"), outputs=("z",),
        reference=lambda arr, a: a * arr["x"] + arr["y"],
        cases=cases((48 * 32768,), (48 * 4096,), dtype="float16", perf=0, a=0.5),
        allowed_ops=frozenset({"data_copy", "muls", "add", "axpy", "init_buffer",
                               "alloc_tensor", "enque", "deque", "free_tensor",
                               "pipe_barrier"}),
        requires=frozenset({"enque", "deque"}),
        cycle_target=1.5,  # x the memory roofline of the 1.5 Mi-element case on 48 cores
        concept="split each core's slice into tiles and give every stage (copy in, compute, copy "
                "out) its own queue with two buffers, so one tile's copy-in can run while the "
                'previous tile is computed',
        api='asc.TPipe, asc.TQue(VECIN/VECOUT, 2), pipe.init_buffer, alloc_tensor / enque / deque'
            ' / free_tensor, asc.muls and asc.add',
        hint="per tile: alloc x and y tiles, copy in, enque; deque, alloc z, muls then add, "
             "enque z, free x and y; deque z, copy out, free z. With BUFFER_NUM = 2 the next "
             "tile's copy-in overlaps this tile's compute",
    ),
)
