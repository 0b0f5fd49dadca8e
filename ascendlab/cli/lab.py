"""`ascendlab lab`: copy the course to a working folder, then start JupyterLab on it.

    plan = prepare_course(Path("~/ascendlab-course").expanduser())   # what was copied or kept
    print(plan.describe())
    os.execv(sys.executable, lab_command(plan.dest, port=8888))

The notebooks a learner edits are copies: the installed package (or the repository) is never
written. A manifest in the folder (.ascendlab-course.json) records the fingerprint of each file
as it was copied, so a later run can tell a learner's edit (kept, always) from an untouched copy
(refreshed when the course's version changed) and restores files the learner deleted. A
notebook's fingerprint is that of its cells' types and sources only: running it (outputs,
execution counts, metadata, JupyterLab's autosave) is not an edit.

The course's JupyterLab gets a Jupyter config folder of its own in the course folder
(.ascendlab-jupyter/, added to JUPYTER_CONFIG_PATH for that server only) whose
labconfig/page_config.json turns off JupyterLab's news plugin, whose consent pop-up would cover
every notebook. The learner's own Jupyter settings are not touched.

When lessons were renumbered (ascendlab/tutorials/renames.py), a folder made before holds the
old file names: an untouched old copy is removed (the renamed notebook is copied as new), an
edited one is kept under its old name and reported, next to the course's renamed version.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..resources import data_path
from ..tutorials.renames import NOTEBOOKS as RENAMED

DEFAULT_DIR = "~/ascendlab-course"
MANIFEST = ".ascendlab-course.json"
CONFIG_DIR = ".ascendlab-jupyter"  # the course server's extra Jupyter config folder
NEWS_PLUGIN = "@jupyterlab/apputils-extension:announcements"  # news + update-check toasts
SKIP = {"__pycache__", ".ipynb_checkpoints"}  # never copied (nor dotfiles)


@dataclass
class CoursePlan:
    """What prepare_course did, file by file (paths relative to `dest`)."""

    dest: Path
    copied: list[str] = field(default_factory=list)  # new in the folder
    updated: list[str] = field(default_factory=list)  # untouched copies of a changed file
    kept: list[str] = field(default_factory=list)  # edited, and the course changed it too
    yours: list[str] = field(default_factory=list)  # edited, the course's version unchanged
    unchanged: list[str] = field(default_factory=list)
    renamed: list[str] = field(default_factory=list)  # "old -> new": untouched old copy removed
    kept_renamed: list[str] = field(default_factory=list)  # "old (now new)": edited, left alone

    def describe(self) -> str:
        """A few lines for the terminal."""
        lines = [f"course folder: {self.dest}"]
        for verb, names in (("copied", self.copied), ("updated", self.updated)):
            if names:
                lines.append(f"  {verb} {len(names)}: {', '.join(names)}")
        if self.kept:
            lines.append(f"  kept your edits to {len(self.kept)} (the course's newer version "
                         f"was not copied over them): {', '.join(self.kept)}")
        if self.yours:
            lines.append(f"  your edited copies: {len(self.yours)} (left as they are): "
                         f"{', '.join(self.yours)}")
        if self.unchanged:
            lines.append(f"  already there, unchanged: {len(self.unchanged)} files")
        if self.renamed:
            lines.append(f"  the course was renumbered; replaced {len(self.renamed)} untouched "
                         f"lessons by their new names: {', '.join(self.renamed)}")
        if self.kept_renamed:
            lines.append(f"  the course was renumbered; kept your edited copies of "
                         f"{len(self.kept_renamed)} lessons under their old names (the course's "
                         f"version is under the new name): {', '.join(self.kept_renamed)}")
        if not (self.copied or self.updated or self.kept or self.yours or self.unchanged):
            lines.append("  no course material found to copy (no tutorials/ in this install)")
        return "\n".join(lines)


def course_files() -> dict[str, Path]:
    """The files the course folder gets: name in the folder -> source. tutorials/ is copied
    whole (its notebooks and whatever they read), examples/widgets.ipynb beside it."""
    out: dict[str, Path] = {}
    tutorials = data_path("tutorials")
    if tutorials is not None:
        for p in sorted(tutorials.rglob("*")):
            rel = p.relative_to(tutorials)
            if p.is_file() and not any(s in SKIP or s.startswith(".") for s in rel.parts):
                out[rel.as_posix()] = p
    widgets = data_path("examples/widgets.ipynb")
    if widgets is not None:
        out.setdefault(widgets.name, widgets)
    return out


def _bytes_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _digest(path: Path) -> str:
    """The file's fingerprint: for a notebook, its cells' types and sources (what a learner
    writes), so that outputs, execution counts and metadata do not count as edits; for any
    other file (or a notebook that does not parse), its bytes."""
    if path.suffix == ".ipynb":
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            sources = [(c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list)
                        else c["source"]) for c in cells]
        except (OSError, ValueError, KeyError, TypeError):
            return _bytes_digest(path)
        return "cells:" + hashlib.sha256(json.dumps(sources).encode()).hexdigest()
    return _bytes_digest(path)


def _untouched(name: str, target: Path, manifest: dict[str, str],
               have: str | None = None) -> bool:
    """Whether the folder's `target` (whose fingerprint is `have`, when known) is still the
    copy this command made of `name` (a manifest written before fingerprints holds the bytes'
    hash)."""
    return manifest.get(name) in (have or _digest(target), _bytes_digest(target))


def _drop_renamed(dest: Path, files: dict[str, Path], manifest: dict[str, str],
                  plan: CoursePlan) -> None:
    """Old names of renumbered lessons: remove untouched copies, keep (and report) edits."""
    for old, new in RENAMED.items():
        if new not in files:
            continue  # this install does not ship the renamed lesson: leave the old one
        target = dest / old
        if not target.is_file():
            manifest.pop(old, None)  # deleted by the learner: nothing to do
            continue
        if _untouched(old, target, manifest):
            target.unlink()
            manifest.pop(old, None)
            plan.renamed.append(f"{old} -> {new}")
        else:
            plan.kept_renamed.append(f"{old} (now {new})")


def prepare_course(dest: Path, files: dict[str, Path] | None = None) -> CoursePlan:
    """Copy the course into `dest` without ever overwriting a learner's edit."""
    dest = dest.expanduser().resolve()
    dest.mkdir(parents=True, exist_ok=True)
    manifest_path = dest / MANIFEST
    try:
        manifest: dict[str, str] = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    plan = CoursePlan(dest)
    files = course_files() if files is None else files
    _drop_renamed(dest, files, manifest, plan)
    for name, src in files.items():
        target = dest / name
        want = _digest(src)
        if not target.exists():
            bucket = plan.copied
        else:
            have = _digest(target)
            if have == want:
                plan.unchanged.append(name)
                manifest[name] = want
                continue
            if not _untouched(name, target, manifest, have):  # the learner's work: untouched
                (plan.yours if manifest.get(name) == want else plan.kept).append(name)
                continue
            bucket = plan.updated
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        manifest[name] = want
        bucket.append(name)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return plan


