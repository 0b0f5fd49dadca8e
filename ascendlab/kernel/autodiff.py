"""Reverse-mode autodiff on the traced graph: each op's vector-Jacobian product is written with
the same op vocabulary, so the backward pass is just more graph, lowered to kernels like the
forward. Forward values the backward needs are recomputed in the backward kernels (nothing is
saved between the two passes).

Conventions (where the math is ambiguous): d|x|/dx = +1 at 0; maximum/minimum send the
gradient to `a` on ties; max-reduction sends it to every element equal to the maximum.
"""

from __future__ import annotations

from collections.abc import Callable

from .graph import _CURRENT, Graph, Node, Value, elementwise, reduce, reshape

V = Value
Rule = Callable[[Node, V, list[V], V], list[V | None]]


def sum_to(g: V, shape: tuple[int, ...]) -> V:
    """Undo broadcasting: sum g over the axes a `shape` operand was broadcast along."""
    if g.shape == shape:
        return g
    lead = len(g.shape) - len(shape)
    axes = [*range(lead), *(i + lead for i, d in enumerate(shape)
                            if d == 1 and g.shape[i + lead] != 1)]
    s = reduce("sum", g, tuple(axes), False) if axes else g
    return s if s.shape == shape else reshape(s, shape)


def expand(g: V, shape: tuple[int, ...]) -> V:
    """g broadcast to `shape` (the gradient of a reduction or of a broadcast)."""
    return g if g.shape == shape else V(_graph().add("broadcast_to", (g.node,), shape))


def _graph() -> Graph:
    return _CURRENT[-1]


def _zero_like(shape: tuple[int, ...]) -> V:
    return V(_graph().add("broadcast_to", (_graph().const(0.0),), shape))


def _mm_t(x: V) -> V:
    perm = (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2)
    return x.transpose(perm)


def _reduce_rule(n: Node, out: V, a: list[V], g: V) -> list[V | None]:
    keep = tuple(1 if i in n.attrs["axes"] else d for i, d in enumerate(n.args[0].shape))
    gk = expand(reshape(g, keep), n.args[0].shape)
    if n.op == "sum":
        return [gk]
    hit = elementwise("eq", a[0], expand(reshape(out, keep), n.args[0].shape))
    return [elementwise("where", hit, gk, 0.0)]


RULES: dict[str, Rule] = {
    "add": lambda n, o, a, g: [g, g],
    "sub": lambda n, o, a, g: [g, -g],
    "mul": lambda n, o, a, g: [g * a[1], g * a[0]],
    "div": lambda n, o, a, g: [g / a[1], -(g * o) / a[1]],
    "maximum": lambda n, o, a, g: [elementwise("where", a[0] >= a[1], g, 0.0),
                                   elementwise("where", a[0] >= a[1], 0.0, g)],
    "minimum": lambda n, o, a, g: [elementwise("where", a[0] <= a[1], g, 0.0),
                                   elementwise("where", a[0] <= a[1], 0.0, g)],
    "neg": lambda n, o, a, g: [-g],
    "copy": lambda n, o, a, g: [g],
    "exp": lambda n, o, a, g: [g * o],
    "log": lambda n, o, a, g: [g / a[0]],
    "sqrt": lambda n, o, a, g: [g * 0.5 / o],
    "abs": lambda n, o, a, g: [elementwise("where", a[0] >= 0.0, g, -g)],
    "relu": lambda n, o, a, g: [elementwise("where", a[0] > 0.0, g, 0.0)],
    "sigmoid": lambda n, o, a, g: [g * (o * (1.0 - o))],
    "tanh": lambda n, o, a, g: [g * (1.0 - o * o)],
    "where": lambda n, o, a, g: [None, elementwise("where", a[0], g, 0.0),
                                 elementwise("where", a[0], 0.0, g)],
    "broadcast_to": lambda n, o, a, g: [g],
    "sum": _reduce_rule,
    "max": _reduce_rule,
    "reshape": lambda n, o, a, g: [reshape(g, n.args[0].shape)],
    "transpose": lambda n, o, a, g: [g.transpose(
        tuple(n.attrs["perm"].index(i) for i in range(len(n.shape))))],
    "matmul": lambda n, o, a, g: [g @ _mm_t(a[1]), _mm_t(a[0]) @ g],
}
NO_GRAD = ("gt", "ge", "lt", "le", "eq", "ne", "const", "input", "param")


def backward(graph: Graph, grad_outs: list[Node], wrt: list[Node]) -> list[Node]:
    """Append the gradient nodes of graph.outputs (seeded with grad_outs) with respect to each
    node of `wrt`; returns one gradient node per `wrt` entry (zeros where no path exists)."""
    _CURRENT.append(graph)
    try:
        grads: dict[int, V] = {o.id: V(g) for o, g in zip(graph.outputs, grad_outs, strict=True)}
        for n in reversed(list(graph.nodes)):
            g = grads.get(n.id)
            if g is None or n.op in NO_GRAD or not n.args:
                continue
            rule = RULES.get(n.op)
            if rule is None:
                raise NotImplementedError(f"autodiff: no gradient rule for op {n.op!r}")
            parts = rule(n, V(n), [V(a) for a in n.args], g)
            for arg, part in zip(n.args, parts, strict=True):
                if part is None or arg.op in NO_GRAD[:7]:
                    continue
                part = sum_to(part, arg.shape)
                old = grads.get(arg.id)
                grads[arg.id] = part if old is None else old + part
        out = []
        for w in wrt:
            g = grads.get(w.id)
            out.append((g if g is not None else _zero_like(w.shape)).node)
        return out
    finally:
        _CURRENT.pop()


__all__ = ["RULES", "backward", "sum_to"]
