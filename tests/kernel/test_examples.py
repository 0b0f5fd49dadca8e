"""The three issue examples, forward and backward: parity with the float64 reference under the
CANN precision standard, and gradients against central finite differences of that reference."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
from ascendlab.precision import check

from .conftest import finite_difference, golden


def _check_grads(op, inputs, grads, grad_out, picks, rtol=2e-3, atol=2e-3):
    for wrt, got in picks(grads):
        rng = np.random.default_rng(1)
        flat = [tuple(rng.integers(0, d) for d in got.shape) for _ in range(4)]
        for index in flat:
            want = finite_difference(op, inputs, grad_out, wrt, index)
            assert abs(got[index] - want) <= atol + rtol * abs(want), (wrt, index, got[index],
                                                                       want)


def test_fusion_forward_parity_and_run(examples):
    op = examples.adaptive_condition_fuse
    xs = examples.condition_inputs(b=2, c=16, h=8, w=8)
    out = op(*xs)
    assert out.dtype == np.float16 and out.shape == xs[0].shape
    result = check(out, golden(op, xs)[0], "float16")
    assert result.passed, str(result)
    run = ascendlab.last_run()
    assert run is op.runs[-1] and len(op.runs) > 1
    assert run.cycles > 0


def test_fusion_backward_matches_finite_differences(examples):
    op = examples.adaptive_condition_fuse
    xs = examples.condition_inputs(b=1, c=16, h=4, w=4, seed=3)
    gout = np.random.default_rng(2).standard_normal(xs[0].shape).astype(np.float32)
    g = op.backward(gout, *xs)
    assert [a.shape for a in g.inputs] == [x.shape for x in xs]
    assert sorted(g.params) == sorted(op.params)
    _check_grads(op, xs, g, gout, lambda g: [(i, g.inputs[i]) for i in range(4)]
                 + [(n, g.params[n]) for n in ("edge.weight", "sem.bias")])


def test_swish_forward_and_learnable_beta(examples):
    op = examples.swish
    x = np.linspace(-8, 8, 3000).astype(np.float16)  # 3000: a tail that is not 32 B aligned
    op.params["beta"] = np.array([1.5], np.float32)
    result = check(op(x), golden(op, [x])[0], "float16")
    assert result.passed, str(result)
    gout = np.random.default_rng(0).standard_normal(x.shape).astype(np.float32)
    g = op.backward(gout, x)
    want = finite_difference(op, [x], gout, "beta", (0,))
    assert g.params["beta"][0] == pytest.approx(want, rel=1e-3)
    _check_grads(op, [x], g, gout, lambda g: [(0, g.inputs[0])])
    op.params["beta"] = np.array([1.0], np.float32)


def test_lora_fusion_forward_and_grads(examples):
    op = examples.lora_fuse
    ins = examples.lora_inputs(o=32, i=48, r=8)
    out = op(*ins)
    result = check(out, golden(op, ins)[0], "float32")
    assert result.passed, str(result)
    g = ascendlab.grad(op)(*ins)  # grad_out = ones
    ones = np.ones(out.shape)
    _check_grads(op, ins, g, ones, lambda g: [(i, g.inputs[i]) for i in range(4)])
    # weights change per call: a new weight vector gives a new result without recompiling
    w2 = ins[3][::-1].copy()
    out2 = op(*ins[:3], w2)
    assert check(out2, golden(op, [*ins[:3], w2])[0], "float32").passed


def test_explain_fused_beats_unfused(examples):
    op = examples.swish
    x = np.random.default_rng(0).standard_normal(8192).astype(np.float16)
    op(x)
    ex = op.explain()
    assert ex.fused_cycles < ex.unfused_cycles
    assert len(ex.fused) == 1 and len(ex.unfused) == 3
    assert "unfused" in str(ex) and "TILE" in str(ex)


def test_out_is_written_in_place_by_the_kernel(examples):
    x = np.linspace(-4, 4, 2048).astype(np.float16)
    y = np.zeros_like(x)
    examples.swish(x, out=y)
    run = ascendlab.last_run()
    assert len(examples.swish.runs) == 1
    np.testing.assert_array_equal(y, examples.swish(x))
    written = {a.name for e in run.trace if e.op == "data_copy" for a in e.writes}
    assert written  # the kernel's own stores filled `y`
    with pytest.raises(ascendlab.errors.DTypeError, match="out 'y' dtype"):
        examples.swish(x, out=np.zeros(2048, np.float32))


def test_edited_kernel_source_runs(examples):
    op = examples.swish
    x = np.linspace(-4, 4, 4096).astype(np.float16)
    op(x)
    k = op.kernels()[0]
    original = k.source
    # a learner's edit: drop the final multiply by x (y = sigmoid(beta x))
    edited = original.replace("asc.mul(t1, t0, t2, n)", "asc.adds(t1, t2, 0.0, n)")
    assert edited != original
    op.edit_kernel(k.step.name, edited)
    try:
        y = op(x)
        np.testing.assert_allclose(y, 1 / (1 + np.exp(-x.astype(np.float64))), atol=2e-3)
        assert ascendlab.last_run().trace[-1].file.endswith("(edited)>")
    finally:
        op.edit_kernel(k.step.name, original)
    with pytest.raises(KeyError, match="no kernel 'map_9'"):
        op.edit_kernel("map_9", original)
