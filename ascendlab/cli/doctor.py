"""`ascendlab doctor`: what this installation has, and how to fix what it lacks.

Each check is one line: ok or missing, what was found, and the command that fixes it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

from ..resources import data_path, in_checkout
from .lab import DEFAULT_DIR, MANIFEST

EXTRA_FIX = 'python -m pip install -e ".[{0}]" (repository) or "ascendlab[{0}]"'
WIDGET_EXTENSION = "@jupyter-widgets/jupyterlab-manager"


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report."""

    name: str
    ok: bool
    detail: str
    fix: str = ""  # shown when not ok

    def line(self) -> str:
        mark = "ok " if self.ok else "-- "
        text = f"{mark} {self.name:<18} {self.detail}"
        return text + (f"\n    fix: {self.fix}" if not self.ok and self.fix else "")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _package(name: str, dist: str, extra: str, why: str) -> Check:
    v = _version(dist) if importlib.util.find_spec(name) is not None else None
    if v is None:
        fix = EXTRA_FIX.format(extra) if extra else "python -m pip install -e ."
        return Check(dist, False, f"not installed ({why})", fix)
    return Check(dist, True, v)


def _widget_extension() -> Check:
    """The ipywidgets JupyterLab extension: without it widgets show as text."""
    try:
        from jupyter_core.paths import jupyter_path
    except ImportError:
        return Check("widget extension", False, "jupyter_core missing", EXTRA_FIX.format("lab"))
    for base in jupyter_path("labextensions"):
        if (Path(base) / WIDGET_EXTENSION / "package.json").is_file():
            return Check("widget extension", True, f"{WIDGET_EXTENSION} in {base}")
    return Check("widget extension", False, f"{WIDGET_EXTENSION} not found: widgets would "
                 "show as text", "python -m pip install jupyterlab_widgets (comes with [lab])")


def _count(rel: str, folder: Path) -> str:
    """What the folder holds, counted as a learner counts it: the lessons (notebooks) of
    tutorials/, the challenges (folders with a spec.py) of challenges/."""
    if rel == "tutorials":
        n = len(list(folder.glob("[0-9]*.ipynb")))
        return f"{n} lesson{'s' * (n != 1)}"
    n = len([q for q in folder.iterdir() if (q / "spec.py").is_file()])
    return f"{n} challenge{'s' * (n != 1)}"


def _course() -> list[Check]:
    out = []
    for rel, what in (("challenges", "challenges"), ("tutorials", "tutorials")):
        p = data_path(rel)
        if p is None:
            fix = ("git pull: this checkout has no " + rel + "/ yet" if in_checkout() else
                   "reinstall from an up-to-date checkout: python -m pip install .")
            out.append(Check(what, False, "none in this install", fix))
            continue
        out.append(Check(what, True, f"{_count(rel, p)} in {p}"))
    home = Path(DEFAULT_DIR).expanduser()
    state = "exists" if (home / MANIFEST).is_file() else "not made yet (`ascendlab lab` makes it)"
    out.append(Check("course folder", True, f"{home}: {state}"))
    return out


def _leaderboard() -> Check:
    from ..grader.leaderboard import default_path, permission_problems

    p = default_path()
    state = "exists" if p.exists() else "made by the first `ascendlab submit`"
    wide = permission_problems(p)  # its rows hold every accepted source
    if wide:
        return Check("leaderboard", False, f"{p}: " + "; ".join(wide),
                     f"chmod 600 {p}*; chmod 700 {p.parent}")
    return Check("leaderboard", True, f"{p} ({state}; $ASCENDLAB_LEADERBOARD or --db moves it)")


def _sandbox() -> Check:
    """The isolation the grader's child process gets here (grader/sandbox.py's describe)."""
    from ..grader.sandbox import describe

    phrases = describe()
    if phrases[0].startswith("bubblewrap"):
        return Check("grader sandbox", True, "; ".join(phrases))
    return Check("grader sandbox", False, "; ".join(phrases),
                 "apt-get install bubblewrap (private mounts and namespaces); without it, "
                 "util-linux's unshare gives namespaces only, and as a user it needs "
                 "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)")


def checks() -> list[Check]:
    """Every check, in report order."""
    from .. import __version__

    where = "source checkout" if in_checkout() else "installed package"
    out = [Check("ascendlab", True, f"{__version__} ({where}: {Path(__file__).parents[1]})"),
           Check("python", True, f"{platform.python_version()} ({sys.executable})"),
           _package("numpy", "numpy", "", "required")]
    out += [_package("matplotlib", "matplotlib", "viz", "static figures"),
            _package("ipywidgets", "ipywidgets", "viz", "interactive widgets"),
            _package("jupyterlab", "jupyterlab", "lab", "`ascendlab lab`"),
            _widget_extension(), _package("ipykernel", "ipykernel", "lab", "notebook kernel")]
    out += _course()
    out += [_leaderboard(), _sandbox()]
    return out


def report() -> tuple[str, bool]:
    """The doctor's text and whether everything is ok."""
    cs = checks()
    return "\n".join(c.line() for c in cs), all(c.ok for c in cs)


__all__ = ["Check", "checks", "report"]
