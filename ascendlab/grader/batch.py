"""Grading a folder of submissions with a pluggable executor, and the summary table.

    reports = grade_dir("swish", "submissions/")                    # local worker processes
    reports = grade_dir("swish", "subs/", DaskExecutor("tcp://sched:8786"))   # a Dask cluster
    write_summary(reports, "grades.csv")                            # or .json

A job is plain data (challenge folder, file name, file bytes, options), so it travels to
another machine as is; a worker runs grade() there (the sandbox child included) and sends back
Report.to_dict(). LocalExecutor (the default) uses a spawn-context process pool and needs no
extra install; DaskExecutor needs `pip install ascendlab[grader]` (dask.distributed).

A batch never loses a grade: every file is read once with submission.read_file (a symlink, a
FIFO, a file over the size limit is refused before it is opened), and whatever goes wrong
with one file (its size, its name, its encoding, a read error, a worker that died grading it)
becomes that file's verdict (a file with more than one hard link is refused too: in a batch
folder it may be someone else's file). Names are shown escaped (submission.shown_name: a
newline in a name is the two characters \\n), and the summary given as `out` is rewritten atomically
(a temporary file, then rename) each time a grade completes, so a crash loses nothing already
graded.
"""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .challenge import load_challenge
from .grade import GradeOptions, grade
from .report import Report, Verdict
from .submission import SubmissionError, load_submission, read_file, shown_name
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


def _refused(challenge: str, name: str, verdict: Verdict, message: str) -> Report:
    return Report(challenge=Path(challenge).name, submission=shown_name(name), verdict=verdict,
                  message=message)


def run_job(job: Job) -> tuple[int, dict]:
    """Grade one job (in a worker); returns (index, Report.to_dict()). Never raises: a file
    the grader cannot read as a submission is that submission's RULE_VIOLATION."""
    try:
        sub = load_submission(job.name, job.data)
    except Exception as e:  # noqa: BLE001 - a bad file is that submission's verdict
        return job.index, _refused(job.challenge, job.name, Verdict.RULE_VIOLATION,
                                   str(e)).to_dict()
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
            futures = {pool.submit(fn, job): job for job in jobs}
            for fut in as_completed(futures):
                try:
                    yield fut.result()
                except Exception as e:  # noqa: BLE001 - a dead worker loses only its job
                    yield _lost(futures[fut], e)


def _lost(job: Job, exc: BaseException) -> tuple[int, dict]:
    """The verdict of a job whose worker failed (not the submission's fault)."""
    return job.index, _refused(job.challenge, job.name, Verdict.INTERNAL_ERROR,
                               f"the worker grading this submission failed "
                               f"({type(exc).__name__}: {exc}); grade it again").to_dict()


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
        job_of = {fut.key: job for fut, job in zip(futures, jobs)}
        for fut in dask_completed(futures):
            try:
                yield fut.result()
            except Exception as e:  # noqa: BLE001 - a dead worker loses only its job
                yield _lost(job_of[fut.key], e)

    def close(self) -> None:
        if self._own:
            self.client.close()


def find_submissions(directory: str | os.PathLike) -> list[Path]:
    """The .py/.ipynb entries directly in `directory` (not hidden ones), sorted by the bytes
    of their names. Symlinks and other non-regular entries are listed too: grade_dir refuses
    each with a message (its verdict) rather than following it or leaving it out silently."""
    d = Path(directory)
    out = []
    with os.scandir(d) as it:
        for e in it:
            if e.name.startswith(".") or not e.name.endswith(SUFFIXES):
                continue
            try:
                if stat.S_ISDIR(e.stat(follow_symlinks=False).st_mode):
                    continue
            except OSError:
                pass  # vanished or unreadable: read_file says so, as its verdict
            out.append(d / e.name)
    return sorted(out, key=lambda p: os.fsencode(p.name))


def _job_or_verdict(ch_path: str, i: int, p: Path, opts: GradeOptions,
                    dir_fd: int | None = None) -> Job | Report:
    """The file's Job, or its verdict when it cannot be read as a submission (`dir_fd`: the
    batch folder, opened once; p is then read by name in it)."""
    try:
        data = (read_file(p.name, dir_fd=dir_fd, single_link=True) if dir_fd is not None
                else read_file(p, single_link=True))
        return Job(i, ch_path, p.name, data, opts)
    except SubmissionError as e:
        return _refused(ch_path, p.name, Verdict.RULE_VIOLATION, str(e))
    except Exception as e:  # noqa: BLE001 - whatever else: this file's verdict, not the batch's
        return _refused(ch_path, p.name, Verdict.INTERNAL_ERROR,
                        f"the grader could not read this file ({type(e).__name__}: {e})")


