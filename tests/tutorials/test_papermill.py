"""Each tutorial runs top to bottom once under papermill, and any error fails the test. A
notebook with knobs has a cell tagged `parameters`; the test injects its defaults back (so
the injected cell runs too, as it would for `papermill -p tile 4096 ...`)."""

from __future__ import annotations

import ast

import papermill as pm  # in the test extras, so CI always runs this
import pytest

from ascendlab.tutorials.notebooks import notebooks, read


def _defaults(path) -> dict:
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


@pytest.mark.slow
@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.name)
def test_notebook_runs_under_papermill(path, tmp_path):
    out = tmp_path / path.name
    params = _defaults(path)
    pm.execute_notebook(str(path), str(out), cwd=str(path.parent), kernel_name="python3",
                        progress_bar=False, log_output=False, parameters=params)
    tags = [c.get("metadata", {}).get("tags", []) for c in read(out)["cells"]]
    assert bool(params) == any("injected-parameters" in t for t in tags)


def test_knob_notebooks_have_a_parameters_cell():
    with_knobs = {"02-tiling.ipynb", "03-double-buffering.ipynb"}
    for path in notebooks():
        if path.name in with_knobs:
            assert _defaults(path), f"{path.name}: its knobs belong in a `parameters` cell"
