"""The learner's progress: which exercises they passed, kept as JSON in their data directory.

    ascendlab progress            # the table, lesson by lesson
    ascendlab progress --json     # for machines
    ascendlab progress --reset    # forget every pass

The file is <data dir>/progress.json, where the data dir is $ASCENDLAB_DATA_DIR, else
$XDG_DATA_HOME/ascendlab, else ~/.local/share/ascendlab. A passing check() records itself
here. Passes recorded under the id an exercise had before its lesson was renumbered count for
its new id (renames.py). Nothing here needs the network, and nothing here stops a notebook: a
data dir that is missing, read-only or holds a damaged file gives a warning and an empty (or
unsaved) record.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FORMAT = 1  # the file's "format" field


def data_dir() -> Path:
    """$ASCENDLAB_DATA_DIR, else $XDG_DATA_HOME/ascendlab, else ~/.local/share/ascendlab."""
    env = os.environ.get("ASCENDLAB_DATA_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ascendlab"


def progress_path() -> Path:
    return data_dir() / "progress.json"


def load() -> dict[str, dict[str, Any]]:
    """{exercise id: {"at": ISO time, "cycles": int | None, "tier": str | None}}; empty (with
    a warning) when the file is unreadable or damaged."""
    path = progress_path()
    try:
        raw = path.read_text()
    except (FileNotFoundError, NotADirectoryError):
        return {}  # nothing recorded yet (saving says so if the place is unusable)
    except OSError as e:
        warnings.warn(f"ascendlab progress: cannot read {path} ({e}); showing no progress",
                      stacklevel=2)
        return {}
    try:
        data = json.loads(raw)
        passed = data["passed"]
        if not isinstance(passed, dict):
            raise TypeError("'passed' is not an object")
    except (ValueError, KeyError, TypeError) as e:
        warnings.warn(f"ascendlab progress: {path} is damaged ({e}); showing no progress "
                      "(`ascendlab progress --reset` starts it afresh)", stacklevel=2)
        return {}
    out = {str(k): dict(v) if isinstance(v, Mapping) else {} for k, v in passed.items()}
    return _renamed(out)


def _renamed(passed: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Passes recorded under an exercise's old id (its lesson moved: renames.py) count for its
    new id; where both are recorded, the new one is kept with the fewer cycles of the two. The
    file itself is rewritten with the new ids on the next recorded pass."""
    from .renames import EXERCISES

    for old, new in EXERCISES.items():
        if old not in passed:
            continue
        was = passed.pop(old)
        now = passed.setdefault(new, was)
        cycles = [c for c in (was.get("cycles"), now.get("cycles")) if c is not None]
        if cycles:
            now["cycles"] = min(cycles)
    return passed


def _save(passed: Mapping[str, Any]) -> bool:
    """Write atomically (a temp file, then rename); False (with a warning) if it cannot."""
    path = progress_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".progress-", dir=path.parent)
        with os.fdopen(fd, "w") as f:
            json.dump({"format": FORMAT, "passed": dict(passed)}, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
        return True
    except OSError as e:
        warnings.warn(f"ascendlab progress: cannot save to {path} ({e}); the pass is not "
                      "recorded (set ASCENDLAB_DATA_DIR to a writable folder)", stacklevel=3)
        return False


def record_pass(exercise_id: str, cycles: int | None = None, tier: str | None = None) -> bool:
    """Record that `exercise_id` passed (keeping the fewest cycles seen); True if saved."""
    passed = load()
    old = passed.get(exercise_id, {})
    best = old.get("cycles")
    if cycles is not None and (best is None or cycles < best):
        best = cycles
    passed[exercise_id] = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                           "cycles": best, "tier": tier or old.get("tier")}
    return _save(passed)


def reset() -> bool:
    return _save({})


class Progress:
    """The learner's progress over the registered exercises; renders itself (text, HTML)."""

    def __init__(self, lesson: int | None = None) -> None:
        from .registry import all_exercises

        self.lesson = lesson
        self.exercises = all_exercises()
        self.passed = load()

    def done(self, lesson: int | None = None) -> list[str]:
        return [e.id for e in self.exercises if e.id in self.passed
                and (lesson is None or e.lesson == lesson)]

    def line(self) -> str:
        """'Course progress: 3 of 14 exercises passed. Lesson 01: 1 of 1 (01.vadd).'"""
        total = len(self.exercises)
        out = f"Course progress: {len(self.done())} of {total} exercises passed."
        if self.lesson is not None:
            mine = [e.id for e in self.exercises if e.lesson == self.lesson]
            got = self.done(self.lesson)
            todo = [i for i in mine if i not in got]
            out += (f" Lesson {self.lesson:02d}: {len(got)} of {len(mine)}"
                    + (f" (to do: {', '.join(todo)})." if todo else " - all done."))
        return out

    def table(self) -> str:
        rows = [f"{'exercise':<22} {'lesson':>6}  {'passed':<20} {'best cycles':>11}  title"]
        for e in self.exercises:
            p = self.passed.get(e.id)
            when = p.get("at", "yes") if p else "-"
            cyc = f"{p['cycles']:,}" if p and p.get("cycles") is not None else ""
            rows.append(f"{e.id:<22} {e.lesson:>6}  {when:<20} {cyc:>11}  {e.title}")
        return "\n".join(rows + ["", self.line(), f"(stored in {progress_path()})"])

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(progress_path()), "total": len(self.exercises),
                "passed": {i: self.passed[i] for i in self.done()},
                "exercises": [{"id": e.id, "lesson": e.lesson, "title": e.title,
                               "passed": e.id in self.passed} for e in self.exercises]}

    def __str__(self) -> str:
        return self.line()

    def __repr__(self) -> str:
        return self.line()

    def _repr_html_(self) -> str:
        total = max(len(self.exercises), 1)
        pct = 100 * len(self.done()) // total
        return (f"<div class='ascendlab-progress'><progress value='{pct}' max='100'></progress>"
                f" {html.escape(self.line())}</div>")


def show(lesson: int | None = None) -> Progress:
    """The progress line for the end of a notebook (never raises: a problem is a warning)."""
    return Progress(lesson)


# ---- the `ascendlab progress` command -------------------------------------------------------
def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add `progress` to the `ascendlab` command."""
    p = sub.add_parser("progress", help="list the tutorial exercises you have passed",
                       description="List the tutorials' exercises and which you have passed "
                                   "(stored in $ASCENDLAB_DATA_DIR, $XDG_DATA_HOME/ascendlab "
                                   "or ~/.local/share/ascendlab).")
    p.add_argument("--json", action="store_true", help="print the progress as JSON")
    p.add_argument("--reset", action="store_true", help="forget every recorded pass")
    p.set_defaults(func=cmd_progress)


def cmd_progress(args: argparse.Namespace) -> int:
    if args.reset:
        if not reset():
            return 1
        print(f"progress reset ({progress_path()})")
        return 0
    prog = Progress()
    print(json.dumps(prog.to_dict(), indent=1) if args.json else prog.table(), file=sys.stdout)
    return 0


__all__ = ["Progress", "add_parser", "cmd_progress", "data_dir", "load", "progress_path",
           "record_pass", "reset", "show"]
