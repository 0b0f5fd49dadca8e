"""Judging one case: from the submission's record to a verdict, trusting nothing in it.

The record (harness.py) claims: an error, or one launch with its trace, the mapping of kernel
arguments to the grader's arrays, and hashes of the arrays after the call. The judge:
  1. classifies a reported error (RUNTIME_ERROR with the line, MEMORY_LIMIT, memcheck ->
     SANITIZER_ERROR);
  2. loads the trace strictly (wire.py) and checks the launch rules (rules.py);
  3. replays the trace in this process on its own copies of the inputs (grader/replay/):
     an event that does not re-issue to itself is a RULE_VIOLATION ("does not replay");
  4. compares the array hashes with what the replay leaves in them: a difference means data
     was written outside emulated instructions (RULE_VIOLATION);
  5. runs the sanitizer on the replayed trace (SANITIZER_ERROR);
  6. checks the replayed outputs against its own float64 reference (WRONG_ANSWER with the
     precision report);
  7. if the challenge requires an input-independent kernel, replays the same trace on fresh
     inputs the submission never saw and checks those too (catches answers baked into
     instruction arguments: RULE_VIOLATION);
  8. models the cycles of the replayed run (its own cost model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .. import precision
from ..analysis.sanitizer import by_cause, sanitize
from . import rules as _rules
from .challenge import Case, ChallengeSpec, derive_seed
from .parallel import CAN_FORK, Forked
from .perf import bound_cycles
from .replay import LIBRARY_OPS, REPLAYABLE_OPS, ReplayError, replay
from .replay.budget import JudgeTimeout
from .report import CaseReport, Verdict
from .wire import RECORDABLE_OPS, WireError, digest, load_run, poisoned

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
MEMCHECK_ERRORS = frozenset({"OutOfBoundsError", "SanitizerError"})
# MemoryError subclasses that are the emulated chip's limits, not the host process's: a buffer
# that does not fit UB/L1/L0 (CapacityError) and the trace cap (TraceLimitError). They are the
# kernel's runtime errors with the emulator's message; MEMORY_LIMIT is the host process only.
CHIP_LIMIT_ERRORS = frozenset({"CapacityError", "TraceLimitError"})


@dataclass
class CaseJob:
    """One case on one chip, with the grader's own inputs."""

    case: Case
    chip: str
    inputs: dict[str, np.ndarray]  # the arrays the submission is given (and the replay uses)
    outputs: dict[str, tuple[tuple[int, ...], str]]
    params: dict[str, Any]  # keyword arguments of the entry (case params + core_num)
    order: tuple[str, ...]  # positional arrays of the entry: inputs, then outputs
    golden: dict[str, np.ndarray] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.chip}/{self.case.name}"


class _Fail(Exception):
    def __init__(self, verdict: Verdict, message: str, details: list[str] | None = None):
        super().__init__(message)
        self.verdict = verdict
        self.message = message
        self.details = details or []


def _check_record(rec: Any, job: CaseJob) -> dict:
    """The record's shape (a tampered record is a rule violation, not a crash)."""
    def bad(what: str) -> _Fail:
        return _Fail(Verdict.RULE_VIOLATION, f"the record your process wrote for this case is "
                     f"malformed ({what}); the grader reads only what the harness writes")

    if type(rec) is not dict:
        raise bad("not an object")
    err = rec.get("error")
    if err is not None and (type(err) is not dict or not all(
            type(err.get(k)) is str for k in ("type", "message", "where", "phase"))):
        raise bad("error")
    if type(rec.get("launches")) is not int:
        raise bad("launches")
    mapping = rec.get("mapping")
    if type(mapping) is not list or not all(
            type(m) is list and len(m) == 2 and type(m[0]) is str
            and (m[1] is None or m[1] in job.order) for m in mapping):
        raise bad("mapping")
    hashes = rec.get("hashes")
    if type(hashes) is not dict or not all(type(v) is str and _HEX64.match(v)
                                           for v in hashes.values()):
        raise bad("hashes")
    return rec


