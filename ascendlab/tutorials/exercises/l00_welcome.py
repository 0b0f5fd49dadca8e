"""Lesson 00, Welcome: change the ready kernel so that it doubles its input."""

from __future__ import annotations

from ..exercise import Exercise, cases

EXERCISES = (
    Exercise(
        id="00.double", lesson=0, title="Double a vector: y = 2 x",
        inputs=("x",), outputs=("y",),
        reference=lambda a: 2.0 * a["x"],
        cases=cases((8 * 2048,), (8 * 512,), dtype="float16"),
        requires=frozenset({"muls"}),
        concept='the ready kernel already moves the data in and out; only the arithmetic in the '
                'middle changes: which vector instruction scales every element by a constant?',
        api='asc.muls(dst, src, scalar, count): a vector-times-scalar instruction',
        hint="keep the ready kernel as it is and change its one vector instruction: "
             "asc.muls(dst, src, scalar, count) multiplies every element by a scalar",
    ),
)
