"""Lesson 07, The cube unit: L1 -> L0A/L0B -> mmad -> L0C -> fixpipe, the K loop."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...grader.challenge import Case
from ..exercise import Exercise, cases


def _operands(case: Case, names: tuple[str, ...]) -> Mapping[str, np.ndarray]:
    """Integer-valued square a and b (the grader's cases give every input the case's shape):
    exact in float16 and in float32 sums, so the float32 result meets the precision rule even
    where it is close to zero."""
    rng = np.random.default_rng(case.seed)
    return {name: rng.integers(-4, 5, case.shape).astype(case.dtype) for name in names}


def _c_spec(case: Case) -> dict[str, Any]:
    return {"c": (case.shape, "float32")}


EXERCISES = (
    Exercise(
        id="07.matmul_k_loop", lesson=7,
        title="A tiled matmul: accumulate the K tiles in L0C",
        inputs=("a", "b"), outputs=("c",), reference=lambda x: x["a"] @ x["b"],
        make_inputs=_operands, output_spec=_c_spec,
        cases=cases((64, 64), (96, 96), (128, 128), dtype="float16", perf=2),
        requires=frozenset({"mmad", "load_data", "fixpipe"}),
        block_num=(1, 1), core_kind="aic",
        concept='each K tile needs the fractals of A and B that cover its columns / rows, and the'
                ' first tile must start L0C from zero while later tiles add to it',
        api='asc.load_data with asc.LoadData2DParams (start index, repeat, source stride in '
            "fractals); asc.MmadParams' cmatrix_init_val",
        hint="K tile kk covers A's columns of fractals kk*kt1 .. kk*kt1+kt1-1, so load "
             "a1[(kk * kt1 + i) * m1 * 256:]; and cmatrix_init_val=(kk == 0)",
    ),
)
