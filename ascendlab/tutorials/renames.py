"""Lessons that changed number, for learners who started before: their exercise ids and notebooks.

When the course inserted lessons (08 cube tiling, 10 MIX kernels, 11 softmax and attention,
12 cross-core reductions), the lessons after 07 moved. An exercise id carries its lesson's
number ("08.residual_gelu" became "09.residual_gelu"), and so does a notebook's file name.

* progress.load() reads a recorded pass under an old id as a pass of the new one;
* `ascendlab lab` (cli/lab.py) replaces an untouched copy of an old notebook in the course
  folder by the renamed notebook, and keeps (and reports) a copy the learner edited.

Each map goes from the old name to the new one, once (no chains: an old name is never also a
new name of another lesson).
"""

from __future__ import annotations

EXERCISES: dict[str, str] = {
    "08.residual_gelu": "09.residual_gelu",
    "09.fix_pipeline": "13.fix_pipeline",
    "10.tune_gelu": "14.tune_gelu",
    "11.mish": "15.mish",
    "12.leaky_relu": "16.leaky_relu",
}

NOTEBOOKS: dict[str, str] = {
    "08-operator-fusion.ipynb": "09-operator-fusion.ipynb",
    "09-debugging.ipynb": "13-debugging.ipynb",
    "10-profiling-and-tuning.ipynb": "14-profiling-and-tuning.ipynb",
    "11-python-first-operators.ipynb": "15-python-first-operators.ipynb",
    "12-real-npu.ipynb": "16-real-npu.ipynb",
}

__all__ = ["EXERCISES", "NOTEBOOKS"]
