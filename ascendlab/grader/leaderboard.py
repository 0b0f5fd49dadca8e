"""The leaderboard: best verified cycles per user, challenge and chip, in SQLite (stdlib).

    lb = Leaderboard()                      # $ASCENDLAB_LEADERBOARD or the user's data dir
    lb.record(report, user="ana")           # accepted reports only; one transaction
    lb.best("swish")                        # rows: best per (user, chip), fastest first
    print(lb.render("swish"))

Only ACCEPTED reports are recorded: their cycles come from the grader's replay, never from
the submission. Writes are one `BEGIN IMMEDIATE` transaction per report (every chip's row or
none), with WAL journaling and a busy timeout, so concurrent submits serialize instead of
corrupting the file, and a failure mid-way leaves no partial row. Rows carry the cost-model
version; best() shows the current model's rows (a new model re-scores from new submissions).

Each row also keeps the submission's source and the replayed trace of its performance case
(wire.dump_run JSON, zlib-compressed, up to MAX_TRACE_EVENTS events), so that the museum
(museum.py, `ascendlab leaderboard --html DIR`) can show the code and redraw its timeline.
Files from before these columns get them added (empty) on first use.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..analysis.cost import MODEL_VERSION
from .report import Report, Verdict
from .text import check_user, clean

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL,
    challenge TEXT NOT NULL,
    chip TEXT NOT NULL,
    cycles INTEGER NOT NULL CHECK (cycles > 0),
    bound_cycles INTEGER NOT NULL,
    tier TEXT NOT NULL,
    submitted_at REAL NOT NULL,
    submission TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    model_version TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS by_challenge ON submissions (challenge, chip, model_version, cycles);
"""
# columns added after the first release: (name, type); old files get them on first use
LATER_COLUMNS = (("source", "TEXT NOT NULL DEFAULT ''"), ("trace", "BLOB"))
MAX_TRACE_EVENTS = 200_000  # larger traces are not kept (the museum says so)


def default_path() -> Path:
    """$ASCENDLAB_LEADERBOARD, else <user data dir>/ascendlab/leaderboard.sqlite3."""
    env = os.environ.get("ASCENDLAB_LEADERBOARD")
    if env:
        return Path(env).expanduser()
    home = Path.home()
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    elif os.name == "nt":
        base = Path(os.environ.get("APPDATA", home / "AppData" / "Roaming"))
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "ascendlab" / "leaderboard.sqlite3"


@dataclass(frozen=True)
class Entry:
    """One leaderboard line: a user's best on one chip."""

    rank: int
    user: str
    chip: str
    cycles: int
    bound_cycles: int
    tier: str
    submitted_at: float
    submission: str


@dataclass(frozen=True)
class Exhibit:
    """One ACCEPTED row with what the museum shows: the source and the stored trace."""

    id: int
    user: str
    challenge: str
    chip: str
    cycles: int
    bound_cycles: int
    tier: str
    submitted_at: float
    submission: str
    model_version: str
    source: str
    trace: bytes | None  # zlib-compressed wire.dump_run JSON of the performance case

    def run(self) -> Any:
        """The stored performance-case Run (trace and launch facts; no memory contents), or
        None when no trace was kept."""
        if self.trace is None:
            return None
        from ..runtime.chips import get_chip
        from ..runtime.trace import Run
        from .wire import load_run

        meta, events = load_run(json.loads(zlib.decompress(self.trace)))
        run = Run(kernel=meta.kernel, chip=get_chip(meta.chip), block_num=meta.block_num,
                  core_kind=meta.core_kind, trace=events, gm={g.name: g for g in meta.gm},
                  outputs={}, scalars={}, options={"auto_sync": meta.auto_sync})
        if meta.core_kinds:
            run.core_kinds = dict(meta.core_kinds)
        return run


def pack_trace(run: Any) -> bytes | None:
    """The compressed dump of a Run's trace for the museum (None past MAX_TRACE_EVENTS)."""
    if run is None or len(run.trace) > MAX_TRACE_EVENTS:
        return None
    from .wire import dump_run

    return zlib.compress(json.dumps(dump_run(run)).encode(), 6)


