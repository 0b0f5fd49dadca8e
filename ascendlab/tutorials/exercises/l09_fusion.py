"""Lesson 09, Operator fusion: LayerNorm + GeLU fused; the exercise fuses a residual add."""

from __future__ import annotations

import numpy as np

from ..exercise import Exercise, cases

GELU_K = 1.702  # GeLU(x) ~ x * sigmoid(1.702 x) (Hendrycks & Gimpel 2016, section 2)


def _residual_gelu(a: dict[str, np.ndarray]) -> np.ndarray:
    n = a["x"] + a["r"]
    return n / (1 + np.exp(-GELU_K * n))


EXERCISES = (
    Exercise(
        id="09.residual_gelu", lesson=9, title="Fuse a residual add into GeLU: y = GeLU(x + r)",
        inputs=("x", "r"), outputs=("y",), reference=_residual_gelu,
        cases=cases((64, 1024), (8, 512), dtype="float32", perf=0),
        requires=frozenset({"add", "exp", "div"}),
        block_num=(8, 8),
        concept="fuse the residual into the same pass: bring r's row into UB next to x's, add, "
                'then apply the activation, without a round trip through GM',
        api='a VECIN queue for r (alloc_tensor, asc.data_copy, enque / deque, free_tensor), '
            'asc.add, then asc.muls, asc.exp, asc.adds and asc.div',
        hint="alloc from q_r, data_copy r's row, enque/deque it, asc.add(xl, xl, rl, cols), "
             "free it, then muls(-1.702) / exp / adds(1) into work and div(yl, xl, work)",
    ),
)
