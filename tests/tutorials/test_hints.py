"""Hints teach before they tell: a failed check() gives the idea, then the API, and the code
only with reveal=True; no line of an exercise's solution is printed before that.

A solution's answers are the pieces of code in tests/tutorials/solutions/NN_name.py that the
notebook's stub lacks: each statement, call (with and without its `asc.` prefix), subscript
and keyword argument of at least MIN_LEN characters (whitespace ignored). A hint that quotes
the heart of a line (`a1[(kk * kt1 + i) * m1 * 256:]`) leaks it as surely as the whole line;
naming an API (`asc.DataCopyExtParams`) does not, nor does the sanitizer's generic advice
(`asc.set_flag(asc.HardEvent.V_MTE3, id)`), which is the tool lesson 09 teaches."""

from __future__ import annotations

import ast
import html
import re
import sys

import pytest

import ascendlab.tutorials.check  # noqa: F401  (the module, not the function)
from ascendlab.tutorials import get_exercise
from ascendlab.tutorials.check import check
from ascendlab.tutorials.notebooks import notebooks, read, source
from ascendlab.tutorials.registry import all_exercises

from .test_papermill import SOLUTIONS

MIN_LEN = 12  # shorter pieces (`b = i % 2`) are not an answer by themselves


def _stubs() -> dict[str, str]:
    """exercise id -> the source of its untouched stub cell."""
    out = {}
    for path in notebooks():
        for cell in read(path)["cells"]:
            ex_id = cell.get("metadata", {}).get("ascendlab", {}).get("exercise")
            if ex_id:
                out[ex_id] = source(cell)
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def solution_lines(ex_id: str, stub: str) -> list[str]:
    """The answers (whitespace removed) the solution adds to the stub; see the docstring."""
    src = (SOLUTIONS / get_exercise(ex_id).solution_name).read_text()
    have = _squash(stub)
    pieces = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.FunctionDef, ast.Module)):
            continue
        if isinstance(node, (ast.stmt, ast.Call, ast.Subscript, ast.keyword)):
            seg = ast.get_source_segment(src, node) or ""
            if isinstance(node, (ast.For, ast.If, ast.While)):
                seg = seg.splitlines()[0]  # the header, not the whole body
            pieces.add(_squash(seg.split("#", 1)[0] if "\n" not in seg else seg))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                pieces.add(_squash(seg)[len(_squash(ast.get_source_segment(src, node.func.value)))
                                        + 1:])
    return sorted(p for p in pieces
                  if len(p) >= MIN_LEN and p not in have and not p.startswith('"""'))


def leaks(text: str, lines: list[str], stub: str = "") -> list[str]:
    """The answers among `lines` that `text` (plain or HTML) prints."""
    flat = _squash(html.unescape(re.sub(r"<[^>]+>", " ", text)))
    return [s for s in lines if s in flat]


STUBS = _stubs()
check_mod = sys.modules["ascendlab.tutorials.check"]


def test_every_exercise_has_a_concept_and_an_api_hint_that_give_no_solution_line():
    assert STUBS, "no exercise stubs found"
    for ex in all_exercises():
        assert ex.concept and ex.api, f"{ex.id}: needs a concept and an api hint"
        lines = solution_lines(ex.id, STUBS[ex.id])
        assert lines, f"{ex.id}: its solution adds no line to the stub?"
        leaked = leaks(ex.concept + "\n" + ex.api, lines, STUBS[ex.id])
        assert not leaked, f"{ex.id}: the hints before reveal print solution lines {leaked}"


def _failing_launch(*args, **kwargs):
    return None  # launches nothing: the check fails before any kernel runs


def test_hint_tiers_idea_then_api_then_code(monkeypatch):
    monkeypatch.setattr(check_mod, "_failures", {})
    ex = get_exercise("00.double")
    first = check("00.double", _failing_launch, record=False)
    assert not first.passed
    assert first.hints == (("the idea", ex.concept),)
    assert "hint=2" in first.more and ex.api not in str(first) and ex.hint not in str(first)
    second = check("00.double", _failing_launch, record=False)  # a repeated failure
    assert second.hints == (("the idea", ex.concept), ("the API", ex.api))
    assert "reveal=True" in second.more and ex.hint not in str(second)
    assert ex.hint not in second._repr_html_() and html.escape(ex.api) in second._repr_html_()
    shown = check("00.double", _failing_launch, record=False, reveal=True)
    assert shown.hints[-1] == ("the code", ex.hint) and ex.hint in str(shown)
    assert shown.more == ""


def test_hint_argument_picks_the_tier_and_rejects_others(monkeypatch):
    monkeypatch.setattr(check_mod, "_failures", {})
    r = check("01.vadd", _failing_launch, record=False, hint=2)
    assert [label for label, _ in r.hints] == ["the idea", "the API"]
    with pytest.raises(ValueError, match="hint must be 1"):
        check("01.vadd", _failing_launch, record=False, hint=3)


@pytest.mark.slow
@pytest.mark.parametrize("ex_id", sorted(STUBS))
def test_untouched_stub_check_prints_no_solution_line(ex_id, monkeypatch, tmp_path):
    """Run the notebook's untouched stub through the checker, at both hint tiers before
    reveal: its output (text and HTML) holds no line of the solution."""
    monkeypatch.setattr(check_mod, "_failures", {})
    stub = tmp_path / f"stub_{ex_id.replace('.', '_')}.py"  # a file, so kernels have source
    stub.write_text(STUBS[ex_id])
    ns: dict = {"__name__": stub.stem, "__file__": str(stub)}
    exec(compile(STUBS[ex_id], str(stub), "exec"), ns)
    entry = ns[get_exercise(ex_id).entry]
    lines = solution_lines(ex_id, STUBS[ex_id])
    for tier in (1, 2):
        r = check(ex_id, entry, record=False, hint=tier)
        assert not r.passed, f"{ex_id}: the untouched stub passes"
        leaked = leaks(str(r) + "\n" + r._repr_html_(), lines, STUBS[ex_id])
        assert not leaked, f"{ex_id} (hint={tier}) prints solution lines: {leaked}"


def test_the_leak_finder_finds_the_old_hints():
    """The hints as they were (issue 26) quoted solution code: the finder must say so."""
    old = {"07.matmul_k_loop": "so load a1[(kk * kt1 + i) * m1 * 256:]; and "
                               "cmatrix_init_val=(kk == 0)",
           "06.merge_heads": "its copy-out is DataCopyParams(seq_tile, d*2//32, 0, "
                             "(h-1)*d*2//32): seq_tile rows"}
    for ex_id, text in old.items():
        assert leaks(text, solution_lines(ex_id, STUBS[ex_id]), STUBS[ex_id]), ex_id
