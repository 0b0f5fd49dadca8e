"""The op vocabulary of a Python-first operator body (see docs/python-first.md).

    from ascendlab.ops import sigmoid, linear, exp, maximum, where, matmul, param

Each function builds a node of the traced graph; inside an @ascend_kernel body the tensors are
`Value`s that also support `+ - * / @`, comparisons, `.sum/.mean/.max(axis, keepdims)`,
`.reshape`, `.transpose`/`.T` and axis insertion `x[:, None]`. Element-wise ops broadcast like
NumPy. Outside a body these functions raise (they have nothing to trace into).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .kernel.graph import ParamSpec, Value, as_node, current, elementwise
from .kernel.graph import matmul as _matmul
from .kernel.graph import reduce as _reduce
from .kernel.graph import reshape as _reshape
from .kernel.graph import transpose as _transpose

Init = str | float | Callable[[tuple[int, ...], np.random.Generator], np.ndarray]


def sigmoid(x: Any) -> Value:
    """1 / (1 + exp(-x))."""
    return elementwise("sigmoid", x)


def exp(x: Any) -> Value:
    return elementwise("exp", x)


def log(x: Any) -> Value:
    """Natural logarithm (the vector `ln` instruction)."""
    return elementwise("log", x)


def tanh(x: Any) -> Value:
    """2 sigmoid(2x) - 1 on the vector unit (no tanh instruction)."""
    return elementwise("tanh", x)


def sqrt(x: Any) -> Value:
    return elementwise("sqrt", x)


def abs(x: Any) -> Value:  # noqa: A001 - NumPy's name
    return elementwise("abs", x)


def relu(x: Any) -> Value:
    return elementwise("relu", x)


def maximum(a: Any, b: Any) -> Value:
    return elementwise("maximum", a, b)


def minimum(a: Any, b: Any) -> Value:
    return elementwise("minimum", a, b)


def equal(a: Any, b: Any) -> Value:
    return elementwise("eq", a, b)


def not_equal(a: Any, b: Any) -> Value:
    return elementwise("ne", a, b)


def where(cond: Any, a: Any, b: Any) -> Value:
    """a where cond else b; cond must be a comparison (x > y, equal(x, y), ...)."""
    c = as_node(cond)
    if c.op not in ("gt", "ge", "lt", "le", "eq", "ne"):
        raise TypeError(f"where: the condition must be a comparison (x > y, equal(x, y), ...), "
                        f"got the result of {c.op}")
    return elementwise("where", cond, a, b)


def broadcast_to(x: Any, shape: tuple[int, ...]) -> Value:
    n = as_node(x)
    current_graph = current()
    from .kernel.graph import broadcast_shapes

    broadcast_shapes("broadcast_to", n.shape, tuple(shape))
    return Value(current_graph.add("broadcast_to", (n,), tuple(shape)))


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Value:  # noqa: A001
    return _reduce("sum", x, axis, keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Value:  # noqa: A001
    return _reduce("max", x, axis, keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Value:
    v = x if isinstance(x, Value) else Value(as_node(x))
    return v.mean(axis, keepdims)


def reshape(x: Any, shape: Any) -> Value:
    return _reshape(x, shape)


def transpose(x: Any, perm: Any = None) -> Value:
    return _transpose(x, perm)


def matmul(a: Any, b: Any) -> Value:
    """a @ b over the last two axes, batch axes broadcast (the cube unit, fp32 accumulation)."""
    return _matmul(a, b)


def param(name: str, shape: tuple[int, ...] | list[int], init: Init = "zeros",
          dtype: str = "float32") -> Value:
    """A parameter the operator owns (op.params[name]); initialised once, from the op's seed."""
    spec = ParamSpec(name, tuple(int(d) for d in shape), init, str(dtype))
    return Value(current().param(spec))


def linear(x: Any, out_features: int | None = None, *, name: str | None = None,
           bias: bool = True, init: Init = "xavier_uniform", dtype: str = "float32") -> Value:
    """x @ W + b over the last axis. W is a parameter of shape (in, out) (note: the transpose of
    torch's nn.Linear layout, so the cube reads it without a transpose), b of shape (out,)."""
    n = as_node(x)
    g = current()
    if name is None:
        name = f"linear{g.linear_count}"
        g.linear_count += 1
    fan_in = n.shape[-1]
    out = fan_in if out_features is None else int(out_features)
    w = param(f"{name}.weight", (fan_in, out), init, dtype)
    y = _matmul(x, w) if len(n.shape) >= 2 else _matmul(_reshape(x, (1, fan_in)), w)
    if len(n.shape) < 2:
        y = _reshape(y, (out,))
    if bias:
        y = y + param(f"{name}.bias", (out,), "zeros", dtype)
    return y


__all__ = ["abs", "broadcast_to", "equal", "exp", "linear", "log", "matmul", "maximum", "max",
           "mean", "minimum", "not_equal", "param", "relu", "reshape", "sigmoid", "sqrt", "sum",
           "tanh", "transpose", "where"]
