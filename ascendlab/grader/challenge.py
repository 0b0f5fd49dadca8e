"""A challenge: what to compute, on which inputs, under which rules, and how fast is gold.

A challenge is a folder (challenges/<name>/) with a README.md for the learner and a spec.py
that defines `SPEC = ChallengeSpec(...)`: the float64 reference, the input generator, the
public cases, the hidden-case generator, the rules and the performance tiers. Reference
solutions live in tests/grader/, never in the challenge folder.

    ch = load_challenge("day1")              # by day, folder name, slug, alias or path
    ch.spec.public_cases, ch.readme

Folders are challenges/dayN-<slug>/ (vadd is day 0); `day1`, `day1-swish` and `swish` (the
slug, and any name in `ChallengeSpec.aliases`) all find challenges/day1-swish/.

The submission's entry (`spec.entry`, default "launch") is called once per case as
    launch(*inputs, *outputs, **case.params, core_num=<cores of the case's chip>)
with numpy arrays the grader made (outputs are filled with 0xFF bytes, so an element the
kernel never writes shows as NaN / -1) and must launch exactly one kernel.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.chips import get_chip

# Modules a submission may import (rules.py checks the source): the pyasc surface, numpy for
# host-side preparation, and harmless stdlib helpers.
DEFAULT_IMPORTS = frozenset({"ascendlab", "ascendlab.asc", "asc", "numpy", "math", "functools",
                             "itertools", "dataclasses", "typing", "__future__", "operator"})


@dataclass(frozen=True, kw_only=True)
class Case:
    """One graded input set: its shape, dtype, value kind and seed."""

    name: str  # "public-small", "hidden-tail-1": shown to the learner
    shape: tuple[int, ...]
    dtype: str  # numpy name of the input (and, by default, output) dtype
    seed: int  # for the spec's generate(); hidden cases get theirs from the secret
    kind: str = "uniform"  # the value distribution the spec's generate() understands
    params: Mapping[str, Any] = field(default_factory=dict)  # scalar launch parameters
    hidden: bool = False
    perf: bool = False  # the case whose modelled cycles give the tier (the largest one)

    def __post_init__(self) -> None:
        if not self.name or any(ch in self.name for ch in "/\\ "):
            raise ValueError(f"Case.name must be a non-empty word, got {self.name!r}")
        if not self.shape or any(not isinstance(d, int) or d < 1 for d in self.shape):
            raise ValueError(f"Case {self.name}: shape must be positive ints, got {self.shape}")
        np.dtype(self.dtype)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def describe(self) -> str:
        """'hidden-tail-1: float16[35] (uniform)'."""
        dims = "x".join(map(str, self.shape))
        extra = "".join(f", {k}={v}" for k, v in self.params.items())
        return f"{self.name}: {self.dtype}[{dims}] ({self.kind}{extra})"


RECORD_GOLD = 1.15  # gold: within 15 % of the best known kernel
RECORD_SILVER = 2.0  # silver: within 2 x of it


@dataclass(frozen=True, kw_only=True)
class Tiers:
    """Performance tiers of the performance case's modelled cycles.

    With a `record` (the 7-day challenge): the cycles of the best known kernel for the
    performance case under cost model `model` (the reference's, or a leaderboard entry that
    beat it, written into spec.py by `python tests/challenges/build.py records`). Gold is at
    most `gold` x record, silver at most `silver` x record, bronze anything correct. The record
    is a number in the spec, never looked up while grading, so a tier is deterministic for a
    given cost model; tests/challenges checks that every record is of the current model.
    Without a record: `gold` and `silver` are multiples of the roofline bound instead.
    """

    gold: float = 1.2  # cycles <= gold x record (or x bound without a record)
    silver: float = 2.0  # cycles <= silver x record (or bound); anything correct is bronze
    record: int | None = None  # best known cycles on the performance case
    model: str | None = None  # the cost model version the record was measured with
    holder: str = ""  # who set it: "reference" or a leaderboard entry's name
    note: str = ""  # why the record holder is fast (the reference's note; the museum shows it)

    def __post_init__(self) -> None:
        if not 1.0 <= self.gold <= self.silver:
            raise ValueError(f"Tiers: need 1 <= gold <= silver, got {self.gold}, {self.silver}")
        if self.record is not None and (self.record < 1 or not self.model):
            raise ValueError(f"Tiers: record must be >= 1 cycles with its cost model version, "
                             f"got record={self.record!r}, model={self.model!r}")

    @classmethod
    def for_record(cls, record: int, model: str, holder: str = "reference",
                   note: str = "") -> Tiers:
        """The record rule with its standard ratios: gold <= RECORD_GOLD x record, silver <=
        RECORD_SILVER x record (any challenge; the 7-day specs use it)."""
        return cls(gold=RECORD_GOLD, silver=RECORD_SILVER, record=record, model=model,
                   holder=holder, note=note)

    def limits(self, bound: int) -> tuple[int, int]:
        """(gold, silver): the most cycles each tier allows."""
        base = self.record if self.record is not None else max(bound, 1)
        return int(self.gold * base), int(self.silver * base)

    def tier(self, cycles: int, bound: int) -> str:
        gold, silver = self.limits(bound)
        return "gold" if cycles <= gold else "silver" if cycles <= silver else "bronze"

    def rule(self) -> str:
        """The rule in words, for READMEs and reports."""
        if self.record is None:
            return f"gold <= {self.gold:g} x bound, silver <= {self.silver:g} x bound"
        return (f"gold <= {self.gold:g} x record, silver <= {self.silver:g} x record "
                f"(record {self.record:,} cycles, cost model {self.model}"
                f"{', ' + self.holder if self.holder else ''})")


@dataclass(frozen=True, kw_only=True)
class Rules:
    """What a submission may do."""

    chips: tuple[str, ...] = ("Ascend910B2",)  # every case runs on each of these chips
    core_kind: str = "aiv"  # the cores the kernel must run on: "aiv", "aic" or "mix"
    # (min, max) blocks; max None means the chip's cores of core_kind
    block_num: tuple[int, int | None] = (1, None)
    allowed_ops: frozenset[str] | None = None  # trace ops allowed (None: any replayable op)
    gm_scalar_access: bool = False  # get_value / set_value on GM
    readonly_inputs: bool = True  # the kernel must not write its inputs
    # the recorded instructions must compute the answer for other data of the same shape
    # (catches results baked into instruction arguments; turn off for kernels whose scalar
    # arguments legitimately depend on the data, and see docs/grader.md)
    input_independent: bool = True
    imports: frozenset[str] = DEFAULT_IMPORTS
    workspace_bytes: int = 0  # extra GM arguments (zero-filled by the grader) allowed in total

    def __post_init__(self) -> None:
        for chip in self.chips:
            get_chip(chip)
        if self.core_kind not in ("aiv", "aic", "mix"):
            raise ValueError(f"Rules.core_kind must be 'aiv', 'aic' or 'mix', got "
                             f"{self.core_kind!r}")

    def block_range(self, chip: str) -> tuple[int, int]:
        """block_num limits: vector or cube cores, or (MIX) groups of 1 cube + 2 vector cores."""
        spec = get_chip(chip)
        top = spec.aiv_cores if self.core_kind == "aiv" else spec.aic_cores
        lo, hi = self.block_num
        return lo, top if hi is None else hi


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Resources of the submission's process (for all cases together)."""

    wall_s: float = 60.0  # wall-clock seconds
    cpu_s: float = 60.0  # CPU seconds (RLIMIT_CPU)
    memory_mb: int = 2048  # address space (RLIMIT_AS)
    output_kb: int = 64  # stdout/stderr kept per stream
    file_mb: int = 512  # largest file the process may write (RLIMIT_FSIZE)
    disk_mb: int = 256  # size of each private tmpfs (work folder, /tmp, /var/tmp, /dev/shm)
    # The judge's budgets. Events are those the judge replays: a wire back-reference counts
    # as the event it repeats. The largest honest case measured, day 7's reference
    # (tests/challenges/day7-condition-fusion/reference.py, case hidden-largest, 2x9216x64),
    # records 53,904 events, 96,658 over its 8 cases: the budgets leave 4.6x and 5.2x margins.
    # Past either, the submission's verdict is RULE_VIOLATION naming the budget.
    max_events: int = 250_000  # per case
    max_events_total: int = 500_000  # per submission (all cases and chips)
    # wall-clock seconds the judge may take after the child has ended (judging that overlaps
    # the child's run ends by wall_s + judge_s); past it: TIME_LIMIT naming the budget
    judge_s: float = 60.0
    record_mb: int = 64  # one case record through the record channel (honest: ~1 MiB)
    records_mb: int = 256  # all records of one job


