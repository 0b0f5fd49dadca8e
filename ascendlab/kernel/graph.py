"""The traced graph: nodes, their shapes, and the symbolic values an operator body computes with.

An @ascend_kernel body runs once per input binding with `Value`s instead of arrays; every
operation appends a `Node` (op, args, shape, attrs) to the current `Graph`. Shapes are concrete
(the symbolic dims are bound before tracing), so `x.shape` is a tuple of ints inside the body.

Element-wise ops broadcast like NumPy. The op vocabulary (names in `ELEMENTWISE`, `REDUCE`,
`LAYOUT`, `MATMUL`) is closed: the reference evaluator, the autodiff rules and the lowering each
cover it, and a test checks that they do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ShapeError

UNARY = ("neg", "exp", "log", "sqrt", "abs", "sigmoid", "tanh", "relu", "copy")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
COMPARE = ("gt", "ge", "lt", "le", "eq", "ne")
ELEMENTWISE = UNARY + BINARY + COMPARE + ("where", "broadcast_to")
REDUCE = ("sum", "max")
LAYOUT = ("reshape", "transpose")
MATMUL = ("matmul",)
LEAVES = ("input", "param", "const")


@dataclass(eq=False)
class Node:
    """One operation of a traced graph; `shape` is the concrete result shape."""

    op: str
    args: tuple[Node, ...]
    shape: tuple[int, ...]
    attrs: dict[str, Any] = field(default_factory=dict)
    id: int = -1

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self) -> str:
        return f"%{self.id} = {self.op}({', '.join(f'%{a.id}' for a in self.args)}) {self.shape}"


@dataclass(frozen=True)
class ParamSpec:
    """A parameter an operator owns: its name, shape, initialiser and dtype."""

    name: str
    shape: tuple[int, ...]
    init: Any  # "xavier_uniform" | "zeros" | "ones" | "normal" | float | callable(shape, rng)
    dtype: str = "float32"


class Graph:
    """Nodes in creation (= topological) order, the inputs, outputs and parameters."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.inputs: list[Node] = []
        self.outputs: list[Node] = []
        self.params: dict[str, ParamSpec] = {}
        self.param_nodes: dict[str, Node] = {}
        self.linear_count = 0

    def add(self, op: str, args: tuple[Node, ...], shape: tuple[int, ...], **attrs: Any) -> Node:
        node = Node(op, args, tuple(int(d) for d in shape), attrs, len(self.nodes))
        self.nodes.append(node)
        return node

    def input(self, index: int, shape: tuple[int, ...], dtype: str, name: str) -> Node:
        node = self.add("input", (), shape, index=index, dtype=dtype, name=name)
        self.inputs.append(node)
        return node

    def param(self, spec: ParamSpec) -> Node:
        old = self.params.get(spec.name)
        if old is not None:
            if old != spec:
                raise ShapeError(f"parameter {spec.name!r} is declared twice with different "
                                 f"specs: {old} and {spec}")
            return self.param_nodes[spec.name]
        self.params[spec.name] = spec
        node = self.add("param", (), spec.shape, name=spec.name, dtype=spec.dtype)
        self.param_nodes[spec.name] = node
        return node

    def const(self, value: float) -> Node:
        return self.add("const", (), (), value=float(value))

    def __str__(self) -> str:
        outs = ", ".join(f"%{o.id}" for o in self.outputs)
        return "\n".join([*(repr(n) for n in self.nodes), f"return {outs}"])


_CURRENT: list[Graph] = []


def current() -> Graph:
    """The graph being traced (ops are only meaningful inside an @ascend_kernel body)."""
    if not _CURRENT:
        raise RuntimeError("ascendlab.ops: this op builds a graph and only works inside an "
                           "@ascend_kernel body (or on its Values)")
    return _CURRENT[-1]


