"""The `ascendlab` command.

    ascendlab pyasc [--strict] [--sanitize] [--chip CHIP] [--emulate-npu] SCRIPT [ARGS...]
    ascendlab pyasc [--strict] [--sanitize] [--chip CHIP] [--emulate-npu] -m MODULE [ARGS...]
        (-m pytest t.py)
    ascendlab chips
    ascendlab grade CHALLENGE SUBMISSION|DIR [--json] [--scheduler ADDRESS] [--out FILE]
    ascendlab submit CHALLENGE SUBMISSION [--user NAME] [--db FILE]
    ascendlab leaderboard CHALLENGE [--chip CHIP] [--db FILE]
    ascendlab leaderboard --html DIR [CHALLENGE] [--db FILE]
    ascendlab challenge list | show N | start N [DIR]
    ascendlab lab [--no-browser] [--port PORT] [--dir DIR] [-- JUPYTER_ARGS]
    ascendlab doctor
    ascendlab progress [--json] [--reset]
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import warnings
from collections.abc import Sequence

from .. import __version__


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ascendlab",
        description="Learn Ascend NPU operators in pyasc's Python API on an emulated AI Core.")
    p.add_argument("--version", action="version", version=f"ascendlab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser(
        "pyasc", help="run an unmodified pyasc script or module on the emulator",
        description="Run a pyasc script (or `-m module`, e.g. `-m pytest tests.py`) with "
                    "`import asc` resolving to ascendlab and the Model backend meaning the "
                    "emulator. Memcheck findings are warnings unless --strict.",
        usage="ascendlab pyasc [--strict] [--sanitize] [--chip CHIP] [--emulate-npu] "
              "(SCRIPT | -m MODULE) [ARGS...]")
    run.add_argument("--strict", action="store_true",
                     help="raise on memcheck findings (out of bounds, 32 B rounding) instead "
                          "of warning, as tutorials and the grader do")
    run.add_argument("--sanitize", action="store_true",
                     help="run the sanitizer (memcheck, initcheck, racecheck, synccheck) on "
                          "every launch; findings are warnings, or raise with --strict")
    run.add_argument("--chip", default=None,
                     help="emulated chip when the script does not call set_platform "
                          "(default Ascend910B2, the course's chip; see `ascendlab chips`)")
    run.add_argument("--emulate-npu", action="store_true",
                     help="run kernels launched for config.Backend.NPU on the emulator too "
                          "(torch tensors made on device 'npu' stay on the CPU); prints a "
                          "one-line notice")
    run.add_argument("-m", dest="module", default=None, metavar="MODULE",
                     help="run a library module as a script, like python -m")
    run.add_argument("target", nargs="*",
                     help="SCRIPT [ARGS...], or the module's ARGS with -m (passed through "
                          "as they are: `-m pytest -q -x -k EXPR FILE`)")
    sub.add_parser("chips", help="list the emulated chips and their main numbers")
    from ..grader.commands import add_parsers

    add_parsers(sub)  # grade, submit, leaderboard
    from ..grader.challenge_cli import add_parser as add_challenge_parser

    add_challenge_parser(sub)  # challenge list / show / start
    _add_lab_parsers(sub)  # lab, doctor
    from ..tutorials.progress import add_parser as add_progress

    add_progress(sub)  # progress (sets args.func)
    return p


def _add_lab_parsers(sub: argparse._SubParsersAction) -> None:
    from .lab import DEFAULT_DIR

    lab = sub.add_parser(
        "lab", help="copy the tutorials to a working folder and open JupyterLab there",
        description="Copy the tutorials (and examples/widgets.ipynb) to a working folder on "
                    "first use, never over your edits, then start JupyterLab in it.")
    lab.add_argument("--no-browser", action="store_true",
                     help="start the server without opening a browser (it prints the URL)")
    lab.add_argument("--port", type=int, default=None, help="port (default: JupyterLab's 8888)")
    lab.add_argument("--dir", default=DEFAULT_DIR,
                     help=f"the course folder (default {DEFAULT_DIR})")
    lab.add_argument("jupyter_args", nargs="*", metavar="-- JUPYTER_ARGS",
                     help="after `--`: options passed to JupyterLab as they are")
    sub.add_parser("doctor", help="check this installation: versions, JupyterLab, widgets, "
                                  "course files, leaderboard, grader sandbox")


def _cmd_pyasc(args: argparse.Namespace) -> int:
    from .. import pyasc_compat
    from ..runtime.chips import get_chip
    from ..runtime.core import MemcheckWarning
    from ..runtime.launch.jit import configure

    if args.module is None and not args.target:
        print("ascendlab pyasc: give a SCRIPT or -m MODULE", file=sys.stderr)
        return 2
    changes: dict = {"strict": bool(args.strict)}
    if args.sanitize:
        changes["sanitize"] = True
    if args.chip:
        try:
            changes["chip"] = get_chip(args.chip).name
        except ValueError as e:
            print(f"ascendlab pyasc: {e}", file=sys.stderr)
            return 2
    configure(**changes)
    warnings.simplefilter("default", MemcheckWarning)
    pyasc_compat.install()
    if args.emulate_npu:
        _emulate_npu()
    if args.module is not None:
        sys.argv = [args.module, *args.target]
        try:
            runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        except SystemExit as e:
            return _exit_code(e)
        return 0
    script, *rest = args.target
    if not os.path.isfile(script):
        print(f"ascendlab pyasc: no such script: {script}", file=sys.stderr)
        return 2
    sys.argv = [script, *rest]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # as `python SCRIPT` does
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        return _exit_code(e)
    return 0


def _emulate_npu() -> None:
    from .. import pyasc_compat
    from ..asc.runtime import config

    config.emulate_npu(True)
    try:
        import torch
    except ImportError:
        return  # numpy scripts need nothing more
    pyasc_compat.npu_tensors_on_cpu(torch)


def _exit_code(e: SystemExit) -> int:
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code
    print(e.code, file=sys.stderr)
    return 1


def _cmd_chips() -> int:
    from ..runtime.chips import CHIPS

    print(f"{'chip':<13} {'cores AIC/AIV':>13} {'MHz':>5} {'UB':>6} {'L1':>6} {'L0A':>5} "
          f"{'L0C':>5} {'HBM GB/s':>9}")
    for c in CHIPS.values():
        print(f"{c.name:<13} {c.aic_cores:>6}/{c.aiv_cores:<6} {c.clock_mhz:>5} "
              f"{c.ub_bytes // 1024:>5}K {c.l1_bytes // 1024:>5}K {c.l0a_bytes // 1024:>4}K "
              f"{c.l0c_bytes // 1024:>4}K {c.hbm_gbps:>9.1f}")
    return 0


def _cmd_lab(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .lab import jupyterlab_missing, lab_command, lab_env, prepare_course

    missing = jupyterlab_missing()
    if missing:
        print(f"ascendlab lab: {missing}", file=sys.stderr)
        return 1
    plan = prepare_course(Path(args.dir))
    print(plan.describe())
    cmd = lab_command(plan.dest, port=args.port, no_browser=args.no_browser)
    cmd += args.jupyter_args
    print(f"starting JupyterLab: {' '.join(cmd)}", flush=True)
    os.execve(cmd[0], cmd, lab_env(plan.dest))  # JupyterLab takes over (Ctrl-C stops it)
    return 0  # not reached


def _cmd_doctor() -> int:
    from .doctor import report

    text, ok = report()
    print(text)
    return 0 if ok else 1


def _split_pyasc(argv: list[str]) -> list[str]:
    """`ascendlab pyasc [OPTIONS] (SCRIPT | -m MODULE) ARGS...`: ascendlab's options end at
    the script or at `-m MODULE`; everything after is passed through untouched (so `-m pytest
    -q -x -k EXPR -h FILE` reaches pytest). Returns argv with a `--` before the pass-through."""
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "-m":
            return argv[:i + 2] + ["--"] + argv[i + 2:] if i + 1 < len(argv) else argv
        if a == "--chip":
            i += 2
            continue
        if a.startswith("-") and a != "-":
            i += 1
            continue
        return argv[:i] + ["--"] + argv[i:]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["pyasc"]:
        argv = _split_pyasc(argv)
    args = parser.parse_args(argv)
    if args.command == "pyasc":
        return _cmd_pyasc(args)
    if args.command == "chips":
        return _cmd_chips()
    if args.command == "lab":
        return _cmd_lab(args)
    if args.command == "doctor":
        return _cmd_doctor()
    if args.command in ("grade", "submit", "leaderboard"):
        from ..grader import commands

        return getattr(commands, f"cmd_{args.command}")(args)
    if args.command == "challenge":
        from ..grader.challenge_cli import cmd_challenge

        return cmd_challenge(args)
    if getattr(args, "func", None) is not None:
        return args.func(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
