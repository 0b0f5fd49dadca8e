"""Lesson 10, MIX kernels: a matmul on the cube core with a vector epilogue (bias + ReLU)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...grader.challenge import Case
from ..exercise import Exercise, cases


def _operands(case: Case, names: tuple[str, ...]) -> Mapping[str, np.ndarray]:
    """a (m x k), b (k x n) and bias (n,) for a case of shape (m, k, n); small integers, so
    a @ b is exact in float32 and the precision check judges the epilogue."""
    m, k, n = case.shape
    rng = np.random.default_rng(case.seed)
    return {"a": rng.integers(-3, 4, (m, k)).astype(np.float16),
            "b": rng.integers(-3, 4, (k, n)).astype(np.float16),
            "bias": rng.uniform(-8, 8, n).astype(np.float16)}


def _in_spec(case: Case) -> dict[str, Any]:
    m, k, n = case.shape
    return {"a": ((m, k), "float16"), "b": ((k, n), "float16"), "bias": ((n,), "float16")}


def _c_spec(case: Case) -> dict[str, Any]:
    m, _, n = case.shape
    return {"c": ((m, n), "float32")}


EXERCISES = (
    Exercise(
        id="10.matmul_bias_relu", lesson=10,
        title="A MIX kernel: c = relu(a @ b + bias), the epilogue on the vector cores",
        inputs=("a", "b", "bias"), outputs=("c",),
        reference=lambda x: np.maximum(x["a"] @ x["b"] + x["bias"], 0.0),
        make_inputs=_operands, input_spec=_in_spec, output_spec=_c_spec,
        cases=cases((128, 64, 64), (96, 32, 128), (256, 64, 64), dtype="float16", perf=2),
        requires=frozenset({"relu", "add"}),
        core_kind="mix", workspace_bytes=1 << 20,
        concept="in a MIX kernel the cube core computes the block and hands it to a vector core, "
                "which applies the element-wise epilogue before the block goes to GM: the bias "
                "is one row that every row of the block shares",
        api="asc.adv.Matmul's get_tensor_c into a UB tensor on the vector core, asc.data_copy "
            "for the bias, asc.add and asc.relu, then asc.data_copy out",
        hint="the cube core's block arrives in UB with get_tensor_c; the bias is one row of "
             "n values that every row of the block needs: bring it into UB once, then add it "
             "to each row (or to all rows at once with a repeat stride of 0, lesson 04)",
    ),
)
