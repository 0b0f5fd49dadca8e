"""Lesson 11, Softmax and attention: a row softmax that survives large inputs."""

from __future__ import annotations

import numpy as np

from ..exercise import Exercise, cases, uniform_inputs


def _softmax(a):
    x = a["x"]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


EXERCISES = (
    Exercise(
        id="11.softmax_rows", lesson=11,
        title="A row softmax that does not overflow",
        inputs=("x",), outputs=("y",), reference=_softmax,
        # scores up to 100: exp overflows float32 (e^88.7 is its largest value)
        cases=cases((64, 256), (30, 512), (48, 1024), dtype="float16", perf=2),
        make_inputs=uniform_inputs(-100.0, 100.0),
        requires=frozenset({"exp", "reduce_sum"}),
        input_independent=False,  # the row maxima reach adds as scalars
        concept="exp of a large score overflows; softmax does not change when the same constant "
                "is subtracted from every score of a row",
        api="asc.reduce_max for the row's maximum, asc.adds to subtract it, asc.exp, "
            "asc.reduce_sum and asc.muls to normalise",
        hint="softmax(x) = softmax(x - c) for any constant c of the row: choose c so that "
             "exp never sees a large argument",
    ),
)
