"""Hot lines: the cycle model's cost of a Run, by kernel source line.

For each file:line that issued instructions: how many, the modelled busy cycles per pipe (the
mean over the cores that ran, like msprof's PipeUtilization), that busy time split into the
fixed part every instruction pays (setup) and the throughput part (work / rate), and the line's
share of the critical path (analysis/critical_path.py).
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass, field
from typing import Any

from ..analysis.critical_path import analyze

# Source texts registered by file name, for traces whose files no longer exist where they ran
# (the grader's sandbox writes the submission to a job directory it removes): basename -> lines.
# Bounded: the oldest entries go first.
SOURCES: dict[str, list[str]] = {}
_MAX_SOURCES = 64


def remember_source(path: str, text: str) -> None:
    """Make `text` the source of file `path` (matched by its base name) for hot lines."""
    key = path.replace("\\", "/").rsplit("/", 1)[-1]
    SOURCES.pop(key, None)
    SOURCES[key] = text.splitlines()
    while len(SOURCES) > _MAX_SOURCES:
        SOURCES.pop(next(iter(SOURCES)))


def source_line(file: str, line: int) -> str:
    """Line `line` of `file`, stripped: from the file, else from remember_source ("" when
    neither has it)."""
    if not file or line <= 0:
        return ""
    text = linecache.getline(file, line).strip()
    if text:
        return text
    lines = SOURCES.get(file.replace("\\", "/").rsplit("/", 1)[-1])
    return lines[line - 1].strip() if lines and line <= len(lines) else ""


@dataclass
class HotLine:
    """One source line's instructions and modelled cycles (per core: mean over the cores)."""

    file: str
    line: int
    text: str  # the line's source, stripped ("" when the file cannot be read)
    instructions: int = 0  # issued, over all cores
    busy: dict[str, float] = field(default_factory=dict)  # pipe -> busy cycles per core
    fixed: float = 0.0  # cycles per core of setup (paid once per instruction)
    throughput: float = 0.0  # cycles per core of work / rate
    path_cycles: float = 0.0  # cycles of the critical path spent on this line
    path_share: float = 0.0  # path_cycles / the path's length

    @property
    def where(self) -> str:
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}"

    @property
    def total_busy(self) -> float:
        return sum(self.busy.values())


def hot_lines(run: Any) -> list[HotLine]:
    """The kernel's source lines, hottest first (by critical-path share, then busy cycles)."""
    cost = run.cost
    cp = analyze(run)
    occ, fixed = cost.occupied, cost.fixed
    cores = max(1, len({e.core for e in run.trace}))
    rows: dict[tuple[str, int], HotLine] = {}
    for i, e in enumerate(run.trace):
        key = (e.file, e.line)
        row = rows.get(key)
        if row is None:
            text = source_line(e.file, e.line)
            row = rows[key] = HotLine(e.file, e.line, text)
        row.instructions += 1
        o = occ[i]
        if o:
            row.busy[e.pipe] = row.busy.get(e.pipe, 0.0) + o / cores
            row.fixed += min(fixed[i], o) / cores
            row.throughput += max(0.0, o - fixed[i]) / cores
        share = cp.share.get(i)
        if share:
            row.path_cycles += share
    total = sum(cp.share.values()) or 1.0
    for row in rows.values():
        row.path_share = row.path_cycles / total
    return sorted(rows.values(), key=lambda r: (-r.path_cycles, -r.total_busy, r.file, r.line))


def format_hot_lines(rows: list[HotLine], limit: int = 10) -> str:
    """The hot lines as a text table (the first `limit` rows)."""
    pipes = sorted({p for r in rows[:limit] for p in r.busy})
    head = (f"  {'line':<22} {'instr':>6} " + " ".join(f"{p:>7}" for p in pipes)
            + f" {'fixed':>7} {'thruput':>7} {'path':>6}  source")
    out = [head]
    for r in rows[:limit]:
        cells = " ".join(f"{r.busy.get(p, 0):>7.0f}" for p in pipes)
        out.append(f"  {r.where:<22} {r.instructions:>6} {cells} {r.fixed:>7.0f} "
                   f"{r.throughput:>7.0f} {r.path_share:>6.1%}  {r.text[:60]}")
    return "\n".join(out)
