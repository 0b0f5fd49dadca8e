"""CI runs the course where learners run it: nbval over each notebook of the folder
`ascendlab lab` prepares (see conftest.course_dir), with the stubs untouched.

The papermill run with the solutions (test_papermill.py) executes in that folder too; the
notebooks are no longer run in place (pyproject's testpaths leave tutorials/ out), so the
course still runs twice per CI run, not three times. One lesson in place, as an author checks
it: `python -m pytest tutorials/NN-name.ipynb` (pyproject's addopts hold --nbval-lax).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ascendlab.tutorials.notebooks import notebooks

NAMES = [p.name for p in notebooks()]


def test_the_course_folder_has_every_lesson_and_nothing_from_the_repository(course_dir):
    assert sorted(p.name for p in course_dir.glob("[0-9][0-9]-*.ipynb")) == NAMES
    assert not (course_dir.parent / "examples").exists()  # what 12 once read as ../examples
    assert not (course_dir / "pyproject.toml").exists()


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_lesson_runs_under_nbval_in_the_course_folder(name, course_dir, _private_data_dir):
    env = dict(os.environ, ASCENDLAB_DATA_DIR=str(_private_data_dir), MPLBACKEND="Agg")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
           "--rootdir", str(course_dir), "--nbval-lax", "--nbval-current-env",
           "--nbval-cell-timeout=300", str(course_dir / name)]
    r = subprocess.run(cmd, cwd=course_dir, env=env, capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, f"{name} failed in the course folder:\n{r.stdout[-4000:]}"
    assert " passed" in r.stdout and "failed" not in r.stdout
