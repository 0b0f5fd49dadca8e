"""Day 7, "day7-condition-fusion": adaptive fusion of three condition maps into a feature map.

    m_i = mean over the tokens of cond_i            (B, C) per condition i = 0, 1, 2
    w_i = sigmoid(m_i @ weight_i^T + bias_i)        (B, C)
    out = (sum_i w_i * cond_i + feature) / (sum_i w_i + 1)

Maps are in token layout (B, N = H*W, C). The reference, the input generator and the cases
(hidden ones drawn from the grader's secret; their shapes are listed in README.md). A case's
shape is (B, N, C).
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
LARGEST = (2, 96 * 96, 64)  # B, N = H*W, C
WORKSPACE = 64 * 1024  # bytes of zero-filled GM the kernel may take as one extra argument


def weights(cond: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """w (3, B, C) = sigmoid(mean over tokens of cond_i @ weight_i^T + bias_i), float64."""
    m = cond.mean(axis=2)  # (3, B, C)
    z = np.einsum("ibc,idc->ibd", m, weight) + bias[:, None, :]
    return 1.0 / (1.0 + np.exp(-z))


def reference(inputs: dict, **params) -> np.ndarray:
    w = weights(inputs["cond"], inputs["weight"], inputs["bias"])[:, :, None, :]
    return ((w * inputs["cond"]).sum(axis=0) + inputs["feature"]) / (w.sum(axis=0) + 1.0)


def generate(case: Case) -> dict:
    """Condition maps in [0, 1] (images: pose, depth, edges), the feature in [0.05, 2] ('uniform'),
    or a feature with magnitudes up to 1000 ('huge'); weight ~ U(+-1/sqrt(C)), bias in
    [-1, 1]. Positive maps keep the output away from zero (the relative-error rule)."""
    rng = np.random.default_rng(case.seed)
    b, n, c = case.shape
    cond = rng.uniform(0.0, 1.0, (3, b, n, c))
    cond[1] *= rng.uniform(0.0, 1.0, (b, 1, c))  # channels of different brightness
    hi = 1000.0 if case.kind == "huge" else 2.0
    feature = rng.uniform(0.05, hi, (b, n, c))
    weight = rng.uniform(-1.0, 1.0, (3, c, c)) / np.sqrt(c)
    bias = rng.uniform(-1.0, 1.0, (3, c))
    f16 = np.float16
    return {"feature": feature.astype(f16), "cond": cond.astype(f16),
            "weight": weight.astype(f16), "bias": bias.astype(f16)}


def input_spec(case: Case) -> dict:
    b, n, c = case.shape
    return {"feature": ((b, n, c), "float16"), "cond": ((3, b, n, c), "float16"),
            "weight": ((3, c, c), "float16"), "bias": ((3, c), "float16")}


def output_spec(case: Case) -> dict:
    return {"out": (case.shape, "float16")}


PUBLIC = (
    Case(name="public-small", shape=(1, 256, 64), dtype="float16", seed=71),
    Case(name="public-batch", shape=(2, 17 * 19, 32), dtype="float16", seed=72),
    Case(name="public-tail", shape=(1, 35, 48), dtype="float16", seed=73),
    # 200 tokens per vector core (24 per batch): seven tiles of 32 tokens each in the fused
    # pass, so a missing flag between tiles shows here, not only on the largest hidden case
    Case(name="public-many-tiles", shape=(2, 4800, 32), dtype="float16", seed=74),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "day7-shapes"))

    def case(name: str, shape: tuple, kind: str = "uniform", perf: bool = False) -> Case:
        return Case(name=name, shape=shape, dtype="float16", kind=kind, perf=perf,
                    seed=derive_seed(secret, "day7", name))

    h = int(rng.integers(20, 60)) | 1
    return [
        case("hidden-one", (1, 1, 16)),
        case("hidden-odd", (2, h * (h + 2), int(rng.choice([16, 32, 48, 64])))),
        case("hidden-few", (2, int(rng.integers(2, 47)), 64)),
        case("hidden-huge", (1, 32 * 32, 64), "huge"),
        case("hidden-largest", LARGEST, perf=True),
    ]


SPEC = ChallengeSpec(
    name="day7-condition-fusion",
    title="ControlNet++-style adaptive condition fusion",
    inputs=("feature", "cond", "weight", "bias"),
    outputs=("out",),
    reference=reference,
    generate=generate,
    input_spec=input_spec,
    output_spec=output_spec,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2",), allowed_ops=OPS, workspace_bytes=WORKSPACE),
    tiers=Tiers(gold=2.3, silver=6.0),  # from cost model 2.0 (challenges/README.md)
    limits=Limits(wall_s=60.0, cpu_s=60.0, memory_mb=2048),
)
