"""The course's notebooks: stored stripped, shaped like lessons, listed in the README.

CI fails on a notebook committed with outputs, execution counts or widget state (strip it with
`python -m ascendlab.tutorials strip`); test_course_folder.py runs every cell under nbval
(pytest --nbval-lax) from the folder `ascendlab lab` prepares, and test_papermill.py runs each
notebook once more there with papermill.
"""

from __future__ import annotations

import re

import pytest

from ascendlab.tutorials import lesson_exercises
from ascendlab.tutorials.__main__ import main as tutorials_main
from ascendlab.tutorials.exercise import TUTORIALS_DIR
from ascendlab.tutorials.notebooks import lesson_of, notebooks, problems, read, source, stubs
from ascendlab.tutorials.notebooks import strip as strip_nb

NOTEBOOKS = notebooks()
README = (TUTORIALS_DIR / "README.md").read_text()


def test_the_course_has_its_notebooks():
    lessons = [lesson_of(p) for p in NOTEBOOKS]
    assert lessons == sorted(set(lessons)), "one notebook per lesson number"
    assert set(lessons) <= set(range(18)), "lessons 00-17"
    assert {0, 1, 2, 3, 4, 5} <= set(lessons)
    stray = [p.name for p in TUTORIALS_DIR.glob("*.ipynb") if p not in NOTEBOOKS]
    assert not stray, f"tutorials are named NN-slug.ipynb: {stray}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stripped(path):
    found = problems(read(path))
    assert not found, (f"{path.name}: {'; '.join(found)}; run "
                       f"`python -m ascendlab.tutorials strip tutorials/{path.name}`")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_a_lesson(path):
    nb = read(path)
    cells = nb["cells"]
    lesson = lesson_of(path)
    assert cells[0]["cell_type"] == "markdown", "prose first"
    assert nb["metadata"]["kernelspec"]["language"] == "python"
    code = [source(c) for c in cells if c["cell_type"] == "code"]
    for src in code:
        assert len(src.splitlines()) <= 40, f"keep cells short:\n{src[:200]}"
    text = "\n".join(code)
    assert re.search(r"\bviz\.\w+\(", text), "uses at least one ascendlab.viz view"
    want = {e.id for e in lesson_exercises(lesson)}
    assert want, f"lesson {lesson:02d} registers no exercise"
    assert {s[0] for s in stubs(nb)} == want, "a stub cell per exercise of the lesson"
    for ex_id in want:
        assert f'check("{ex_id}"' in text, f"the notebook checks {ex_id}"
    last = source(cells[-1])
    assert cells[-1]["cell_type"] == "code" and f"show_progress({lesson})" in last, \
        "the last cell shows the learner's progress"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_readme_outline_lists_the_notebook(path):
    assert f"[{path.stem}]({path.name})" in README or f"({path.name})" in README


def test_strip_command_strips_and_verify_notices(tmp_path, capsys):
    nb = read(NOTEBOOKS[0])
    code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    code["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}]
    code["execution_count"] = 3
    nb["metadata"]["widgets"] = {"state": {}}
    p = tmp_path / "00-x.ipynb"
    import json

    p.write_text(json.dumps(nb))
    assert tutorials_main(["verify", str(p)]) == 1
    assert "has outputs" in capsys.readouterr().out
    assert tutorials_main(["strip", str(p)]) == 0
    assert tutorials_main(["verify", str(p)]) == 0
    assert problems(read(p)) == [] and problems(strip_nb(nb)) == []
    assert stubs(read(p)) == stubs(read(NOTEBOOKS[0])), "strip keeps the exercise metadata"
