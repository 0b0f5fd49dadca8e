"""Every op of the vocabulary through the generated kernels, forward and backward, against the
float64 reference; the op tables cover the vocabulary; generated source is what ran."""

from __future__ import annotations

import linecache

import numpy as np

import ascendlab
from ascendlab import TensorSpec, ascend_kernel
from ascendlab.kernel import autodiff, emit_map, graph, reference
from ascendlab.ops import abs as vabs
from ascendlab.ops import (
    exp,
    log,
    matmul,
    maximum,
    minimum,
    relu,
    sigmoid,
    sqrt,
    tanh,
    transpose,
    where,
)
from ascendlab.precision import check

from .conftest import finite_difference, golden


@ascend_kernel(inputs=[TensorSpec("x", "float32", ["N", "K"]),
                       TensorSpec("y", "float32", ["N", "K"]),
                       TensorSpec("m", "float32", ["K", "M"])],
               outputs=[TensorSpec("out", "float32", ["N", "M"])])
def every_op(x, y, m):
    a = exp(x * 0.5) + log(vabs(y) + 1.0) - sqrt(maximum(x, y) * maximum(x, y) + 1.0)
    b = tanh(minimum(x, y)) / (1.0 + sigmoid(y)) - relu(-x)
    c = where(x > y, a, b) + 2.0 - y
    d = c - c.max(axis=1, keepdims=True) + c.mean(0)
    e = transpose(transpose(d)).reshape(d.shape[0], -1)
    return matmul(e, m) + m.sum(0) / 4.0


def _inputs(n=8, k=24, m=16, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, k)).astype(np.float32),
            rng.standard_normal((n, k)).astype(np.float32),
            (rng.standard_normal((k, m)) * 0.2).astype(np.float32)]


def test_every_op_forward_matches_float64_reference():
    xs = _inputs()
    out = every_op(*xs)
    result = check(out, golden(every_op, xs)[0], "float32")
    assert result.passed, str(result)


def test_every_op_backward_matches_finite_differences():
    xs = _inputs(n=4, k=8, m=8, seed=1)
    gout = np.random.default_rng(5).standard_normal((4, 8))
    g = every_op.backward(gout.astype(np.float32), *xs)
    rng = np.random.default_rng(0)
    for i in range(3):
        for _ in range(6):
            idx = tuple(int(rng.integers(0, d)) for d in xs[i].shape)
            want = finite_difference(every_op, xs, gout, i, idx, eps=1e-4)
            assert abs(g.inputs[i][idx] - want) <= 1e-3 + 1e-3 * abs(want), (i, idx, want)


def test_tables_cover_the_vocabulary():
    lowered = (set(emit_map.VV) | set(emit_map.UNARY) | set(emit_map.CMP)
               | {"neg", "copy", "broadcast_to", "sigmoid", "tanh", "where"})
    for op in graph.ELEMENTWISE:
        assert op in lowered, op
        assert op in reference.UNARY or op in reference.BINARY or op in ("where",
                                                                         "broadcast_to")
    for op in graph.ELEMENTWISE + graph.REDUCE + graph.LAYOUT + graph.MATMUL:
        assert op in autodiff.RULES or op in autodiff.NO_GRAD, op


def test_lower_shows_the_source_that_ran():
    xs = _inputs()
    every_op(*xs)
    text = every_op.lower()
    assert text.count("@asc.jit") == len(every_op.runs)
    run = ascendlab.last_run()
    files = {e.file for e in run.trace if e.file.startswith("<ascend_kernel every_op")}
    assert files, "trace events point into the generated source"
    event = next(e for e in run.trace if e.file in files and e.op == "data_copy")
    assert "data_copy" in linecache.getline(event.file, event.line)
    kinds = {k.step.kind for k in every_op.kernels()}
    assert kinds == {"map", "reduce", "matmul", "transpose"}
