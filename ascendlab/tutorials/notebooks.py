"""The course's notebooks on disk: find them, strip them, find their exercise stubs.

The notebooks (tutorials/NN-slug.ipynb) are the source: committed with no outputs, no
execution counts and no widget state, so diffs stay readable and nbval runs them fresh.

    python -m ascendlab.tutorials strip [NOTEBOOK ...]   # strip in place (default: all)
    python -m ascendlab.tutorials verify                 # exit 1 if any is not stripped

An exercise stub is a code cell whose metadata says {"ascendlab": {"exercise": "01.vadd"}}:
it defines the exercise's entry (default `launch`) and contains "FILL ME IN".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .exercise import TUTORIALS_DIR

NAME = re.compile(r"^(\d\d)-[a-z0-9-]+\.ipynb$")


def notebooks(folder: Path = TUTORIALS_DIR) -> list[Path]:
    """The course's notebooks, in lesson order."""
    return sorted(p for p in folder.glob("*.ipynb") if NAME.match(p.name))


def lesson_of(path: Path) -> int:
    m = NAME.match(path.name)
    if m is None:
        raise ValueError(f"{path.name}: a tutorial is named NN-slug.ipynb")
    return int(m.group(1))


def read(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def problems(nb: dict[str, Any]) -> list[str]:
    """What keeps a notebook from being stripped: outputs, counts, widget state."""
    out = []
    for i, c in enumerate(nb.get("cells", [])):
        if c.get("cell_type") != "code":
            continue
        if c.get("outputs"):
            out.append(f"cell {i}: has outputs")
        if c.get("execution_count") is not None:
            out.append(f"cell {i}: has execution_count {c['execution_count']}")
        if set(c.get("metadata", {})) & {"execution", "collapsed", "scrolled"}:
            out.append(f"cell {i}: has run-time metadata")
    if "widgets" in nb.get("metadata", {}):
        out.append("notebook metadata holds widget state")
    return out


def strip(nb: dict[str, Any]) -> dict[str, Any]:
    """The notebook without outputs, execution counts, run-time cell metadata and widget
    state (everything else, tags and the ascendlab metadata included, stays)."""
    for c in nb.get("cells", []):
        if c.get("cell_type") == "code":
            c["outputs"] = []
            c["execution_count"] = None
        for key in ("execution", "collapsed", "scrolled"):
            c.get("metadata", {}).pop(key, None)
    nb.get("metadata", {}).pop("widgets", None)
    return nb


def write(path: Path, nb: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


def source(cell: dict[str, Any]) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def stubs(nb: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(exercise id, entry name, cell source) of each exercise stub in the notebook."""
    out = []
    for c in nb.get("cells", []):
        meta = c.get("metadata", {}).get("ascendlab", {})
        if c.get("cell_type") == "code" and "exercise" in meta:
            out.append((meta["exercise"], meta.get("entry", "launch"), source(c)))
    return out


__all__ = ["lesson_of", "notebooks", "problems", "read", "source", "strip", "stubs", "write"]
