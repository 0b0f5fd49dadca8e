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


def _scaled_sums(nodes: list[Node], outs: set[int]) -> dict[int, Node]:
    """sum nodes whose only user multiplies them by a constant (a mean): sum id -> that mul,
    which the reduction kernel applies before its store."""
    users: dict[int, list[Node]] = {}
    for n in nodes:
        for x in operands(n) if _is_fusable(n) else n.args:
            users.setdefault(x.id, []).append(n)
    found = {}
    for n in nodes:
        us = users.get(n.id, [])
        if n.op == "sum" and n.id not in outs and len(us) == 1 and us[0].op == "mul":
            m = us[0]
            if m.shape == n.shape and any(a.op == "const" for a in m.args):
                found[n.id] = m
    return found


def _groups(nodes: list[Node], fuse: bool, skip: set[int]) -> dict[int, int]:
    """Element-wise node id -> group index. A node joins (and merges) the groups of its
    same-shape element-wise operands unless a group would then reach itself through another
    kernel; `deps` holds the groups each node transitively reads, `ext` each group's."""
    group: dict[int, int] = {}
    deps: dict[int, set[int]] = {}
    ext: dict[int, set[int]] = {}
    shapes: list[tuple[int, ...]] = []
    parent: list[int] = []

    def find(g: int) -> int:
        while parent[g] != g:
            g = parent[g]
        return g

    def reach(x: Node) -> set[int]:
        return {find(g) for g in deps.get(x.id, ())}

    for n in nodes:
        ops = operands(n) if _is_fusable(n) else list(n.args)
        below = set().union(*(reach(x) for x in ops))
        if not _is_fusable(n) or n.id in skip:
            deps[n.id] = below
            continue
        cands = [] if not fuse else list(dict.fromkeys(
            find(group[x.id]) for x in ops if x.id in group and shapes[find(group[x.id])]
            == n.shape))
        chosen = None
        for g in cands:
            if g in set().union(*(reach(y) for y in ops if y.id not in group
                                  or find(group[y.id]) != g)):
                continue  # n reads g through another kernel: joining g would make a cycle
            if chosen is None:
                chosen = g
            elif g not in ext[chosen] and chosen not in ext[g]:
                parent[g] = chosen  # no kernel between them in either direction: merge
                ext[chosen] = {find(h) for h in ext[chosen] | ext[g]} - {chosen}
        if chosen is None:
            chosen = len(shapes)
            shapes.append(n.shape)
            parent.append(chosen)
            ext[chosen] = set()
        ext[chosen] |= set().union(*(reach(y) for y in ops if y.id not in group
                                     or find(group[y.id]) != chosen)) - {chosen}
        group[n.id] = chosen
        deps[n.id] = below | {chosen}
    return {k: find(g) for k, g in group.items()}


def plan(graph: Graph, fuse: bool = True) -> list[Step]:
    """The kernel steps computing graph.outputs, in an order that respects their data flow."""
    nodes = needed(graph)
    outs = {o.id for o in graph.outputs}
    scaled = _scaled_sums(nodes, outs) if fuse else {}
    folded = {m.id for m in scaled.values()}
    group = _groups(nodes, fuse, folded)
    users: dict[int, list[Node]] = {}
    for n in nodes:
        for x in operands(n) if _is_fusable(n) else n.args:
            users.setdefault(x.id, []).append(n)
    steps: dict[int, Step] = {}
    order: list[Step] = []
    for n in nodes:
        if n.op in ("input", "param", "const", "reshape") or n.op in COMPARE or n.id in folded:
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
        elif n.id in scaled:
            m = scaled[n.id]
            scale = next(a.attrs["value"] for a in m.args if a.op == "const")
            order.append(Step("reduce", [n, m], list(n.args), [m], attrs={"scale": scale}))
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
