"""The submission's side of grading: run the entry on each case and record what happened.

In the sandbox this module is the child process's main program (`python -I -m
ascendlab.grader.harness JOB_DIR FD`, started by sandbox.py). It reads JOB_DIR/job.json, loads
the submission, calls its entry once per case on the arrays the grader wrote, and writes one
JSON record per case (wire.py's run record, the argument mapping, hashes of the arrays after
the call, the error if any) to the record channel, a pipe the grader created (channel.py;
its write end is the file descriptor FD in `harness JOB_DIR FD`). Nothing it sends is trusted:
the grader replays the trace.

Order of business in the child: become a reaper if we are PID 1 of a new PID namespace (so
a fork bomb dies with us), import everything the runtime may need, drop root to `nobody`
(when the grader runs as root), then run untrusted code. check() uses run_case() in-process.
A notebook job (mode "notebook") is run by notebook.py instead: papermill executes the cells in
a kernel that drops root first and calls run_cases().
"""

from __future__ import annotations

import os
import sys


def _reap_as_init() -> None:
    """As PID 1 of a fresh PID namespace, fork the real worker and wait for it; when we exit
    the kernel kills whatever the submission left behind (fork bombs included)."""
    pid = os.fork()
    if pid == 0:
        return
    while True:
        try:
            got, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(70)
        except InterruptedError:
            continue
        if got == pid:
            code = os.waitstatus_to_exitcode(status)
            os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__" and os.getpid() == 1:
    _reap_as_init()

import json  # noqa: E402 - after the fork on purpose
import time  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402


def _preload() -> None:
    """Import what the runtime and allowed submissions may import lazily, while the
    interpreter's files are still readable (after the privilege drop they may not be)."""
    import ast  # noqa: F401
    import collections  # noqa: F401
    import dataclasses  # noqa: F401
    import enum  # noqa: F401
    import functools  # noqa: F401
    import inspect  # noqa: F401
    import itertools  # noqa: F401
    import linecache  # noqa: F401
    import math  # noqa: F401
    import operator  # noqa: F401
    import textwrap  # noqa: F401
    import tokenize  # noqa: F401
    import typing  # noqa: F401

    import numpy.lib.format  # noqa: F401
    import numpy.random  # noqa: F401

    import ascendlab  # noqa: F401
    import ascendlab.analysis.cost  # noqa: F401
    import ascendlab.analysis.sanitizer  # noqa: F401
    import ascendlab.asc  # noqa: F401
    import ascendlab.tools.profile  # noqa: F401

    from . import wire  # noqa: F401


