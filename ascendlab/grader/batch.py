"""Grading a folder of submissions with a pluggable executor, and the summary table.

    reports = grade_dir("swish", "submissions/")                    # local worker processes
    reports = grade_dir("swish", "subs/", DaskExecutor("tcp://sched:8786"))   # a Dask cluster
    write_summary(reports, "grades.csv")                            # or .json

A job is plain data (challenge folder, file name, file bytes, options), so it travels to
another machine as is; a worker runs grade() there (the sandbox child included) and sends back
Report.to_dict(). LocalExecutor (the default) uses a spawn-context process pool and needs no
extra install; DaskExecutor needs `pip install ascendlab[grader]` (dask.distributed).
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .challenge import load_challenge
from .grade import GradeOptions, grade
from .report import Report
from .submission import load_submission
from .text import clean

SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Job:
    """One submission to grade (picklable, self-contained)."""

    index: int
    challenge: str  # the challenge folder (absolute path)
    name: str  # the submission's file name
    data: bytes  # its contents
    options: GradeOptions


def run_job(job: Job) -> tuple[int, dict]:
    """Grade one job (in a worker); returns (index, Report.to_dict())."""
    try:
        sub = load_submission(job.name, job.data)
    except Exception as e:  # noqa: BLE001 - a bad file is that submission's verdict
        from .report import Verdict

        r = Report(challenge=Path(job.challenge).name, submission=job.name,
                   verdict=Verdict.RULE_VIOLATION, message=str(e))
        return job.index, r.to_dict()
    return job.index, grade(job.challenge, sub, job.options).to_dict()


class Executor(Protocol):
    """Runs jobs somewhere; yields results as they finish (any order)."""

    def run(self, fn: Callable[[Job], tuple[int, dict]], jobs: list[Job]
            ) -> Iterator[tuple[int, dict]]: ...


class SerialExecutor:
    """In this process, one after another (tests, debugging)."""

    def run(self, fn: Callable[[Job], tuple[int, dict]], jobs: list[Job]
            ) -> Iterator[tuple[int, dict]]:
        for job in jobs:
            yield fn(job)


class LocalExecutor:
    """Worker processes on this machine (spawned, so no state leaks between graders)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)

    def run(self, fn: Callable[[Job], tuple[int, dict]], jobs: list[Job]
            ) -> Iterator[tuple[int, dict]]:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(self.workers, max(1, len(jobs))),
                                 mp_context=ctx) as pool:
            futures = [pool.submit(fn, job) for job in jobs]
            for fut in as_completed(futures):
                yield fut.result()


class DaskExecutor:
    """A Dask distributed scheduler (`--scheduler ADDRESS`, or a Client / LocalCluster)."""

    def __init__(self, address: Any) -> None:
        try:
            from distributed import Client
        except ImportError as e:
            raise ImportError("the Dask executor needs dask.distributed: pip install "
                              "'ascendlab[grader]'") from e
        self._own = not isinstance(address, Client)
        self.client = Client(address) if self._own else address

    def run(self, fn: Callable[[Job], tuple[int, dict]], jobs: list[Job]
            ) -> Iterator[tuple[int, dict]]:
        from distributed import as_completed as dask_completed

        futures = self.client.map(fn, jobs, pure=False)
        for fut in dask_completed(futures):
            yield fut.result()

    def close(self) -> None:
        if self._own:
            self.client.close()


def find_submissions(directory: str | os.PathLike) -> list[Path]:
    """The .py/.ipynb files directly in `directory`, sorted by name."""
    d = Path(directory)
    return sorted(p for p in d.iterdir() if p.is_file() and p.suffix in SUFFIXES
                  and not p.name.startswith("."))


def grade_dir(challenge: Any, directory: str | os.PathLike, executor: Executor | None = None,
              options: GradeOptions | None = None, progress: bool = True,
              files: Iterable[Path] | None = None) -> list[Report]:
    """Grade every submission in `directory`; reports in file-name order."""
    ch = load_challenge(challenge)
    paths = list(files) if files is not None else find_submissions(directory)
    opts = options or GradeOptions()
    jobs = [Job(i, str(ch.path), p.name, p.read_bytes(), opts) for i, p in enumerate(paths)]
    ex = executor or LocalExecutor()
    out: dict[int, Report] = {}
    bar = None
    if progress and jobs:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(jobs), desc=f"grading {ch.name}", unit="submission")
    try:
        for index, data in ex.run(run_job, jobs):
            out[index] = Report.from_dict(data)
            if bar is not None:
                bar.set_postfix_str(f"{jobs[index].name}: {out[index].verdict.value}")
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return [out[i] for i in range(len(jobs))]


SUMMARY_FIELDS = ("submission", "verdict", "tier", "cycles", "bound_cycles", "ratio", "chip",
                  "message")


def summary_rows(reports: Iterable[Report]) -> list[dict[str, Any]]:
    rows = []
    for r in reports:
        p = r.perf[0] if r.perf else None
        rows.append({"submission": r.submission, "verdict": r.verdict.value,
                     "tier": r.tier or "", "cycles": p.cycles if p else "",
                     "bound_cycles": p.bound_cycles if p else "",
                     "ratio": round(p.ratio, 4) if p else "", "chip": p.chip if p else "",
                     "message": r.message})  # whole (CSV quotes newlines)
    return rows


def write_summary(reports: list[Report], path: str | os.PathLike) -> Path:
    """A CSV (one row per submission) or, for .json, the full reports."""
    p = Path(path)
    if p.suffix == ".json":
        p.write_text(json.dumps({"reports": [r.to_dict() for r in reports],
                                 "summary": summary_rows(reports)}, indent=1, default=str))
    else:
        with p.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=SUMMARY_FIELDS)
            w.writeheader()
            w.writerows(summary_rows(reports))
    return p


def render_summary(reports: list[Report]) -> str:
    rows = summary_rows(reports)
    width = max([len(r["submission"]) for r in rows] + [10])
    out = [f"{'submission':<{width}}  {'verdict':<16} {'tier':<7} {'cycles':>10}  message"]
    for r in rows:
        cyc = f"{r['cycles']:,}" if r["cycles"] != "" else ""
        first = r["message"].splitlines()[0] if r["message"] else ""
        out.append(f"{r['submission']:<{width}}  {r['verdict']:<16} {r['tier']:<7} {cyc:>10}  "
                   f"{first[:80]}")
    return clean("\n".join(out))


__all__ = ["DaskExecutor", "Executor", "Job", "LocalExecutor", "SerialExecutor",
           "find_submissions", "grade_dir", "render_summary", "run_job", "summary_rows",
           "write_summary"]