def grade_dir(challenge: Any, directory: str | os.PathLike, executor: Executor | None = None,
              options: GradeOptions | None = None, progress: bool = True,
              files: Iterable[Path] | None = None, out: str | os.PathLike | None = None
              ) -> list[Report]:
    """Grade every submission in `directory`; reports in file-name order. `out`: a summary
    (.csv or .json, see write_summary) rewritten atomically after every completed grade."""
    ch = load_challenge(challenge)
    paths = list(files) if files is not None else find_submissions(directory)
    opts = options or GradeOptions()
    done: dict[int, Report] = {}
    jobs: list[Job] = []
    # the folder is opened once; its files are read by name in it (a folder swapped for a
    # symlink after the listing is not followed)
    dir_fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for i, p in enumerate(paths):
            inside = Path(p).parent == Path(directory)
            got = _job_or_verdict(str(ch.path), i, Path(p), opts, dir_fd if inside else None)
            if isinstance(got, Report):
                done[i] = got
            else:
                jobs.append(got)
    finally:
        if dir_fd is not None:
            os.close(dir_fd)
    ex = executor or LocalExecutor()
    bar = None
    if progress and paths:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(paths), desc=f"grading {ch.name}", unit="submission")
        bar.update(len(done))
    if out is not None:
        write_summary([done[i] for i in sorted(done)], out)
    names = {j.index: j.name for j in jobs}
    try:
        for index, data in (ex.run(run_job, jobs) if jobs else ()):
            try:
                done[index] = Report.from_dict(data)
            except Exception as e:  # noqa: BLE001 - a malformed result loses only this grade
                done[index] = _refused(str(ch.path), names.get(index, "?"),
                                       Verdict.INTERNAL_ERROR,
                                       f"the grade could not be read back ({e})")
            if out is not None:
                write_summary([done[i] for i in sorted(done)], out)
            if bar is not None:
                bar.set_postfix_str(f"{done[index].submission[:40]}: "
                                    f"{done[index].verdict.value}")
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    for j in jobs:  # an executor that stopped early: say so for each job it left
        if j.index not in done:
            done[j.index] = _refused(str(ch.path), j.name, Verdict.INTERNAL_ERROR,
                                     "the executor ended without grading this submission")
    if out is not None:
        write_summary([done[i] for i in sorted(done)], out)
    return [done[i] for i in range(len(paths))]


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
    """A CSV (one row per submission) or, for .json, the full reports; written to a temporary
    file in the same folder and renamed over `path` (a reader, or a crash, never sees half a
    file; a symlink planted at `path` is replaced, not followed)."""
    p = Path(path)
    if p.suffix == ".json":
        text = json.dumps({"reports": [r.to_dict() for r in reports],
                           "summary": summary_rows(reports)}, indent=1, default=str)
    else:
        buf = io.StringIO(newline="")
        w = csv.DictWriter(buf, fieldnames=SUMMARY_FIELDS)
        w.writeheader()
        w.writerows(summary_rows(reports))
        text = buf.getvalue()
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:64]}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return p


_PLAIN = re.compile(r"[A-Za-z0-9_.+@-]+")
NAME_WIDTH = 48


def _cell(name: str) -> str:
    """A submission name as one cell of the terminal table: escaped (no control characters),
    quoted when it holds anything but plain characters (so spaces cannot fake columns), cut to
    NAME_WIDTH with a mark."""
    text = shown_name(name)
    if not _PLAIN.fullmatch(text):
        text = "'" + text.replace("'", "\\'") + "'"
    return text if len(text) <= NAME_WIDTH else text[:NAME_WIDTH - 3] + "..."


def render_summary(reports: list[Report]) -> str:
    """The terminal table: one line per submission, whatever its name or message holds."""
    rows = summary_rows(reports)
    names = [_cell(r["submission"]) for r in rows]
    width = max([len(n) for n in names] + [10])
    out = [f"{'submission':<{width}}  {'verdict':<16} {'tier':<7} {'cycles':>10}  message"]
    for name, r in zip(names, rows):
        cyc = f"{r['cycles']:,}" if r["cycles"] != "" else ""
        first = r["message"].splitlines()[0] if r["message"] else ""
        first = shown_name(clean(first)[:80])
        out.append(f"{name:<{width}}  {r['verdict']:<16} {r['tier']:<7} {cyc:>10}  {first}")
    return clean("\n".join(out))


__all__ = ["DaskExecutor", "Executor", "Job", "LocalExecutor", "SerialExecutor",
           "find_submissions", "grade_dir", "render_summary", "run_job", "summary_rows",
           "write_summary"]