@dataclass(frozen=True, kw_only=True)
class ChallengeSpec:
    """Everything the grader needs to know about one challenge."""

    name: str
    title: str
    inputs: tuple[str, ...]  # array names, in launch order
    outputs: tuple[str, ...]
    # reference(inputs as float64 arrays, **params) -> output array (one output) or dict
    reference: Callable[..., Any]
    # generate(case) -> {input name: array of case.shape / case.dtype, or of input_spec(case)}
    generate: Callable[[Case], Mapping[str, np.ndarray]]
    public_cases: tuple[Case, ...]
    hidden_cases: Callable[[int], list[Case]]  # from the secret seed
    rules: Rules = Rules()
    tiers: Tiers = Tiers()
    limits: Limits = Limits()
    entry: str = "launch"
    # (shape, dtype) of each output for a case; default: the case's shape and dtype
    output_spec: Callable[[Case], Mapping[str, tuple[tuple[int, ...], str]]] | None = None
    # (shape, dtype) of each input for a case (a matmul's A and B); default: the case's
    input_spec: Callable[[Case], Mapping[str, tuple[tuple[int, ...], str]]] | None = None
    # the precision standard (ascendlab.precision): "threshold", or "accumulative" for
    # outputs of long accumulations (matmul, attention)
    precision: str = "threshold"
    aliases: tuple[str, ...] = ()  # other names that find this challenge (an old name, "day0")
    # a roofline term beyond memory traffic, in cycles, for (case, chip): e.g.
    # perf.cube_bound(m, n, k, "float16", chip) for a matmul; the bound is the larger one
    bound: Callable[[Case, str], int] | None = None

    def outputs_for(self, case: Case) -> dict[str, tuple[tuple[int, ...], str]]:
        if self.output_spec is not None:
            return {k: (tuple(s), str(np.dtype(d))) for k, (s, d) in
                    self.output_spec(case).items()}
        return {name: (case.shape, case.dtype) for name in self.outputs}

    def inputs_for(self, case: Case) -> dict[str, tuple[tuple[int, ...], str]]:
        if self.input_spec is not None:
            return {k: (tuple(s), str(np.dtype(d))) for k, (s, d) in
                    self.input_spec(case).items()}
        return {name: (case.shape, case.dtype) for name in self.inputs}

    def golden(self, case: Case, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The reference outputs in float64 (integers stay integers)."""
        wide = {k: (v.astype(np.float64) if v.dtype.kind == "f" else v) for k, v in
                inputs.items()}
        out = self.reference(wide, **dict(case.params))
        if not isinstance(out, Mapping):
            if len(self.outputs) != 1:
                raise TypeError(f"{self.name}: reference must return a dict of "
                                f"{self.outputs}")
            out = {self.outputs[0]: out}
        return {k: np.asarray(out[k]) for k in self.outputs}

    def make_inputs(self, case: Case) -> dict[str, np.ndarray]:
        arrays = {k: np.ascontiguousarray(v) for k, v in self.generate(case).items()}
        for name, (shape, dtype) in self.inputs_for(case).items():
            a = arrays.get(name)
            if a is None or a.shape != shape or (self.input_spec is not None
                                                 and a.dtype != np.dtype(dtype)):
                got = None if a is None else f"{a.dtype}{list(a.shape)}"
                raise ValueError(f"{self.name}: generate() gave {name}={got}, want "
                                 f"{dtype}{list(shape)}")
        return {name: arrays[name] for name in self.inputs}

    def cases(self, secret: int) -> list[Case]:
        """Public cases, then the hidden ones drawn from `secret`."""
        hidden = [replace(c, hidden=True) for c in self.hidden_cases(secret)]
        out = list(self.public_cases) + hidden
        names = [c.name for c in out]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: case names repeat: {names}")
        return out


@dataclass(frozen=True)
class Challenge:
    """A loaded challenge folder."""

    spec: ChallengeSpec
    path: Path

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def readme(self) -> str:
        p = self.path / "README.md"
        return p.read_text() if p.exists() else ""


def derive_seed(secret: int, *parts: Any) -> int:
    """A 63-bit seed from the secret and labels (stable across runs and machines)."""
    h = hashlib.sha256(repr((int(secret),) + tuple(map(str, parts))).encode())
    return int.from_bytes(h.digest()[:8], "little") >> 1


def challenge_dirs() -> list[Path]:
    """Where challenges are looked up by name: $ASCENDLAB_CHALLENGES (os.pathsep-separated)
    and the repository's challenges/ (or the installed wheel's copy). Not the working
    directory: a name never runs a spec.py someone left where the grader happens to run."""
    from ..resources import data_path

    dirs = [Path(p) for p in os.environ.get("ASCENDLAB_CHALLENGES", "").split(os.pathsep) if p]
    dirs.extend(p for p in (data_path("challenges"),) if p is not None)
    return dirs


_LOADED: dict[Path, Challenge] = {}
_DAY = re.compile(r"day(\d+)(?:-.*)?$")


def day_of(folder: str) -> int | None:
    """The day of a challenge folder ("day3-layernorm-gelu" -> 3), None for other names."""
    m = _DAY.match(folder)
    return int(m.group(1)) if m else None


def challenge_folders() -> dict[str, Path]:
    """Every challenge folder found by name: folder name -> path (the first directory of
    challenge_dirs() wins)."""
    out: dict[str, Path] = {}
    for d in challenge_dirs():
        if d.is_dir():
            for q in sorted(d.glob("*/spec.py")):
                out.setdefault(q.parent.name, q.parent)
    return out


def find_challenge(name: str) -> Path | None:
    """The folder `name` refers to: the folder itself, dayN (the folder dayN-<slug>), the slug
    of a dayN-<slug> folder, or a name in a spec's `aliases`."""
    folders = challenge_folders()
    if name in folders:
        return folders[name]
    m = re.fullmatch(r"day(\d+)", name)
    for folder, path in folders.items():
        if m and day_of(folder) == int(m.group(1)):
            return path
        if day_of(folder) is not None and folder.split("-", 1)[-1] == name:
            return path
    for path in folders.values():  # last: aliases need the specs loaded
        try:
            ch = load_challenge(path)
        except Exception:  # noqa: BLE001 - a broken spec elsewhere must not hide this one
            continue
        if name in ch.spec.aliases or name == ch.spec.name:
            return path
    return None


