"""Challenge "vadd": z = x + y, element-wise, on every vector core.

The reference, the input generator and the cases. The hidden cases are drawn at grading time
from a seed only the grader knows; their shapes and value kinds are listed in README.md.
"""

from __future__ import annotations

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed

# Everything a vector-add kernel needs: DMA in and out, the add, the framework and flags.
OPS = frozenset({"data_copy", "data_copy_pad", "add", "init_buffer", "alloc_tensor", "enque",
                 "deque", "free_tensor", "set_flag", "wait_flag", "pipe_barrier", "sync_all",
                 "get_value", "set_value"})
LARGEST = 1 << 20  # elements: 2 MiB per float16 array


def reference(inputs: dict, **params) -> np.ndarray:
    """z = x + y in float64 (the grader's golden)."""
    return inputs["x"] + inputs["y"]


def _values(rng: np.random.Generator, n: int, dtype: str, kind: str) -> np.ndarray:
    big = 1e4 if dtype == "float16" else 1e37  # |x + y| stays below the dtype's max
    if kind == "uniform":
        v = rng.uniform(-1.0, 1.0, n)
    elif kind == "negative":
        v = -rng.uniform(0.01, 100.0, n)
    elif kind == "tiny":  # float16 subnormals (float32: near its normal minimum)
        lo = 2.0**-24 if dtype == "float16" else 2.0**-126
        v = rng.choice([-1.0, 1.0], n) * rng.uniform(lo, 1024 * lo, n)
    elif kind == "huge":
        v = rng.choice([-1.0, 1.0], n) * rng.uniform(big, 3 * big, n)
    elif kind == "mixed":  # magnitudes over many binades, both signs
        v = rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-12, 12, n))
    else:
        raise ValueError(f"vadd: unknown value kind {kind!r}")
    return v.astype(dtype)


def generate(case: Case) -> dict:
    rng = np.random.default_rng(case.seed)
    return {name: _values(rng, case.size, case.dtype, case.kind).reshape(case.shape)
            for name in ("x", "y")}


PUBLIC = (
    Case(name="public-small", shape=(4096,), dtype="float16", seed=1),
    Case(name="public-fp32", shape=(3000,), dtype="float32", seed=2, kind="mixed"),
    Case(name="public-tail", shape=(48 * 1024 + 3,), dtype="float16", seed=3),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "vadd-shapes"))

    def seed(name: str) -> int:
        return derive_seed(secret, "vadd", name)

    tail = int(rng.integers(40, 400)) * 16  # a multiple of 16 elements, then the tail
    cases = [
        Case(name="hidden-one", shape=(1,), dtype="float16", seed=seed("one")),
        Case(name="hidden-three", shape=(3,), dtype="float32", seed=seed("three")),
    ]
    for k in (1, 2, 3):
        cases.append(Case(name=f"hidden-tail-{k}", shape=(tail + k,), dtype="float16",
                          seed=seed(f"tail-{k}")))
    odd = int(rng.integers(10_000, 60_000)) | 1  # not a multiple of any tile or of 32 B
    cases += [
        Case(name="hidden-odd", shape=(odd,), dtype="float16", seed=seed("odd"), kind="mixed"),
        Case(name="hidden-tiny", shape=(8192,), dtype="float16", seed=seed("tiny"), kind="tiny"),
        Case(name="hidden-huge", shape=(8192 + 5,), dtype="float32", seed=seed("huge"),
             kind="huge"),
        Case(name="hidden-negative", shape=(20_000,), dtype="float16", seed=seed("negative"),
             kind="negative"),
        Case(name="hidden-largest", shape=(LARGEST,), dtype="float16", seed=seed("largest"),
             perf=True),
    ]
    return cases


SPEC = ChallengeSpec(
    name="vadd",
    title="Vector add: z = x + y",
    inputs=("x", "y"),
    outputs=("z",),
    reference=reference,
    generate=generate,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2", "Ascend310P3"), allowed_ops=OPS),
    tiers=Tiers(gold=1.5, silver=3.0),
    limits=Limits(wall_s=60.0, cpu_s=60.0, memory_mb=2048),
)
