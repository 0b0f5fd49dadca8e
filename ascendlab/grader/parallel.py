"""Grading on two cores (GradeOptions(overlap=True), docs/grader.md "Two cores").

EarlyJudge: run_sandboxed's while_running callback, which judges each case's record as soon
as it has arrived while the child runs the next cases. Forked: a function run in a forked copy
of the grader (the fresh-input replay beside the first one, judge.py).
"""

from __future__ import annotations

import os
import pickle
import signal
import time
from collections.abc import Callable
from typing import Any

from .replay.budget import JudgeTimeout
from .report import Verdict


class EarlyJudge:
    """while_running of run_sandboxed: judge each case's record as soon as it has arrived (in
    order, up to the first failure), while the child runs the next cases. judge_records takes
    the results from `done` instead of judging those records again; a record is complete once
    the channel holds it, and judging it depends on the record alone, so the verdicts are
    those of judging after the child ended."""

    def __init__(self, spec: Any, jobs: list, secret: int, shadow: bool | None,
                 judge_case: Callable[..., tuple[Any, Any]]) -> None:
        self.spec, self.jobs, self.secret, self.shadow = spec, jobs, secret, shadow
        self.judge_case = judge_case  # judge.judge_case
        self.done: dict[int, tuple[Any, Any]] = {}
        self.seconds = 0.0

    def __call__(self, channel: Any, ended: Any) -> None:
        golden_of: dict[str, Any] = {}  # while the child starts: the golden outputs
        for job in self.jobs:
            if job.golden is None:
                job.golden = golden_of.get(job.case.name)
                if job.golden is None:
                    job.golden = self.spec.golden(job.case, job.inputs)
                    golden_of[job.case.name] = job.golden
        for i, job in enumerate(self.jobs):
            while len(channel.cases) <= i:
                if ended.is_set() or channel.error:
                    return  # the rest is judged (or explained) after the child
                ended.wait(0.01)
            t0 = time.perf_counter()
            cr, run = self.judge_case(self.spec, job, channel.record(i), self.secret,
                                      shadow=self.shadow, parallel=ended.is_set())
            self.done[i] = (cr, run if job.case.perf else None)
            self.seconds += time.perf_counter() - t0
            if cr.verdict != Verdict.ACCEPTED:
                return


CAN_FORK = hasattr(os, "fork") and (os.cpu_count() or 1) > 1


class Forked:
    """fn() in a forked copy of this process (copy-on-write: nothing is pickled in), its
    result pickled back through a pipe. Only the grader's own code runs in the copy (the
    replay executes the runtime's instructions, never the submission's code)."""

    def __init__(self, fn: Any) -> None:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the copy: compute, send, leave without running any exit handler
            os.close(r)
            try:
                data = pickle.dumps(("ok", fn()))
            except JudgeTimeout as exc:  # the judge's budget: the parent's verdict too
                data = pickle.dumps(("timeout", str(exc)))
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                data = pickle.dumps(("error", f"{type(exc).__name__}: {exc}"))
            try:
                with os.fdopen(w, "wb") as f:
                    f.write(data)
            finally:
                os._exit(0)
        os.close(w)
        self.pid: int | None = pid
        self.r = r

    def result(self) -> Any:
        """fn()'s value (waits for the copy); an exception in it is raised here."""
        with os.fdopen(self.r, "rb") as f:
            data = f.read()
        self.r = -1
        self._reap()
        if not data:
            raise RuntimeError("the forked fresh-input replay ended without a result")
        kind, value = pickle.loads(data)  # noqa: S301 - written by our own fork
        if kind == "timeout":
            raise JudgeTimeout(value)
        if kind == "error":
            raise RuntimeError(f"the forked fresh-input replay failed: {value}")
        return value

    def close(self) -> None:
        """Stop the copy if it still runs (the case failed before its result was needed)."""
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap()
        if self.r >= 0:
            os.close(self.r)
            self.r = -1

    def _reap(self) -> None:
        if self.pid is not None:
            os.waitpid(self.pid, 0)
            self.pid = None


__all__ = ["CAN_FORK", "EarlyJudge", "Forked"]