def _create_private(path: Path) -> None:
    """Create the leaderboard's folder (0700) and file (0600) when they do not exist yet:
    rows hold every accepted source, which other users of the machine must not read. SQLite
    gives its -wal / -shm files the database file's mode. Existing files keep their mode
    (`ascendlab doctor` warns when it is wider: permission_problems)."""
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
    except FileExistsError:
        return
    os.close(fd)


def permission_problems(path: str | os.PathLike | None = None) -> list[str]:
    """What other users could read or change: the leaderboard file (or its -wal / -shm
    journal) when group or others have any access, its folder when they can write to it or
    list it. [] when it does not exist or is private."""
    p = Path(path).expanduser() if path is not None else default_path()
    out = []
    for f in (p, Path(f"{p}-wal"), Path(f"{p}-shm")):
        try:
            mode = f.lstat().st_mode & 0o777
        except OSError:
            continue
        if mode & 0o077:
            out.append(f"{f} is mode {mode:04o}: other users can read every accepted source "
                       f"in it (chmod 600 {f})")
    try:
        mode = p.parent.lstat().st_mode & 0o777
    except OSError:
        return out
    if p.exists() and mode & 0o077:
        out.append(f"{p.parent} is mode {mode:04o}: other users can see or replace the "
                   f"leaderboard's files (chmod 700 {p.parent})")
    return out


class Leaderboard:
    """A leaderboard file (created on first use: folder 0700, file 0600)."""

    def __init__(self, path: str | os.PathLike | None = None, *, timeout_s: float = 60.0):
        self.path = Path(path).expanduser() if path is not None else default_path()
        self.timeout_s = timeout_s

    def _connect(self) -> sqlite3.Connection:
        _create_private(self.path)
        con = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
        con.execute(f"PRAGMA busy_timeout = {int(self.timeout_s * 1000)}")
        try:
            con.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError:
            pass  # e.g. a file system without shared memory: the rollback journal still works
        con.executescript(SCHEMA)
        have = {r[1] for r in con.execute("PRAGMA table_info(submissions)")}
        for name, kind in LATER_COLUMNS:
            if name not in have:
                try:
                    con.execute(f"ALTER TABLE submissions ADD COLUMN {name} {kind}")
                except sqlite3.OperationalError:
                    pass  # another process added it first
        return con

    def record(self, report: Report, user: str, *, submitted_at: float | None = None,
               source: str = "", _before_row: Callable[[int], None] | None = None) -> int:
        """Add the report's verified cycles (one row per chip) in one transaction; returns
        the rows written (0 for a report that is not ACCEPTED)."""
        if report.verdict != Verdict.ACCEPTED or not report.perf:
            return 0
        check_user(user)
        when = time.time() if submitted_at is None else submitted_at
        sha = hashlib.sha256(source.encode()).hexdigest()
        runs = getattr(report, "perf_runs", {})
        traces = {p.chip: pack_trace(runs.get(p.chip)) for p in report.perf}
        con = self._connect()
        try:
            con.execute("BEGIN IMMEDIATE")
            try:
                for i, p in enumerate(report.perf):
                    if _before_row is not None:
                        _before_row(i)  # tests: fail between rows
                    con.execute(
                        "INSERT INTO submissions (user, challenge, chip, cycles, bound_cycles, "
                        "tier, submitted_at, submission, sha256, model_version, source, trace) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (user, report.challenge, p.chip, int(p.cycles), int(p.bound_cycles),
                         p.tier, when, report.submission, sha,
                         report.model_version or MODEL_VERSION, source, traces[p.chip]))
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        finally:
            con.close()
        return len(report.perf)

    def challenges(self) -> list[str]:
        """Every challenge name with a row."""
        if not self.path.exists():
            return []
        con = self._connect()
        try:
            return [r[0] for r in con.execute(
                "SELECT DISTINCT challenge FROM submissions ORDER BY challenge")]
        finally:
            con.close()

    def exhibits(self, challenges: list[str]) -> list[Exhibit]:
        """Every row of these challenge names (all ACCEPTED), by chip then cycles."""
        if not self.path.exists() or not challenges:
            return []
        con = self._connect()
        try:
            marks = ", ".join("?" * len(challenges))
            rows = con.execute(
                f"SELECT id, user, challenge, chip, cycles, bound_cycles, tier, submitted_at, "
                f"submission, model_version, source, trace FROM submissions WHERE challenge IN "
                f"({marks}) ORDER BY chip, cycles, submitted_at, id", challenges).fetchall()
        finally:
            con.close()
        return [Exhibit(*r) for r in rows]

    def best(self, challenge: str, chip: str | None = None, *,
             model_version: str | None = MODEL_VERSION) -> list[Entry]:
        """Each user's best (fewest cycles, earliest on ties) per chip, fastest first."""
        if not self.path.exists():
            return []
        con = self._connect()
        try:
            where = "challenge = ?"
            args: list[Any] = [challenge]
            if chip is not None:
                where += " AND chip = ?"
                args.append(chip)
            if model_version is not None:
                where += " AND model_version = ?"
                args.append(model_version)
            rows = con.execute(
                f"SELECT user, chip, cycles, bound_cycles, tier, submitted_at, submission "
                f"FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user, chip ORDER BY cycles, "
                f"submitted_at, id) AS k FROM submissions WHERE {where}) WHERE k = 1 "
                f"ORDER BY chip, cycles, submitted_at", args).fetchall()
        finally:
            con.close()
        out = []
        rank = {}
        for user, c, cycles, bound, tier, when, sub in rows:
            rank[c] = rank.get(c, 0) + 1
            out.append(Entry(rank[c], user, c, cycles, bound, tier, when, sub))
        return out

    def count(self) -> int:
        if not self.path.exists():
            return 0
        con = self._connect()
        try:
            return con.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
        finally:
            con.close()

    def render(self, challenge: str, chip: str | None = None) -> str:
        """Ranked by cycles (ties: earliest first); each chip's record to aim at (the best
        known kernel: the challenge's reference record, or an entry that beat it) and each
        entry's distance to it."""
        rows = self.best(challenge, chip)
        if not rows:
            ref = spec_record(challenge)
            aim = (f"; the record to aim at: {ref[0]:,} cycles ({ref[1]})"
                   if ref is not None else "")
            return f"leaderboard {challenge}: no accepted submissions yet ({self.path}){aim}"
        out = [f"leaderboard {challenge} (cost model {MODEL_VERSION}; {self.path})"]
        chip_now = None
        best = 0
        for e in rows:
            if e.chip != chip_now:
                chip_now = e.chip
                best, holder = record_for(challenge, [r for r in rows if r.chip == e.chip])
                out += ["", f"{e.chip}: record {best:,} cycles ({clean(holder)})",
                        f"  {'#':>3}  {'user':<20} {'cycles':>12}  {'x bound':>7}  "
                        f"{'vs record':>9}  {'tier':<7}  submitted"]
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.submitted_at))
            out.append(f"  {e.rank:>3}  {clean(e.user):<20} {e.cycles:>12,}  "
                       f"{e.cycles / max(e.bound_cycles, 1):>7.2f}  "
                       f"{distance(e.cycles, best):>9}  {e.tier:<7}  {when}")
        return "\n".join(out)


