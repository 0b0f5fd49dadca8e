"""A challenge's README facts, written from its spec.py: the case table, the value ranges of
each value kind, the chips and cores, the allowed instructions, the other rules, the tiers.

The block sits between markers in challenges/<day>/README.md and is regenerated (with the
days table of challenges/README.md, by the same script) with

    python tests/challenges/build.py readmes

tests/challenges/test_readmes.py fails when a README's block differs from what this module
writes from the current spec.py, so the README cannot drift from what the grader does.

Hidden cases are drawn from the grader's secret, so their sizes are shown as what DRAWS draws
of the secret give (the smallest and the largest size, and a pattern every draw keeps: odd,
16·m + 1, ...). Value ranges are measured on the generated inputs (the public cases and the
hidden cases of VALUE_SECRETS), rounded to two significant digits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..runtime.chips import get_chip
from ..runtime.trace import OPS
from .challenge import Case, Challenge, ChallengeSpec, day_of

DRAWS = 2000  # secrets 0 .. DRAWS-1: enough to meet the ends of every hidden size range
VALUE_SECRETS = (1, 2, 3, 4)  # hidden cases whose inputs the value ranges are measured on
COMMAND = "python tests/challenges/build.py readmes"


def markers(name: str) -> tuple[str, str]:
    """The begin and end markers of block `name` in a markdown file."""
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def replace_block(text: str, name: str, body: str, where: str = "the file") -> str:
    """`text` with the lines between block `name`'s markers replaced by `body`."""
    begin, end = markers(name)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ValueError(f"{where} needs exactly one {begin} followed by one {end}")
    a, b = text.index(begin) + len(begin), text.index(end)
    return text[:a] + "\n" + body.strip("\n") + "\n" + text[b:]


def block_of(text: str, name: str) -> str | None:
    """The text between block `name`'s markers (None when the markers are missing)."""
    begin, end = markers(name)
    if begin not in text or end not in text:
        return None
    return text[text.index(begin) + len(begin):text.index(end)].strip("\n")


# ---- sizes ---------------------------------------------------------------------------------
def _num(v: int) -> str:
    return f"{v:,}".replace(",", " ") if v >= 10_000 else str(v)


def describe_sizes(values: Iterable[int]) -> tuple[str, str]:
    """One dimension over many draws, as (the dimension, a note on its m): ('64', ''),
    ('{3, 5, 7}', ''), ('odd 51–399', ''), ('16·m + 1', '40–199')."""
    vs = sorted(set(values))
    if len(vs) == 1:
        return _num(vs[0]), ""
    if len(vs) <= 4:
        return "{" + ", ".join(map(_num, vs)) + "}", ""
    lo, hi = vs[0], vs[-1]
    for p in (1024, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1):
        r = vs[0] % p
        if all(v % p == r for v in vs):
            break
    if len(vs) * 2 < (hi - lo) // p + 1:  # a few scattered sizes, not a range
        listed = ", ".join(map(_num, vs))
        return ("{" + listed + "}" if len(vs) <= 8 else
                f"one of {len(vs)} sizes in {_num(lo)}–{_num(hi)}"), ""
    if p == 1:
        return f"{_num(lo)}–{_num(hi)}", ""
    if p == 2:
        return f"{'odd' if r else 'even'} {_num(lo)}–{_num(hi)}", ""
    return (f"{p}·m + {r}" if r else f"{p}·m"), f"{_num((lo - r) // p)}–{_num((hi - r) // p)}"


_PRIMES = ("", "′", "″", "‴")


def _shape_text(shapes: list[tuple[int, ...]]) -> str:
    """'(1, 16·m + 1) with m 40–199': the shape over the draws."""
    dims, notes = [], []
    for i in range(len(shapes[0])):
        text, note = describe_sizes(s[i] for s in shapes)
        if note:
            m = "m" + _PRIMES[min(len(notes), len(_PRIMES) - 1)]
            text = text.replace("m", m)
            notes.append(f"{m} {note}")
        dims.append(text)
    out = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
    return out + (" with " + ", ".join(notes) if notes else "")


def _value(v: object) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _param_text(value_sets: dict[str, set]) -> str:
    """'beta = 1', 'beta ∈ {0.5, 1, 1.702}'."""
    parts = []
    for k, vs in value_sets.items():
        shown = sorted(vs, key=lambda v: (str(type(v)), v))
        parts.append(f"{k} = {_value(shown[0])}" if len(shown) == 1 else
                     f"{k} ∈ {{{', '.join(map(_value, shown))}}}")
    return ", ".join(parts)


