"""Paths in graded output are the submission's own file name (issue 31): a RuntimeWarning from
the sandboxed run names `a1.py:20`, never the sandbox's job folder, and is shown once, not
once per core."""

from __future__ import annotations

import re
import warnings

from ascendlab.grader import harness
from ascendlab.grader.harness import short_warning_paths

from .conftest import SOLUTIONS, grade_mini


def _line(marker: str) -> int:
    text = (SOLUTIONS / "mini_overflow.py").read_text().splitlines()
    return next(i for i, ln in enumerate(text, 1) if marker in ln)


def test_graded_warning_names_the_file_only(tmp_path):
    sub = tmp_path / "a1.py"
    sub.write_text((SOLUTIONS / "mini_overflow.py").read_text())
    r = grade_mini(sub)
    line = _line("OVERFLOW_LINE")
    assert f"a1.py:{line}: RuntimeWarning: overflow encountered in an emulated instruction " \
           f"[core 0, a1.py:{line}]" in r.stderr, r.stderr
    assert "OVERFLOW_LINE" in r.stderr  # the source line is still shown
    text = str(r)
    assert not re.search(r"[/\\]a1\.py", text), text  # no folder before the file name
    assert str(tmp_path) not in text
    assert len(re.findall(r"RuntimeWarning", r.stderr)) == 1, r.stderr  # not once per core


def test_short_warning_paths_keeps_other_files(tmp_path):
    plain = warnings.formatwarning
    try:
        short_warning_paths(str(tmp_path))
        (tmp_path / "k.py").write_text("x = 1\ny = 2\n")
        inside = warnings.formatwarning("boom", RuntimeWarning, str(tmp_path / "k.py"), 2)
        outside = warnings.formatwarning("boom", RuntimeWarning, "/elsewhere/k.py", 2)
        ours = warnings.formatwarning("boom", UserWarning, harness.__file__, 1)
    finally:
        warnings.formatwarning = plain
    assert inside == "k.py:2: RuntimeWarning: boom\n  y = 2\n"
    assert outside.startswith("/elsewhere/k.py:2: RuntimeWarning: boom")
    assert ours.startswith("ascendlab/grader/harness.py:1: UserWarning: boom\n  ")
