"""Day 5, "day5-matmul": c = a @ b, float16 in, float32 out, on the cube cores.

The reference, the input generator and the cases (hidden ones drawn from the grader's secret;
their shapes are listed in README.md). A case's shape is (m, k, n).
"""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed
from ascendlab.grader.perf import cube_bound

# the days' shared op sets (challenges/_common.py; a spec is loaded by path, not as a package)
C = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "_common.py")))
# The cube path: GM -> L1 (data_copy, Nd2Nz), L1 -> L0 (load_data), mmad, fixpipe, flags.
OPS = frozenset({"data_copy", "load_data", "mmad", "fixpipe", "set_flag", "wait_flag",
                 "pipe_barrier", "sync_all", "init_buffer", "alloc_tensor", "enque", "deque",
                 "free_tensor"})
LARGEST = (2048, 640, 1280)  # m, k, n: 4096 tokens x 640 channels -> a 1280 projection


def reference(inputs: dict, **params) -> np.ndarray:
    return inputs["a"] @ inputs["b"]


def generate(case: Case) -> dict:
    """a, b uniform in [-1, 1] ('uniform'; sums that cancel near zero are judged by msprobe's
    accumulative standard) or positive with magnitudes 2^-6 .. 2^6 ('mixed': signed, such
    sums cancel far below what float32 accumulation order can reach)."""
    rng = np.random.default_rng(case.seed)
    m, k, n = case.shape
    if case.kind == "uniform":
        a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n))
    elif case.kind == "mixed":
        a = np.exp2(rng.uniform(-6, 6, (m, k)))
        b = np.exp2(rng.uniform(-6, 6, (k, n)))
    else:
        raise ValueError(f"day5-matmul: unknown value kind {case.kind!r}")
    return {"a": a.astype(np.float16), "b": b.astype(np.float16)}


def bound(case: Case, chip: str) -> int:
    m, k, n = case.shape
    return cube_bound(m, n, k, "float16", chip)


def input_spec(case: Case) -> dict:
    m, k, n = case.shape
    return {"a": ((m, k), "float16"), "b": ((k, n), "float16")}


def output_spec(case: Case) -> dict:
    m, k, n = case.shape
    return {"c": ((m, n), "float32")}


PUBLIC = (
    Case(name="public-small", shape=(128, 256, 128), dtype="float16", seed=51),
    Case(name="public-tiles", shape=(256, 512, 384), dtype="float16", seed=52),
    Case(name="public-tail", shape=(100, 77, 40), dtype="float16", seed=53),
    # 72 output tiles of 128 x 128: three per cube core, so a missing flag between one
    # tile's fixpipe and the next tile's mmad shows here, not only on the largest hidden case
    Case(name="public-many-tiles", shape=(1024, 96, 1152), dtype="float16", seed=54),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "day5-shapes"))

    def case(name: str, shape: tuple, kind: str = "uniform", perf: bool = False) -> Case:
        return Case(name=name, shape=shape, dtype="float16", kind=kind, perf=perf,
                    seed=derive_seed(secret, "day5", name))

    m = int(rng.integers(2, 12)) * 16
    return [
        case("hidden-one", (1, 1, 1)),
        case("hidden-gemv", (1, int(rng.integers(100, 600)), 256)),
        *[case(f"hidden-tail-{t}", (m + t, 64 + t, 48 + t)) for t in (1, 2, 3)],
        case("hidden-odd", (int(rng.integers(100, 400)) | 1, int(rng.integers(100, 700)) | 1,
                            int(rng.integers(100, 400)) | 1)),
        case("hidden-mixed", (256, 320, 256), "mixed"),
        case("hidden-largest", LARGEST, perf=True),
    ]


SPEC = ChallengeSpec(
    name="day5-matmul",
    title="Matmul float16 -> float32 on the cube unit",
    inputs=("a", "b"),
    outputs=("c",),
    reference=reference,
    generate=generate,
    input_spec=input_spec,
    output_spec=output_spec,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2",), core_kind="aic", allowed_ops=OPS),
    tiers=Tiers(gold=3.4, silver=10.0),  # from cost model 2.0 (challenges/README.md)
    limits=Limits(wall_s=60.0, cpu_s=60.0, memory_mb=2048),
    bound=bound,
    precision="accumulative",
)
