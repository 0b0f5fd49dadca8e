"""check(): judge a tutorial exercise in place, with the grader's own machinery.

    from ascendlab.tutorials import check
    check("01.vadd", launch)      # an ExerciseReport; it renders itself as the cell's output
    check("01.vadd", launch, hint=2)        # a failed check names the API to use
    check("01.vadd", launch, reveal=True)   # ... and shows the code

Hints come in tiers, so that a failed check teaches before it tells: the first failure gives
the idea (no API name, no code), a second failure of the same exercise in this process (or
hint=2) adds the API to use, and only reveal=True shows the code. A pass shows no hint.

`launch` is called as the grader calls a challenge's entry: launch(*inputs, *outputs,
**params, core_num=...) on arrays the checker made, and must launch exactly one kernel.
ascendlab.grader.check does the judging (replay of the recorded trace on the checker's own
inputs, sanitizer, the CANN precision standard, modelled cycles); this module adds what a
lesson asks beyond a challenge (ops the kernel must use, a cycle target), records a pass in
the learner's progress, and never raises or blocks on a wrong answer.
"""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass, field
from typing import Any

from ..grader.report import Report, Verdict
from . import progress as _progress
from .exercise import Exercise
from .registry import get_exercise


@dataclass
class ExerciseReport:
    """The grader's Report on one exercise, the lesson's own checks, and the progress line."""

    exercise: str
    title: str
    passed: bool
    message: str  # one paragraph: why it passed or what to fix first
    report: Report | None  # the grader's report (None when the exercise id is unknown)
    problems: list[str] = field(default_factory=list)  # the lesson's own failed checks
    hints: tuple[tuple[str, str], ...] = ()  # (label, text) of the hint tiers shown
    more: str = ""  # how to see the next tier, when there is one
    progress: str = ""

    @property
    def hint(self) -> str:
        """The hint text shown (its tiers joined), "" when none is."""
        return "; ".join(text for _, text in self.hints)

    @property
    def ok(self) -> bool:
        return self.passed

    def headline(self) -> str:
        return f"{'PASSED' if self.passed else 'NOT YET'}: {self.exercise} - {self.title}"

    def __str__(self) -> str:
        out = [self.headline(), "", self.message]
        if self.problems:
            out += [""] + [f"  - {p}" for p in self.problems]
        if not self.passed:
            out += [""] * bool(self.hints or self.more)
            out += [f"hint ({label}): {text}" for label, text in self.hints]
            out += [f"({self.more})"] * bool(self.more)
        if self.report is not None:
            # the grader's report without its headline and message (said above)
            lines = str(self.report).splitlines()
            rest = next((i for i, line in enumerate(lines) if line == "cases:"), len(lines))
            out += ["", "the grader's report:"] + lines[rest:]
        if self.progress:
            out += ["", self.progress]
        return "\n".join(out)

    def __repr__(self) -> str:  # what a plain-text notebook front end shows
        return str(self)

    def _repr_html_(self) -> str:
        e = html.escape
        color = "#2e7d32" if self.passed else "#c62828"
        probs = "".join(f"<li>{e(p)}</li>" for p in self.problems)
        hint = "" if self.passed else "".join(
            f"<p><b>hint ({e(label)}):</b> {e(text)}</p>" for label, text in self.hints)
        if not self.passed and self.more:
            hint += f"<p><i>({e(self.more)})</i></p>"
        inner = ""
        if self.report is not None:
            inner = (f"<details{'' if self.passed else ' open'}><summary>the grader's report"
                     f"</summary>{self.report._repr_html_()}</details>")
        return (f"<div class='ascendlab-exercise'><h4 style='color:{color}'>"
                f"{e(self.headline())}</h4><p>{e(self.message)}</p>"
                f"{'<ul>' + probs + '</ul>' if probs else ''}{hint}{inner}"
                f"<p><i>{e(self.progress)}</i></p></div>")


