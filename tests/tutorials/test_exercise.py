"""Exercise: validated on creation; becomes a grader ChallengeSpec."""

from __future__ import annotations

import numpy as np
import pytest

from ascendlab.tutorials import Exercise, all_exercises, cases, get_exercise, lesson_exercises


def _ex(**kw):
    base = dict(id="01.t", lesson=1, title="t", inputs=("x",), outputs=("y",),
                reference=lambda a: a["x"], cases=cases((64,)))
    return Exercise(**{**base, **kw})


@pytest.mark.parametrize("kw, msg", [
    ({"id": "1.t"}, "must look like '01.vadd'"),
    ({"lesson": 2}, "does not match its id"),
    ({"cases": ()}, "at least one case"),
    ({"cycle_target": 0.5, "cases": cases((64,), perf=0)}, "must be >= 1"),
    ({"cycle_target": 2.0}, "needs a perf case"),
])
def test_invalid_exercises_say_why(kw, msg):
    with pytest.raises(ValueError, match=msg):
        _ex(**kw)


def test_spec_generates_the_case_inputs_and_golden():
    ex = _ex(reference=lambda a: 3 * a["x"], cases=cases((5, 7), dtype="float32", seed=4))
    spec = ex.to_spec()
    case = spec.public_cases[0]
    x = spec.make_inputs(case)["x"]
    assert x.shape == (5, 7) and x.dtype == np.float32
    np.testing.assert_array_equal(spec.golden(case, {"x": x})["y"], 3 * x.astype(np.float64))
    assert spec.cases(123) == list(spec.public_cases)  # no hidden cases in a tutorial


def test_registry_ids_are_unique_and_ordered():
    exs = all_exercises()
    assert [e.lesson for e in exs] == sorted(e.lesson for e in exs)
    assert len({e.id for e in exs}) == len(exs)
    assert get_exercise("01.vadd") in lesson_exercises(1)
    with pytest.raises(KeyError, match="known: "):
        get_exercise("01.nope")
