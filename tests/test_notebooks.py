"""The example notebooks are committed without outputs (nbval runs them: see pyproject's
pytest options), with short cells and a kernelspec any Python kernel satisfies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stripped_and_teaches(path):
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, "a notebook without code"
    for c in code:
        assert c.get("outputs") == [] and c.get("execution_count") is None, \
            f"{path.name}: outputs are stored; strip them (nbstripout)"
        assert len("".join(c["source"]).splitlines()) <= 40, "keep cells short"
    assert nb["cells"][0]["cell_type"] == "markdown", "prose first"
    assert nb["metadata"]["kernelspec"]["language"] == "python"
    assert "widgets" not in nb["metadata"], "widget state is stored; strip it"


def test_widgets_notebook_shows_every_view():
    src = (Path(__file__).resolve().parents[1] / "examples" / "widgets.ipynb").read_text()
    for name in ("viz.tiling(", "viz.memory_access(", "viz.timeline(", "viz.roofline(",
                 "viz.compare(", "viz.explore(", "Exercise"):
        assert name in src, name
