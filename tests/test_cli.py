"""The `ascendlab` command, run as a user would: in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "pyasc"


def ascendlab(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendlab", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def test_pyasc_runs_an_unmodified_script_with_its_own_arguments():
    r = ascendlab("pyasc", str(HERE / "vadd_script.py"), "-r", "Model", "-v", "Ascend910B2",
                  "-n", "8192")
    assert r.returncode == 0, r.stderr
    assert "vadd ok: 8192 elements on Ascend910B2" in r.stdout


def test_pyasc_runs_a_pyasc_pytest_file():
    r = ascendlab("pyasc", "-m", "pytest", str(HERE / "vadd_suite.py"), "-q", "-p",
                  "no:cacheprovider")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "13 passed" in r.stdout


def test_pyasc_warns_by_default_and_raises_with_strict():
    r = ascendlab("pyasc", str(HERE / "unaligned_script.py"))
    assert r.returncode == 0, r.stderr
    assert "copied 8 elements" in r.stdout  # what the NPU moves: 32 B of the 40 asked
    assert "MemcheckWarning" in r.stderr and "40 B is not a multiple of 32 B" in r.stderr
    r = ascendlab("pyasc", "--strict", str(HERE / "unaligned_script.py"))
    assert r.returncode != 0
    assert "OutOfBoundsError" in r.stderr and "unaligned_script.py:17" in r.stderr


def test_pyasc_failing_script_exit_code_and_missing_script():
    r = ascendlab("pyasc", "does_not_exist.py")
    assert r.returncode == 2 and "no such script" in r.stderr
    r = ascendlab("pyasc")
    assert r.returncode == 2


def test_unemulated_pyasc_module_is_named(tmp_path):
    script = tmp_path / "uses_language.py"
    script.write_text("from asc.language.core.dtype import int1\n")
    r = ascendlab("pyasc", str(script))
    assert r.returncode != 0
    assert ("asc.language.core.dtype.int1 is part of pyasc but ascendlab does not "
            "emulate it") in r.stderr


@pytest.mark.parametrize("args", [["--help"], ["pyasc", "--help"], ["chips"]])
def test_help_and_chips(args):
    r = ascendlab(*args)
    assert r.returncode == 0
    assert "Ascend910B1" in r.stdout or "usage" in r.stdout


def test_example_script_runs_and_prints_the_trace():
    root = Path(__file__).resolve().parents[1]
    r = ascendlab("pyasc", str(root / "examples" / "vadd.py"), "--cores", "4")
    assert r.returncode == 0, r.stderr
    assert "correct" in r.stdout and "set MTE2->V" in r.stdout


# ---- ascendlab lab / doctor / leaderboard --------------------------------------------------


def _course(tmp_path):
    from ascendlab.cli.lab import prepare_course

    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "01-add.ipynb").write_text('{"v": 1}')
    (src / "02-queues.ipynb").write_text('{"v": 1}')
    files = {p.name: p for p in sorted(src.iterdir())}
    return src, files, lambda: prepare_course(tmp_path / "course", files)


def test_lab_copies_the_course_once_and_never_overwrites_edits(tmp_path):
    src, files, prepare = _course(tmp_path)
    first = prepare()
    assert first.copied == ["01-add.ipynb", "02-queues.ipynb"] and not first.kept
    course = tmp_path / "course"
    (course / "01-add.ipynb").write_text('{"v": "my edit"}')  # the learner's work
    (src / "01-add.ipynb").write_text('{"v": 2}')  # a newer course version of both
    (src / "02-queues.ipynb").write_text('{"v": 2}')
    (src / "03-new.ipynb").write_text('{"v": 1}')
    files["03-new.ipynb"] = src / "03-new.ipynb"
    again = prepare()
    assert (course / "01-add.ipynb").read_text() == '{"v": "my edit"}'
    assert again.kept == ["01-add.ipynb"]
    assert again.updated == ["02-queues.ipynb"]  # untouched copy: refreshed
    assert again.copied == ["03-new.ipynb"]
    assert "kept your edits to 1" in again.describe() and "01-add.ipynb" in again.describe()
    (course / "02-queues.ipynb").unlink()  # deleted by the learner: restored
    assert prepare().copied == ["02-queues.ipynb"]


def _notebook(*sources: str, outputs: bool = False) -> str:
    cells = [{"cell_type": "code", "execution_count": 1 if outputs else None, "metadata": {},
              "outputs": [{"output_type": "stream", "name": "stdout", "text": ["42\n"]}]
              if outputs else [], "source": [src]} for src in sources]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_lab_running_a_notebook_is_not_an_edit(tmp_path):
    """Outputs, execution counts (JupyterLab's autosave) do not make a notebook the learner's:
    a second run says nothing was kept, and a newer course version still reaches it."""
    from ascendlab.cli.lab import prepare_course

    src = tmp_path / "src"
    src.mkdir()
    (src / "01-add.ipynb").write_text(_notebook("x = 1"))
    files = {"01-add.ipynb": src / "01-add.ipynb"}
    course = tmp_path / "course"
    assert prepare_course(course, files).copied == ["01-add.ipynb"]
    (course / "01-add.ipynb").write_text(_notebook("x = 1", outputs=True))  # run, autosaved
    again = prepare_course(course, files)
    assert again.unchanged == ["01-add.ipynb"] and not again.kept and not again.yours
    assert "newer version" not in again.describe()
    (src / "01-add.ipynb").write_text(_notebook("x = 2"))  # the course changes the lesson
    assert prepare_course(course, files).updated == ["01-add.ipynb"]
    assert "x = 2" in (course / "01-add.ipynb").read_text()


def test_lab_an_edit_is_kept_and_described_truthfully(tmp_path):
    """An edited notebook is never overwritten; "newer version" is said only when the course
    really changed it."""
    from ascendlab.cli.lab import prepare_course

    src = tmp_path / "src"
    src.mkdir()
    (src / "01-add.ipynb").write_text(_notebook("x = 1"))
    files = {"01-add.ipynb": src / "01-add.ipynb"}
    course = tmp_path / "course"
    prepare_course(course, files)
    (course / "01-add.ipynb").write_text(_notebook("x = 'mine'"))
    same = prepare_course(course, files)
    assert same.yours == ["01-add.ipynb"] and not same.kept
    assert "newer version" not in same.describe() and "01-add.ipynb" in same.describe()
    (src / "01-add.ipynb").write_text(_notebook("x = 2"))
    newer = prepare_course(course, files)
    assert newer.kept == ["01-add.ipynb"] and "newer version" in newer.describe()
    assert "'mine'" in (course / "01-add.ipynb").read_text()


def test_lab_reads_a_manifest_of_byte_hashes(tmp_path):
    """A folder made by an earlier version (the manifest holds the bytes' sha256) is not
    mistaken for the learner's edits."""
    import hashlib

    from ascendlab.cli.lab import MANIFEST, prepare_course

    src = tmp_path / "src"
    src.mkdir()
    (src / "01-add.ipynb").write_text(_notebook("x = 1"))
    course = tmp_path / "course"
    course.mkdir()
    old = _notebook("x = 0")
    (course / "01-add.ipynb").write_text(old)
    (course / MANIFEST).write_text(json.dumps(
        {"01-add.ipynb": hashlib.sha256(old.encode()).hexdigest()}))
    plan = prepare_course(course, {"01-add.ipynb": src / "01-add.ipynb"})
    assert plan.updated == ["01-add.ipynb"] and not plan.kept


def test_lab_env_turns_off_the_news_plugin_for_the_course_server_only(tmp_path):
    from ascendlab.cli.lab import CONFIG_DIR, NEWS_PLUGIN, lab_env

    env = lab_env(tmp_path, {"JUPYTER_CONFIG_PATH": "/etc/mine", "HOME": "/home/x"})
    first, rest = env["JUPYTER_CONFIG_PATH"].split(os.pathsep)
    assert first == str(tmp_path / CONFIG_DIR) and rest == "/etc/mine"
    assert env["HOME"] == "/home/x"
    page = json.loads((tmp_path / CONFIG_DIR / "labconfig" / "page_config.json").read_text())
    assert page["disabledExtensions"] == {NEWS_PLUGIN: True}
    # a second start does not stack the folder twice
    again = lab_env(tmp_path, env)
    assert again["JUPYTER_CONFIG_PATH"] == env["JUPYTER_CONFIG_PATH"]


def test_lab_course_files_include_the_widgets_tour_and_skip_checkpoints(tmp_path, monkeypatch):
    from ascendlab.cli import lab

    tut = tmp_path / "tutorials"
    (tut / ".ipynb_checkpoints").mkdir(parents=True)
    (tut / ".ipynb_checkpoints" / "01-add-checkpoint.ipynb").write_text("{}")
    (tut / "01-add.ipynb").write_text("{}")
    (tut / "data").mkdir()
    (tut / "data" / "x.npy").write_bytes(b"\0")
    real = lab.data_path
    monkeypatch.setattr(lab, "data_path", lambda rel: tut if rel == "tutorials" else real(rel))
    assert sorted(lab.course_files()) == ["01-add.ipynb", "data/x.npy", "widgets.ipynb"]


def test_lab_command_line(tmp_path):
    from ascendlab.cli.lab import lab_command

    cmd = lab_command(tmp_path, port=9999, no_browser=True)
    assert cmd[1:3] == ["-m", "jupyterlab"] and "--no-browser" in cmd
    assert f"--ServerApp.root_dir={tmp_path}" in cmd and "--ServerApp.port=9999" in cmd
    assert "--ServerApp.ip=127.0.0.1" in cmd


def test_lab_without_jupyterlab_says_what_to_install(monkeypatch):
    import importlib.util

    from ascendlab.cli import lab

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "jupyterlab" else real(name, *a))
    assert '.[lab]' in lab.jupyterlab_missing()


def test_lab_help_lists_its_options():
    r = ascendlab("lab", "--help")
    assert r.returncode == 0
    for opt in ("--no-browser", "--port", "--dir", "~/ascendlab-course"):
        assert opt in r.stdout


def test_doctor_reports_each_check_with_a_fix(tmp_path):
    import os

    env = dict(os.environ, ASCENDLAB_LEADERBOARD=str(tmp_path / "lb.sqlite3"))
    r = subprocess.run([sys.executable, "-m", "ascendlab", "doctor"], capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode in (0, 1), r.stderr
    for name in ("ascendlab", "jupyterlab", "widget extension", "challenges", "leaderboard",
                 "grader sandbox"):
        assert f" {name}" in r.stdout, name
    assert str(tmp_path / "lb.sqlite3") in r.stdout
    for line in r.stdout.splitlines():  # every missing piece comes with its fix
        if line.startswith("--"):
            nxt = r.stdout.splitlines()[r.stdout.splitlines().index(line) + 1]
            assert nxt.strip().startswith("fix:"), line
    assert (r.returncode == 0) == ("\n--" not in "\n" + r.stdout)


def test_doctor_counts_lessons_and_challenges_not_files():
    """13 notebooks and 8 challenges read as such, not as the folders' entries (README.md,
    _common.py, ...)."""
    from ascendlab.cli import doctor

    root = Path(__file__).resolve().parents[1]
    lessons = len(list((root / "tutorials").glob("[0-9]*.ipynb")))
    days = len(list((root / "challenges").glob("*/spec.py")))
    checks = {c.name: c.detail for c in doctor._course()}
    assert checks["tutorials"].startswith(f"{lessons} lessons in ")
    assert checks["challenges"].startswith(f"{days} challenges in ")


def test_doctor_names_a_missing_package_and_its_extra(monkeypatch):
    from ascendlab.cli import doctor

    real = doctor.importlib.util.find_spec
    monkeypatch.setattr(doctor.importlib.util, "find_spec",
                        lambda name, *a: None if name == "jupyterlab" else real(name, *a))
    check = next(c for c in doctor.checks() if c.name == "jupyterlab")
    assert not check.ok and '.[lab]' in check.fix


def test_leaderboard_prints_where_it_lives(tmp_path):
    import os

    env = dict(os.environ, ASCENDLAB_LEADERBOARD=str(tmp_path / "lb.sqlite3"))
    r = subprocess.run([sys.executable, "-m", "ascendlab", "leaderboard", "swish"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert str(tmp_path / "lb.sqlite3") in r.stdout


def test_doctor_sandbox_line_comes_from_the_grader_and_says_the_fix(monkeypatch):
    from ascendlab.cli import doctor
    from ascendlab.grader import sandbox

    monkeypatch.setattr(sandbox, "describe", lambda: ["NO namespaces (neither bwrap nor "
                                                      "unshare works here)", "same uid"])
    check = doctor._sandbox()
    assert not check.ok and "NO namespaces" in check.detail and "bubblewrap" in check.fix


def test_pyasc_passes_pytest_options_through():
    """Everything after `-m pytest` reaches pytest: -q, -x, -k EXPR, -h."""
    suite = str(HERE / "vadd_suite.py")
    r = ascendlab("pyasc", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k",
                  "backend_names", suite)
    assert r.returncode == 0, r.stderr
    assert "1 passed, 12 deselected" in r.stdout, r.stdout  # -k reached pytest
    h = ascendlab("pyasc", "-m", "pytest", "-h")
    assert h.returncode == 0 and "usage: " in h.stdout and "pytest" in h.stdout
    own = ascendlab("pyasc", "--strict", "--chip", "Ascend910B2", "-m", "pytest", "--version")
    assert own.returncode == 0 and "pytest" in (own.stdout + own.stderr)
