"""Validation before anything runs: ranks, symbolic dims, dtypes, output specs."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
from ascendlab import ShapeError, TensorSpec, ascend_kernel
from ascendlab.errors import DTypeError
from ascendlab.ops import sigmoid


@ascend_kernel(inputs=[TensorSpec("a", "float16", ["B", "C"]),
                       TensorSpec("b", "float16", ["B", "C"])],
               outputs=[TensorSpec("out", "float16", ["B", "C"])])
def add_sig(a, b):
    return sigmoid(a) + b


def test_shape_error_is_a_value_error_exported_at_top_level():
    assert issubclass(ascendlab.ShapeError, ValueError)


def test_symbolic_dim_bound_by_first_input_must_agree():
    a = np.zeros((2, 3), np.float16)
    b = np.zeros((2, 4), np.float16)
    with pytest.raises(ShapeError) as e:
        add_sig(a, b)
    msg = str(e.value)
    for part in ("'b'", "'C'", "axis 1", "expected 3", "'a'", "got 4"):
        assert part in msg, msg


def test_rank_mismatch_names_spec_and_both_shapes():
    with pytest.raises(ShapeError, match=r"input 'a' rank: expected 2 .*got 3"):
        add_sig(np.zeros((2, 3, 1), np.float16), np.zeros((2, 3), np.float16))


def test_dtype_mismatch_names_spec_expected_and_actual():
    with pytest.raises(DTypeError, match=r"input 'b' dtype: expected float16, got float32"):
        add_sig(np.zeros((2, 3), np.float16), np.zeros((2, 3), np.float32))


def test_wrong_number_of_inputs():
    with pytest.raises(ShapeError, match=r"expected 2 inputs \(a, b\), got 1"):
        add_sig(np.zeros((2, 3), np.float16))


def test_fixed_dim_and_output_spec_checked():
    @ascend_kernel(inputs=[TensorSpec("x", "float32", [4, "N"])],
                   outputs=[TensorSpec("y", "float32", [4, "N"])])
    def total(x):
        return x.sum(1)

    with pytest.raises(ShapeError, match=r"input 'x' axis 0: expected 4, got 5"):
        total(np.zeros((5, 8), np.float32))
    with pytest.raises(ShapeError, match=r"output 'y' rank: expected 2"):
        total(np.zeros((4, 8), np.float32))


def test_trace_errors_name_the_op_and_shapes():
    @ascend_kernel(inputs=[TensorSpec("x", "float32", ["N", "K"])],
                   outputs=[TensorSpec("y", "float32", ["N", "K"])])
    def bad(x):
        return x + x.sum(1)  # (N, K) + (N,) does not broadcast unless N == K

    with pytest.raises(ShapeError, match=r"add: shapes \[3, 5\] and \[3\] do not broadcast"):
        bad(np.zeros((3, 5), np.float32))


def test_no_kernel_runs_when_validation_fails():
    before = ascendlab.last_run()
    with pytest.raises(ShapeError):
        add_sig(np.zeros((2, 3), np.float16), np.zeros((3, 3), np.float16))
    assert ascendlab.last_run() is before


def test_unsupported_spec_dtype():
    with pytest.raises(DTypeError, match="int32 is not supported"):
        TensorSpec("i", "int32", ["N"])


def test_parameter_shape_follows_the_first_binding():
    from ascendlab.ops import linear

    @ascend_kernel(inputs=[TensorSpec("x", "float32", ["N", "F"])],
                   outputs=[TensorSpec("y", "float32", ["N", 4])])
    def proj(x):
        return linear(x, 4)

    proj(np.zeros((2, 8), np.float32))
    with pytest.raises(ShapeError, match=r"parameter 'linear0.weight' has shape \[8, 4\]"):
        proj(np.zeros((2, 6), np.float32))
