"""grade(): every verdict with an actionable message, notebooks, reports, and the real
challenges' reference solutions."""

from __future__ import annotations

import json
import sys

import pytest

from ascendlab.grader import GradeOptions, Limits, Report, Verdict, grade

from .conftest import FAST, MINI, SECRET, SOLUTIONS, compose, grade_mini

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_sanitizer_error_memcheck_from_the_run():
    r = grade_mini(SOLUTIONS / "mini_unaligned.py")
    assert r.verdict == Verdict.SANITIZER_ERROR, r
    assert "memcheck" in r.message and "mini_unaligned.py:" in r.message
    assert "data_copy_pad" in r.message  # the message says what to use instead


def test_sanitizer_error_race_found_on_the_replay():
    r = grade_mini(SOLUTIONS / "mini_race.py")
    assert r.verdict == Verdict.SANITIZER_ERROR, r
    assert "racecheck" in r.message
    failed = next(c for c in r.cases if c.verdict == Verdict.SANITIZER_ERROR)
    assert any("mini_race.py:" in d for d in failed.details)


def test_rule_violation_static(tmp_path):
    src = (SOLUTIONS.parent / "hostile" / "honest.py").read_text() + "\nimport os\n"
    r = grade_mini(_write(tmp_path, "imports_os.py", src), static_rules=True)
    assert r.verdict == Verdict.RULE_VIOLATION
    assert "`import os` is not allowed" in r.message and "line" in r.message


def test_rule_violation_block_num(tmp_path):
    src = (SOLUTIONS.parent / "hostile" / "honest.py").read_text() + (
        "\n\ndef launch(x, y, z, core_num):\n    run(x, y, z, blocks=16)\n")
    r = grade_mini(_write(tmp_path, "too_many_blocks.py", src))
    assert r.verdict == Verdict.RULE_VIOLATION
    assert "block_num 16 is outside [1, 8]" in r.message
    assert "launch at most 8 blocks" in r.message


def test_block_advice_says_exactly_when_the_range_is_one_number():
    from ascendlab.grader.rules import block_advice

    assert block_advice(8, 8) == "launch exactly 8 blocks"
    assert block_advice(1, 1) == "launch exactly 1 block"
    assert block_advice(1, 24) == "launch at most 24 blocks"
    assert block_advice(4, 24) == "launch between 4 and 24 blocks"


def test_rule_violation_chip(tmp_path):
    src = (SOLUTIONS.parent / "hostile" / "honest.py").read_text() + (
        "\n\nimport ascendlab\n\ndef launch(x, y, z, core_num):\n"
        "    ascendlab.configure(chip='Ascend910B4')\n    run(x, y, z)\n")
    r = grade_mini(_write(tmp_path, "other_chip.py", src))
    assert r.verdict == Verdict.RULE_VIOLATION
    assert "ran on Ascend910B4" in r.message


def test_missing_entry_and_syntax_errors(tmp_path):
    r = grade_mini(_write(tmp_path, "empty.py", "x = 1\n"), static_rules=True)
    assert r.verdict == Verdict.RULE_VIOLATION and "must define launch(" in r.message
    r = grade_mini(_write(tmp_path, "empty2.py", "x = 1\n"))
    assert r.verdict == Verdict.RUNTIME_ERROR and "defines no function launch" in r.message
    r = grade_mini(_write(tmp_path, "broken.py", "def launch(:\n"), static_rules=True)
    assert r.verdict == Verdict.RUNTIME_ERROR and "SyntaxError at line 1" in r.message


def test_not_a_submission(tmp_path):
    r = grade_mini(_write(tmp_path, "notes.txt", "hello"))
    assert r.verdict == Verdict.RULE_VIOLATION and ".py files or .ipynb" in r.message


def test_internal_error_is_never_a_crash(tmp_path, monkeypatch):
    gm = sys.modules["ascendlab.grader.grade"]

    def boom(*a, **k):
        raise RuntimeError("judge exploded")

    monkeypatch.setattr(gm, "judge_case", boom)
    r = grade_mini(compose(tmp_path, "honest"))
    assert r.verdict == Verdict.INTERNAL_ERROR
    assert "judge exploded" in r.message and "not a verdict on your submission" in r.message
    monkeypatch.setattr(gm, "load_challenge", boom)
    r = grade("anything", tmp_path / "x.py")
    assert r.verdict == Verdict.INTERNAL_ERROR


