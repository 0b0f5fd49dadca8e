"""`ascendlab challenge list | show | start` (grader/challenge_cli.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ascendlab.cli import main
from ascendlab.grader import challenge as C
from ascendlab.grader.challenge_cli import render_markdown

ROOT = Path(__file__).resolve().parents[2]

MINI_SPEC = (Path(__file__).parent / "challenges" / "mini" / "spec.py").read_text()


@pytest.fixture
def days(tmp_path, monkeypatch):
    """A challenges folder with vadd (day 0) and day1-swish, starters in day1 only."""
    root = tmp_path / "challenges"
    for folder, title in (("vadd", "warm-up add"), ("day1-swish", "swish, day one")):
        d = root / folder
        d.mkdir(parents=True)
        (d / "spec.py").write_text(MINI_SPEC.replace('name="mini"', f"name={folder!r}")
                                   .replace('title="z = x + y (test challenge)"',
                                            f"title={title!r}"))
        (d / "README.md").write_text(f"# {title}\n\nRead **this** and `launch(x)`.\n\n"
                                     "```python\nprint(1)\n```\n- one\n")
    (root / "day1-swish" / "starter.py").write_text("# FILL ME IN\n")
    (root / "day1-swish" / "starter.ipynb").write_text(json.dumps({"cells": []}))
    monkeypatch.setattr(C, "challenge_dirs", lambda: [root])
    return root


def test_list_shows_the_days_and_the_best_tier(days, tmp_path, capsys):
    from ascendlab.grader.leaderboard import Leaderboard
    from ascendlab.grader.report import PerfReport, Report, Verdict

    db = tmp_path / "lb.sqlite3"
    for tier, cycles in (("bronze", 900), ("silver", 300)):
        r = Report(challenge="day1-swish", submission="s.py", verdict=Verdict.ACCEPTED,
                   message="", perf=[PerfReport(chip="Ascend910B2", case="c", cycles=cycles,
                                                bound_cycles=100, ratio=cycles / 100,
                                                tier=tier, time_us=1.0, kernel_bound="memory")])
        Leaderboard(db).record(r, "ana")
    assert main(["challenge", "list", "--user", "ana", "--db", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    row0 = next(x for x in out if "vadd" in x)
    row1 = next(x for x in out if "day1-swish" in x)
    assert row0.split()[:3] == ["0", "vadd", "-"]
    assert row1.split()[:3] == ["1", "day1-swish", "silver"]


def test_show_renders_the_readme(days, capsys):
    assert main(["challenge", "show", "1"]) == 0
    out = capsys.readouterr().out
    assert "swish, day one\n==============" in out
    assert "Read this and launch(x)." in out and "    print(1)" in out and "• one" in out
    assert main(["challenge", "show", "day7"]) == 2


def test_render_markdown_unmarks_code_spans_that_wrap_lines():
    """A `code` span running over a line break (as in day 1's allowed-instruction list) leaves
    no stray backtick on either line, and the lines stay as written."""
    out = render_markdown("math (`add sub\nmul div`). The kernel must not write `x`.\n")
    assert out == "math (add sub\nmul div). The kernel must not write x."


@pytest.mark.parametrize("readme", sorted((ROOT / "challenges").glob("*/README.md")),
                         ids=lambda p: p.parent.name)
def test_every_challenge_readme_renders_without_markdown_marks(readme):
    text = readme.read_text()
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    assert "`" not in "".join(line for line in render_markdown(prose).splitlines()), readme


def test_render_markdown_in_color_marks_headings():
    assert "\x1b[1mTitle\x1b[0m" in render_markdown("# Title\n", color=True)


def test_start_copies_the_starters_and_refuses_to_overwrite(days, tmp_path, capsys):
    work = tmp_path / "work"
    assert main(["challenge", "start", "1", str(work)]) == 0
    out = capsys.readouterr().out
    assert (work / "starter.py").read_text() == "# FILL ME IN\n"
    assert (work / "starter.ipynb").is_file()
    assert f"ascendlab grade day1 {work / 'starter.py'}" in out
    (work / "starter.py").write_text("# my work\n")
    assert main(["challenge", "start", "day1", str(work)]) == 1
    assert "not overwriting" in capsys.readouterr().err
    assert (work / "starter.py").read_text() == "# my work\n"
    assert main(["challenge", "start", "0", str(tmp_path / "w0")]) == 2  # vadd: no starters
    assert "no starter files" in capsys.readouterr().err
