"""Day 6, "day6-attention": one attention head, o = softmax(q k^T / sqrt(d)) v, as a MIX
kernel (cube for the two products, vector cores for the online softmax).

The reference, the input generator and the cases (hidden ones drawn from the grader's secret;
their shapes are listed in README.md). A case's shape is (S_q, S_k, d).
"""

from __future__ import annotations

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed
from ascendlab.grader.perf import cube_bound

LARGEST = (768, 768, 64)  # 768 tokens (a 24 x 32 latent), head dim 64


def reference(inputs: dict, **params) -> np.ndarray:
    q, k_t, v = inputs["q"], inputs["k_t"], inputs["v"]
    s = q @ k_t / np.sqrt(q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v


def shapes(case: Case) -> dict:
    s_q, s_k, d = case.shape
    return {"q": ((s_q, d), "float16"), "k_t": ((d, s_k), "float16"),
            "v": ((s_k, d), "float16")}


def out_shapes(case: Case) -> dict:
    s_q, _, d = case.shape
    return {"o": ((s_q, d), "float16")}


def generate(case: Case) -> dict:
    """q, k in [-2, 2] (q scaled by 4 for 'peaky'), v in [-1, 1]."""
    rng = np.random.default_rng(case.seed)
    s_q, s_k, d = case.shape
    q = rng.uniform(-2, 2, (s_q, d)) * (4.0 if case.kind == "peaky" else 1.0)
    k = rng.uniform(-2, 2, (d, s_k))
    v = rng.uniform(-1, 1, (s_k, d))
    return {"q": q.astype(np.float16), "k_t": k.astype(np.float16), "v": v.astype(np.float16)}


def bound(case: Case, chip: str) -> int:
    """The cube's time for q k^T and p v on all cube cores."""
    s_q, s_k, d = case.shape
    return cube_bound(s_q, s_k, d, "float16", chip) + cube_bound(s_q, d, s_k, "float16", chip)


PUBLIC = (
    Case(name="public-small", shape=(64, 256, 64), dtype="float16", seed=61),
    Case(name="public-keytail", shape=(70, 300, 64), dtype="float16", seed=62),
    Case(name="public-d128", shape=(32, 128, 128), dtype="float16", seed=63),
    # 72 blocks of 32 query rows (or 144 of 16): three or more per core, so a p buffer
    # rewritten before the cube has read it shows here, not only on the largest hidden case
    Case(name="public-many-blocks", shape=(2304, 200, 64), dtype="float16", seed=64),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "day6-shapes"))

    def case(name: str, shape: tuple, kind: str = "uniform", perf: bool = False) -> Case:
        return Case(name=name, shape=shape, dtype="float16", kind=kind, perf=perf,
                    seed=derive_seed(secret, "day6", name))

    m, mk = int(rng.integers(1, 6)), int(rng.integers(1, 4))
    return [
        case("hidden-one", (1, 1, 16)),
        *[case(f"hidden-tail-{t}", (16 * m + t, 128 * mk + t, 64)) for t in (1, 2, 3)],
        case("hidden-odd", (int(rng.integers(20, 200)) | 1, int(rng.integers(100, 600)) | 1,
                            80)),
        case("hidden-peaky", (48, 512, 64), "peaky"),
        case("hidden-largest", LARGEST, perf=True),
    ]


SPEC = ChallengeSpec(
    name="day6-attention",
    title="One attention head with an online (flash) softmax, cube + vector (MIX)",
    inputs=("q", "k_t", "v"),
    outputs=("o",),
    reference=reference,
    generate=generate,
    input_spec=shapes,
    output_spec=out_shapes,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    # row maxima, alphas and 1/l reach adds / muls as scalars read from UB (get_value)
    rules=Rules(chips=("Ascend910B2",), core_kind="mix", workspace_bytes=4 << 20,
                input_independent=False),
    tiers=Tiers(gold=100.0, silver=400.0),  # from cost model 2.0 (challenges/README.md)
    limits=Limits(wall_s=120.0, cpu_s=120.0, memory_mb=3072),
    bound=bound,
    precision="accumulative",
)
