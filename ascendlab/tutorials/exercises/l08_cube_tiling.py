"""Lesson 08, Cube tiling: one matmul tile whose m, k, n are not multiples of 16 (m = 1 too)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...grader.challenge import Case
from ..exercise import Exercise, cases


def _operands(case: Case, names: tuple[str, ...]) -> Mapping[str, np.ndarray]:
    """a (m x k) and b (k x n) for a case of shape (m, k, n), small integers (exact sums)."""
    m, k, n = case.shape
    rng = np.random.default_rng(case.seed)
    return {"a": rng.integers(-4, 5, (m, k)).astype(np.float16),
            "b": rng.integers(-4, 5, (k, n)).astype(np.float16)}


def _in_spec(case: Case) -> dict[str, Any]:
    m, k, n = case.shape
    return {"a": ((m, k), "float16"), "b": ((k, n), "float16")}


def _c_spec(case: Case) -> dict[str, Any]:
    m, _, n = case.shape
    return {"c": ((m, n), "float32")}


EXERCISES = (
    Exercise(
        id="08.matmul_tails", lesson=8,
        title="One matmul tile with tails: m, k, n not multiples of 16, and m = 1",
        inputs=("a", "b"), outputs=("c",), reference=lambda x: x["a"] @ x["b"],
        make_inputs=_operands, input_spec=_in_spec, output_spec=_c_spec,
        cases=cases((64, 64, 64), (40, 24, 56), (17, 33, 20), (1, 48, 32), dtype="float16",
                    perf=0),
        requires=frozenset({"mmad", "load_data", "fixpipe"}),
        block_num=(1, 1), core_kind="aic",
        concept="the cube multiplies whole 16 x 16 fractals only: a tile whose m, k or n is not a "
                "multiple of 16 is padded up to whole fractals on the way in, and only the real "
                "part of the result is written back",
        api="asc.data_copy with asc.Nd2NzParams (the padded height and width), asc.load_data, "
            "asc.mmad (the padded sizes), asc.fixpipe with asc.FixpipeParamsV220 (the real m, n)",
        hint="the cube only works in whole 16 x 16 fractals: count the fractals rounding up, "
             "let the ND -> NZ copy pad the matrices to them, and tell fixpipe which part of "
             "the padded result is real",
    ),
)