def _error_verdict(err: dict) -> _Fail:
    typ, msg, where, phase = err["type"], err["message"], err["where"], err["phase"]
    at = f" at {where}" if where else ""
    if typ in CHIP_LIMIT_ERRORS:
        what = ("a buffer does not fit the chip's on-chip memory" if typ == "CapacityError"
                else "the launch recorded more instructions than the grader allows")
        return _Fail(Verdict.RUNTIME_ERROR, f"{typ} in the kernel{at}: {msg}",
                     [f"{what}; this is the emulated chip's limit, not the host's memory"])
    if err.get("memory") is True or typ == "MemoryError":
        return _Fail(Verdict.MEMORY_LIMIT, f"your code ran out of memory{at} ({typ}: {msg}); "
                     "the grader's memory limit applies to the whole process")
    if typ in MEMCHECK_ERRORS:
        return _Fail(Verdict.SANITIZER_ERROR, f"memcheck{at}: {msg}",
                     [f"{typ}: {msg}"])
    if typ == "CellTimeoutError" or (phase == "notebook" and "Timeout" in typ):
        return _Fail(Verdict.TIME_LIMIT, f"a notebook cell{at} ran past the time limit and was "
                     f"stopped ({typ}: {msg})")
    if phase == "notebook":
        return _Fail(Verdict.RUNTIME_ERROR, f"the notebook could not be run to the end{at}: "
                     f"{typ}: {msg}")
    if typ == "SystemExit":
        return _Fail(Verdict.RUNTIME_ERROR, f"your code called sys.exit({msg}){at}; the entry "
                     "must return normally after launching its kernel")
    if phase == "import":
        return _Fail(Verdict.RUNTIME_ERROR, f"loading your submission failed{at}: {typ}: {msg}")
    if typ == "ReplayBudget":  # channel.py: the record broke an event budget
        return _Fail(Verdict.RULE_VIOLATION, msg)
    if phase == "record":
        return _Fail(Verdict.RULE_VIOLATION, f"the launch could not be recorded: {msg}")
    where_run = "in the kernel" if phase == "kernel" else "before the kernel launched"
    return _Fail(Verdict.RUNTIME_ERROR, f"{typ} {where_run}{at}: {msg}")


def _unreplayable(obj: Any, spec: ChallengeSpec) -> str:
    """The rule message for the first recorded op the grader cannot replay (an instruction a
    kernel may call locally, e.g. an asc.adv helper, but that no challenge allows), at its
    line, with the challenge's allowed list; "" when the record has no such op (or is not
    shaped like one: then the wire's own message stands)."""
    if type(obj) is not dict or type(obj.get("events")) is not list:
        return ""
    strings = obj.get("strings") if type(obj.get("strings")) is list else []
    for ev in obj["events"]:
        if type(ev) is not list or len(ev) != 12 or type(ev[2]) is not str:
            continue
        op = ev[2]
        if op in RECORDABLE_OPS:
            continue
        f, line = ev[8], ev[9]
        where = ""
        if type(f) is int and 0 <= f < len(strings) and type(strings[f]) is str:
            where = f" ({strings[f].rsplit('/', 1)[-1]}:{line if type(line) is int else '?'})"
        allowed = spec.rules.allowed_ops
        # what a kernel may call: the library's internal records (mm_request, ...) are no
        # instruction a learner writes
        listed = sorted((allowed if allowed is not None else REPLAYABLE_OPS) - LIBRARY_OPS)
        return (f"{op[:80]}{where} is not among the instructions this challenge allows (the "
                f"grader cannot replay it): {', '.join(listed)}")
    return ""


def _fresh_contents(meta: Any, mapping: dict[str, str | None], job: CaseJob,
                    inputs: dict[str, np.ndarray]) -> tuple[dict, dict]:
    """(GM contents by kernel argument, array name -> kernel argument) for a replay."""
    contents: dict[str, np.ndarray] = {}
    owner: dict[str, str] = {}
    for g in meta.gm:
        target = mapping.get(g.name)
        if target is None:
            contents[g.name] = np.zeros(g.nbytes, np.uint8)  # workspace: zero-filled
            continue
        if target in owner:
            raise _Fail(Verdict.RULE_VIOLATION, f"array {target!r} is passed to the kernel "
                        f"twice (as {owner[target]!r} and {g.name!r}); pass each array once")
        owner[target] = g.name
        if target in inputs:
            contents[g.name] = inputs[target]
        else:
            shape, dtype = job.outputs[target]
            contents[g.name] = poisoned(shape, dtype)
    return contents, owner


