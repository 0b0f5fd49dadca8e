"""A submission as Python source: a .py file as it is, a notebook as its graded cells.

Notebooks (.ipynb, read with the stdlib json module; nbformat is not needed):
  * cells tagged `solution` are the submission, in order (with the `parameters` cell); if
    none is tagged, every code cell is, except those tagged `skip-grading`;
  * a cell tagged `parameters` (papermill's convention) is followed by the grader's injected
    parameters (`GRADING = True`), so a notebook can skip its own demos while graded;
  * IPython magics and shell escapes (lines starting with % or !) are dropped.
The grader runs that source in the sandbox like a .py file, under the same time limit; it does
not start a Jupyter kernel (see docs/grader.md for why papermill is not used in the sandbox).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MAX_SOURCE_BYTES = 2 * 1024 * 1024
INJECTED = "GRADING = True  # injected by ascendlab's grader after the `parameters` cell\n"


class SubmissionError(ValueError):
    """The file is not a submission the grader can read."""


@dataclass(frozen=True)
class Submission:
    """Source code to grade, and where it came from."""

    name: str  # file name, for reports
    source: str
    kind: str  # "py" | "ipynb"
    notes: tuple[str, ...] = ()


def _cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _check_cell(c: object, i: int) -> None:
    """A cell as nbformat 4 has it, or SubmissionError naming the cell and the field."""
    if not isinstance(c, dict):
        raise SubmissionError(f"notebook cell {i} is not an object")
    meta = c.get("metadata", {})
    if not isinstance(meta, dict):
        raise SubmissionError(f"notebook cell {i}: metadata must be an object, got "
                              f"{type(meta).__name__}")
    tags = meta.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise SubmissionError(f"notebook cell {i}: metadata.tags must be a list of strings")
    src = c.get("source", "")
    if not (isinstance(src, str) or isinstance(src, list)
            and all(isinstance(line, str) for line in src)):
        raise SubmissionError(f"notebook cell {i}: source must be a string or a list of "
                              f"strings, got {type(src).__name__}")


def notebook_source(data: dict) -> tuple[str, list[str]]:
    """The graded source of a notebook dict, and notes about what was done to it."""
    cells = data.get("cells")
    if not isinstance(cells, list):
        raise SubmissionError("not a Jupyter notebook: no cells")
    for i, c in enumerate(cells):
        _check_cell(c, i)
    code = [c for c in cells if c.get("cell_type") == "code"]

    def tags(c: dict) -> set[str]:
        return set(c.get("metadata", {}).get("tags", []))

    chosen = [c for c in code if "solution" in tags(c) or "parameters" in tags(c)]
    notes = []
    if any("solution" in tags(c) for c in chosen):
        n = sum("solution" in tags(c) for c in chosen)
        notes.append(f"graded the {n} cell(s) tagged `solution`")
    else:
        chosen = [c for c in code if "skip-grading" not in tags(c)]
        notes.append("no cell is tagged `solution`: graded every code cell")
    parts = []
    dropped = 0
    for c in chosen:
        lines = []
        for line in _cell_source(c).splitlines():
            if line.lstrip().startswith(("%", "!")):
                dropped += 1
                continue
            lines.append(line)
        parts.append("\n".join(lines) + "\n")
        if "parameters" in tags(c):
            parts.append(INJECTED)
    if dropped:
        notes.append(f"dropped {dropped} IPython magic / shell line(s)")
    return "\n".join(parts), notes


def load_submission(path: str | Path, data: bytes | None = None) -> Submission:
    """Read a .py or .ipynb submission (from `data` when given, e.g. a batch job's bytes)."""
    p = Path(path)
    raw = p.read_bytes() if data is None else data
    if len(raw) > MAX_SOURCE_BYTES:
        raise SubmissionError(f"{p.name} is {len(raw):,} B; submissions are at most "
                              f"{MAX_SOURCE_BYTES:,} B")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SubmissionError(f"{p.name} is not UTF-8 text: {e}") from None
    if p.suffix == ".py":
        return Submission(p.name, text, "py")
    if p.suffix == ".ipynb":
        try:
            nb = json.loads(text)
        except json.JSONDecodeError as e:
            raise SubmissionError(f"{p.name} is not valid notebook JSON: {e}") from None
        if not isinstance(nb, dict):
            raise SubmissionError(f"{p.name} is not a Jupyter notebook")
        source, notes = notebook_source(nb)
        return Submission(p.name, source, "ipynb", tuple(notes))
    raise SubmissionError(f"{p.name}: submissions are .py files or .ipynb notebooks")


__all__ = ["Submission", "SubmissionError", "load_submission", "notebook_source"]
