"""Shared helpers for the Python-first operator tests: the examples module, the float64
reference of an operator and central finite differences of it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ascendlab.kernel.reference import evaluate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python_first.py"


def load_examples():
    spec = importlib.util.spec_from_file_location("python_first_examples", EXAMPLES)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def examples():
    return load_examples()


def golden(op, inputs, params=None):
    """The operator's outputs in float64 NumPy (the graph's reference semantics)."""
    graph = op.trace([np.shape(x) for x in inputs])
    return evaluate(graph, inputs, params if params is not None else op.params)


def finite_difference(op, inputs, grad_out, wrt, index, eps=1e-3):
    """d sum(out * grad_out) / d wrt[index] by central differences of the float64 reference;
    wrt is an input position (int) or a parameter name (str)."""
    def loss(delta):
        xs = [np.asarray(x, np.float64).copy() for x in inputs]
        ps = {k: np.asarray(v, np.float64).copy() for k, v in op.params.items()}
        target = xs[wrt] if isinstance(wrt, int) else ps[wrt]
        target[index] += delta
        return float(np.sum(golden(op, xs, ps)[0] * grad_out))

    return (loss(eps) - loss(-eps)) / (2 * eps)