def _typed(raw: np.ndarray, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return np.ascontiguousarray(raw).reshape(-1).view(np.uint8).view(dtype).reshape(shape)


def _precision(spec: ChallengeSpec, job: CaseJob, run: Any, owner: dict[str, str],
               golden: dict[str, np.ndarray]) -> tuple[dict, _Fail | None]:
    """Per-output precision results, and the failure (None when all pass)."""
    report: dict[str, Any] = {}
    for name, (shape, dtype) in job.outputs.items():
        arg = owner.get(name)
        if arg is None:
            return report, _Fail(Verdict.WRONG_ANSWER, f"output {name!r} is not a kernel "
                                 f"argument: the kernel never writes it (pass {name} to the "
                                 "kernel and copy the results into it)")
        actual = _typed(run.outputs[arg], shape, dtype)
        with np.errstate(all="ignore"):
            r = precision.check(actual, golden[name], dtype, spec.precision)
        report[name] = {"passed": r.passed, "mere": r.mere, "mare": r.mare, "off": r.off,
                        "total": r.total, "threshold": r.threshold,
                        "nonfinite_mismatch": r.nonfinite_mismatch,
                        "nan": r.nan, "inf": r.inf, "finite": r.finite,
                        "small": r.small, "small_off": r.small_off,
                        "max_abs_small": r.max_abs_small,
                        "worst": None if r.worst is None else
                        [list(r.worst[0]), _num(r.worst[1]), _num(r.worst[2])]}
        if not r.passed:
            details = [str(r)]
            if r.nonfinite_mismatch:
                g = golden[name]
                with np.errstate(all="ignore"):
                    bad = (np.isnan(actual) != np.isnan(g)) | (
                        np.isinf(actual) & ~(np.isinf(g) & (np.sign(actual) == np.sign(g)))) | (
                        np.isinf(g) & ~np.isinf(actual))
                pos = [list(map(int, np.unravel_index(i, shape)))
                       for i in np.flatnonzero(bad.ravel())[:5]]
                details.append(f"NaN/inf positions that differ (first {len(pos)}): {pos}")
            unwritten = int(np.all(actual.reshape(-1).view(np.uint8).reshape(
                actual.size, -1) == 0xFF, axis=1).sum()) if actual.size else 0
            if unwritten:
                details.append(f"{unwritten:,} elements still hold the grader's fill bytes "
                               "(0xFF): the kernel never wrote them (a tail, or a block "
                               "that was not launched?)")
            worst = ""
            if r.worst is not None:
                idx, got, want = r.worst
                worst = f"; worst element {list(idx)}: got {got!r}, want {want!r}"
            t = ("exact match" if r.threshold is None else f"T = {r.threshold:.3g}"
                 if r.standard == "threshold" else f"accumulative bound {r.threshold:.3g}")
            bad = r.nonfinite()
            msg = (f"output {name!r}: {r.off:,} of {r.total:,} elements off"
                   + (f", {bad}" if bad else "") + f" ({r.stats()}; {t}){worst}")
            if r.nonfinite_mismatch:
                msg += f"; {r.nonfinite_mismatch:,} NaN/inf positions differ"
            if r.small_off and r.small_value is not None:
                msg += (f"; {r.small_off:,} near-zero elements (|want| < {r.small_value[0]:.3g})"
                        f" off by more than {r.small_value[1]:.3g}")
            return report, _Fail(Verdict.WRONG_ANSWER, msg, details)
    return report, None


def _num(v: Any) -> Any:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return f if np.isfinite(f) else str(f)


def judge_case(spec: ChallengeSpec, job: CaseJob, rec: Any, secret: int, *,
               shadow: bool | None = None, parallel: bool = False) -> tuple[CaseReport, Any]:
    """The verdict of one case from the submission's record; returns (report, replayed Run).
    parallel: run the fresh-input replay in a forked process beside the first replay (the
    grader's own process, when a core is free; never in a learner's notebook)."""
    case = job.case
    out = CaseReport(case=case.name, chip=job.chip, shape=case.shape, dtype=case.dtype,
                     kind=case.kind, hidden=case.hidden, perf=case.perf)
    run = None
    try:
        run = _judge(spec, job, rec, secret, out,
                     spec.rules.input_independent if shadow is None else shadow,
                     parallel and CAN_FORK)
        out.verdict = Verdict.ACCEPTED
        out.message = "correct"
    except _Fail as f:
        out.verdict, out.message, out.details = f.verdict, f.message, f.details
    except JudgeTimeout as t:  # the judge's wall-clock budget (Limits.judge_s)
        out.verdict, out.message = Verdict.TIME_LIMIT, str(t)
    return out, run


def _judge(spec: ChallengeSpec, job: CaseJob, rec: Any, secret: int, out: CaseReport,
           shadow: bool, parallel: bool) -> Any:
    with np.errstate(all="ignore"):
        return _judge_checked(spec, job, _check_record(rec, job), secret, out, shadow, parallel)


def _judge_checked(spec: ChallengeSpec, job: CaseJob, rec: dict, secret: int, out: CaseReport,
                   shadow: bool, parallel: bool) -> Any:
    if rec["error"] is not None:
        raise _error_verdict(rec["error"])
    if rec["launches"] != 1:
        raise _Fail(Verdict.RULE_VIOLATION, f"{spec.entry}(...) must launch exactly one kernel "
                    f"per call; it launched {rec['launches']}")
    try:
        meta, events = load_run(rec.get("run"), max_events=spec.limits.max_events)
    except WireError as e:
        rule = _unreplayable(rec.get("run"), spec)
        if rule:
            raise _Fail(Verdict.RULE_VIOLATION, rule) from None
        raise _Fail(Verdict.RULE_VIOLATION, f"the recorded launch is malformed: {e}") from None
    out.events = len(events)
    mapping = {p: a for p, a in rec["mapping"]}
    arrays = {n: (int(a.nbytes), str(a.dtype), tuple(a.shape)) for n, a in job.inputs.items()}
    arrays.update({n: (int(np.prod(s)) * np.dtype(d).itemsize, d, tuple(s))
                   for n, (s, d) in job.outputs.items()})
    gm_names = {g.name for g in meta.gm}
    if set(mapping) - gm_names:
        raise _Fail(Verdict.RULE_VIOLATION, "the argument mapping names parameters the "
                    "recorded launch does not have")
    violations = _rules.check_launch(meta, events, spec.rules, job.chip, mapping, arrays,
                                     spec.inputs)
    if violations:
        raise _Fail(Verdict.RULE_VIOLATION, str(violations[0]), [str(v) for v in violations])
    contents, owner = _fresh_contents(meta, mapping, job, job.inputs)
    # the fresh-input replay depends on the trace alone: on a spare core it runs beside this one
    pending = None
    if shadow and parallel:
        try:
            pending = Forked(lambda: _shadow(spec, job, meta, events, mapping, secret, True))
        except OSError:  # no process to spare: the fresh-input replay runs here, after
            pending = None
    try:
        return _verdict(spec, job, rec, secret, out, shadow, meta, events, mapping, contents,
                        owner, pending)
    finally:
        if pending is not None:
            pending.close()


def _verdict(spec: ChallengeSpec, job: CaseJob, rec: dict, secret: int, out: CaseReport,
             shadow: bool, meta: Any, events: list, mapping: dict, contents: dict,
             owner: dict, pending: Forked | None) -> Any:
    """Steps 3-8 of the module docstring (the replays, checks and cycles)."""
    try:
        run = replay(events, meta.gm, contents, meta.chip, meta.block_num, meta.core_kind,
                     meta.replay_options(), kernel=meta.kernel)
    except ReplayError as e:
        raise _Fail(Verdict.RULE_VIOLATION, f"the recorded trace does not replay: {e}. The "
                    "grader re-executes every recorded instruction; a trace that was edited, "
                    "or produced by a patched runtime, fails here.") from None
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
        # whatever else a crafted record makes the replay trip over is the record's fault
        raise _Fail(Verdict.RULE_VIOLATION, f"the recorded launch is malformed: it cannot be "
                    f"replayed ({type(e).__name__}: {e})") from None
    # what the arrays must hold after the call, if only the recorded instructions wrote them
    hashes = rec["hashes"]
    for name in job.order:
        arg = owner.get(name)
        if arg is not None:
            want = digest(run.outputs[arg])
        elif name in job.inputs:
            want = digest(job.inputs[name])
        else:
            shape, dtype = job.outputs[name]
            want = digest(poisoned(shape, dtype))
        if hashes.get(name) != want:
            what = "input" if name in job.inputs else "output"
            raise _Fail(Verdict.RULE_VIOLATION,
                        f"{what} {name!r} holds different data after your {spec.entry}() "
                        f"returned than the recorded kernel instructions leave in it: it was "
                        f"written outside emulated instructions (numpy on the arrays, a patched "
                        f"runtime or numpy, a cached result). Only what the kernel's "
                        f"instructions compute counts.")
    if pending is None:
        _sanitizer_verdict(list(run.findings) + sanitize(run))
    golden = job.golden if job.golden is not None else spec.golden(job.case, job.inputs)
    precision_report, fail = _precision(spec, job, run, owner, golden)
    if pending is not None:
        cycles = int(run.cycles)  # while the fork runs
        failure, findings = pending.result()
        # the fork sanitized its own replay: the same trace (both replays reproduce it), GM
        # layout, chip and options; the sanitizer reads nothing else (analysis/sanitizer.py)
        _sanitizer_verdict(list(run.findings) + (sanitize(run) if findings is None
                                                 else findings))
    out.precision = precision_report
    if fail is not None:
        raise fail
    if pending is None:
        cycles = int(run.cycles)
        failure = _shadow(spec, job, meta, events, mapping, secret)[0] if shadow else None
    if failure is not None:
        raise _Fail(Verdict.RULE_VIOLATION, *failure)
    out.cycles = cycles
    out.bound_cycles = bound_cycles(spec, job.case, job.chip, job.inputs)
    out.tier = spec.tiers.tier(out.cycles, out.bound_cycles)
    return run


def _sanitizer_verdict(found: list) -> None:
    found = by_cause(found)  # the headline names the root cause (sanitizer.py: "Order")
    if found:
        def said(f: Any) -> str:  # the sanitizer's messages start with their kind already
            return f.message if f.message.startswith(f"{f.kind}: ") else f"{f.kind}: {f.message}"

        lines = [said(f) + (f" [{', '.join(f.lines)}]" if f.lines else "") for f in found]
        raise _Fail(Verdict.SANITIZER_ERROR, f"the sanitizer found {len(found)} problem(s); "
                    f"first: {said(found[0])}", lines[:20])


def _shadow(spec: ChallengeSpec, job: CaseJob, meta: Any, events: list, mapping: dict,
            secret: int, sanitized: bool = False) -> tuple[tuple[str, list[str]] | None, Any]:
    """Step 7: replay the trace on fresh inputs of the same case. (None when they are right,
    else the RULE_VIOLATION's (message, details); with `sanitized`, the sanitizer's findings
    on this replay, None when it did not replay)."""
    fresh_case = replace(job.case, seed=derive_seed(secret, "shadow", job.chip, job.case.name))
    fresh = spec.make_inputs(fresh_case)
    contents, owner = _fresh_contents(meta, mapping, job, fresh)
    try:
        run2 = replay(events, meta.gm, contents, meta.chip, meta.block_num, meta.core_kind,
                      meta.replay_options(), kernel=meta.kernel)
    except ReplayError as e:  # cannot differ from the first replay, but be safe
        return (f"the recorded trace does not replay on fresh inputs: {e}", []), None
    found = sanitize(run2) if sanitized else None
    with np.errstate(all="ignore"):
        _, fail2 = _precision(spec, job, run2, owner, spec.golden(fresh_case, fresh))
    if fail2 is None:
        return None, found
    return ("the recorded instructions compute the right answer only for the data your process "
            "was given: replayed on fresh inputs of the same case they give "
            f"{fail2.message}. This challenge needs a kernel whose instructions do not depend "
            "on the data: values computed from the data must not end up in instruction "
            "arguments (scalars of duplicate/adds/muls, set_value), and data-dependent control "
            "flow is not allowed.", fail2.details), found


__all__ = ["CaseJob", "judge_case"]
