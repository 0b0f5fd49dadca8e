"""Day 3, "day3-layernorm-gelu": y = gelu_tanh(layernorm(x) * gamma + beta) over the last axis.

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
OPS = C.VECTOR_OPS | C.REDUCE_OPS
LARGEST = (1024, 1280)  # 32x32 tokens of a 1280-channel UNet transformer block
EPS = 1e-5


def _pre(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """layernorm(x) * gamma + beta in float64 (the GeLU's argument)."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def reference(inputs: dict, eps: float = EPS, **params) -> np.ndarray:
    u = _pre(inputs["x"], inputs["gamma"], inputs["beta"], eps)
    return 0.5 * u * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (u + 0.044715 * u**3)))


def generate(case: Case) -> dict:
    """x by kind (an offset and a scale per row), gamma in [0.5, 1.5], beta in [-0.5, 0.5].
    Elements whose GeLU argument lands within 1e-3 of zero, or below -4.5, are moved (a few
    passes): there even the correctly rounded float16 answer misses the relative-error rule
    of today's precision check."""
    rng = np.random.default_rng(case.seed)
    rows, cols = case.shape
    gamma = rng.uniform(0.5, 1.5, cols).astype(np.float16)
    beta = rng.uniform(-0.5, 0.5, cols).astype(np.float16)
    scale = {"uniform": 1.0, "tiny": 1e-3, "huge": 300.0, "offset": 1.0}[case.kind]
    shift = rng.uniform(-2, 2, (rows, 1)) * (4.0 if case.kind == "offset" else scale)
    x = (shift + scale * rng.standard_normal((rows, cols))).astype(np.float16)
    g64, b64 = gamma.astype(np.float64), beta.astype(np.float64)
    for _ in range(8):  # move the bad elements halfway to their row's mean, plus a step
        x64 = x.astype(np.float64)
        u = _pre(x64, g64, b64, case.params.get("eps", EPS))
        bad = (np.abs(u) < 1e-3) | (u < -4.5)
        if not bad.any():
            break
        mean = x64.mean(axis=-1, keepdims=True) + 0.1 * x64.std(axis=-1, keepdims=True)
        x = np.where(bad, (mean + 0.5 * (x64 - mean)), x64).astype(np.float16)
    return {"x": x, "gamma": gamma, "beta": beta}


def input_spec(case: Case) -> dict:
    cols = case.shape[1]
    return {"x": (case.shape, "float16"), "gamma": ((cols,), "float16"),
            "beta": ((cols,), "float16")}


def _case(name: str, shape: tuple, seed: int, kind: str = "uniform",
          perf: bool = False) -> Case:
    return Case(name=name, shape=shape, dtype="float16", seed=seed, kind=kind, perf=perf,
                params={"eps": EPS})


PUBLIC = (
    _case("public-small", (16, 1024), 31),
    _case("public-offset", (8, 320), 32, "offset"),  # rows offset by up to +-8
    _case("public-tail", (5, 1000), 33),
    # 11 rows of 1900 per vector core: three tiles or more each (the reference's are 2, 7, 2
    # rows), so a missing flag between tiles shows here, not only on the largest hidden case
    _case("public-many-tiles", (528, 1900), 34, "offset"),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "day3-shapes"))

    def case(name: str, shape: tuple, kind: str = "uniform", perf: bool = False) -> Case:
        return _case(name, shape, derive_seed(secret, "day3", name), kind, perf)

    cols = int(rng.integers(20, 120)) * 16
    return [
        case("hidden-one-row", (1, 2)),
        *[case(f"hidden-tail-{k}", (3, cols + k)) for k in (1, 2, 3)],
        case("hidden-odd", (int(rng.integers(3, 40)) | 1, int(rng.integers(100, 2000)) | 1)),
        case("hidden-tiny", (16, 768), "tiny"),
        case("hidden-huge", (16, 768), "huge"),
        case("hidden-offset", (16, 1000), "offset"),
        case("hidden-largest", LARGEST, perf=True),
    ]


SPEC = ChallengeSpec(
    name="day3-layernorm-gelu",
    title="LayerNorm + GeLU over the last axis, float16 in, float32 inside",
    inputs=("x", "gamma", "beta"),
    outputs=("y",),
    reference=reference,
    generate=generate,
    input_spec=input_spec,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    # the mean and the rstd reach adds/muls as scalars read from UB (get_value): they depend
    # on the data by design, so the fresh-input replay is off (docs/grader.md)
    rules=Rules(chips=("Ascend910B2",), allowed_ops=OPS, input_independent=False),
    tiers=Tiers(gold=3.8, silver=8.0),  # from cost model 2.0 (challenges/README.md)
    limits=Limits(wall_s=60.0, cpu_s=60.0, memory_mb=2048),
)