def lab_command(dest: Path, *, port: int | None = None, no_browser: bool = False,
                ip: str = "127.0.0.1") -> list[str]:
    """The JupyterLab command line for the course folder (this interpreter's jupyterlab)."""
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={dest}",
           f"--ServerApp.ip={ip}"]
    if port is not None:
        cmd += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0"]
    if no_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers run as root; JupyterLab refuses it otherwise
    return cmd


def lab_env(dest: Path, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the course's JupyterLab: `environ` (default os.environ) with the
    course's own Jupyter config folder first on JUPYTER_CONFIG_PATH; that folder's
    labconfig/page_config.json (written here) disables JupyterLab's news plugin."""
    environ = dict(os.environ if environ is None else environ)
    conf = dest / CONFIG_DIR
    (conf / "labconfig").mkdir(parents=True, exist_ok=True)
    (conf / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {NEWS_PLUGIN: True}}, indent=1) + "\n")
    paths = [str(conf)] + [p for p in environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep)
                           if p and p != str(conf)]
    environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
    return environ


def jupyterlab_missing() -> str | None:
    """None when JupyterLab can be started, else what to install."""
    import importlib.util

    if importlib.util.find_spec("jupyterlab") is None:
        return ("JupyterLab is not installed in this environment. Install the course extra: "
                "python -m pip install -e \".[lab]\" (in the repository) or "
                "python -m pip install \"ascendlab[lab]\"")
    return None


__all__ = ["DEFAULT_DIR", "CoursePlan", "course_files", "jupyterlab_missing", "lab_command",
           "lab_env", "prepare_course"]