def broadcast_shapes(op: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy broadcasting, with a ShapeError naming the op and both shapes."""
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(f"{op}: shapes {' and '.join(str(list(s)) for s in shapes)} do not "
                         f"broadcast (NumPy rules: trailing dims equal or 1)") from None


def norm_axes(op: str, axes: Any, rank: int) -> tuple[int, ...]:
    """Axes as sorted non-negative ints; None means all axes."""
    if axes is None:
        return tuple(range(rank))
    if isinstance(axes, int):
        axes = (axes,)
    out = []
    for a in axes:
        if not -rank <= int(a) < rank:
            raise ShapeError(f"{op}: axis {a} is out of range for rank {rank}")
        out.append(int(a) % rank)
    return tuple(sorted(set(out)))


def as_node(x: Any) -> Node:
    if isinstance(x, Value):
        return x.node
    if isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, bool):
        return current().const(float(x))
    raise TypeError(f"ascendlab.ops: expected a traced tensor or a Python number, got "
                    f"{type(x).__name__} (arrays must be operator inputs or parameters)")


def elementwise(op: str, *xs: Any) -> Value:
    nodes = tuple(as_node(x) for x in xs)
    shape = broadcast_shapes(op, *(n.shape for n in nodes))
    return Value(current().add(op, nodes, shape))


def reduce(op: str, x: Any, axes: Any = None, keepdims: bool = False) -> Value:
    """Reduction nodes always keep dims and cover one contiguous run of non-unit axes: other
    axis sets become a chain of them (last run first), then a reshape drops the axes."""
    n = as_node(x)
    ax = norm_axes(op, axes, len(n.shape))
    final = tuple(1 if i in ax else d for i, d in enumerate(n.shape) if keepdims or i not in ax)
    runs: list[list[int]] = []
    for a in (a for a in ax if n.shape[a] != 1):
        if runs and runs[-1][-1] == a - 1:
            runs[-1].append(a)
        else:
            runs.append([a])
    cur = n
    for run in reversed(runs):
        shape = tuple(1 if i in run else d for i, d in enumerate(cur.shape))
        cur = current().add(op, (cur,), shape, axes=tuple(run), keepdims=True)
    return Value(cur) if cur.shape == final and cur is not n else reshape(Value(cur), final)


def reshape(x: Any, shape: Any) -> Value:
    n = as_node(x)
    shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    if shape.count(-1) > 1:
        raise ShapeError(f"reshape: at most one -1 in {list(shape)}")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        shape = tuple(n.size // known if d == -1 else d for d in shape)
    if int(np.prod(shape, dtype=np.int64)) != n.size:
        raise ShapeError(f"reshape: cannot reshape {list(n.shape)} ({n.size} elements) to "
                         f"{list(shape)}")
    return Value(current().add("reshape", (n,), shape))


def transpose(x: Any, perm: Any = None) -> Value:
    n = as_node(x)
    rank = len(n.shape)
    perm = tuple(reversed(range(rank))) if perm is None else tuple(int(p) % rank for p in perm)
    if sorted(perm) != list(range(rank)):
        raise ShapeError(f"transpose: {list(perm)} is not a permutation of {rank} axes")
    return Value(current().add("transpose", (n,), tuple(n.shape[p] for p in perm), perm=perm))


def matmul(a: Any, b: Any) -> Value:
    na, nb = as_node(a), as_node(b)
    if len(na.shape) < 2 or len(nb.shape) < 2:
        raise ShapeError(f"matmul: operands need rank >= 2, got {list(na.shape)} and "
                         f"{list(nb.shape)}")
    if na.shape[-1] != nb.shape[-2]:
        raise ShapeError(f"matmul: inner dims differ: a {list(na.shape)} has K = "
                         f"{na.shape[-1]}, b {list(nb.shape)} has K = {nb.shape[-2]}")
    batch = broadcast_shapes("matmul", na.shape[:-2], nb.shape[:-2])
    return Value(current().add("matmul", (na, nb), (*batch, na.shape[-2], nb.shape[-1])))


class Value:
    """A traced tensor: NumPy-style operators build graph nodes."""

    __array_priority__ = 1000  # numpy scalars on the left defer to our reflected operators

    def __init__(self, node: Node) -> None:
        self.node = node

    shape = property(lambda self: self.node.shape)
    ndim = property(lambda self: len(self.node.shape))
    size = property(lambda self: self.node.size)
    T = property(lambda self: transpose(self))

    def __repr__(self) -> str:
        return f"Value({self.node!r})"

    def __add__(self, o: Any) -> Value:
        return elementwise("add", self, o)

    def __radd__(self, o: Any) -> Value:
        return elementwise("add", o, self)

    def __sub__(self, o: Any) -> Value:
        return elementwise("sub", self, o)

    def __rsub__(self, o: Any) -> Value:
        return elementwise("sub", o, self)

    def __mul__(self, o: Any) -> Value:
        return elementwise("mul", self, o)

    def __rmul__(self, o: Any) -> Value:
        return elementwise("mul", o, self)

    def __truediv__(self, o: Any) -> Value:
        return elementwise("div", self, o)

    def __rtruediv__(self, o: Any) -> Value:
        return elementwise("div", o, self)

    def __neg__(self) -> Value:
        return elementwise("neg", self)

    def __matmul__(self, o: Any) -> Value:
        return matmul(self, o)

    def __gt__(self, o: Any) -> Value:
        return elementwise("gt", self, o)

    def __ge__(self, o: Any) -> Value:
        return elementwise("ge", self, o)

    def __lt__(self, o: Any) -> Value:
        return elementwise("lt", self, o)

    def __le__(self, o: Any) -> Value:
        return elementwise("le", self, o)

    def sum(self, axis: Any = None, keepdims: bool = False) -> Value:
        return reduce("sum", self, axis, keepdims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Value:
        return reduce("max", self, axis, keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> Value:
        """sum * (1 / count), scaled before dropping axes (the reduction kernel folds it in)."""
        ax = norm_axes("mean", axis, self.ndim)
        s = reduce("sum", self, ax, True)
        m = s * (1.0 / (self.size // max(s.size, 1)))
        return m if keepdims else reshape(m, tuple(d for i, d in enumerate(self.shape)
                                                   if i not in ax))

    def reshape(self, *shape: Any) -> Value:
        return reshape(self, shape[0] if len(shape) == 1 else shape)

    def transpose(self, *perm: Any) -> Value:
        return transpose(self, (perm[0] if len(perm) == 1 and not isinstance(perm[0], int)
                                else perm) or None)

    def __getitem__(self, key: Any) -> Value:
        """Only NumPy's axis insertion: `x[:, :, None, None]`, `x[..., None]` (a reshape)."""
        key = key if isinstance(key, tuple) else (key,)
        if key.count(Ellipsis) > 1 or not all(k is None or k is Ellipsis or k == slice(None)
                                              for k in key):
            raise NotImplementedError(f"Value[{key}]: only `:`, `...` and `None` indexing "
                                      f"(inserting axes) is supported")
        kept = sum(1 for k in key if k == slice(None))
        if Ellipsis in key:
            i = key.index(Ellipsis)
            fill = (slice(None),) * (self.ndim - kept)
            key = key[:i] + fill + key[i + 1:]
        elif kept < self.ndim:
            key = key + (slice(None),) * (self.ndim - kept)
        dims = iter(self.shape)
        return reshape(self, tuple(1 if k is None else next(dims) for k in key))
