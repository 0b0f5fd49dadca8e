"""The graph's meaning in NumPy: the golden model (float64) the tests and the lowering check
against, and what finite differences differentiate. It never runs on the emulated core."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .graph import Graph, Node


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # overflow-free form


UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs,
    "sigmoid": _sigmoid, "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0),
    "copy": lambda x: x,
}
BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "gt": np.greater, "ge": np.greater_equal,
    "lt": np.less, "le": np.less_equal, "eq": np.equal, "ne": np.not_equal,
}


def eval_node(n: Node, a: list[np.ndarray], dtype: Any) -> np.ndarray:
    """One node's value from its arguments' values."""
    if n.op in UNARY:
        return UNARY[n.op](a[0])
    if n.op in BINARY:
        return BINARY[n.op](a[0], a[1])
    if n.op == "where":
        return np.where(a[0], a[1], a[2])
    if n.op == "broadcast_to":
        return np.broadcast_to(a[0], n.shape)
    if n.op == "sum":
        return np.sum(a[0], axis=n.attrs["axes"], keepdims=n.attrs["keepdims"])
    if n.op == "max":
        return np.max(a[0], axis=n.attrs["axes"], keepdims=n.attrs["keepdims"])
    if n.op == "reshape":
        return a[0].reshape(n.shape)
    if n.op == "transpose":
        return a[0].transpose(n.attrs["perm"])
    if n.op == "matmul":
        return np.matmul(a[0], a[1])
    if n.op == "const":
        return np.asarray(n.attrs["value"], dtype)
    raise NotImplementedError(f"reference: no NumPy rule for op {n.op!r}")


def evaluate(graph: Graph, inputs: Sequence[Any], params: dict[str, Any],
             dtype: Any = np.float64) -> list[np.ndarray]:
    """The graph's outputs computed in `dtype` (float64: the golden reference)."""
    values: dict[int, np.ndarray] = {}
    for n in graph.nodes:
        if n.op == "input":
            values[n.id] = np.asarray(inputs[n.attrs["index"]], dtype)
        elif n.op == "param":
            values[n.id] = np.asarray(params[n.attrs["name"]], dtype)
        else:
            values[n.id] = np.asarray(eval_node(n, [values[a.id] for a in n.args], dtype))
    return [values[o.id] for o in graph.outputs]
