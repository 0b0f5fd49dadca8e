"""A small test challenge (z = x + y, float16) that grades fast: the hostile battery runs on it.

Two cases share a shape (public-a and hidden-b) so that caching across cases is tried; any
replayable op is allowed, so that answers baked into instruction arguments reach the shadow
replay instead of the op rule.
"""

from __future__ import annotations

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed


def reference(inputs, **params):
    return inputs["x"] + inputs["y"]


def generate(case):
    rng = np.random.default_rng(case.seed)
    return {n: rng.uniform(-1, 1, case.size).astype(case.dtype).reshape(case.shape)
            for n in ("x", "y")}


def hidden_cases(secret):
    return [
        Case(name="hidden-b", shape=(2048,), dtype="float16", seed=derive_seed(secret, "b")),
        Case(name="hidden-tail", shape=(1024 + 3,), dtype="float16",
             seed=derive_seed(secret, "t")),
        Case(name="hidden-largest", shape=(8 * 4096,), dtype="float16",
             seed=derive_seed(secret, "l"), perf=True),
    ]


SPEC = ChallengeSpec(
    name="mini",
    title="z = x + y (test challenge)",
    inputs=("x", "y"),
    outputs=("z",),
    reference=reference,
    generate=generate,
    public_cases=(Case(name="public-a", shape=(2048,), dtype="float16", seed=7),),
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2",), block_num=(1, 8), allowed_ops=None,
                gm_scalar_access=True),
    tiers=Tiers(gold=1.5, silver=3.0),
    limits=Limits(wall_s=20.0, cpu_s=20.0, memory_mb=1536),
)
