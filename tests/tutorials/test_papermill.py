"""Each tutorial runs top to bottom once under papermill, and any error fails the test.

test_course_folder.py already runs every notebook as it ships, with its exercises unsolved,
from the folder `ascendlab lab` prepares. This run is the learner who solved them, in that
same folder (conftest.course_dir): each exercise stub is replaced by its
solution from tests/tutorials/solutions/, and every check must then say PASSED and the last
cell "all done" (so the cells after a check, which may depend on a pass, run too). A notebook
with knobs has a cell tagged `parameters`; the test injects its defaults back (so the injected
cell runs, as it would for `papermill -p tile 4096 ...`).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import papermill as pm  # in the test extras, so CI always runs this
import pytest

from ascendlab.tutorials import get_exercise
from ascendlab.tutorials.notebooks import notebooks, read, source

SOLUTIONS = Path(__file__).resolve().parent / "solutions"
CHECK = re.compile(r"(?<![\w.])check\(\"")  # check("NN.name", ...), not precision.check(


def _defaults(path: Path) -> dict:
    """The parameters cell's assignments, evaluated (literals and arithmetic on them)."""
    params = pm.inspect_notebook(str(path))
    return {name: _value(p["default"]) for name, p in params.items()}


def _value(text: str):
    tree = ast.parse(text, mode="eval")
    allowed = (ast.Expression, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator,
               ast.unaryop, ast.List, ast.Tuple, ast.Load)
    bad = [type(n).__name__ for n in ast.walk(tree) if not isinstance(n, allowed)]
    assert not bad, f"a parameter's default must be a literal expression: {text!r} ({bad})"
    return eval(compile(tree, "<parameter>", "eval"), {"__builtins__": {}})


def _solved(path: Path, out: Path) -> int:
    """Write `path` with each exercise stub replaced by its solution; the number replaced."""
    nb = read(path)
    n = 0
    for cell in nb["cells"]:
        ex_id = cell.get("metadata", {}).get("ascendlab", {}).get("exercise")
        if ex_id:
            cell["source"] = (SOLUTIONS / get_exercise(ex_id).solution_name).read_text()
            n += 1
    out.write_text(json.dumps(nb))
    return n


def _text(cell: dict) -> str:
    parts = []
    for o in cell.get("outputs", []):
        parts.append("".join(o.get("text", "")))
        parts.append("".join(o.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.name)
def test_solved_notebook_runs_under_papermill(path, tmp_path, course_dir):
    path = course_dir / path.name  # the learner's copy
    solved = tmp_path / f"solved-{path.name}"
    assert _solved(path, solved) >= 1
    out = tmp_path / path.name
    params = _defaults(path)
    pm.execute_notebook(str(solved), str(out), cwd=str(course_dir), kernel_name="python3",
                        progress_bar=False, log_output=False, parameters=params)
    cells = read(out)["cells"]
    tags = [c.get("metadata", {}).get("tags", []) for c in cells]
    assert bool(params) == any("injected-parameters" in t for t in tags)
    checks = [c for c in cells if c["cell_type"] == "code" and CHECK.search(source(c))]
    assert checks
    for c in checks:
        assert "PASSED" in _text(c), f"{path.name}: {source(c)!r} did not pass:\n{_text(c)}"
    assert "all done" in _text(cells[-1]), _text(cells[-1])


def test_knob_notebooks_have_a_parameters_cell():
    with_knobs = {"02-tiling.ipynb", "03-double-buffering.ipynb"}
    for path in notebooks():
        if path.name in with_knobs:
            assert _defaults(path), f"{path.name}: its knobs belong in a `parameters` cell"
