"""Day 2, "day2-gelu-bias": y = gelu_tanh(x + bias), bias broadcast over the rows.

The reference, the input generator and the cases (hidden ones drawn from the grader's secret;
their shapes and value kinds are listed in README.md).
"""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed

# the days' shared op sets (challenges/_common.py; a spec is loaded by path, not as a package)
C = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "_common.py")))
OPS = C.VECTOR_OPS
LARGEST = (1024, 1280)  # 1.3 Mi float16 elements: a 1280-channel UNet block, 32x32 tokens


def reference(inputs: dict, **params) -> np.ndarray:
    """GELU, tanh approximation (Hendrycks & Gimpel 2016), of x + bias, in float64."""
    u = inputs["x"] + inputs["bias"]
    return 0.5 * u * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (u + 0.044715 * u**3)))


def generate(case: Case) -> dict:
    """Values by kind. u = x + bias stays >= -4.5 (below, gelu(u) falls into the float16 range
    where even the correctly rounded answer misses the relative-error rule) and |u| >= 1e-3."""
    rng = np.random.default_rng(case.seed)
    rows, cols = case.shape
    n = case.size
    bias = rng.uniform(-0.5, 0.5, cols)
    if case.kind == "uniform":
        x = rng.uniform(-4.0, 4.0, n)
    elif case.kind == "negative":
        x = rng.uniform(-4.0, -0.5, n)
        bias = rng.uniform(-0.5, 0.0, cols)
    elif case.kind == "tiny":
        x = C.signed(rng, n, 1e-3, 0.05)
        bias = rng.uniform(-0.01, 0.01, cols)
    elif case.kind == "huge":
        x = C.signed(rng, n, 100.0, 30000.0)
    else:
        raise ValueError(f"day2-gelu-bias: unknown value kind {case.kind!r}")
    x16 = x.reshape(rows, cols).astype(np.float16)
    b16 = bias.astype(np.float16)
    u = x16.astype(np.float64) + b16
    x16[np.abs(u) < 1e-3] += np.float16(0.01)  # keep u = x + bias away from zero
    if case.kind == "negative":
        x16 = np.minimum(x16, np.float16(-0.5))
    return {"x": x16, "bias": b16}


def input_spec(case: Case) -> dict:
    return {"x": (case.shape, "float16"), "bias": ((case.shape[1],), "float16")}


PUBLIC = (
    Case(name="public-small", shape=(16, 1024), dtype="float16", seed=21),
    Case(name="public-negative", shape=(8, 512), dtype="float16", seed=22, kind="negative"),
    Case(name="public-tail", shape=(5, 1000), dtype="float16", seed=23),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "day2-shapes"))

    def case(name: str, shape: tuple, kind: str = "uniform", perf: bool = False) -> Case:
        return Case(name=name, shape=shape, dtype="float16", kind=kind, perf=perf,
                    seed=derive_seed(secret, "day2", name))

    cols = int(rng.integers(40, 200)) * 16
    return [
        case("hidden-one", (1, 1)),
        *[case(f"hidden-tail-{k}", (1, cols + k)) for k in (1, 2, 3)],
        case("hidden-odd", (int(rng.integers(3, 40)) | 1, int(rng.integers(200, 3000)) | 1)),
        case("hidden-tiny", (16, 1024), "tiny"),
        case("hidden-huge", (16, 1024), "huge"),
        case("hidden-negative", (16, 1000), "negative"),
        case("hidden-largest", LARGEST, perf=True),
    ]


SPEC = ChallengeSpec(
    name="day2-gelu-bias",
    title="GELU (tanh approximation) + bias, float16",
    inputs=("x", "bias"),
    outputs=("y",),
    reference=reference,
    generate=generate,
    input_spec=input_spec,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2",), allowed_ops=OPS),
    tiers=Tiers(gold=1.8, silver=4.0),  # from cost model 2.0 (challenges/README.md)
    limits=Limits(wall_s=60.0, cpu_s=60.0, memory_mb=2048),
)
