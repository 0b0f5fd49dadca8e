"""A small cube test challenge: C = A @ B, float16 in, float32 out, on the cube cores (AIC).

A case's shape is (m, k, n): A is m x k, B k x n, C m x n (input_spec / output_spec). The
bound adds the cube's roofline (perf.cube_bound) to the memory one.
"""

from __future__ import annotations

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed
from ascendlab.grader.perf import cube_bound


def reference(inputs, **params):
    return inputs["a"] @ inputs["b"]


def shapes(case):
    m, k, n = case.shape
    return {"a": ((m, k), "float16"), "b": ((k, n), "float16")}


def out_shapes(case):
    m, _k, n = case.shape
    return {"c": ((m, n), "float32")}


def generate(case):
    rng = np.random.default_rng(case.seed)
    return {name: rng.uniform(-1, 1, shape).astype(dtype)
            for name, (shape, dtype) in shapes(case).items()}


def hidden_cases(secret):
    return [
        Case(name="hidden-odd", shape=(72, 40, 56), dtype="float16",
             seed=derive_seed(secret, "odd")),
        Case(name="hidden-largest", shape=(256, 256, 256), dtype="float16",
             seed=derive_seed(secret, "l"), perf=True),
    ]


def bound(case, chip):
    m, k, n = case.shape
    return cube_bound(m, n, k, "float16", chip)


SPEC = ChallengeSpec(
    name="mini_mm",
    title="C = A @ B (cube test challenge)",
    inputs=("a", "b"),
    outputs=("c",),
    reference=reference,
    generate=generate,
    public_cases=(Case(name="public-a", shape=(64, 64, 64), dtype="float16", seed=7),),
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2",), core_kind="aic", workspace_bytes=0),
    tiers=Tiers(gold=3.0, silver=6.0),
    limits=Limits(wall_s=30.0, cpu_s=30.0, memory_mb=2048),
    input_spec=shapes,
    output_spec=out_shapes,
    bound=bound,
    precision="accumulative",
    aliases=("minimm",),
)