class _Recording:
    """Calls the learner's launch and keeps the op names of each launch's trace (for the
    lesson's `requires`). Keeps `__code__` so the grader's error messages point at the
    learner's file and line."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "launch")
        self.__code__ = getattr(fn, "__code__", None)
        self.ops: list[set[str]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from ..runtime.launch.jit import last_run

        out = self.fn(*args, **kwargs)
        run = last_run()
        if run is not None:
            self.ops.append({ev.op for ev in run.trace})
        return out


def _lesson_checks(ex: Exercise, report: Report, rec: _Recording) -> list[str]:
    problems = []
    if ex.requires and rec.ops:
        used = set().union(*rec.ops)
        missing = sorted(ex.requires - used)
        if missing:
            problems.append(f"this exercise asks for {', '.join(missing)}; your kernel "
                            f"issued {', '.join(sorted(used)) or 'nothing'}")
    if ex.cycle_target is not None and report.perf:
        p = report.perf[0]
        if p.ratio > ex.cycle_target:
            problems.append(f"{p.cycles:,} modelled cycles are {p.ratio:.2f}x the roofline "
                            f"bound ({p.bound_cycles:,}); the target is "
                            f"<= {ex.cycle_target:g}x")
    return problems


def _message(report: Report, problems: list[str]) -> str:
    if report.verdict != Verdict.ACCEPTED:
        return report.message
    if problems:
        return f"Your kernel computes the right answer, but: {problems[0]}"
    return report.message.replace("all ", "All ", 1)


_failures: dict[str, int] = {}  # failed checks per exercise in this process (the hint tier)


def _hints(ex: Exercise, tier: int, reveal: bool) -> tuple[tuple[tuple[str, str], ...], str]:
    """The hint tiers shown at `tier` (1: the idea, 2: + the API) or on reveal (+ the code),
    and the line saying how to see more."""
    shown = [(label, text) for label, text in (("the idea", ex.concept), ("the API", ex.api))[
        :tier] if text]
    if reveal and ex.hint:
        shown.append(("the code", ex.hint))
    more = ""
    if not reveal:
        if tier < 2 and ex.api:
            more = (f"run the check again, or check({ex.id!r}, {ex.entry}, hint=2), for the "
                    f"API to use")
        elif ex.hint:
            more = f"check({ex.id!r}, {ex.entry}, reveal=True) shows the code"
    return tuple(shown), more


def check(exercise_id: str, fn: Any, *, record: bool = True, hint: int | None = None,
          reveal: bool = False) -> ExerciseReport:
    """Judge `fn` (the learner's launch function) on exercise `exercise_id`; see the module
    docstring. record=False leaves the learner's progress untouched. On a failure, `hint`
    (1 or 2) picks the hint tier (default: 1 on the first failure, 2 after), and reveal=True
    also shows the code. Never raises on a wrong answer."""
    if hint is not None and hint not in (1, 2):
        raise ValueError(f"check: hint must be 1 (the idea) or 2 (the API), got {hint!r}; "
                         f"reveal=True shows the code")
    from ..grader.check import check as grader_check

    try:
        ex = get_exercise(exercise_id)
    except KeyError as e:
        return ExerciseReport(exercise=str(exercise_id), title="(unknown exercise)",
                              passed=False, message=str(e.args[0]), report=None)
    rec = _Recording(fn)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ascendlab\.")
        report = grader_check(ex.to_challenge(), rec)
    report.notes = [n for n in report.notes if not n.startswith("local check:")]
    report.notes.append("checked in this notebook's process by the grader's judge (replay, "
                        "sanitizer, CANN precision standard, cycle model)")
    problems = _lesson_checks(ex, report, rec) if report.ok else []
    passed = report.ok and not problems
    if passed and record:
        _progress.record_pass(ex.id, report.cycles(), report.tier)
    line = _progress.Progress(ex.lesson).line()
    hints: tuple[tuple[str, str], ...] = ()
    more = ""
    if not passed:
        _failures[ex.id] = _failures.get(ex.id, 0) + 1
        tier = hint if hint is not None else min(_failures[ex.id], 2)
        hints, more = _hints(ex, tier, reveal)
    return ExerciseReport(exercise=ex.id, title=ex.title, passed=passed,
                          message=_message(report, problems), report=report,
                          problems=problems, hints=hints, more=more, progress=line)


__all__ = ["ExerciseReport", "check"]
