"""An exercise: one checked task of a tutorial, judged by the grader's own machinery.

An Exercise is a small challenge that lives in the package instead of a challenges/ folder:
the float64 reference, the input maker, a few public cases, the rules (allowed ops, ops the
lesson asks for) and an optional cycle target. `to_challenge()` turns it into the grader's
ChallengeSpec, so ascendlab.tutorials.check() judges it exactly as `ascendlab grade` judges a
challenge: replay of the recorded trace, sanitizer, the CANN precision standard
(ascendlab.precision), modelled cycles.

    Exercise(id="01.vadd", lesson=1, title="Vector add", inputs=("x", "y"), outputs=("z",),
             reference=lambda a: a["x"] + a["y"], cases=cases((4096,), (3000,)))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..grader.challenge import Case, Challenge, ChallengeSpec, Rules, Tiers

_ID = re.compile(r"^(\d\d)\.([a-z][a-z0-9_]*)$")
TUTORIALS_DIR = Path(__file__).resolve().parents[2] / "tutorials"


def uniform_inputs(low: float = -1.0, high: float = 1.0) -> Callable[[Case, tuple[str, ...]],
                                                                      dict[str, np.ndarray]]:
    """An input maker: every input uniform in [low, high), in the case's dtype and shape."""
    def make(case: Case, names: tuple[str, ...]) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(case.seed)
        return {n: rng.uniform(low, high, case.shape).astype(case.dtype) for n in names}
    return make


def cases(*shapes: tuple[int, ...], dtype: str = "float16", seed: int = 1,
          perf: int | None = None, prefix: str = "case", **params: Any) -> tuple[Case, ...]:
    """Public cases named {prefix}-0, {prefix}-1, ... for the shapes; `perf` is the index of
    the case whose modelled cycles the report shows (and the cycle target judges)."""
    return tuple(Case(name=f"{prefix}-{i}", shape=tuple(s), dtype=dtype, seed=seed + i,
                      params=dict(params), perf=(i == perf)) for i, s in enumerate(shapes))


@dataclass(frozen=True, kw_only=True)
class Exercise:
    """One checked exercise of a lesson (see the module docstring)."""

    id: str  # "NN.name": the lesson number and a snake_case name; the solution file is
    # tests/tutorials/solutions/NN_name.py
    lesson: int
    title: str
    inputs: tuple[str, ...]  # array names, in launch order
    outputs: tuple[str, ...]
    reference: Callable[..., Any]  # reference(float64 inputs by name, **params) -> output(s)
    cases: tuple[Case, ...]
    make_inputs: Callable[[Case, tuple[str, ...]], Mapping[str, np.ndarray]] = field(
        default_factory=uniform_inputs)
    # (shape, dtype) of each output for a case; default: the case's shape and dtype
    output_spec: Callable[[Case], Mapping[str, tuple[tuple[int, ...], str]]] | None = None
    # (shape, dtype) of each input for a case; default: the case's shape and dtype
    input_spec: Callable[[Case], Mapping[str, tuple[tuple[int, ...], str]]] | None = None
    allowed_ops: frozenset[str] | None = None  # trace ops allowed (None: any)
    requires: frozenset[str] = frozenset()  # trace ops the kernel must issue
    cycle_target: float | None = None  # the perf case must model <= this x the roofline
    block_num: tuple[int, int | None] = (1, None)
    core_kind: str = "aiv"
    input_independent: bool = True  # the grader's shadow replay on fresh inputs
    entry: str = "launch"  # the name the notebook's stub defines
    hint: str = ""  # shown when the check fails

    def __post_init__(self) -> None:
        m = _ID.match(self.id)
        if m is None:
            raise ValueError(f"Exercise.id must look like '01.vadd', got {self.id!r}")
        if int(m.group(1)) != self.lesson:
            raise ValueError(f"Exercise {self.id}: lesson {self.lesson} does not match its id")
        if not self.cases:
            raise ValueError(f"Exercise {self.id}: needs at least one case")
        if self.cycle_target is not None:
            if self.cycle_target < 1.0:
                raise ValueError(f"Exercise {self.id}: cycle_target is a multiple of the "
                                 f"roofline bound, must be >= 1, got {self.cycle_target}")
            if not any(c.perf for c in self.cases):
                raise ValueError(f"Exercise {self.id}: a cycle_target needs a perf case")

    @property
    def name(self) -> str:
        return self.id.split(".", 1)[1]

    @property
    def solution_name(self) -> str:
        """The solution's file name under tests/tutorials/solutions/."""
        return f"{self.lesson:02d}_{self.name}.py"

    def to_spec(self) -> ChallengeSpec:
        """The grader's ChallengeSpec of this exercise (public cases only)."""
        make, names = self.make_inputs, self.inputs
        tiers = Tiers(gold=self.cycle_target, silver=max(2.0, self.cycle_target)) \
            if self.cycle_target is not None else Tiers()
        return ChallengeSpec(
            name=self.id, title=self.title, inputs=self.inputs, outputs=self.outputs,
            reference=self.reference, generate=lambda case: make(case, names),
            public_cases=self.cases, hidden_cases=lambda secret: [],
            rules=Rules(chips=("Ascend910B2",), allowed_ops=self.allowed_ops,
                        block_num=self.block_num, core_kind=self.core_kind,
                        input_independent=self.input_independent),
            tiers=tiers, entry=self.entry, output_spec=self.output_spec,
            input_spec=self.input_spec)

    def to_challenge(self) -> Challenge:
        return Challenge(self.to_spec(), TUTORIALS_DIR)


__all__ = ["TUTORIALS_DIR", "Exercise", "cases", "uniform_inputs"]
