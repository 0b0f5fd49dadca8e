"""Lesson 02, Tiling and multi-core: tiles that fit the UB, on every core, with a tail."""

from __future__ import annotations

from ..exercise import Exercise, cases

EXERCISES = (
    Exercise(
        id="02.tail_add", lesson=2, title="Tiled add with a tail: z = x + y for any length",
        inputs=("x", "y"), outputs=("z",),
        reference=lambda a: a["x"] + a["y"],
        cases=cases((48 * 4096 + 5,), (3001,), (7,), dtype="float16", perf=0)
        + cases((10_000 + 3,), dtype="float32", seed=9, prefix="fp32"),
        allowed_ops=frozenset({"data_copy", "data_copy_pad", "add", "set_flag", "wait_flag",
                               "pipe_barrier"}),
        requires=frozenset({"data_copy_pad"}),
        concept='after the loop over full tiles a remainder is left whose byte count need not be '
                'a multiple of 32 B; a count-form copy would round it down and lose elements',
        api='asc.data_copy_pad with asc.DataCopyExtParams (its block length is in bytes) and '
            'asc.DataCopyPadExtParams, in and out, with the same flags as a full tile',
        hint="after the loop over full tiles, `tail = count - full * tile` elements remain; "
             "move them with data_copy_pad (DataCopyExtParams(1, tail * size, 0, 0, 0)), in "
             "and out, with the same flags as a full tile",
    ),
)
