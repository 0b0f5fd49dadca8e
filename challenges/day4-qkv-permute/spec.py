"""Day 4, "day4-qkv-permute": the fused QKV projection's output (b, s, 3*h*d) split into
q, k, v of shape (b, h, s, d) each, in one kernel.

The reference, the input generator and the cases (hidden ones drawn from the grader's secret;
their shapes are listed in README.md). A case's shape is (b, s, h, d).
"""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed

# the days' shared op sets (challenges/_common.py; a spec is loaded by path, not as a package)
C = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "_common.py")))
# Data movement only: DMA, the framework, flags. No vector arithmetic is needed.
OPS = frozenset({"data_copy", "data_copy_pad", "init_buffer", "alloc_tensor", "enque",
                 "deque", "free_tensor", "set_flag", "wait_flag", "pipe_barrier", "sync_all"})
LARGEST = (2, 1024, 8, 64)  # b, s, h, d: 3 Mi float16 elements in, the same out


def reference(inputs: dict, **params) -> dict:
    qkv = inputs["qkv"]
    b, s, hd3 = qkv.shape
    h, d = params["h"], params["d"]
    t = qkv.reshape(b, s, 3, h, d).transpose(2, 0, 3, 1, 4)
    return {"q": t[0], "k": t[1], "v": t[2]}


def generate(case: Case) -> dict:
    rng = np.random.default_rng(case.seed)
    b, s, h, d = case.shape
    x = C.signed(rng, b * s * 3 * h * d, 1e-3, 8.0)  # every element distinct-ish, both signs
    return {"qkv": x.reshape(b, s, 3 * h * d).astype(np.float16)}


def input_spec(case: Case) -> dict:
    b, s, h, d = case.shape
    return {"qkv": ((b, s, 3 * h * d), "float16")}


def output_spec(case: Case) -> dict:
    b, s, h, d = case.shape
    return {name: ((b, h, s, d), "float16") for name in ("q", "k", "v")}


def _case(name: str, shape: tuple, seed: int, perf: bool = False) -> Case:
    b, s, h, d = shape
    return Case(name=name, shape=shape, dtype="float16", seed=seed, perf=perf,
                params={"h": h, "d": d})


PUBLIC = (
    _case("public-small", (1, 64, 4, 64), 41),
    _case("public-sd15", (2, 77, 8, 40), 42),  # SD 1.5 text tokens, head dim 40 (80 B rows)
    _case("public-tail", (1, 35, 3, 24), 43),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "day4-shapes"))

    def case(name: str, shape: tuple, perf: bool = False) -> Case:
        return _case(name, shape, derive_seed(secret, "day4", name), perf)

    m = int(rng.integers(4, 40))
    return [
        case("hidden-one", (1, 1, 1, 1)),
        case("hidden-three", (1, 3, 1, int(rng.choice([3, 5, 7])))),
        *[case(f"hidden-tail-{k}", (1, 16 * m + k, 2, 64))
          for k in (1, 2, 3)],
        case("hidden-odd", (int(rng.integers(1, 4)), int(rng.integers(50, 400)) | 1,
                            int(rng.integers(2, 6)), int(rng.choice([40, 72, 80, 96])))),
        case("hidden-sd15", (2, 1024, 8, 40)),
        case("hidden-largest", LARGEST, perf=True),
    ]


SPEC = ChallengeSpec(
    name="day4-qkv-permute",
    title="QKV split + permute: (b, s, 3*h*d) -> q, k, v of (b, h, s, d)",
    inputs=("qkv",),
    outputs=("q", "k", "v"),
    reference=reference,
    generate=generate,
    input_spec=input_spec,
    output_spec=output_spec,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2",), allowed_ops=OPS),
    tiers=Tiers(gold=2.25, silver=5.0),  # from cost model 2.0 (challenges/README.md)
    limits=Limits(wall_s=60.0, cpu_s=60.0, memory_mb=2048),
)
