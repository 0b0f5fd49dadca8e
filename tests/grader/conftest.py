"""Shared helpers of the grader tests: the small test challenge, composed hostile files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendlab.grader import GradeOptions, Limits, grade
from ascendlab.grader.sandbox import namespace_prefix

HERE = Path(__file__).parent
MINI = HERE / "challenges" / "mini"
HOSTILE = HERE / "hostile"
SOLUTIONS = HERE / "solutions"
SECRET = 987_654_321_123  # a known secret, so tests can look for it where it must not be
FAST = Limits(wall_s=8.0, cpu_s=6.0, memory_mb=1536, output_kb=64)

needs_namespaces = pytest.mark.skipif(
    not namespace_prefix(), reason="unshare (net/pid/mount namespaces) is not available here")


def compose(tmp_path: Path, hostile: str) -> Path:
    """honest.py followed by hostile/<name>.py (which redefines launch), as one submission."""
    src = (HOSTILE / "honest.py").read_text() + "\n\n" + (HOSTILE / f"{hostile}.py").read_text()
    p = tmp_path / f"{hostile}.py"
    p.write_text(src)
    return p


def grade_mini(path: Path, **opts):
    """Grade on the mini challenge with small limits; the static rules are off unless asked,
    so that each hostile file reaches the sandbox and the replay."""
    opts.setdefault("static_rules", False)
    opts.setdefault("limits", FAST)
    return grade(MINI, path, GradeOptions(secret=SECRET, **opts))
