"""Python-first operators: three operators written in NumPy style, lowered to pyasc kernels
that run on the emulated AI Core, forward and backward.

    python examples/python_first.py

- ControlNet++ adaptive condition fusion (learnable linear weights per condition),
- Swish with a learnable beta,
- dynamic LoRA fusion: a base weight plus a weighted sum of 10 adapters' B @ A, the weights
  given per call.
"""

from __future__ import annotations

import numpy as np

import ascendlab
from ascendlab import TensorSpec, ascend_kernel
from ascendlab.ops import linear, param, sigmoid

FEATURE = ["B", "C", "H", "W"]


@ascend_kernel(inputs=[TensorSpec("feature", "float16", FEATURE),
                       TensorSpec("cond_edge", "float16", FEATURE),
                       TensorSpec("cond_depth", "float16", FEATURE),
                       TensorSpec("cond_sem", "float16", FEATURE)],
               outputs=[TensorSpec("fused", "float16", FEATURE)])
def adaptive_condition_fuse(feature, cond_edge, cond_depth, cond_sem):
    """ControlNet++-style fusion: each condition's weight is sigmoid(linear(global mean))."""
    w_edge = sigmoid(linear(cond_edge.mean([2, 3]), name="edge"))[:, :, None, None]
    w_depth = sigmoid(linear(cond_depth.mean([2, 3]), name="depth"))[:, :, None, None]
    w_sem = sigmoid(linear(cond_sem.mean([2, 3]), name="sem"))[:, :, None, None]
    return ((w_edge * cond_edge + w_depth * cond_depth + w_sem * cond_sem + feature)
            / (w_edge + w_depth + w_sem + 1.0))


@ascend_kernel(inputs=[TensorSpec("x", "float16", ["N"])],
               outputs=[TensorSpec("y", "float16", ["N"])])
def swish(x):
    """y = x * sigmoid(beta * x) with a learnable beta (initialised to 1)."""
    beta = param("beta", (1,), init="ones")
    return x * sigmoid(beta * x)


ADAPTERS = 10


@ascend_kernel(inputs=[TensorSpec("base", "float32", ["O", "I"]),
                       TensorSpec("lora_a", "float32", [ADAPTERS, "R", "I"]),
                       TensorSpec("lora_b", "float32", [ADAPTERS, "O", "R"]),
                       TensorSpec("weights", "float32", [ADAPTERS])],
               outputs=[TensorSpec("merged", "float32", ["O", "I"])])
def lora_fuse(base, lora_a, lora_b, weights):
    """base + sum_i weights[i] * (B_i @ A_i): 10 low-rank adapters merged per call."""
    return base + (weights[:, None, None] * (lora_b @ lora_a)).sum(0)


def condition_inputs(b: int = 2, c: int = 16, h: int = 16, w: int = 16, seed: int = 0
                     ) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((b, c, h, w)).astype(np.float16) for _ in range(4)]


def lora_inputs(o: int = 64, i: int = 64, r: int = 8, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((o, i)).astype(np.float32),
            (rng.standard_normal((ADAPTERS, r, i)) * 0.1).astype(np.float32),
            (rng.standard_normal((ADAPTERS, o, r)) * 0.1).astype(np.float32),
            rng.uniform(0.0, 1.0, ADAPTERS).astype(np.float32)]


def main() -> None:
    xs = condition_inputs()
    fused = adaptive_condition_fuse(*xs)
    print("fusion:", fused.shape, fused.dtype, "last kernel", ascendlab.last_run().cycles,
          "cycles")
    print(adaptive_condition_fuse.explain())
    g = adaptive_condition_fuse.backward(np.ones(fused.shape, np.float32), *xs)
    print("fusion grads:", [a.shape for a in g.inputs], sorted(g.params))

    x = np.linspace(-6, 6, 4096).astype(np.float16)
    y = swish(x)
    g = swish.backward(np.ones(x.shape, np.float32), x)
    print("swish:", y[:3], "d/dbeta", g.params["beta"])

    ins = lora_inputs()
    merged = lora_fuse(*ins)
    g = ascendlab.grad(lora_fuse)(*ins)
    print("lora:", merged.shape, "d/dweights", g.inputs[3].round(3))


if __name__ == "__main__":
    main()