@dataclass
class _Row:
    case: Case  # the first draw's (a public case: the case)
    seen: list[tuple[tuple[int, ...], dict, str]]  # (shape, params, dtype) per draw

    @property
    def shapes(self) -> list[tuple[int, ...]]:
        return [s for s, _p, _d in self.seen]

    def params(self, skip: set[str]) -> dict[str, set]:
        out: dict[str, set] = {}
        for _s, p, _d in self.seen:
            for k, v in p.items():
                if k not in skip:
                    out.setdefault(k, set()).add(v)
        return out


def _rows(spec: ChallengeSpec, draws: int) -> list[_Row]:
    """Public cases as they are; each hidden case (by name) over `draws` secrets."""
    rows = [_Row(c, [(c.shape, dict(c.params), c.dtype)]) for c in spec.public_cases]
    hidden: dict[str, _Row] = {}
    for secret in range(draws):
        for c in spec.hidden_cases(secret):
            hidden.setdefault(c.name, _Row(c, [])).seen.append((c.shape, dict(c.params),
                                                                c.dtype))
    return rows + list(hidden.values())


def _shape_params(rows: list[_Row]) -> set[str]:
    """Params equal to one shape dimension in every case (day 4's h and d): shown once."""
    out = set()
    for k in {k for r in rows for _s, p, _d in r.seen for k in p}:
        dims: set[int] | None = None
        for r in rows:
            for shape, p, _d in r.seen:
                if k in p:
                    here = {i for i, n in enumerate(shape) if p[k] == n}
                    dims = here if dims is None else dims & here
        if dims:
            out.add(k)
    return out


# ---- values --------------------------------------------------------------------------------
def _fmt(v: float) -> str:
    """v to two significant digits, positional where that stays short."""
    if v == 0:
        return "0"
    r = float(f"{v:.2g}")
    if 1e-4 <= abs(r) < 1e5:
        text = f"{r:f}".rstrip("0").rstrip(".")
        return text
    return f"{r:.1e}".replace("e-0", "e-").replace("e+0", "e")


def describe_values(a: np.ndarray) -> str:
    """'[-4, 4]', '±[0.001, 6]' (both signs, |v| in [0.001, 6]), '[0.05, 2]'."""
    a = np.asarray(a, np.float64).ravel()
    a = a[np.isfinite(a)]
    if a.size == 0:
        return "no finite values"
    lo, hi = float(a.min()), float(a.max())
    if lo < 0 < hi:
        mag = np.abs(a)
        small, big = float(mag.min()), float(mag.max())
        # both signs, kept away from zero: far more than n draws through zero would be
        if small > 20 * big / a.size:
            if _fmt(-lo) == _fmt(hi):
                return f"±[{_fmt(small)}, {_fmt(big)}]"
            return f"[{_fmt(lo)}, {_fmt(-small)}] ∪ [{_fmt(small)}, {_fmt(hi)}]"
    return f"[{_fmt(lo)}, {_fmt(hi)}]"


def value_ranges(spec: ChallengeSpec, secrets: Iterable[int] = VALUE_SECRETS
                 ) -> dict[str, dict[str, str]]:
    """kind -> input -> its range over the generated inputs of the public cases and of the
    hidden cases of `secrets` (a hidden case whose shape does not change with the secret
    once)."""
    cases = list(spec.public_cases)
    seen: set[tuple] = set()
    for s in secrets:
        for c in spec.hidden_cases(s):
            if (c.name, c.shape) not in seen:  # a fixed shape: its values once is enough
                seen.add((c.name, c.shape))
                cases.append(c)
    seen_values: dict[str, dict[str, list[np.ndarray]]] = {}  # kind -> input -> arrays
    for c in cases:
        for name, a in spec.make_inputs(c).items():
            seen_values.setdefault(c.kind, {}).setdefault(name, []).append(a.ravel())
    return {kind: {name: describe_values(np.concatenate(parts))
                   for name, parts in by_input.items()}
            for kind, by_input in seen_values.items()}


# ---- rules ---------------------------------------------------------------------------------
# the allowed instructions in groups, by the cycle model's cost class (trace.OPS)
_GROUPS = (
    ("DMA", ("dma",)),
    ("TPipe / TQue", ("framework",)),
    ("flags, barriers, sync_all", ("sync",)),
    ("scalar access", ("scalar",)),
    ("vector arithmetic, compares and fills (V pipe)", ("elementwise", "compare",
                                                         "transcendental")),
    ("vector casts (V pipe)", ("convert",)),
    ("vector reductions (V pipe)", ("reduce",)),
    ("cube (M pipe)", ("cube",)),
)


