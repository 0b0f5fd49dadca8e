"""`ascendlab challenge list | show N | start N [DIR]`: the 7-day challenge from the terminal.

    ascendlab challenge list            # the days, each with your best tier (local leaderboard)
    ascendlab challenge show 3          # day 3's README, rendered for the terminal
    ascendlab challenge start 3 [DIR]   # copy its starter.py / starter.ipynb into DIR

N is a day number (0 is vadd), `dayN`, a folder name or a slug (`swish`).
"""

from __future__ import annotations

import argparse
import getpass
import re
import shutil
import sys
from pathlib import Path

from .challenge import Challenge, challenge_folders, day_of, load_challenge

STARTERS = ("starter.py", "starter.ipynb")
_ORDER = {"gold": 0, "silver": 1, "bronze": 2}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `challenge` (list / show / start) on the `ascendlab` command."""
    c = sub.add_parser("challenge", help="the 7-day operator challenge: list, show, start",
                       description="List the challenge's days, read one, or start one.")
    csub = c.add_subparsers(dest="action", metavar="ACTION")
    ls = csub.add_parser("list", help="the days, with your best tier from the local leaderboard")
    ls.add_argument("--user", default=None, help="whose tiers (default: your login)")
    ls.add_argument("--db", default=None, help="leaderboard file (default: "
                                               "$ASCENDLAB_LEADERBOARD or the user data dir)")
    sh = csub.add_parser("show", help="a day's README, rendered in the terminal")
    sh.add_argument("day", help="day number, dayN, or a challenge name")
    st = csub.add_parser("start", help="copy a day's starter files into a working folder")
    st.add_argument("day", help="day number, dayN, or a challenge name")
    st.add_argument("dir", nargs="?", default=None,
                    help="where to put them (default: ./<challenge folder>)")


def resolve(day: str) -> Challenge:
    """A challenge from "3", "day3", "day3-layernorm-gelu", "swish" or a folder path."""
    name = f"day{int(day)}" if re.fullmatch(r"\d+", day) else day
    try:
        return load_challenge(name)
    except FileNotFoundError:
        if name == "day0":  # the warm-up has no dayN folder
            return load_challenge("vadd")
        raise


def day_number(ch: Challenge) -> int | None:
    d = day_of(ch.path.name)
    if d is None and (ch.path.name == "vadd" or "day0" in ch.spec.aliases):
        return 0
    return d


def names_of(ch: Challenge) -> list[str]:
    """Every name a challenge's leaderboard rows may carry (its spec name, folder, aliases)."""
    return list(dict.fromkeys([ch.spec.name, ch.path.name, *ch.spec.aliases]))


def cmd_challenge(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    try:
        if action == "list":
            print(render_list(args.user or getpass.getuser(), args.db))
            return 0
        if action == "show":
            print(render_markdown(resolve(args.day).readme, color=sys.stdout.isatty()))
            return 0
        if action == "start":
            return start(resolve(args.day), args.dir)
    except (FileNotFoundError, ValueError) as e:
        print(f"ascendlab challenge: {e}", file=sys.stderr)
        return 2
    print("ascendlab challenge: give an action: list, show N or start N [DIR]", file=sys.stderr)
    return 2


# ---- list ---------------------------------------------------------------------------------
def render_list(user: str, db: str | None = None) -> str:
    from .leaderboard import Leaderboard

    lb = Leaderboard(db)
    rows = []
    for path in challenge_folders().values():
        try:
            ch = load_challenge(path)
        except Exception as e:  # noqa: BLE001 - one broken folder must not hide the others
            rows.append((99, path.name, f"(cannot load: {type(e).__name__})", "-"))
            continue
        best = [e for n in names_of(ch) for e in lb.best(n) if e.user == user]
        tier = min((e.tier for e in best), key=_ORDER.get, default="-")
        d = day_number(ch)
        rows.append((99 if d is None else d, path.name, ch.spec.title, tier))
    if not rows:
        return "no challenges found (see ascendlab.grader.challenge.challenge_dirs)"
    rows.sort()
    out = [f"{'day':>3}  {'challenge':<24} {'your best':<9}  title", "-" * 72]
    for d, folder, title, tier in rows:
        out.append(f"{'' if d == 99 else d:>3}  {folder:<24} {tier:<9}  {title}")
    out.append(f"\n(best tiers of {user!r} from {lb.path}; start one with "
               "`ascendlab challenge start N`)")
    return "\n".join(out)


# ---- show ---------------------------------------------------------------------------------
def render_markdown(text: str, color: bool = False) -> str:
    """A README for the terminal: headings underlined (bold with color), code blocks
    indented, inline `code` and **bold** unmarked (or highlighted with color), HTML comment
    lines (block markers) left out."""
    bold, dim, off = ("\x1b[1m", "\x1b[36m", "\x1b[0m") if color else ("", "", "")
    out: list[str] = []
    in_code = in_span = False  # in a ``` block; inside an inline `code` span that wraps
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            out.append(f"    {dim}{line}{off}")
            continue
        if re.fullmatch(r"\s*<!--.*-->\s*", line):  # a marker (the generated spec block's)
            continue
        # an inline code span may run over a line break: close it at the end of this line
        # and reopen it on the next, so each line renders on its own
        line = ("`" if in_span else "") + line
        in_span = line.count("`") % 2 == 1
        line += "`" if in_span else ""
        m = re.match(r"(#{1,6})\s+(.*)", line)
        if m:
            title = _inline(m.group(2), bold, dim, off)
            out += ([""] if out and out[-1] else []) + [f"{bold}{title}{off}",
                    ("=" if len(m.group(1)) == 1 else "-") * len(_plain(m.group(2)))]
            continue
        out.append(_inline(re.sub(r"^(\s*)[-*] ", r"\1• ", line), bold, dim, off))
    return "\n".join(out).strip("\n")


def _inline(s: str, bold: str, code: str, off: str) -> str:
    s = re.sub(r"\*\*(.+?)\*\*", lambda m: f"{bold}{m.group(1)}{off}", s)
    s = re.sub(r"`([^`]+)`", lambda m: f"{code}{m.group(1)}{off}", s)
    return re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 (\2)", s)


def _plain(s: str) -> str:
    return re.sub(r"[*`]", "", s)


# ---- start --------------------------------------------------------------------------------
def start(ch: Challenge, target: str | None) -> int:
    """Copy the starter files into `target` (never over an existing file); print what next."""
    files = [ch.path / f for f in STARTERS if (ch.path / f).is_file()]
    if not files:
        print(f"ascendlab challenge: {ch.path.name} has no starter files "
              f"({', '.join(STARTERS)})", file=sys.stderr)
        return 2
    dest = Path(target) if target else Path.cwd() / ch.path.name
    clash = [str(dest / f.name) for f in files if (dest / f.name).exists()]
    if clash:
        print(f"ascendlab challenge: not overwriting {', '.join(clash)}: move them away or "
              "give another folder (ascendlab challenge start N DIR)", file=sys.stderr)
        return 1
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copyfile(f, dest / f.name)
    d = day_number(ch)
    name = f"day{d}" if d is not None and d > 0 else ch.path.name
    print(f"copied {', '.join(f.name for f in files)} into {dest}")
    print(f"read the task:   ascendlab challenge show {name}")
    first = dest / files[0].name
    print(f"then grade it:   ascendlab grade {name} {first}")
    return 0


__all__ = ["add_parser", "cmd_challenge", "render_list", "render_markdown", "resolve", "start"]