def spec_record(challenge: str) -> tuple[int, str] | None:
    """(cycles, holder) of the challenge's spec record under the current cost model, or None
    (no such challenge, no record, or a record of another model)."""
    from .challenge import load_challenge

    try:
        tiers = load_challenge(challenge).spec.tiers
    except Exception:  # noqa: BLE001 - a leaderboard of a challenge no longer installed
        return None
    if tiers.record is None or tiers.model != MODEL_VERSION:
        return None
    return tiers.record, tiers.holder or "reference"


def record_for(challenge: str, entries: list[Entry]) -> tuple[int, str]:
    """The record for one chip's entries: the fastest of the spec record and the entries
    (an entry that only ties the spec record does not take it)."""
    ref = spec_record(challenge)
    top = min(entries, key=lambda e: (e.cycles, e.submitted_at)) if entries else None
    if ref is not None and (top is None or ref[0] <= top.cycles):
        return ref
    if top is None:
        return 0, "none"
    return top.cycles, top.user


def distance(cycles: int, record: int) -> str:
    """'record' or how much slower than the record: '+12.3%' (1.12x)."""
    if record <= 0:
        return "-"
    if cycles <= record:
        return "record"
    return f"+{(cycles / record - 1) * 100:.1f}%"


__all__ = ["Entry", "Exhibit", "Leaderboard", "default_path", "distance", "pack_trace",
           "permission_problems", "record_for", "spec_record"]