def op_groups(ops: Iterable[str]) -> list[tuple[str, list[str]]]:
    """The ops by group (_GROUPS), each sorted; an op in no group comes last, as 'other'."""
    ops = set(ops)
    out = []
    for title, classes in _GROUPS:
        got = sorted(o for o in ops if o in OPS and OPS[o].cost_class in classes)
        if got:
            out.append((title, got))
        ops -= set(got)
    if ops:
        out.append(("other", sorted(ops)))
    return out


def _vector_ops() -> set[str]:
    return {o for o, info in OPS.items() if info.cost_class in
            ("elementwise", "compare", "convert", "transcendental", "reduce")}


def _cores(spec: ChallengeSpec, chip: str) -> str:
    c = get_chip(chip)
    lo, hi = spec.rules.block_range(chip)
    if spec.rules.core_kind == "aiv":
        what = f"{c.aiv_cores} vector cores (AIV)"
    elif spec.rules.core_kind == "aic":
        what = f"{c.aic_cores} cube cores (AIC)"
    else:
        what = f"{c.aic_cores} MIX groups (1 cube + 2 vector cores each)"
    return f"**{chip}**: {what}, `block_num` {lo}–{hi}"


def _arrays(spec: ChallengeSpec, case: Case) -> str:
    def one(items: dict) -> str:
        return ", ".join(f"`{n}` {d} {tuple(s)}" for n, (s, d) in items.items())
    return f"{one(spec.inputs_for(case))} → {one(spec.outputs_for(case))}"


def rules_lines(spec: ChallengeSpec) -> list[str]:
    """The rules the grader enforces for `spec`, one bullet each (rules.py, judge.py)."""
    r = spec.rules
    out = []
    if r.allowed_ops is None:
        out.append("* Instructions: any instruction the grader can replay (no allowed list).")
    else:
        out.append("* Instructions allowed (any other is a RULE_VIOLATION naming it and its "
                   "line):")
        for title, ops in op_groups(r.allowed_ops):
            out.append(f"  * {title}: {' '.join(f'`{o}`' for o in ops)}")
        if not (set(r.allowed_ops) & _vector_ops()):
            out.append("  * no vector instruction at all: not `duplicate`, not `cast`")
        if "data_copy" in r.allowed_ops:
            rate = get_chip(r.chips[0]).vector_bytes_per_cycle
            out.append(f"  * a UB → UB `data_copy` is allowed (it is `data_copy`): it runs on "
                       f"the vector pipe (V) at {rate} B/cycle, so it competes with vector "
                       "instructions for that pipe")
    listed = r.allowed_ops is None or bool({"get_value", "set_value"} & r.allowed_ops)
    out.append("* Scalar `get_value` / `set_value`: "
               + ("allowed on GM and UB." if r.gm_scalar_access and listed else
                  "allowed on UB, not on GM." if listed else
                  "not on the list: no scalar access to UB or GM."))
    if r.readonly_inputs:
        out.append("* The kernel must not write its inputs ("
                   + ", ".join(f"`{n}`" for n in spec.inputs) + ").")
    out.append("* Extra GM arguments (a zero-filled workspace you allocate in `launch`): "
               + (f"at most {r.workspace_bytes:,} B in total." if r.workspace_bytes
                  else "none; only the challenge's arrays."))
    out.append("* Fresh-input replay " + (
        "is on: the grader re-runs your recorded instructions on other inputs of the same shape "
        "and judges those results too, so the instruction stream must not depend on the data."
        if r.input_independent else
        "is off: scalars read back from UB may steer the instructions (the data decide them by "
        "design here)."))
    out.append("* Imports: " + ", ".join(f"`{m}`" for m in sorted(r.imports - {"__future__"}))
               + "; numpy on the host side only (never inside an `@asc.jit` kernel).")
    out.append(f"* The sanitizer must be clean. Limits for all cases together: "
               f"{spec.limits.wall_s:g} s wall clock, {spec.limits.cpu_s:g} s CPU, "
               f"{spec.limits.memory_mb:,} MiB.")
    prec = {"threshold": "the CANN precision standard (MERE and MARE thresholds by dtype)",
            "accumulative": "msprobe's accumulative-error standard"}.get(spec.precision,
                                                                        spec.precision)
    out.append(f"* Precision: {prec}, against a float64 golden.")
    return out


