"""The judge's wall-clock budget (Limits.judge_s): replay checks it as it walks a trace.

grade() starts the clock before the child runs (`CLOCK.start(wall_s, judge_s)`: judging that
overlaps the child's run ends by wall_s + judge_s) and the sandbox's waiter tightens it when
the child has ended (`CLOCK.child_ended()`: at most judge_s more seconds). replay's walk calls
`CLOCK.check()` every CHECK_EVERY events; past the deadline it raises JudgeTimeout, which the
judge turns into the submission's TIME_LIMIT naming the budget. The clock is per process (one
grade at a time per process, as grade(), the batch workers and the forked fresh-input replay
run); with no clock started, check() never fires (the replay used outside grade()).
"""

from __future__ import annotations

import math
import threading
import time

CHECK_EVERY = 256  # events between two looks at the clock (a look costs ~0.1 us)


class JudgeTimeout(RuntimeError):
    """The judge ran past its wall-clock budget (the submission's TIME_LIMIT)."""


class JudgeClock:
    """The deadline of the grade in progress in this process (math.inf: none)."""

    def __init__(self) -> None:
        self.deadline = math.inf
        self.judge_s: float | None = None
        self._lock = threading.Lock()

    def start(self, wall_s: float, judge_s: float | None) -> None:
        with self._lock:
            self.judge_s = judge_s
            self.deadline = (math.inf if judge_s is None
                             else time.monotonic() + float(wall_s) + float(judge_s))

    def child_ended(self) -> None:
        with self._lock:
            if self.judge_s is not None:
                self.deadline = min(self.deadline, time.monotonic() + float(self.judge_s))

    def clear(self) -> None:
        with self._lock:
            self.deadline, self.judge_s = math.inf, None

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise JudgeTimeout(
                f"judging your records ran past the judge's wall-clock budget of "
                f"{self.judge_s:g} s after your process ended (Limits.judge_s): the replay "
                "re-executes every recorded instruction, and this trace is too long or too "
                "heavy to replay in time")


CLOCK = JudgeClock()

__all__ = ["CHECK_EVERY", "CLOCK", "JudgeClock", "JudgeTimeout"]
