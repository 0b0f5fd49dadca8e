"""op.explain(): what the lowering made, and what fusion bought, in modelled cycles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .lower import Lowered


@dataclass
class KernelRow:
    name: str
    kind: str
    blocks: int
    nodes: str  # the graph ops it computes
    tiles: str  # its tiling constants
    cycles: int


@dataclass
class Explanation:
    """The fused and unfused lowerings of one call, kernel by kernel, with modelled cycles
    (each kernel's Run.cycles; the op's total is their sum, the kernels run one after another)."""

    op: str
    fused: list[KernelRow]
    unfused: list[KernelRow]

    @property
    def fused_cycles(self) -> int:
        return sum(r.cycles for r in self.fused)

    @property
    def unfused_cycles(self) -> int:
        return sum(r.cycles for r in self.unfused)

    def __str__(self) -> str:
        lines = [f"{self.op}: {len(self.fused)} kernels fused, {len(self.unfused)} unfused"]
        for title, rows in (("fused", self.fused), ("unfused", self.unfused)):
            lines.append(f"  {title}:")
            for r in rows:
                lines.append(f"    {r.name:<12} {r.kind:<9} {r.blocks:>3} cores {r.cycles:>9,} "
                             f"cycles  {r.tiles}  [{r.nodes}]")
        ratio = self.unfused_cycles / max(1, self.fused_cycles)
        lines.append(f"  modelled cycles: fused {self.fused_cycles:,}, unfused "
                     f"{self.unfused_cycles:,} ({ratio:.2f}x)")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + str(self).replace("&", "&amp;").replace("<", "&lt;") + "</pre>"


def _consts(source: str) -> str:
    keep = [line.split("#")[0].strip() for line in source.splitlines()
            if line[:1].isupper() and " = " in line]
    return ", ".join(keep)


def _rows(kernels: list[Lowered], runs: list[Any]) -> list[KernelRow]:
    return [KernelRow(k.step.name, k.step.kind, k.blocks,
                      " ".join(n.op for n in k.step.nodes), _consts(k.source), int(r.cycles))
            for k, r in zip(kernels, runs, strict=True)]


def explain(op: Any, arrays: list[np.ndarray]) -> Explanation:
    saved = op.runs
    try:
        op.forward(*arrays, fuse=False)
        shapes = tuple(tuple(a.shape) for a in arrays)
        unfused = _rows(op._compiled(shapes, "forward", False).kernels,
                        [k.runs[-1] for k in op._compiled(shapes, "forward", False).kernels])
        op.forward(*arrays)
        fused_k = op._compiled(shapes, "forward").kernels
        fused = _rows(fused_k, [k.runs[-1] for k in fused_k])
    finally:
        op.runs = saved or op.runs
    return Explanation(op.name, fused, unfused)