def _notebook(cells):
    return json.dumps({"cells": [
        {"cell_type": kind, "metadata": {"tags": tags}, "source": src, "outputs": [],
         "execution_count": None} if kind == "code" else
        {"cell_type": kind, "metadata": {}, "source": src} for kind, tags, src in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_notebook_solution_cells(tmp_path):
    honest = (SOLUTIONS.parent / "hostile" / "honest.py").read_text()
    nb = _notebook([
        ("markdown", [], "# my vadd"),
        ("code", ["parameters"], "GRADING = False\n"),
        ("code", ["solution"], honest),
        ("code", [], "raise RuntimeError('demo cell: not graded')\n"),
        ("code", ["solution"], "%timeit 1\nif not GRADING:\n    raise SystemExit('no')\n"),
    ])
    r = grade_mini(_write(tmp_path, "mine.ipynb", nb), static_rules=True,
                   limits=Limits(wall_s=60.0, cpu_s=20.0, memory_mb=1536))  # a kernel starts
    assert r.verdict == Verdict.ACCEPTED, r
    assert any("tagged `solution`" in n for n in r.notes)
    assert any("magic" in n for n in r.notes)
    assert any("papermill" in n for n in r.notes)


def test_notebook_without_tags_grades_every_code_cell(tmp_path):
    honest = (SOLUTIONS.parent / "hostile" / "honest.py").read_text()
    nb = _notebook([("code", [], honest), ("code", ["skip-grading"], "raise SystemExit(1)\n")])
    r = grade_mini(_write(tmp_path, "all.ipynb", nb), notebook_runner="script")
    assert r.verdict == Verdict.ACCEPTED, r
    assert any("every code cell" in n for n in r.notes)
    assert any("as one script" in n for n in r.notes)


def test_report_renders_and_round_trips(tmp_path):
    r = grade_mini(compose(tmp_path, "honest"))
    text = str(r)
    assert text.startswith("ACCEPTED") and "performance on Ascend910B2" in text
    assert "<table>" in r._repr_html_() and "ACCEPTED" in r._repr_html_()
    back = Report.from_dict(json.loads(r.to_json()))
    assert back.verdict == r.verdict and back.cycles() == r.cycles()
    assert [c.case for c in back.cases] == [c.case for c in r.cases]


def test_hidden_cases_change_with_the_secret(tmp_path):
    p = compose(tmp_path, "honest")
    a = grade(MINI, p, GradeOptions(secret=1, static_rules=False, limits=FAST))
    b = grade(MINI, p, GradeOptions(secret=2, static_rules=False, limits=FAST))
    assert a.ok and b.ok
    assert a.sandbox["isolation"]


# ---- the real challenges ------------------------------------------------------------------
@pytest.mark.slow
def test_vadd_reference_solution_is_accepted_on_both_chips():
    r = grade("vadd", SOLUTIONS / "vadd_honest.py", GradeOptions(secret=SECRET))
    assert r.verdict == Verdict.ACCEPTED, r
    assert {p.chip for p in r.perf} == {"Ascend910B2", "Ascend310P3"}
    assert r.tier == "gold"


@pytest.mark.slow
def test_swish_reference_solution_is_accepted():
    r = grade("swish", SOLUTIONS / "swish_honest.py", GradeOptions(secret=SECRET))
    assert r.verdict == Verdict.ACCEPTED, r
    assert r.tier in ("gold", "silver")
    assert r.timings["total"] < 30


@pytest.mark.slow
def test_swish_in_float16_is_a_wrong_answer_with_the_worst_element():
    r = grade("swish", SOLUTIONS / "swish_fp16.py", GradeOptions(secret=SECRET))
    assert r.verdict == Verdict.WRONG_ANSWER, r
    assert "hidden-deep" in r.message
    assert "worst element" in r.message and "MARE" in r.message
    failed = next(c for c in r.cases if c.verdict == Verdict.WRONG_ANSWER)
    assert failed.precision["y"]["worst"] is not None


def test_rule_violation_names_what_came_and_what_was_expected(tmp_path):
    src = (SOLUTIONS.parent / "hostile" / "honest.py").read_text() + (
        "\n\ndef launch(x, y, z, core_num):\n    run(x, y.copy(), z)\n")
    r = grade_mini(_write(tmp_path, "copies.py", src))
    assert r.verdict == Verdict.RULE_VIOLATION
    assert "'y' (float16[2048]) are not arrays the grader passed" in r.message
    assert "x float16[2048], y float16[2048], z float16[2048]" in r.message
