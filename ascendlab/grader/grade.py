"""grade(): one submission against one challenge, in the sandbox, to a Report.

    report = grade("swish", "my_swish.py")         # Report (never raises, never prints)
    print(report); report.to_json(); report.ok

Steps: read the submission (submission.py) and check its source (rules.py); draw the hidden
cases from a fresh secret (secrets module, kept in this process); write the inputs of every
case into a temporary job directory; run the harness there in a contained child (sandbox.py);
judge each case's record (judge.py) in order until the first failure; model the performance
case on each chip (perf.py). Any failure of the grader itself becomes INTERNAL_ERROR.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.cost import MODEL_VERSION
from ..runtime.chips import get_chip
from ..tools.hotlines import remember_source
from . import isolation
from . import rules as _rules
from .challenge import Challenge, Limits, load_challenge
from .judge import CaseJob, judge_case
from .parallel import EarlyJudge
from .perf import perf_report
from .replay.budget import CLOCK
from .report import CaseReport, Report, Verdict
from .sandbox import NOBODY, SandboxResult, run_sandboxed
from .submission import Submission, SubmissionError, load_submission, shown_name


@dataclass(frozen=True, kw_only=True)
class GradeOptions:
    """How to grade; the defaults are what `ascendlab grade` does."""

    secret: int | None = None  # hidden-case seed; None draws a fresh one (secrets module)
    limits: Limits | None = None  # override the challenge's limits
    static_rules: bool = True  # the source check (rules.check_source) before running
    namespaces: bool = True  # isolate in namespaces where available (False: none at all)
    sandbox: str = "auto"  # "auto": bubblewrap where it works, else unshare; "unshare": the
    # fallback path even where bubblewrap works (benchmarks, comparisons)
    public_only: bool = False  # only the public cases (a quick check)
    shadow: bool | None = None  # replay on fresh inputs (None: the challenge's rule)
    keep_dir: bool = False  # keep the job directory (debugging the grader)
    # notebooks: "papermill" (a Jupyter kernel in the sandbox, grader/notebook.py), "script"
    # (the graded cells joined into one .py) or "auto" (papermill when it is installed)
    notebook_runner: str = "auto"
    # use a second core: judge each case's record as soon as it arrives, while the child runs
    # the next cases, and once the child has ended replay on fresh inputs in a forked copy of
    # the grader beside the first replay (the verdicts are the same either way)
    overlap: bool = True


def grade(challenge: str | os.PathLike | Challenge, submission: str | os.PathLike | Submission,
          options: GradeOptions | None = None) -> Report:
    """Grade `submission` (a .py/.ipynb path or a Submission) on `challenge` (a name, a
    folder or a Challenge); see the module docstring. Never raises."""
    t0 = time.perf_counter()
    opts = options or GradeOptions()
    ch_name = getattr(challenge, "name", None) or Path(str(challenge)).name
    sub_name = getattr(submission, "name", None) or shown_name(Path(str(submission)).name)
    try:
        report = _grade(challenge, submission, opts)
    except Exception as exc:  # noqa: BLE001 - the grader never crashes
        tb = traceback.format_exc(limit=-4)
        report = Report(challenge=str(ch_name), submission=str(sub_name),
                        verdict=Verdict.INTERNAL_ERROR,
                        message=f"the grader failed ({type(exc).__name__}: {exc}). This is not "
                                "a verdict on your submission; please report it with this "
                                "message.", notes=[tb], model_version=MODEL_VERSION)
    report.timings["total"] = time.perf_counter() - t0
    return report


def _fail(ch: str, sub: str, verdict: Verdict, message: str, details: list[str] | None = None,
          notes: tuple[str, ...] = ()) -> Report:
    r = Report(challenge=ch, submission=sub, verdict=verdict, message=message,
               notes=list(notes), model_version=MODEL_VERSION)
    if details:
        r.cases.append(CaseReport(case="(source)", chip="-", shape=(), dtype="-", kind="-",
                                  hidden=False, verdict=verdict, message=message,
                                  details=details))
    return r


def _untagged_hint(sub: Submission) -> str:
    """For a notebook without `solution` tags: every code cell was graded; say how to choose."""
    if sub.kind != "ipynb" or sub.tagged:
        return ""
    return ("\n(no cell of this notebook is tagged `solution`, so every code cell was graded, "
            "demos and checks included. Tag the cells that define your solution `solution` "
            "(JupyterLab: the property inspector, gear icon on the right -> Common Tools -> "
            "Cell Tags), or tag the cells the grader should skip `skip-grading`.)")


def make_jobs(ch: Challenge, secret: int, public_only: bool = False,
              golden: bool = True) -> list[CaseJob]:
    """Every (case, chip) the grader runs, with its inputs and golden outputs (golden=False:
    left None, computed when the case is judged, or by grade's early judge while the child
    starts)."""
    spec = ch.spec
    cases = list(spec.public_cases) if public_only else spec.cases(secret)
    jobs = []
    inputs_of: dict[str, dict[str, np.ndarray]] = {}
    golden_of: dict[str, dict[str, np.ndarray]] = {}
    for chip in spec.rules.chips:
        cores = get_chip(chip)
        core_num = cores.aiv_cores if spec.rules.core_kind == "aiv" else cores.aic_cores
        for case in cases:
            if case.name not in inputs_of:
                inputs_of[case.name] = spec.make_inputs(case)
                if golden:
                    golden_of[case.name] = spec.golden(case, inputs_of[case.name])
            jobs.append(CaseJob(case=case, chip=chip, inputs=inputs_of[case.name],
                                outputs=spec.outputs_for(case),
                                params={**dict(case.params), "core_num": core_num},
                                order=spec.inputs + spec.outputs,
                                golden=golden_of.get(case.name)))
    return jobs


def entry_signature(ch: Challenge) -> str:
    spec = ch.spec
    params = []
    for c in spec.public_cases:
        params += [k for k in c.params if k not in params]
    return ", ".join(list(spec.inputs) + list(spec.outputs) + params + ["core_num"])


def _grade(challenge: Any, submission: Any, opts: GradeOptions) -> Report:
    t0 = time.perf_counter()
    ch = load_challenge(challenge)
    spec = ch.spec
    try:
        sub = submission if isinstance(submission, Submission) else load_submission(submission)
    except (SubmissionError, OSError) as e:
        return _fail(spec.name, shown_name(Path(str(submission)).name), Verdict.RULE_VIOLATION,
                     str(e))
    if opts.static_rules:
        try:
            violations = _rules.check_source(sub.source, sub.name, spec.rules, spec.entry)
        except SyntaxError as e:
            return _fail(spec.name, sub.name, Verdict.RUNTIME_ERROR,
                         f"{sub.name} does not parse: SyntaxError at {sub.where(e.lineno or 0)}"
                         f": {e.msg}{_untagged_hint(sub)}", notes=sub.notes)
        if violations:
            shown = [f"{sub.where(v.line)}: {v.message}" if v.line else v.message
                     for v in violations]
            return _fail(spec.name, sub.name, Verdict.RULE_VIOLATION,
                         f"{len(violations)} rule(s) broken; first: {shown[0]}"
                         f"{_untagged_hint(sub)}", shown, notes=sub.notes)
    secret = opts.secret if opts.secret is not None else secrets.randbits(63)
    limits = opts.limits or spec.limits
    jobs = make_jobs(ch, secret, opts.public_only, golden=not opts.overlap)
    t_prep = time.perf_counter()
    isolation.sweep_leftovers()
    uid = isolation.new_job_uid()
    root = isolation.job_root(uid)
    early = EarlyJudge(ch.spec, jobs, secret, opts.shadow, judge_case)
    CLOCK.start(limits.wall_s, limits.judge_s)  # the judge's wall-clock budget
    try:
        return _run_and_judge(ch, sub, opts, limits, jobs, secret, uid, root, early, t0,
                              t_prep)
    finally:
        CLOCK.clear()


def _run_and_judge(ch: Challenge, sub: Submission, opts: GradeOptions, limits: Limits,
                   jobs: list[CaseJob], secret: int, uid: int | None, root: str,
                   early: EarlyJudge, t0: float, t_prep: float) -> Report:
    spec = ch.spec
    try:
        job_dir, work_dir = _write_job(root, ch, sub, jobs, uid, _runner(sub, opts), limits)
        result = run_sandboxed(job_dir, work_dir, limits, namespaces=opts.namespaces, uid=uid,
                               max_frames=2 * len(jobs) + 4, bwrap=opts.sandbox == "auto",
                               while_running=early if opts.overlap else None)
        t_run = time.perf_counter()
    finally:
        if not opts.keep_dir:
            isolation.remove_job(root, uid)
    channel = result.channel
    records = _Records(channel, len(jobs))
    status = channel.status if channel is not None else None
    progress = channel.progress if channel is not None else ""
    report = Report(challenge=spec.name, submission=sub.name, verdict=Verdict.ACCEPTED,
                    message="", stdout=result.stdout, stderr=result.stderr,
                    model_version=MODEL_VERSION, notes=list(sub.notes))
    mode = _runner(sub, opts)
    if mode == "notebook":
        report.notes.append("ran the graded cells in a Jupyter kernel with papermill (in the "
                            "sandbox)")
    elif mode == "script":
        report.notes.append("ran the graded cells as one script (papermill is not installed: "
                            "pip install 'ascendlab[notebook]')" if opts.notebook_runner ==
                            "auto" else "ran the graded cells as one script")
    report.sandbox = {"isolation": result.isolation, "returncode": result.returncode,
                      "wall_s": round(result.wall_s, 3), "timed_out": result.timed_out,
                      "privileges": status.get("privileges") if isinstance(status, dict)
                      else None}
    if channel is not None and channel.error:
        report.notes.append(f"the record channel was cut: {channel.error}")
    if result.stdout_dropped or result.stderr_dropped:
        report.notes.append(f"your output was cut at {limits.output_kb} KiB per stream "
                            f"({result.stdout_dropped + result.stderr_dropped:,} bytes dropped)")
    _judge_all(ch, jobs, records, secret, report, result, progress, limits, opts, early.done)
    t_end = time.perf_counter()
    report.timings.update({"prepare": t_prep - t0, "sandbox": t_run - t_prep,
                           "judge": t_end - t_run})
    if early.seconds:
        report.timings["judge_while_sandboxed"] = early.seconds
    return report


def judge_records(ch: Challenge, jobs: list[CaseJob], records: list[Any], secret: int,
                  report: Report, shadow: bool | None = None,
                  done: dict[int, tuple[CaseReport, Any]] | None = None,
                  parallel: bool = False) -> None:
    """Judge records in order until the first failure; fills report.cases/perf/verdict.
    `done`: (report, run) of records already judged, by index (grade's early judge);
    `parallel`: fresh-input replays in a forked process (judge_case)."""
    spec = ch.spec
    failed: CaseReport | None = None
    runs: dict[str, Any] = {}
    done = done or {}
    arrived = records.count() if isinstance(records, _Records) else len(records)
    for i, job in enumerate(jobs[:arrived]):
        if failed is not None:
            report.cases.append(CaseReport(case=job.case.name, chip=job.chip,
                                           shape=job.case.shape, dtype=job.case.dtype,
                                           kind=job.case.kind, hidden=job.case.hidden,
                                           perf=job.case.perf))
            continue
        cr, run = done[i] if i in done else judge_case(spec, job, records[i], secret,
                                                       shadow=shadow, parallel=parallel)
        report.cases.append(cr)
        if cr.verdict != Verdict.ACCEPTED:
            failed = cr
        elif job.case.perf:
            runs[job.chip] = (job, run)
    if failed is not None:
        report.verdict = failed.verdict
        hidden = " (hidden)" if failed.hidden else ""
        report.message = (f"{failed.verdict.value} on case {failed.case}{hidden}, "
                          f"{failed.dtype}[{'x'.join(map(str, failed.shape))}] "
                          f"({failed.kind}) on {failed.chip}:\n{failed.message}")
        return
    for chip, (job, run) in runs.items():
        report.perf.append(perf_report(spec, job.case, chip, run, job.inputs))
        report.perf_runs[chip] = run
    order = {"gold": 0, "silver": 1, "bronze": 2}
    report.tier = max((p.tier for p in report.perf), key=lambda t: order[t], default=None)
    n = len(report.cases)
    perf = "; ".join(f"{p.chip}: {p.cycles:,} cycles, {p.ratio:.2f}x the tier bound -> {p.tier}"
                     for p in report.perf)
    report.message = f"all {n} cases correct. {perf}" if perf else f"all {n} cases correct."


def _judge_all(ch: Challenge, jobs: list[CaseJob], records: _Records, secret: int,
               report: Report, result: SandboxResult, progress: str, limits: Limits,
               opts: GradeOptions, done: dict[int, tuple[CaseReport, Any]]) -> None:
    """Records present: judge them; the first missing one says how the child ended. A child
    that sent every record but then died (a signal, a non-zero exit) fails too: how it ended
    is part of the verdict."""
    n = records.count()
    if n == len(jobs) and not result.timed_out and result.returncode == 0:
        judge_records(ch, jobs, records, secret, report, opts.shadow, done, opts.overlap)
        return
    # judge what came back first: an earlier failure is the better message
    judge_records(ch, jobs[:n], records, secret, report, opts.shadow, done, opts.overlap)
    if report.verdict != Verdict.ACCEPTED:
        _pad(report, jobs[n:])
        return
    report.perf.clear()
    report.tier = None
    verdict, msg = _death(result, limits)
    if n == len(jobs):  # every record came, then the process did not end cleanly
        job = jobs[-1]
        if not result.timed_out and (result.channel is None or not result.channel.error):
            sig = result.signal
            how = f"signal {sig}" if sig else f"exit code {result.returncode}"
            verdict, msg = Verdict.RUNTIME_ERROR, (
                f"the process running your code ended with {how} after its last case was "
                "recorded; a graded process must end normally (an atexit hook, a thread or a "
                "signal handler that kills it is not)")
        report.cases[-1] = replace(report.cases[-1], verdict=verdict, message=msg)
    else:
        job = jobs[n]
        cr = CaseReport(case=job.case.name, chip=job.chip, shape=job.case.shape,
                        dtype=job.case.dtype, kind=job.case.kind, hidden=job.case.hidden,
                        verdict=verdict, message=msg, perf=job.case.perf)
        cr.details = result.stderr.strip().splitlines()[-15:]
        report.cases.append(cr)
        _pad(report, jobs[n + 1:])
    report.verdict = verdict
    report.message = (f"{verdict.value} on case {job.case.name} "
                      f"{'(hidden) ' if job.case.hidden else ''}on {job.chip}:\n{msg}")


def _pad(report: Report, jobs: list[CaseJob]) -> None:
    for job in jobs:
        report.cases.append(CaseReport(case=job.case.name, chip=job.chip, shape=job.case.shape,
                                       dtype=job.case.dtype, kind=job.case.kind,
                                       hidden=job.case.hidden, perf=job.case.perf))


def _death(result: SandboxResult, limits: Limits) -> tuple[Verdict, str]:
    """Why the child stopped before writing a case's record (or ended badly after)."""
    sig = result.signal
    err = result.stderr
    cut = result.channel.error if result.channel is not None else None
    if cut:
        return Verdict.RUNTIME_ERROR, (f"your process broke the record channel: {cut}. The "
                                       "grader reads only what its harness sends.")
    if result.timed_out:
        return Verdict.TIME_LIMIT, (f"your code ran past the wall-clock limit of "
                                    f"{limits.wall_s:g} s (all cases together) and was "
                                    "stopped: an endless loop, or a far too slow kernel?")
    if sig in (24, 9) and "MemoryError" not in err:  # SIGXCPU, or SIGKILL at the hard limit
        return Verdict.TIME_LIMIT, (f"your code used more than {limits.cpu_s:g} CPU seconds and "
                                    "was stopped")
    if "MemoryError" in err or "Cannot allocate memory" in err or "bad_alloc" in err:
        return Verdict.MEMORY_LIMIT, (f"your code ran out of memory (limit "
                                      f"{limits.memory_mb} MiB for the whole process)")
    if sig == 25:
        return Verdict.RUNTIME_ERROR, (f"your code wrote a file larger than {limits.file_mb} MiB")
    code = result.returncode
    how = f"signal {sig}" if sig else f"exit code {code}"
    return Verdict.RUNTIME_ERROR, (f"the process running your code ended before this case was "
                                   f"recorded ({how}): os._exit(), a crash in native code, or "
                                   "the process killing itself. See stderr below.")


def _runner(sub: Submission, opts: GradeOptions) -> str:
    """"py", "notebook" (papermill) or "script" (a notebook's cells as one .py)."""
    if sub.kind != "ipynb":
        return "py"
    from .notebook import available

    want = opts.notebook_runner
    if want not in ("auto", "papermill", "script"):
        raise ValueError(f"GradeOptions.notebook_runner must be 'auto', 'papermill' or "
                         f"'script', got {want!r}")
    if want == "script" or (want == "auto" and not available()):
        return "script"
    return "notebook"


_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")


def job_file_name(sub: Submission) -> str:
    """The submission's file name in the job folder: its own name when that is short and
    plain (tracebacks then name the learner's file), else the fixed "submission.py"; a
    notebook's cells run from "<stem>_notebook.py" ("submission_notebook.py"). Never a name
    that could leave the folder, hit NAME_MAX or carry control characters."""
    stem = Path(sub.name).stem if sub.name.endswith((".py", ".ipynb")) else ""
    if not _SAFE_NAME.fullmatch(stem):
        stem = "submission"
    return f"{stem}.py" if sub.kind == "py" else f"{stem}_notebook.py"


def _write_job(root: str, ch: Challenge, sub: Submission, jobs: list[CaseJob],
               uid: int | None, mode: str = "py", limits: Limits | None = None
               ) -> tuple[str, str]:
    """The job directory (job.json, the inputs as .npy, the submission) and the child's
    writable work directory, all owned by the job's private uid (when there is one), 0700.
    mode: "py", "script" (a notebook's cells as one .py) or "notebook" (papermill)."""
    job_dir = os.path.join(root, "job")
    work_dir = os.path.join(root, "work")
    for d in (job_dir, work_dir, os.path.join(job_dir, "inputs")):
        os.makedirs(d, mode=0o700)
    sub_path = os.path.join(job_dir, job_file_name(sub))
    with open(sub_path, "w") as f:
        f.write(sub.source)
    remember_source(sub_path, sub.source)  # the profile's hot lines, once the job dir is gone
    written: dict[str, dict[str, str]] = {}
    cases = []
    for job in jobs:
        paths = written.get(job.case.name)
        if paths is None:
            paths = {}
            for name, arr in job.inputs.items():
                p = os.path.join(job_dir, "inputs", f"{job.case.name}-{name}.npy")
                np.save(p, arr, allow_pickle=False)
                paths[name] = p
            written[job.case.name] = paths
        cases.append({"key": job.key, "chip": job.chip, "inputs": paths,
                      "outputs": {k: [list(s), d] for k, (s, d) in job.outputs.items()},
                      "order": list(job.order), "params": job.params})
    drop = uid if uid is not None else (NOBODY if os.geteuid() == 0 else None)
    job = {"submission": sub_path, "entry": ch.spec.entry, "signature": entry_signature(ch),
           "cases": cases, "work_dir": work_dir, "uid": drop, "gid": drop, "mode": mode}
    if mode == "notebook":  # the cells, and a per-cell timeout inside the wall-clock limit
        wall = (limits or ch.spec.limits).wall_s
        job.update(cells=[list(c) for c in sub.cells], limits_applied=True,
                   cell_timeout_s=max(1, int(wall * 0.8)))
    with open(os.path.join(job_dir, "job.json"), "w") as f:
        json.dump(job, f)
    if drop is not None:  # the child reads its job and writes its work folder as its own uid
        for dirpath, _dirnames, filenames in os.walk(root):
            os.chown(dirpath, drop, drop)
            for fn in filenames:
                os.chown(os.path.join(dirpath, fn), drop, drop)
    return job_dir, work_dir


class _Records:
    """The case records of one job, parsed one at a time as the judge asks for them (only
    one parsed record is alive at once)."""

    def __init__(self, channel: Any, n: int) -> None:
        self.channel = channel
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Any:
        if self.channel is None or not 0 <= i < self.n:
            return None
        return self.channel.record(i)

    def __iter__(self) -> Any:
        for i in range(self.count()):
            yield self[i]

    def count(self) -> int:
        """Records that arrived (up to the number of cases)."""
        return 0 if self.channel is None else min(self.n, len(self.channel.cases))


__all__ = ["GradeOptions", "entry_signature", "grade", "judge_records", "make_jobs"]
