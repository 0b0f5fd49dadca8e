"""ascendlab.tutorials: the course's exercises, their checker and the learner's progress.

    from ascendlab.tutorials import check, show_progress
    check("01.vadd", launch)       # judged by the grader's machinery; renders in a notebook
    show_progress(1)               # the progress line a notebook ends with

The notebooks are tutorials/NN-slug.ipynb (see tutorials/README.md); each lesson's exercises
are in exercises/lNN_*.py; `ascendlab progress` lists what the learner has passed.
"""

from __future__ import annotations

from .check import ExerciseReport, check
from .exercise import Exercise, cases, uniform_inputs
from .progress import Progress
from .progress import show as show_progress
from .registry import all_exercises, get_exercise, lesson_exercises

__all__ = ["Exercise", "ExerciseReport", "Progress", "all_exercises", "cases", "check",
           "get_exercise", "lesson_exercises", "show_progress", "uniform_inputs"]
