"""The grader's shell commands (wired into ascendlab/cli/main.py): grade, submit, leaderboard."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from .report import Verdict

# Exit codes of `ascendlab grade` and `ascendlab submit` (docs/grader.md)
EXIT_ACCEPTED = 0
EXIT_NOT_ACCEPTED = 1  # any verdict but ACCEPTED (WRONG_ANSWER, RULE_VIOLATION, ...)
EXIT_USAGE = 2  # bad arguments: no such file, unknown challenge
EXIT_INTERNAL = 3  # INTERNAL_ERROR: the grader failed, not the submission
EXIT_LEADERBOARD = 4  # submit: graded (report printed) but the leaderboard was not written
EXIT_CODES = f"""exit codes:
  {EXIT_ACCEPTED}  ACCEPTED
  {EXIT_NOT_ACCEPTED}  graded, not accepted (WRONG_ANSWER, RULE_VIOLATION, TIME_LIMIT, ...)
  {EXIT_USAGE}  usage error (no such file, unknown challenge)
  {EXIT_INTERNAL}  INTERNAL_ERROR: the grader itself failed
  {EXIT_LEADERBOARD}  submit only: the report was printed but the leaderboard could not be written
"""


CHALLENGE_HELP = ("an installed challenge's name (dayN, its folder name or slug), or a folder "
                  "with a spec.py given as a path with a '/' (./vadd) or with --challenge-dir")


def _challenge(args: argparse.Namespace) -> object:
    """What load_challenge gets: a name stays a name (the installed challenges only, never a
    folder of the working directory) unless --challenge-dir says it is a folder."""
    return Path(args.challenge) if getattr(args, "challenge_dir", False) else args.challenge


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add `grade`, `submit` and `leaderboard` to the `ascendlab` command."""
    g = sub.add_parser(
        "grade", help="grade a submission (or a folder of them) against a challenge",
        description="Grade SUBMISSION (.py or .ipynb) on CHALLENGE (a name under challenges/ "
                    "or a folder) in a sandbox; a folder grades every submission in it in "
                    "parallel and writes a summary.",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("challenge", help=CHALLENGE_HELP)
    g.add_argument("submission", help="a .py / .ipynb file, or a folder of them")
    g.add_argument("--challenge-dir", action="store_true",
                   help="CHALLENGE is a folder with a spec.py, even without a '/'")
    g.add_argument("--json", action="store_true", help="print the report(s) as JSON")
    g.add_argument("--public-only", action="store_true", help="only the public cases (quick)")
    g.add_argument("--jobs", type=int, default=None,
                   help="worker processes for a folder (default: the CPU count)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="grade a folder on a Dask distributed scheduler (needs "
                        "ascendlab[grader])")
    g.add_argument("--out", default=None, metavar="FILE",
                   help="folder summary: .csv (default FOLDER/grades.csv) or .json")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    s = sub.add_parser("submit", help="grade a submission and record it on the leaderboard",
                       description="Grade SUBMISSION on CHALLENGE; when ACCEPTED, record its "
                                   "verified cycles on the leaderboard. The report is printed "
                                   "even when the leaderboard cannot be written.",
                       epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("challenge", help=CHALLENGE_HELP)
    s.add_argument("submission")
    s.add_argument("--challenge-dir", action="store_true",
                   help="CHALLENGE is a folder with a spec.py, even without a '/'")
    s.add_argument("--user", default=None, help="leaderboard name (default: your login): "
                                                "1-32 letters, digits, '_', '.', '-'")
    s.add_argument("--db", default=None, help="leaderboard file (default: "
                                              "$ASCENDLAB_LEADERBOARD or the user data dir)")
    s.add_argument("--json", action="store_true")
    lb = sub.add_parser("leaderboard", help="show a challenge's leaderboard, or write the museum",
                        description="Show CHALLENGE's leaderboard; with --html DIR, write the "
                                    "museum: a static page per challenge (or CHALLENGE only) "
                                    "with every accepted entry, its timeline and its source.")
    lb.add_argument("challenge", nargs="?", default=None)
    lb.add_argument("--html", default=None, metavar="DIR",
                    help="write the museum's static HTML pages into DIR")
    lb.add_argument("--chip", default=None)
    lb.add_argument("--db", default=None)
    lb.add_argument("--json", action="store_true")


@contextlib.contextmanager
def _terminable() -> Iterator[None]:
    """SIGTERM / SIGHUP end the command like Ctrl-C does: as an exception, so that the
    sandboxed child is killed and the job folder removed on the way out (SIGKILL cannot be
    caught: the child dies with us, and the next grade sweeps the folder)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _exit(verdict: Verdict) -> int:
    if verdict == Verdict.ACCEPTED:
        return EXIT_ACCEPTED
    return EXIT_INTERNAL if verdict == Verdict.INTERNAL_ERROR else EXIT_NOT_ACCEPTED


def cmd_grade(args: argparse.Namespace) -> int:
    from .challenge import load_challenge
    from .grade import GradeOptions, grade

    try:
        ch = load_challenge(_challenge(args))
    except (FileNotFoundError, ImportError, TypeError) as e:
        print(f"ascendlab grade: {e}", file=sys.stderr)
        return EXIT_USAGE
    opts = GradeOptions(public_only=args.public_only)
    target = Path(args.submission)
    if target.is_dir():
        return _grade_dir(ch, target, opts, args)
    if not os.path.lexists(target):  # a symlink or a FIFO: read_file refuses it, a verdict
        print(f"ascendlab grade: no such file: {target}", file=sys.stderr)
        return EXIT_USAGE
    with _terminable():
        report = grade(ch, target, opts)
    print(report.to_json(indent=1) if args.json else report)
    return _exit(report.verdict)


def _grade_dir(ch, target: Path, opts, args: argparse.Namespace) -> int:  # noqa: ANN001
    from .batch import (
        DaskExecutor,
        LocalExecutor,
        find_submissions,
        grade_dir,
        render_summary,
    )

    try:
        files = find_submissions(target)
    except OSError as e:
        print(f"ascendlab grade: cannot list {target}: {e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE
    if not files:
        print(f"ascendlab grade: no .py or .ipynb files in {target}", file=sys.stderr)
        return 2
    if args.scheduler:
        try:
            executor = DaskExecutor(args.scheduler)
        except ImportError as e:
            print(f"ascendlab grade: {e}", file=sys.stderr)
            return 2
    else:
        executor = LocalExecutor(args.jobs)
    out = Path(args.out) if args.out else target / "grades.csv"
    try:  # the summary is rewritten (atomically) as each grade completes
        reports = grade_dir(ch, target, executor, opts, progress=not args.no_progress,
                            files=files, out=out)
    except OSError as e:  # the summary file cannot be written: grade, keep the reports
        print(f"ascendlab grade: the summary {out} cannot be written ({e}); grading "
              "without it", file=sys.stderr)
        reports = grade_dir(ch, target, executor, opts, progress=not args.no_progress,
                            files=files)
        out = None
    finally:
        if hasattr(executor, "close"):
            executor.close()
    if args.json:
        print(json.dumps([r.to_dict() for r in reports], default=str, indent=1))
    else:
        print(render_summary(reports))
        if out is not None:
            print(f"\nsummary written to {out}")
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    import sqlite3

    from .grade import grade
    from .leaderboard import Leaderboard, default_path
    from .submission import SubmissionError, load_submission
    from .text import check_user

    path = Path(args.submission)
    if not os.path.lexists(path):
        print(f"ascendlab submit: no such file: {path}", file=sys.stderr)
        return EXIT_USAGE
    user = args.user or getpass.getuser()
    try:  # before grading: a name the leaderboard refuses would waste the grade
        check_user(user)
    except ValueError as e:
        print(f"ascendlab submit: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:  # read once: the bytes graded are the bytes stored (and hashed)
        sub = load_submission(path)
    except SubmissionError:
        sub = None
    with _terminable():
        report = grade(_challenge(args), sub if sub is not None else path)
    where = Path(args.db).expanduser() if args.db else default_path()
    written, error = 0, None
    try:  # whatever happens to the leaderboard, the grade is printed below
        lb = Leaderboard(args.db)
        where = lb.path
        written = lb.record(report, user, source=sub.raw) if sub is not None else 0
    except (ValueError, OSError, sqlite3.Error) as e:
        error = f"{type(e).__name__}: {e}"
    if args.json:
        d = report.to_dict()
        d["leaderboard"] = {"recorded": written, "path": str(where), "user": user,
                            "error": error, "sha256": sub.sha256 if sub is not None else None}
        print(json.dumps(d, default=str, indent=1))
    else:
        print(report)
        if written:
            print(f"\nrecorded on the leaderboard as {user!r} ({where}); the graded file's "
                  f"sha256: {sub.sha256}")
        elif error is None:
            print("\nnot recorded: only ACCEPTED submissions enter the leaderboard")
    if error is not None:
        print(f"ascendlab submit: the grade above was NOT recorded on the leaderboard {where}: "
              f"{error}", file=sys.stderr)
        return EXIT_LEADERBOARD
    return _exit(report.verdict)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from .leaderboard import Leaderboard

    lb = Leaderboard(args.db)
    if args.html:
        from .museum import render_note, write_museum

        print(render_note(write_museum(args.html, lb, [args.challenge] if args.challenge
                                       else None)))
        return 0
    if args.challenge is None:
        print("ascendlab leaderboard: give a CHALLENGE (or --html DIR for the museum)",
              file=sys.stderr)
        return 2
    names = _names(args.challenge)
    if args.json:
        rows = [e.__dict__ for n in names for e in lb.best(n, args.chip)]
        print(json.dumps(rows, indent=1))
    else:
        print("\n\n".join(lb.render(n, args.chip) for n in names
                          if lb.best(n, args.chip) or n == names[0]))
    return 0


def _names(challenge: str) -> list[str]:
    """The names a challenge's rows may be stored under (spec name, folder, aliases); the
    name itself when no such challenge is installed."""
    from .challenge import load_challenge
    from .challenge_cli import names_of

    try:
        return names_of(load_challenge(challenge))
    except Exception:  # noqa: BLE001 - rows of a challenge no longer installed
        return [challenge]
