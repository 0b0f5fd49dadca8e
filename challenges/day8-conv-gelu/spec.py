"""Day 8 (bonus), "day8-conv-gelu": y = gelu_tanh(conv2d(x, w, stride, pad) + bias), float16 in,
float32 accumulation, float16 out, with the convolution on the cube through img2col
(load_data with LoadData3DParamsV2) and the epilogue on the vector cores (MIX).

The reference, the input generator and the cases (hidden ones drawn from the grader's secret;
their shapes are listed in README.md). A case's shape is (N, H, W, Cin, Cout, k) for an N x H x
W x Cin NHWC input and k x k filters; its params are stride and pad.
"""

from __future__ import annotations

import numpy as np

from ascendlab.grader.challenge import Case, ChallengeSpec, Limits, Rules, Tiers, derive_seed
from ascendlab.grader.perf import cube_bound

LARGEST = (4, 48, 48, 32, 64, 3)  # 48 x 48 latents, 32 -> 64 channels, 3 x 3, batch 4
K_GELU = -1.5957691216057308  # -2 sqrt(2 / pi)
BN_EPS = 1e-5
WORKSPACE = 16 << 20


def out_hw(h: int, w: int, k: int, stride: int, pad: int) -> tuple[int, int]:
    return (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1


def conv_f64(x: np.ndarray, w5: np.ndarray, stride: int, pad: int) -> np.ndarray:
    """conv2d in float64 of NHWC x with w5 (C1, k, k, 16, Cout): channel c1 * 16 + c0 of tap
    (a, b) meets w5[c1, a, b, c0]; (N, Ho, Wo, Cout)."""
    n, h, wd, cin = x.shape
    c1, k, _, _, cout = w5.shape
    xp = np.zeros((n, h + 2 * pad, wd + 2 * pad, c1 * 16))
    xp[:, pad:pad + h, pad:pad + wd, :cin] = x
    ho, wo = out_hw(h, wd, k, stride, pad)
    wt = w5.astype(np.float64).reshape(c1, k, k, 16, cout)
    out = np.zeros((n, ho, wo, cout))
    for a in range(k):
        for b in range(k):
            patch = xp[:, a:a + stride * (ho - 1) + 1:stride, b:b + stride * (wo - 1) + 1:stride]
            for j in range(c1):
                out += patch[..., j * 16:(j + 1) * 16] @ wt[j, a, b]
    return out


def reference(inputs: dict, stride: int = 1, pad: int = 0, **_: object) -> np.ndarray:
    u = conv_f64(inputs["x"].astype(np.float64), inputs["w"], stride, pad)
    u = u + inputs["bias"].astype(np.float64)
    return u / (1.0 + np.exp(K_GELU * (u + 0.044715 * u ** 3)))


def fold_batchnorm(w: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray,
                   var: np.ndarray, conv_bias: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inference BatchNorm after a conv is an affine map per output channel, so it folds into
    the conv: w' = w * s, b' = (b - mean) * s + beta with s = gamma / sqrt(var + eps); w is
    (Cout, Cin, k, k), the others (Cout,)."""
    s = gamma / np.sqrt(var + BN_EPS)
    return w * s[:, None, None, None], (conv_bias - mean) * s + beta


def to_w5(w: np.ndarray) -> np.ndarray:
    """(Cout, Cin, k, k) -> (C1, k, k, 16, Cout): the img2col column order (c1, kh, kw, c0),
    channels zero-padded to 16 (what load_3d's K axis and FRACTAL_Z use)."""
    cout, cin, k, _ = w.shape
    c1 = -(-cin // 16)
    wp = np.zeros((cout, c1 * 16, k, k), w.dtype)
    wp[:, :cin] = w
    return np.ascontiguousarray(wp.reshape(cout, c1, 16, k, k).transpose(1, 3, 4, 2, 0))


def generate(case: Case) -> dict:
    """x uniform in [-1, 1]; a conv with bias followed by an inference BatchNorm (random gamma,
    beta, running mean and variance), folded on the host into w and bias (fold_batchnorm)."""
    rng = np.random.default_rng(case.seed)
    n, h, wd, cin, cout, k = case.shape
    x = rng.uniform(-1, 1, (n, h, wd, cin))
    w = rng.uniform(-1, 1, (cout, cin, k, k)) / np.sqrt(cin * k * k)
    gamma, beta = rng.uniform(0.5, 1.5, cout), rng.uniform(-0.5, 0.5, cout)
    mean, var = rng.uniform(-0.2, 0.2, cout), rng.uniform(0.5, 2.0, cout)
    wf, bf = fold_batchnorm(w, gamma, beta, mean, var,
                            rng.uniform(-0.1, 0.1, cout))
    return {"x": x.astype(np.float16), "w": to_w5(wf).astype(np.float16),
            "bias": bf.astype(np.float32)}


def input_spec(case: Case) -> dict:
    n, h, wd, cin, cout, k = case.shape
    return {"x": ((n, h, wd, cin), "float16"), "w": ((-(-cin // 16), k, k, 16, cout), "float16"),
            "bias": ((cout,), "float32")}


def output_spec(case: Case) -> dict:
    n, h, wd, cin, cout, k = case.shape
    ho, wo = out_hw(h, wd, k, case.params["stride"], case.params["pad"])
    return {"y": ((n, ho, wo, cout), "float16")}


def bound(case: Case, chip: str) -> int:
    """The cube's time for the (N Ho Wo) x (C1 16 k k) by (C1 16 k k) x Cout product."""
    n, h, wd, cin, cout, k = case.shape
    ho, wo = out_hw(h, wd, k, case.params["stride"], case.params["pad"])
    return cube_bound(n * ho * wo, cout, -(-cin // 16) * 16 * k * k, "float16", chip)


def _case(name: str, shape: tuple, stride: int, pad: int, seed: int, perf: bool = False) -> Case:
    return Case(name=name, shape=shape, dtype="float16", seed=seed, perf=perf,
                params={"stride": stride, "pad": pad})


PUBLIC = (
    _case("public-small", (1, 8, 8, 16, 16, 3), 1, 1, 81),
    _case("public-stride2", (1, 15, 13, 16, 32, 3), 2, 1, 82),
    _case("public-rgb", (1, 9, 11, 3, 24, 3), 1, 1, 83),
)


def hidden_cases(secret: int) -> list[Case]:
    rng = np.random.default_rng(derive_seed(secret, "day8-shapes"))

    def case(name: str, shape: tuple, stride: int, pad: int, perf: bool = False) -> Case:
        return _case(name, shape, stride, pad, derive_seed(secret, "day8", name), perf)

    h, w = int(rng.integers(9, 30)) | 1, int(rng.integers(9, 30)) | 1
    cin = int(rng.integers(17, 40))
    return [
        case("hidden-one", (1, 1, 1, 1, 1, 1), 1, 0),
        case("hidden-odd", (1, h, w, cin, int(rng.integers(8, 40)), 3), 1, 1),
        case("hidden-stride2", (2, h, w, 16, 32, 3), 2, 1),
        case("hidden-1x1", (1, 12, 12, cin, 48, 1), 1, 0),
        case("hidden-5x5", (1, 14, 10, 8, 16, 5), 1, 2),
        case("hidden-largest", LARGEST, 1, 1, perf=True),
    ]


OPS = frozenset({
    "data_copy", "data_copy_pad", "load_data", "load_data_3d", "mmad", "fixpipe",
    "set_flag", "wait_flag", "pipe_barrier", "cross_core_set_flag", "cross_core_wait_flag",
    "init_buffer", "alloc_tensor", "enque", "deque", "free_tensor", "cast", "add", "sub",
    "mul", "div", "adds", "muls", "exp", "duplicate", "max", "min", "maxs", "mins",
    "reciprocal",
})

# record:begin (generated by tests/challenges/build.py records; do not edit)
# the best known kernel's cycles on the performance case (secret 20261201) and why it is fast
RECORD = Tiers.for_record(31974, '2.0', holder='reference', note=(
    "The im2col matrix never exists: load_3d cuts each window straight from the feature map "
    "in L1, so GM sees x, w, bias and y about once; the weights stay in L1 for the whole "
    "kernel; every level of the cube path has two slots, so MTE2, MTE1, M and FIX overlap; "
    "and the epilogue runs on the vector cores one tile behind the cube, handed over "
    "through a two-slot workspace with cross-core flags. What it does not win back: a "
    "tile's float32 result still goes through GM between the cube and the vector cores "
    "(fixpipe is the only way out of L0C), and with few tiles per group the first and last "
    "tiles do not overlap."))
# record:end


SPEC = ChallengeSpec(
    name="day8-conv-gelu",
    title="Bonus: conv2d + bias + GELU, img2col on the cube, the epilogue on the vector cores",
    inputs=("x", "w", "bias"),
    outputs=("y",),
    reference=reference,
    generate=generate,
    input_spec=input_spec,
    output_spec=output_spec,
    public_cases=PUBLIC,
    hidden_cases=hidden_cases,
    rules=Rules(chips=("Ascend910B2",), core_kind="mix", allowed_ops=OPS,
                workspace_bytes=WORKSPACE),
    tiers=RECORD,
    limits=Limits(wall_s=60.0, cpu_s=60.0, memory_mb=2048),
    bound=bound,
    precision="accumulative",
)
