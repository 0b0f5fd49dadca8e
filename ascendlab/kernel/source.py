"""Helpers the kernel emitters share: an indented source writer, dtype names, GM copies, the
row split of a shape and the per-core split of a loop."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

UB_BUDGET = 160 * 1024  # bytes of UB a generated kernel plans for (910B UB: 192 KiB)
MAX_TILE = 8192  # elements: longer tiles gain little once instruction startup is amortised
MIN_TILE = 1024  # elements: shorter tiles spend more on instruction startup than they save
LANES = 64  # fp32 elements per 256 B vector repeat (docs/hardware-facts.md: 256 B per repeat)
ESIZE = {"float16": 2, "float32": 4}


@dataclass
class Src:
    """Python source built line by line, with an indentation level."""

    lines: list[str] = field(default_factory=list)
    depth: int = 0

    def __call__(self, *lines: str) -> None:
        for line in lines:
            self.lines.append("    " * self.depth + line if line else "")

    def indent(self) -> None:
        self.depth += 1

    def dedent(self) -> None:
        self.depth -= 1

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def prod(xs: tuple[int, ...] | list[int]) -> int:
    return int(np.prod(xs, dtype=np.int64)) if len(xs) else 1


def header(src: Src, title: str, consts: list[tuple[str, int, str]]) -> None:
    src(f'"""{title}"""', "", "import ascendlab.asc as asc", "")
    for name, value, why in consts:
        src(f"{name} = {value}  # {why}")
    src("", "")


def core_split(src: Src, units: str) -> None:
    """first/last: this core's share of `units` loop iterations."""
    src("first = asc.get_block_idx() * per_core",
        "last = first + per_core",
        f"if last > {units}:")
    src.indent()
    src(f"last = {units}")
    src.dedent()


def blocks_for(units: int, cores: int) -> tuple[int, int]:
    """(block_num, per_core) splitting `units` iterations over at most `cores` cores."""
    per_core = -(-units // max(1, min(cores, units)))
    return -(-units // per_core), per_core


def _paren(expr: str) -> str:
    return f"({expr})" if " " in expr else expr


def copy_in(src: Src, dst: str, gm: str, count: str, dtype: str, aligned: bool) -> None:
    if aligned:
        src(f"asc.data_copy({dst}, {gm}, {count})")
        return
    nbytes = f"{_paren(count)} * {ESIZE[dtype]}"
    src(f"asc.data_copy_pad({dst}, {gm}, asc.DataCopyExtParams(1, {nbytes}, 0, 0, 0), "
        f"asc.DataCopyPadExtParams(asc.{dtype}, False, 0, 0, 0))")


def copy_out(src: Src, gm: str, local: str, count: str, dtype: str, aligned: bool) -> None:
    if aligned:
        src(f"asc.data_copy({gm}, {local}, {count})")
        return
    src(f"asc.data_copy_pad({gm}, {local}, asc.DataCopyExtParams(1, {_paren(count)} * "
        f"{ESIZE[dtype]}, 0, 0, 0))")


def tile_for(inner: int, bytes_per_elem: int, rows: int = 1, cores: int = 1) -> int:
    """Elements per tile: what UB allows, but short enough that rows x tiles gives every core
    work (not below MIN_TILE), and no longer than the row rounded up to 256 B."""
    fit = max(LANES, UB_BUDGET // max(1, bytes_per_elem) // LANES * LANES)
    per_row = -(-cores // max(1, rows))  # tiles per row that would occupy every core
    spread = max(MIN_TILE, ceil_to(ceil_div(inner, per_row), LANES))
    return min(ceil_to(inner, LANES), fit, MAX_TILE, spread)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def ceil_to(a: int, b: int) -> int:
    return ceil_div(a, b) * b
