"""The grade: a verdict per case and overall, with what a learner needs to act on it.

A Report renders itself (str for terminals, _repr_html_ for notebooks, to_dict/to_json for
machines); grading never prints.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from .text import clean


class Verdict(str, Enum):
    """What the grader concluded (ordered roughly from good to bad)."""

    ACCEPTED = "ACCEPTED"
    WRONG_ANSWER = "WRONG_ANSWER"
    RULE_VIOLATION = "RULE_VIOLATION"
    SANITIZER_ERROR = "SANITIZER_ERROR"
    TIME_LIMIT = "TIME_LIMIT"
    MEMORY_LIMIT = "MEMORY_LIMIT"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    INTERNAL_ERROR = "INTERNAL_ERROR"  # the grader itself failed: not the submission's fault

    def __str__(self) -> str:
        return self.value


@dataclass
class CaseReport:
    """One case on one chip."""

    case: str
    chip: str
    shape: tuple[int, ...]
    dtype: str
    kind: str
    hidden: bool
    verdict: Verdict | None = None  # None: not judged (an earlier case failed)
    message: str = ""
    details: list[str] = field(default_factory=list)  # precision report, findings, ...
    precision: dict[str, Any] | None = None  # per output: mere, mare, off, total, worst
    events: int = 0
    cycles: int | None = None  # modelled by the grader on the replayed trace
    bound_cycles: int | None = None  # the challenge's roofline bound for this case
    tier: str | None = None
    perf: bool = False

    @property
    def label(self) -> str:
        dims = "x".join(map(str, self.shape))
        return f"{self.case} [{self.dtype}[{dims}], {self.kind}] on {self.chip}"


@dataclass
class PerfReport:
    """The performance case on one chip: what ranks on the leaderboard."""

    chip: str
    case: str
    cycles: int
    bound_cycles: int
    ratio: float  # cycles / bound
    tier: str
    time_us: float
    kernel_bound: str  # what limits this kernel (memory / vector / cube), from the cost model
    profile: str = ""  # ascendlab.profile() of the replayed run, as text
    profile_html: str = ""


@dataclass
class Report:
    """The result of grading one submission against one challenge."""

    challenge: str
    submission: str
    verdict: Verdict
    message: str
    tier: str | None = None
    cases: list[CaseReport] = field(default_factory=list)
    perf: list[PerfReport] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    sandbox: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    model_version: str = ""
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # the replayed Run of the performance case per chip (not serialized: the leaderboard
        # keeps its trace for the museum's timelines)
        self.perf_runs: dict[str, Any] = {}

    @property
    def ok(self) -> bool:
        return self.verdict == Verdict.ACCEPTED

    def cycles(self, chip: str | None = None) -> int | None:
        """Modelled cycles of the performance case (on `chip`, default the first)."""
        for p in self.perf:
            if chip is None or p.chip == chip:
                return p.cycles
        return None

    # ---- machines ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["verdict"] = self.verdict.value
        for c in d["cases"]:
            c["verdict"] = c["verdict"].value if c["verdict"] is not None else None
            c["shape"] = list(c["shape"])
        for p in d["perf"]:
            p.pop("profile_html", None)
        return d

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), default=str, **kw)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        d = dict(d)
        d["verdict"] = Verdict(d["verdict"])
        d["cases"] = [CaseReport(**{**c, "shape": tuple(c["shape"]),
                                    "verdict": Verdict(c["verdict"]) if c["verdict"] else None})
                      for c in d.get("cases", [])]
        d["perf"] = [PerfReport(**p) for p in d.get("perf", [])]
        return cls(**d)

    # ---- people --------------------------------------------------------------------------
    def headline(self) -> str:
        tier = f" ({self.tier})" if self.tier else ""
        return f"{self.verdict.value}{tier}: {self.challenge} / {self.submission}"

    def __str__(self) -> str:
        out = [self.headline(), ""]
        out += [_indent(self.message)]
        judged = [c for c in self.cases if c.verdict is not None]
        if judged:
            out += ["", "cases:"]
            for c in self.cases:
                v = c.verdict.value if c.verdict is not None else "not judged"
                extra = f"  {c.cycles:,} cycles" if c.cycles is not None else ""
                out.append(f"  {v:<16} {c.label}{extra}")
        failed = next((c for c in self.cases if c.verdict not in (None, Verdict.ACCEPTED)),
                      None)
        if failed is not None and failed.details:
            out += ["", f"details ({failed.case} on {failed.chip}):"]
            out += [_indent(d) for d in failed.details]
        for p in self.perf:
            out += ["", f"performance on {p.chip} ({p.case}): {p.cycles:,} modelled cycles, "
                        f"{p.ratio:.2f}x the tier bound of {p.bound_cycles:,} -> {p.tier} "
                        f"({p.kernel_bound}-bound, {p.time_us:.2f} us)"]
            if p.profile:
                out.append(_indent(p.profile))
        for name, text in (("stdout", self.stdout), ("stderr", self.stderr)):
            if text.strip():
                out += ["", f"{name} of your code:", _indent(text.rstrip())]
        if self.notes:
            out += ["", "notes:"] + [f"  - {n}" for n in self.notes]
        if self.timings:
            t = ", ".join(f"{k} {v:.2f} s" for k, v in self.timings.items())
            out += ["", f"graded in {t}"]
        # the submission's output, names and messages reach a terminal: no escape sequences
        return clean("\n".join(out))

    def _repr_html_(self) -> str:
        def e(text: str) -> str:
            return html.escape(clean(text))

        color = {"ACCEPTED": "#2e7d32", "WRONG_ANSWER": "#c62828"}.get(self.verdict.value,
                                                                     "#ef6c00")
        rows = []
        for c in self.cases:
            v = c.verdict.value if c.verdict is not None else "not judged"
            cyc = f"{c.cycles:,}" if c.cycles is not None else ""
            rows.append(f"<tr><td>{e(v)}</td><td>{e(c.case)}</td><td>{e(c.chip)}</td>"
                        f"<td>{e(c.dtype)}[{e('x'.join(map(str, c.shape)))}]</td>"
                        f"<td>{e(c.kind)}</td><td style='text-align:right'>{cyc}</td></tr>")
        failed = next((c for c in self.cases if c.verdict not in (None, Verdict.ACCEPTED)),
                      None)
        details = ""
        if failed is not None and failed.details:
            details = (f"<h5>details: {e(failed.case)} on {e(failed.chip)}</h5><pre>"
                       + e("\n".join(failed.details)) + "</pre>")
        perf = "".join(
            f"<h5>performance on {e(p.chip)}: {p.cycles:,} cycles = {p.ratio:.2f}x the "
            f"tier bound ({p.bound_cycles:,}) &rarr; <b>{e(p.tier)}</b></h5>{p.profile_html}"
            for p in self.perf)
        outs = "".join(f"<details><summary>{n}</summary><pre>{e(t)}</pre></details>"
                       for n, t in (("stdout", self.stdout), ("stderr", self.stderr))
                       if t.strip())
        notes = "".join(f"<li>{e(n)}</li>" for n in self.notes)
        tier = f" ({e(self.tier)})" if self.tier else ""
        return (f"<div class='ascendlab-report'><h4 style='color:{color}'>"
                f"{e(self.verdict.value)}{tier}: {e(self.challenge)}</h4>"
                f"<pre>{e(self.message)}</pre>"
                f"<table><tr><th>verdict</th><th>case</th><th>chip</th><th>input</th>"
                f"<th>values</th><th>cycles</th></tr>{''.join(rows)}</table>{details}{perf}"
                f"{outs}{'<ul>' + notes + '</ul>' if notes else ''}</div>")


def _indent(text: str, by: str = "  ") -> str:
    return "\n".join(by + line for line in text.splitlines())


__all__ = ["CaseReport", "PerfReport", "Report", "Verdict"]
