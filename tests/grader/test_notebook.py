"""Notebook submissions through papermill in the sandbox (grader/notebook.py): the parameters
cell, the cell that failed, the per-cell timeout; and the messages for untagged notebooks."""

from __future__ import annotations

import json

import pytest

from ascendlab.grader import Verdict
from ascendlab.grader.challenge import Limits
from ascendlab.grader.notebook import available
from ascendlab.grader.submission import load_submission

from .conftest import HOSTILE, grade_mini

needs_papermill = pytest.mark.skipif(not available(), reason="papermill/ipykernel not installed")
HONEST = (HOSTILE / "honest.py").read_text()
# a kernel starts in the sandbox: more wall time than conftest's FAST limits on a busy machine
NB = Limits(wall_s=60.0, cpu_s=20.0, memory_mb=1536)


def _nb(tmp_path, cells, name="nb.ipynb"):
    p = tmp_path / name
    p.write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {"tags": tags}, "source": src, "outputs": [],
         "execution_count": None} for tags, src in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return p


@needs_papermill
def test_a_failing_cell_is_named_with_its_line(tmp_path):
    p = _nb(tmp_path, [([], HONEST), ([], "x = 1\ny = not_defined + x\n")])
    r = grade_mini(p, limits=NB)
    assert r.verdict == Verdict.RUNTIME_ERROR, r
    assert "cell 2, line 2" in r.message and "NameError" in r.message, r.message


@needs_papermill
@pytest.mark.slow
def test_an_error_inside_launch_names_the_cell(tmp_path):
    broken = HONEST.replace("def launch(", "def _unused(") + (
        "\n\ndef launch(x, y, z, core_num):\n    return [][1]\n")
    r = grade_mini(_nb(tmp_path, [([], "import numpy as np\n"), ([], broken)]), limits=NB)
    assert r.verdict == Verdict.RUNTIME_ERROR, r
    assert "IndexError" in r.message and "cell 2, line" in r.message, r.message


@needs_papermill
def test_papermill_injects_the_parameters_after_the_parameters_cell(tmp_path):
    p = _nb(tmp_path, [(["parameters"], "GRADING = False\n"),
                       (["solution"], HONEST + "\nif not GRADING:\n    raise SystemExit(9)\n")])
    r = grade_mini(p, limits=NB)
    assert r.verdict == Verdict.ACCEPTED, r
    # the kernel's own status: it dropped root (to the job's private uid) before any cell
    assert r.sandbox["privileges"].startswith("uid ") or r.sandbox["privileges"].startswith(
        "kept"), r.sandbox


@needs_papermill
@pytest.mark.slow
def test_a_cell_past_its_timeout_is_stopped(tmp_path):
    p = _nb(tmp_path, [([], HONEST), ([], "import time\ntime.sleep(60)\n")])
    r = grade_mini(p, limits=Limits(wall_s=25.0, cpu_s=10.0, memory_mb=1536))
    assert r.verdict == Verdict.TIME_LIMIT, r
    assert "cell 2" in r.message or "time" in r.message.lower(), r.message


def test_an_untagged_notebook_calling_the_checker_is_told_about_the_solution_tag(tmp_path):
    """Issue 15 #3: the rule message names the cell and the `solution` tag that fixes it."""
    p = _nb(tmp_path, [([], "import ascendlab\n"), ([], HONEST),
                       ([], "ascendlab.grader.check('mini', launch)\n")])
    r = grade_mini(p, static_rules=True)
    assert r.verdict == Verdict.RULE_VIOLATION, r
    assert "cell 3, line 1" in r.message and "`solution`" in r.message, r.message
    assert "line 58" not in r.message


def test_joined_lines_map_back_to_cells(tmp_path):
    sub = load_submission(_nb(tmp_path, [([], "a = 1\n%time b = 2\n"),
                                         (["parameters"], "c = 3\n")]))
    lines = sub.source.splitlines()
    assert sub.where(lines.index("c = 3") + 1) == "cell 2, line 1"
    assert "injected" in sub.where(lines.index(next(x for x in lines if "GRADING" in x)) + 1)
    assert lines[1] == ""  # the magic's line stays, empty: numbering is kept
