"""Challenge "swish": y = x * sigmoid(beta * x) = x / (1 + exp(-beta * x)).

The reference, the input generator and the cases. The hidden cases are drawn at grading time
from a seed only the grader knows; their shapes and value kinds are listed in README.md.
"""

from __future__ import annotations

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed

# Vector math, casts, DMA, the framework and flags; no scalar access to GM.
OPS = frozenset({
    "data_copy", "data_copy_pad", "init_buffer", "alloc_tensor", "enque", "deque",
    "free_tensor", "set_flag", "wait_flag", "pipe_barrier", "sync_all", "get_value",
    "set_value", "cast", "add", "sub", "mul", "div", "max", "min", "adds", "muls", "maxs",
    "mins", "exp", "ln", "abs", "reciprocal", "sqrt", "rsqrt", "relu", "duplicate", "axpy",
    "fused_mul_add", "mul_add_dst", "compare", "select",
})
LARGEST = (512, 2048)  # 1 Mi float16 elements


def reference(inputs: dict, beta: float = 1.0, **params) -> np.ndarray:
    """y = x * sigmoid(beta x) in float64 (the grader's golden)."""
    x = inputs["x"]
    with np.errstate(over="ignore"):
        return x / (1.0 + np.exp(-beta * x))


def generate(case: Case) -> dict:
    """Values by kind. Ranges keep the golden away from (3e-9, 3e-6) in magnitude, where even
    the correctly rounded float16 answer misses the precision standard (its relative error
    uses |golden| + 1e-7)."""
    rng = np.random.default_rng(case.seed)
    n = case.size
    beta = float(case.params.get("beta", 1.0))
    sign = rng.choice([-1.0, 1.0], n)
    if case.kind == "uniform":  # |x| >= 1e-3: y ~ x / 2 stays a normal float16
        x = sign * rng.uniform(1e-3, 6.0, n)
    elif case.kind == "negative":  # beta x in [-11, -0.5]: exp(-beta x) fits float16
        x = rng.uniform(-11.0, -0.5, n) / beta
    elif case.kind == "deep":  # beta x in [-14, -11.2]: exp(-beta x) overflows float16
        x = rng.uniform(-14.0, -11.2, n) / beta
    elif case.kind == "tiny":
        x = sign * rng.uniform(1e-3, 1e-1, n)
    elif case.kind == "huge":  # sigmoid is 0 or 1 there
        x = sign * rng.uniform(100.0, 60000.0, n)
    else:
        raise ValueError(f"swish: unknown value kind {case.kind!r}")
    return {"x": x.astype(case.dtype).reshape(case.shape)}


PUBLIC = (
    Case(name="public-small", shape=(8, 1024), dtype="float16", seed=11, params={"beta": 1.0}),
    Case(name="public-negative", shape=(16, 512), dtype="float16", seed=12, kind="negative",
         params={"beta": 1.0}),
    Case(name="public-tail", shape=(3, 1001), dtype="float16", seed=13, params={"beta": 1.0}),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "swish-shapes"))

    def seed(name: str) -> int:
        return derive_seed(secret, "swish", name)

    beta = float(rng.choice([0.5, 1.0, 1.702]))
    cols = int(rng.integers(40, 200)) * 16
    p = {"beta": beta}
    return [
        Case(name="hidden-one", shape=(1, 1), dtype="float16", seed=seed("one"), params=p),
        *[Case(name=f"hidden-tail-{k}", shape=(1, cols + k), dtype="float16",
               seed=seed(f"tail-{k}"), params=p) for k in (1, 2, 3)],
        Case(name="hidden-odd", shape=(7, int(rng.integers(1000, 3000)) | 1), dtype="float16",
             seed=seed("odd"), params=p),
        Case(name="hidden-tiny", shape=(16, 1024), dtype="float16", seed=seed("tiny"),
             kind="tiny", params=p),
        Case(name="hidden-huge", shape=(16, 1024), dtype="float16", seed=seed("huge"),
             kind="huge", params=p),
        Case(name="hidden-negative", shape=(16, 1000), dtype="float16", seed=seed("negative"),
             kind="negative", params=p),
        Case(name="hidden-deep", shape=(8, 1024), dtype="float16", seed=seed("deep"),
             kind="deep", params=p),
        Case(name="hidden-largest", shape=LARGEST, dtype="float16", seed=seed("largest"),
             params=p, perf=True),
    ]


SPEC = ChallengeSpec(
    name="swish",
    title="Swish: y = x * sigmoid(beta * x)",
    inputs=("x",),
    outputs=("y",),
    reference=reference,
    generate=generate,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2",), allowed_ops=OPS),
    tiers=Tiers(gold=2.2, silver=4.0),  # from cost model 2.0 (challenges/README.md)
    limits=Limits(wall_s=60.0, cpu_s=60.0, memory_mb=2048),
)