def is_challenge_path(name_or_path: str | os.PathLike) -> bool:
    """Whether load_challenge takes this as a folder: a path object (Path), or a string with a
    path separator ("./vadd", "/srv/ch/vadd"). A bare string ("vadd", "day1") is a name, looked
    up among the installed challenges only: a folder called so in the working directory (which
    another user may have planted) is never run."""
    if not isinstance(name_or_path, str):
        return True
    seps = {os.sep, "/"} | ({os.altsep} if os.altsep else set())
    return any(s in name_or_path for s in seps)


def load_challenge(name_or_path: str | os.PathLike) -> Challenge:
    """A challenge by folder path (a Path, or a string with a '/') or by name (see
    is_challenge_path, find_challenge and challenge_dirs)."""
    if isinstance(name_or_path, Challenge):
        return name_or_path
    if is_challenge_path(name_or_path):
        p = Path(name_or_path)
        if not (p / "spec.py").is_file():
            raise FileNotFoundError(f"no challenge at {str(p)!r}: the folder has no spec.py")
    else:  # a name: only the installed challenges, never a folder of the working directory
        found = find_challenge(str(name_or_path))
        if found is None:
            known = ", ".join(sorted(challenge_folders())) or "(none found)"
            raise FileNotFoundError(f"no challenge {str(name_or_path)!r}: give dayN, one of "
                                    f"{known}, or a folder with a spec.py (a path with a "
                                    "'/', or --challenge-dir)")
        p = found
    p = p.resolve()
    got = _LOADED.get(p)
    if got is not None:
        return got
    mod_name = f"ascendlab_challenge_{p.name}_{abs(hash(str(p))) % 10**8}"
    loader = importlib.util.spec_from_file_location(mod_name, p / "spec.py")
    if loader is None or loader.loader is None:
        raise ImportError(f"cannot load {p / 'spec.py'}")
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, ChallengeSpec):
        raise TypeError(f"{p / 'spec.py'} must define SPEC = ChallengeSpec(...)")
    ch = _LOADED[p] = Challenge(spec, p)
    return ch


__all__ = ["DEFAULT_IMPORTS", "Case", "Challenge", "ChallengeSpec", "Limits", "Rules", "Tiers",
           "challenge_dirs", "challenge_folders", "day_of", "derive_seed", "find_challenge",
           "is_challenge_path", "load_challenge"]
