"""Fusion decisions: one pass for an element-wise chain, no group that reads itself through
another kernel, the mean's scale folded into its reduction; the generated kernels are clean
under the sanitizer."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
from ascendlab import TensorSpec, ascend_kernel
from ascendlab.kernel.plan import plan
from ascendlab.ops import exp, matmul, sigmoid
from ascendlab.precision import check

from .conftest import golden

ROW = [TensorSpec("x", "float32", ["N", "K"])]


def _steps(op, *shapes):
    graph = op.graph(*[np.zeros(s, np.float32) for s in shapes])
    return plan(graph)


def test_elementwise_chain_is_one_kernel():
    @ascend_kernel(inputs=ROW, outputs=[TensorSpec("y", "float32", ["N", "K"])])
    def chain(x):
        return exp(-x) * sigmoid(x) + x / 3.0 - 1.0

    steps = _steps(chain, (4, 64))
    assert [s.kind for s in steps] == ["map"] and len(steps[0].nodes) >= 5


def test_group_that_would_read_itself_through_a_reduction_is_split():
    @ascend_kernel(inputs=ROW, outputs=[TensorSpec("y", "float32", ["N", "K"])])
    def softmax_like(x):
        e = exp(x * 2.0)
        return e / e.sum(1, keepdims=True)

    steps = _steps(softmax_like, (4, 64))
    assert [s.kind for s in steps] == ["map", "reduce", "map"]
    x = np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32)
    assert check(softmax_like(x), golden(softmax_like, [x])[0], "float32").passed


def test_independent_products_merge_into_the_consumer():
    @ascend_kernel(inputs=[TensorSpec("a", "float32", ["N"]), TensorSpec("b", "float32", ["N"]),
                           TensorSpec("c", "float32", ["N"])],
                   outputs=[TensorSpec("y", "float32", ["N"])])
    def three(a, b, c):
        return a * 2.0 + b * 3.0 + c * 4.0

    steps = _steps(three, (256,), (256,), (256,))
    assert len(steps) == 1 and len(steps[0].inputs) == 3


def test_mean_scale_is_folded_into_the_reduction():
    @ascend_kernel(inputs=ROW, outputs=[TensorSpec("y", "float32", ["N"])])
    def row_mean(x):
        return x.mean(1)

    steps = _steps(row_mean, (8, 100))
    assert [s.kind for s in steps] == ["reduce"] and "scale" in steps[0].attrs
    x = np.random.default_rng(1).standard_normal((8, 100)).astype(np.float32)
    assert check(row_mean(x), x.astype(np.float64).mean(1), "float32").passed


def test_multiple_outputs_and_fp16_matmul():
    @ascend_kernel(inputs=[TensorSpec("a", "float16", ["M", "K"]),
                           TensorSpec("b", "float16", ["K", "N"])],
                   outputs=[TensorSpec("c", "float32", ["M", "N"]),
                            TensorSpec("s", "float16", ["M", "N"])])
    def two(a, b):
        c = matmul(a, b)
        return c, sigmoid(c)

    rng = np.random.default_rng(2)  # |c| stays small: sigmoid(-17) is below fp16's subnormals,
    a = (rng.standard_normal((32, 48)) * 0.4).astype(np.float16)  # where no rounding meets
    b = (rng.standard_normal((48, 40)) * 0.4).astype(np.float16)  # the relative-error rule
    c, s = two(a, b)
    want = golden(two, [a, b])
    assert check(c, want[0], "float32").passed
    assert check(s, want[1], "float16").passed
    assert any(k.step.kind == "matmul" and "asc.float16" in k.source for k in two.kernels())


@pytest.fixture
def sanitizing():
    old = ascendlab.configure().sanitize
    ascendlab.configure(sanitize=True)
    yield
    ascendlab.configure(sanitize=old)


def test_generated_kernels_pass_the_sanitizer(examples, sanitizing):
    xs = examples.condition_inputs(b=1, c=16, h=8, w=8)
    op = examples.adaptive_condition_fuse
    op(*xs)  # a strict launch raises SanitizerError on any finding
    assert all(not r.findings for r in op.runs)
    op.backward(np.ones(xs[0].shape, np.float32), *xs)
    assert all(not r.findings for r in op.runs)
    ins = examples.lora_inputs(o=16, i=32, r=4)
    ascendlab.grad(examples.lora_fuse)(*ins)
    assert all(not r.findings for r in examples.lora_fuse.runs)
