"""From a traced graph to a list of kernel steps: which nodes fuse into one element-wise pass,
which become reductions, matmuls or transposes, and which GM buffer holds each value.

Fusion rule: an element-wise node joins the group of an element-wise operand of the same shape
unless that would make the group depend on itself through another kernel (checked with the set
of groups each node transitively depends on). Groups therefore read their operands once and
write only what is used outside the group. `fuse=False` gives one kernel per element-wise node
(the "unfused alternative" op.explain() compares with).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .graph import COMPARE, ELEMENTWISE, Graph, Node


@dataclass
class Step:
    """One kernel launch: kind, the nodes it computes, what it reads and what it writes."""

    kind: str  # "map" | "reduce" | "matmul" | "transpose"
    nodes: list[Node]
    inputs: list[Node]
    outputs: list[Node]
    name: str = ""
    attrs: dict = field(default_factory=dict)


def storage(n: Node) -> Node:
    """The node whose GM buffer holds n's elements (reshapes are views: same bytes)."""
    while n.op == "reshape":
        n = n.args[0]
    return n


def operands(n: Node) -> list[Node]:
    """The values a fused element-wise node reads (a where's comparison is inlined)."""
    if n.op != "where":
        return list(n.args)
    return [*n.args[0].args, n.args[1], n.args[2]]


def needed(graph: Graph) -> list[Node]:
    """The nodes the outputs depend on, in topological order."""
    keep: set[int] = set()
    stack = list(graph.outputs)
    while stack:
        n = stack.pop()
        if n.id not in keep:
            keep.add(n.id)
            stack.extend(n.args)
    return [n for n in graph.nodes if n.id in keep]


def _is_fusable(n: Node) -> bool:
    return n.op in ELEMENTWISE and n.op not in COMPARE


def _groups(nodes: list[Node], fuse: bool) -> dict[int, int]:
    """Element-wise node id -> group index."""
    group: dict[int, int] = {}
    deps: dict[int, frozenset[int]] = {}
    shapes: list[tuple[int, ...]] = []
    for n in nodes:
        ops = operands(n) if _is_fusable(n) else list(n.args)
        below = frozenset().union(*(deps.get(x.id, frozenset()) for x in ops))
        if not _is_fusable(n):
            deps[n.id] = below
            continue
        chosen = None
        for x in ops if fuse else ():
            g = group.get(x.id)
            if g is None or shapes[g] != n.shape:
                continue
            if all(group.get(y.id) == g or g not in deps.get(y.id, frozenset()) for y in ops):
                chosen = g
                break
        if chosen is None:
            chosen = len(shapes)
            shapes.append(n.shape)
        group[n.id] = chosen
        deps[n.id] = below | {chosen}
    return group


def plan(graph: Graph, fuse: bool = True) -> list[Step]:
    """The kernel steps computing graph.outputs, in an order that respects their data flow."""
    nodes = needed(graph)
    group = _groups(nodes, fuse)
    outs = {o.id for o in graph.outputs}
    users: dict[int, list[Node]] = {}
    for n in nodes:
        for x in operands(n) if _is_fusable(n) else n.args:
            users.setdefault(x.id, []).append(n)
    steps: dict[int, Step] = {}
    order: list[Step] = []
    for n in nodes:
        if n.op in ("input", "param", "const", "reshape") or n.op in COMPARE:
            continue
        if n.id in group:
            g = group[n.id]
            if g not in steps:
                steps[g] = Step("map", [], [], [])
                order.append(steps[g])
            s = steps[g]
            s.nodes.append(n)
            for x in operands(n):
                if group.get(x.id) != g and x.op != "const" and x not in s.inputs:
                    s.inputs.append(x)
            if n.id in outs or any(group.get(u.id) != g for u in users.get(n.id, [])):
                s.outputs.append(n)
        else:
            kind = "reduce" if n.op in ("sum", "max") else n.op
            order.append(Step(kind, [n], list(n.args), [n]))
    return _schedule(order)


def _schedule(steps: list[Step]) -> list[Step]:
    """Kahn's order over steps: a step runs after the steps writing the buffers it reads."""
    producer = {storage(o).id: s for s in steps for o in s.outputs}
    done: set[int] = set()
    out: list[Step] = []
    pending = list(steps)
    while pending:
        for s in pending:
            before = {id(producer[storage(x).id]) for x in s.inputs
                      if storage(x).id in producer} - {id(s)}
            if before <= done:
                out.append(s)
                done.add(id(s))
                pending.remove(s)
                break
        else:
            raise RuntimeError("plan: the kernel steps depend on each other in a cycle")
    for i, s in enumerate(out):
        s.name = f"{s.kind}_{i}"
    return out