# ---- the block -----------------------------------------------------------------------------
def spec_block(ch: Challenge, draws: int = DRAWS) -> str:
    """The generated README block of challenge `ch` (markdown, no markers)."""
    spec = ch.spec
    rows = _rows(spec, draws)
    folded = _shape_params(rows)
    perf = next((r.case.name for r in rows if r.case.perf), None)
    lines = [f"Generated from `spec.py` by `{COMMAND}`: edit spec.py, not this block.", "",
             "**Chips** (every case runs on each): "
             + "; ".join(_cores(spec, chip) for chip in spec.rules.chips) + ".", "",
             f"**Arrays** (as in `{spec.public_cases[0].name}`): "
             + _arrays(spec, spec.public_cases[0]) + ".", "",
             ]
    with_params = any(r.params(folded) for r in rows)
    lines += ["| case | shape | dtype | values |" + (" parameters |" if with_params else ""),
              "|---|---|---|---|" + ("---|" if with_params else "")]
    shapes = [_shape_text(r.shapes) for r in rows]
    for r, shape in zip(rows, shapes):
        name = f"{r.case.name} — **the performance case**" if r.case.perf else r.case.name
        dtypes = ", ".join(sorted({d for _s, _p, d in r.seen}))
        lines.append(f"| {name} | {shape} | {dtypes} | {r.case.kind} |"
                     + (f" {_param_text(r.params(folded))} |" if with_params else ""))
    lines += ["", f"Hidden sizes and values are drawn at grading time from a secret; a size "
              f"range is the smallest and largest of {draws:,} draws"
              + (" (m: any integer in its range)" if any("·m" in t for t in shapes) else "")
              + "."
              + (f" {', '.join(sorted(folded))} are passed to `{spec.entry}` as in the shape."
                 if folded else ""), ""]
    ranges = value_ranges(spec)
    names = list(spec.inputs)
    lines += ["Values by kind, measured on the generated inputs (the public cases and "
              f"{len(VALUE_SECRETS)} draws of the hidden ones; ±[a, b]: both signs, "
              "a ≤ |v| ≤ b):", "",
              "| kind | " + " | ".join(f"`{n}`" for n in names) + " |",
              "|---|" + "---|" * len(names)]
    for kind, by_input in ranges.items():
        lines.append(f"| {kind} | " + " | ".join(by_input.get(n, "") for n in names) + " |")
    lines += ["", "**Rules the grader enforces:**", "", *rules_lines(spec), "",
              _tiers_line(spec, perf, day_of(ch.path.name) is not None)]
    return "\n".join(lines)


def _tiers_line(spec: ChallengeSpec, perf: str, a_day: bool) -> str:
    """The tiers in one line: against the record (the 7-day rule, Tiers.for_record) or, for a
    challenge without one, against the roofline bound."""
    t = spec.tiers
    base = "record" if t.record is not None else "bound"
    what = ("the day's **record** (the best known kernel's cycles; the Tiers section below "
            "gives it)" if t.record is not None else "its roofline bound")
    line = (f"**Tiers**: modelled cycles of `{perf}` against {what}: gold ≤ {t.gold:g} × "
            f"{base}, silver ≤ {t.silver:g} × {base}, bronze: correct.")
    if a_day:
        line += (" The thresholds in cycles are in the days table of "
                 "[../README.md](../README.md).")
    return line


def readme_drift(ch: Challenge, draws: int = DRAWS) -> str | None:
    """None when ch's README holds the block spec_block writes; else what is wrong."""
    got = block_of(ch.readme, "spec")
    if got is None:
        return (f"{ch.path.name}/README.md has no <!-- spec:begin --> / <!-- spec:end --> "
                f"block; add the markers and run `{COMMAND}`")
    want = spec_block(ch, draws)
    if got != want:
        import difflib

        diff = "\n".join(difflib.unified_diff(got.splitlines(), want.splitlines(), "README",
                                              "spec.py", lineterm="", n=0))
        return (f"{ch.path.name}/README.md's spec block differs from spec.py; run "
                f"`{COMMAND}`:\n{diff}")
    return None


__all__ = ["COMMAND", "DRAWS", "block_of", "describe_sizes", "describe_values", "markers",
           "op_groups", "readme_drift", "replace_block", "rules_lines", "spec_block",
           "value_ranges"]
