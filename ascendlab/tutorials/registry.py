"""The exercise registry: every lesson's exercises, by id.

Each lesson keeps its exercises in its own module, ascendlab/tutorials/exercises/lNN_*.py,
as `EXERCISES = (Exercise(...), ...)`. The registry imports those modules in lesson order
(pkgutil, sorted by name), so adding a lesson is adding one file.
"""

from __future__ import annotations

import importlib
import pkgutil

from . import exercises as _pkg
from .exercise import Exercise

_REGISTRY: dict[str, Exercise] = {}


def _load() -> dict[str, Exercise]:
    if _REGISTRY:
        return _REGISTRY
    found: dict[str, Exercise] = {}
    for info in sorted(pkgutil.iter_modules(_pkg.__path__), key=lambda m: m.name):
        if not info.name.startswith("l"):
            continue
        module = importlib.import_module(f"{_pkg.__name__}.{info.name}")
        for ex in getattr(module, "EXERCISES", ()):
            if not isinstance(ex, Exercise):
                raise TypeError(f"{module.__name__}.EXERCISES holds {type(ex).__name__}, "
                                "not Exercise")
            if ex.id in found:
                raise ValueError(f"exercise {ex.id} is defined twice ({module.__name__})")
            found[ex.id] = ex
    _REGISTRY.update(found)
    return _REGISTRY


def all_exercises() -> list[Exercise]:
    """Every exercise, in lesson then definition order."""
    return sorted(_load().values(), key=lambda e: e.lesson)


def get_exercise(exercise_id: str) -> Exercise:
    """The exercise `exercise_id` ("01.vadd"); KeyError naming the known ids otherwise."""
    ex = _load().get(exercise_id)
    if ex is None:
        known = ", ".join(_load()) or "(none)"
        raise KeyError(f"no exercise {exercise_id!r}; known: {known}")
    return ex


def lesson_exercises(lesson: int) -> list[Exercise]:
    return [e for e in all_exercises() if e.lesson == lesson]


__all__ = ["all_exercises", "get_exercise", "lesson_exercises"]