def _apply_limits(job_dir: str) -> list[str]:
    """setrlimit from JOB_DIR/limits.json (sandbox.rlimits); returns what could not be set."""
    import resource

    path = os.path.join(job_dir, "limits.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        wanted = json.load(f)
    failed = []
    for name, (soft, hard) in wanted.items():
        res = getattr(resource, name, None)
        try:
            if res is None:
                raise ValueError("not on this OS")
            resource.setrlimit(res, (soft, hard))
        except (ValueError, OSError) as e:
            failed.append(f"{name}: {e}")
    return failed


def _drop_privileges(uid: int | None, gid: int | None) -> str:
    if uid is None or os.getuid() != 0:
        return "kept"
    try:
        os.setgroups([])
        os.setgid(gid if gid is not None else uid)
        os.setuid(uid)
    except OSError as e:  # e.g. a user namespace without that uid mapped
        return f"kept ({e.strerror})"
    return f"uid {uid}"


def _where(tb: Any, files: Any) -> str:
    """file:line of the innermost frame in the submission (else the innermost frame). `files`:
    the submission's file names, or a mapping file name -> label ("cell 4" for a notebook cell,
    shown as "cell 4, line 2")."""
    frames = traceback.extract_tb(tb)
    labels = files if isinstance(files, dict) else {f: os.path.basename(f) for f in files}
    for fr in reversed(frames):
        label = labels.get(fr.filename)
        if label is not None:
            return f"{label}, line {fr.lineno}" if label.startswith("cell ") else \
                f"{label}:{fr.lineno}"
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""


def _error(exc: BaseException, files: Any, phase: str) -> dict:
    msg = str(exc)
    if len(msg) > 4000:
        msg = msg[:4000] + " ..."
    return {"type": type(exc).__name__, "message": msg, "where": _where(exc.__traceback__, files),
            "phase": phase, "memory": _host_memory(exc)}


def _host_memory(exc: BaseException) -> bool:
    """Did the host process run out of memory? (A CapacityError or TraceLimitError is a
    MemoryError too, but it is the emulated chip's limit: judge.py grades it RUNTIME_ERROR.)"""
    from ..errors import AscendlabError

    return isinstance(exc, MemoryError) and not isinstance(exc, AscendlabError)


def run_case(entry: Any, arrays: dict[str, np.ndarray], order: tuple[str, ...],
             params: dict, chip: str, files: Any) -> dict:
    """Call entry(*arrays in `order`, **params) once on `chip`; the record the grader reads."""
    from ..runtime.launch import jit as L
    from .wire import WireError, digest, dump_run

    runs: list[Any] = []
    mapping: list[list] = []
    real = L.run_kernel

    def recording(kernel, block_num, args, kwargs, opts, run_opts):  # noqa: ANN001
        names: list = []
        try:
            bound = kernel.signature.bind(*args, **kwargs).arguments
            for pname, value in bound.items():
                host = L._host_array(value)
                if host is None:
                    continue
                hit = None
                for aname, arr in arrays.items():
                    if (host.__array_interface__["data"][0] == arr.__array_interface__["data"][0]
                            and host.nbytes == arr.nbytes):
                        hit = aname
                        break
                names.append([pname, hit])
        except Exception:  # noqa: BLE001 - the launch reports its own binding errors
            pass
        mapping.append(names)
        try:
            return real(kernel, block_num, args, kwargs, opts, run_opts)
        finally:
            runs.append(L.SESSION.last_run)

    saved = L.SESSION.options  # check() runs this in the learner's process: restore after
    L.configure(chip=chip, strict=True, sanitize=False, auto_sync=True)
    L.SESSION.last_run = None
    L.run_kernel = recording
    rec: dict[str, Any] = {"error": None}
    t0 = time.perf_counter()
    try:
        entry(*[arrays[n] for n in order], **params)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are verdicts too
        rec["error"] = _error(exc, files, "kernel" if runs else "launch")
    finally:
        L.run_kernel = real
        L.SESSION.options = saved
    rec["elapsed_s"] = time.perf_counter() - t0
    rec["launches"] = len(runs)
    rec["mapping"] = mapping[0] if len(mapping) == 1 else []
    rec["hashes"] = {n: digest(a) for n, a in arrays.items()}
    rec["run"] = None
    if len(runs) == 1 and runs[0] is not None and rec["error"] is None:
        try:
            rec["run"] = dump_run(runs[0])
        except WireError as exc:
            rec["error"] = {"type": "WireError", "message": str(exc), "where": "",
                            "phase": "record", "memory": False}
    return rec


def _die_with_parent() -> None:
    """PR_SET_PDEATHSIG: the kernel sends SIGKILL when the grader that started us dies (the
    bubblewrap path has --die-with-parent; this covers the fallback)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def setup(job_dir: str) -> dict:
    """The child's first steps: read the job, preload, rlimits, drop root, chdir; returns the
    job (with what was applied under "status")."""
    with open(os.path.join(job_dir, "job.json")) as f:
        job = json.load(f)
    _preload()
    unset = _apply_limits(job_dir) if not job.get("limits_applied") else []
    dropped = _drop_privileges(job.get("uid"), job.get("gid"))
    os.chdir(job["work_dir"])
    warnings.simplefilter("default")
    # numpy's overflow/invalid warnings from inside the emulator's own instruction semantics
    # (exp of a large value in float32 ...) describe the emulator, not the learner's code
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ascendlab\.runtime\.")
    # the grader's own warnings are not the learner's: the report shows this process's stderr
    # as "stderr of your code" (the runpy warning about a preloaded harness is avoided at the
    # source: grader/check.py imports the harness lazily)
    warnings.filterwarnings("ignore", module=r"ascendlab\.grader(\.|$)")
    short_warning_paths(os.path.dirname(job["submission"]), job["work_dir"])
    job["status"] = {"privileges": dropped, "pid": os.getpid(), "limits_not_set": unset}
    return job


def short_warning_paths(*folders: str) -> None:
    """Warnings shown from here on name a file in `folders` (the sandbox's job and work
    folders) by its own name only, `a1.py:59: RuntimeWarning: ...`, and a file of ascendlab
    from the package on (`ascendlab/runtime/...`): the graded report is the learner's, and
    the machine's folders mean nothing there. The source line is still shown."""
    import linecache

    plain = warnings.formatwarning
    inside = tuple(os.path.join(os.path.realpath(f), "") for f in folders) + tuple(
        os.path.join(os.path.abspath(f), "") for f in folders)
    package = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "")  # the folder that holds ascendlab/

    def formatwarning(message: Any, category: Any, filename: str, lineno: int,
                      line: str | None = None) -> str:
        full = os.path.abspath(filename)
        if full.startswith(inside) or full.startswith(package + "ascendlab" + os.sep):
            if line is None:  # read it while the full path still finds the file
                line = linecache.getline(filename, lineno)
            filename = (os.path.basename(full) if full.startswith(inside)
                        else full[len(package):])
        return plain(message, category, filename, lineno, line)

    warnings.formatwarning = formatwarning


