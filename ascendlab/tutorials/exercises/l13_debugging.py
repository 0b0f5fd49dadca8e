"""Lesson 13, Debugging: the pitfalls the sanitizer catches; the exercise fixes two sync bugs."""

from __future__ import annotations

import numpy as np

from ..exercise import Exercise, cases

EXERCISES = (
    Exercise(
        id="13.fix_pipeline", lesson=13, title="Fix the two synchronisation bugs of a pipeline",
        inputs=("x",), outputs=("z",), reference=lambda a: np.maximum(a["x"], 0) * 2,
        cases=cases((8 * 2 * 256,), (8 * 6 * 256,), dtype="float32", perf=1),
        requires=frozenset({"relu", "muls"}),
        block_num=(8, 8),
        concept='two cross-pipe dependencies have no flag: the copy-out reads a buffer the vector'
                ' unit writes, and the vector unit later overwrites that buffer while the '
                'copy-out may still read it',
        api='asc.set_flag / asc.wait_flag with HardEvent.V_MTE3 before the copy-out and '
            "HardEvent.MTE3_V after it, on the buffer's own event id",
        hint="the copy-out reads zl[b] that the vector unit writes: set_flag/wait_flag("
             "V_MTE3, b) before it; the next relu into zl[b] must wait for this copy-out: "
             "set_flag/wait_flag(MTE3_V, b) after it",
    ),
)