def run_cases(job: dict, fd: int, entry: Any, files: Any, load_error: dict | None,
              first: int = 0) -> None:
    """Call the entry on cases first.. of the job and send one record per case to `fd` (a load
    error becomes every case's record)."""
    from .channel import send
    from .wire import poisoned

    for i, case in enumerate(job["cases"]):
        if i < first:
            continue
        send(fd, "progress", str(i).encode())
        if load_error is not None:
            rec: dict[str, Any] = {"error": load_error, "launches": 0, "run": None,
                                   "mapping": [], "hashes": {}, "elapsed_s": 0.0}
        else:
            arrays = {}
            for name, path in case["inputs"].items():
                arrays[name] = np.load(path, allow_pickle=False)
            for name, (shape, dtype) in case["outputs"].items():
                arrays[name] = poisoned(tuple(shape), dtype)
            rec = run_case(entry, arrays, tuple(case["order"]), case["params"], case["chip"],
                           files)
        rec["case"] = case["key"]
        send(fd, "case", json.dumps(rec).encode())  # the C encoder: json.dump is slow
        sys.stdout.flush()
        sys.stderr.flush()
    send(fd, "progress", b"done")


def entry_of(namespace: dict, job: dict) -> Any:
    entry = namespace.get(job["entry"])
    if not callable(entry):
        raise AttributeError(f"the submission defines no function {job['entry']}(...): "
                             f"the grader calls {job['entry']}({job['signature']})")
    return entry


def main(job_dir: str, fd: int) -> int:
    from .channel import send_json

    _die_with_parent()
    with open(os.path.join(job_dir, "job.json")) as f:
        mode = json.load(f).get("mode", "py")
    if mode == "notebook":
        from .notebook import run_notebook

        return run_notebook(job_dir, fd)
    job = setup(job_dir)
    submission = job["submission"]
    files = (submission,)
    send_json(fd, "status", job["status"])
    import types

    module = types.ModuleType("submission")
    module.__file__ = submission
    sys.modules["submission"] = module
    entry = None
    load_error = None
    try:
        with open(submission) as f:
            code = compile(f.read(), submission, "exec")
        exec(code, module.__dict__)
        entry = entry_of(module.__dict__, job)
    except BaseException as exc:  # noqa: BLE001
        load_error = _error(exc, files, "import")
    run_cases(job, fd, entry, files, load_error)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
