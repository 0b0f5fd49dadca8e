"""Notebook submissions, executed by papermill in a Jupyter kernel inside the sandbox.

The sandboxed child (harness.py, job mode "notebook") builds the notebook it executes from
the submission's graded cells (submission.notebook_cells: the `solution` cells and the
`parameters` cell, else every code cell but `skip-grading` ones) between two cells of its own:

    [grader] kernel_setup: preload, drop root, chdir   (before any learner code)
    [papermill] GRADING = True                         (injected after the `parameters` cell,
                                                         or first when there is none)
    the learner's cells, magics and all
    [grader] kernel_grade: call the entry on every case, write the records

and runs it with papermill on a kernelspec of its own (this interpreter, `-I`, no IPython
history), with an explicit per-cell timeout. The kernel is the child's child: same network,
PID and mount namespaces, same rlimits; the child brings the namespace's loopback up when it
is down (the kernel talks ZMQ over 127.0.0.1, which reaches nothing outside the namespace).
Jupyter closes a kernel's other file descriptors, so the kernel cannot use the record channel
(channel.py): it writes the same frames to a file in its work folder, which the child forwards
to the channel unparsed once papermill returns. A learner cell that raises ends the run: every
remaining case's record carries the error with the cell's number and line ("cell 4, line 2"),
as a .py's import error carries its line.

Limitations: the kernel starts as the child's user and drops to the job's uid in its first
cell (the interpreter may live where that uid cannot read, so it must start before the drop);
starting it costs a few seconds, which .py submissions do not pay.
"""

from __future__ import annotations

import importlib.util
import json
import linecache
import os
import re
import sys
from typing import Any

KERNEL_NAME = "ascendlab-grading"
RECORDS = ".ascendlab-records"  # the kernel's frames, in the work folder
CELL = ".ascendlab-cell"  # the learner cell the kernel is running (for a kernel that dies)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_records_fd: list[int] = []  # in the kernel: the open records file


def available() -> bool:
    """papermill, nbformat and ipykernel are importable (the `notebook` extra)."""
    return all(importlib.util.find_spec(m) is not None
               for m in ("papermill", "nbformat", "ipykernel"))


def _kernelspec(root: str) -> str:
    """A kernelspec for this interpreter in root/kernels/; returns the JUPYTER_PATH entry."""
    d = os.path.join(root, "kernels", KERNEL_NAME)
    os.makedirs(d, exist_ok=True)
    spec = {"argv": [sys.executable, "-I", "-m", "ipykernel_launcher", "-f",
                     "{connection_file}", "--HistoryManager.enabled=False",
                     "--IPKernelApp.log_level=40"],
            "display_name": "ascendlab grading", "language": "python"}
    with open(os.path.join(d, "kernel.json"), "w") as f:
        json.dump(spec, f)
    return root


def _loopback_up() -> str:
    """Bring `lo` up (a new network namespace starts with it down); returns what happened."""
    import fcntl
    import socket
    import struct

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            req = struct.pack("16sH", b"lo", 0)
            flags = struct.unpack("16sH", fcntl.ioctl(s, siocgifflags, req)[:18])[1]
            if flags & iff_up:
                return "up"
            fcntl.ioctl(s, siocsifflags, struct.pack("16sH", b"lo", flags | iff_up))
            return "brought up"
    except OSError as e:
        return f"not changed ({e.strerror})"


def build(job: dict, job_dir: str) -> Any:
    """The notebook the kernel executes (nbformat NotebookNode), parameters injected."""
    import logging

    import nbformat
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "language": "python",
                                 "display_name": "ascendlab grading"}
    nb.metadata["language_info"] = {"name": "python"}
    ours = "from ascendlab.grader import notebook as _ascendlab_nb\n"
    nb.cells.append(nbformat.v4.new_code_cell(
        ours + f"_ascendlab_nb.kernel_setup({job_dir!r})", metadata={"tags": []}))
    for number, tags, src in job["cells"]:
        cell = nbformat.v4.new_code_cell(src)
        cell.metadata["tags"] = list(tags)
        cell.metadata["ascendlab_cell"] = number
        nb.cells.append(cell)
    nb.cells.append(nbformat.v4.new_code_cell(
        f"_ascendlab_nb.kernel_grade({job_dir!r}, globals())", metadata={"tags": []}))
    path = os.path.join(job["work_dir"], ".ascendlab-graded.ipynb")
    nbformat.write(nb, path)
    logging.getLogger("papermill").setLevel(logging.ERROR)  # "no parameters cell" is fine
    return parameterize_notebook(load_notebook_node(path), {"GRADING": True},
                                 kernel_name=KERNEL_NAME, language="python")


def _cell_error(nb: Any, e: Any) -> dict:
    """A record error for papermill's PapermillExecutionError: which cell, which line."""
    idx = getattr(e, "cell_index", -1)
    cell = nb.cells[idx] if 0 <= idx < len(nb.cells) else None
    number = cell.metadata.get("ascendlab_cell") if cell is not None else None
    tb = _ANSI.sub("", "\n".join(getattr(e, "traceback", None) or []))
    line = re.findall(r"Cell In\[\d+\], line (\d+)", tb)
    where = f"cell {number}" if number else "the grader's own cell"
    if number and line:
        where += f", line {line[-1]}"
    typ = str(getattr(e, "ename", "") or "Error")
    return {"type": typ, "message": str(getattr(e, "evalue", "")), "where": where,
            "phase": "import", "memory": typ == "MemoryError"}


def run_notebook(job_dir: str, fd: int) -> int:
    """The child's main program for a notebook: execute it with papermill (see above), then
    forward the kernel's record frames to the channel `fd`."""
    from . import harness
    from .channel import send_json

    with open(os.path.join(job_dir, "job.json")) as f:
        job = json.load(f)
    unset = harness._apply_limits(job_dir)  # the kernel inherits them
    send_json(fd, "status", {"privileges": "kept until the kernel's first cell",
                             "pid": os.getpid(), "limits_not_set": unset,
                             "loopback": _loopback_up(), "runner": "papermill"})
    os.environ["JUPYTER_PATH"] = _kernelspec(os.path.join(job["work_dir"], ".ascendlab-jupyter"))
    error = None
    nb = None
    try:
        import papermill
        from papermill.exceptions import PapermillExecutionError

        nb = build(job, job_dir)
        papermill.execute_notebook(nb, None, kernel_name=KERNEL_NAME, progress_bar=False,
                                   log_output=False, stdout_file=sys.stdout,
                                   stderr_file=sys.stderr, cwd=job["work_dir"],
                                   start_timeout=job["cell_timeout_s"],
                                   execution_timeout=job["cell_timeout_s"],
                                   # the records are written: no graceful wait at the end
                                   shutdown_kernel="immediate")
    except PapermillExecutionError as e:
        error = _cell_error(nb, e)
    except BaseException as e:  # noqa: BLE001 - a dead kernel, a cell timeout, no kernel
        cell = _small(os.path.join(job["work_dir"], CELL))
        error = {"type": type(e).__name__, "message": str(e)[:2000],
                 "where": f"cell {cell}" if cell.isdigit() else "", "phase": "notebook",
                 "memory": False}
    done = _forward(os.path.join(job["work_dir"], RECORDS), fd, job)
    if error is not None or done < len(job["cases"]):
        error = error or {"type": "KernelError", "message": "the notebook's kernel stopped "
                          "before it recorded every case", "where": "", "phase": "notebook",
                          "memory": False}
        harness.run_cases(job, fd, None, (), error, first=done)
    return 0


def _small(path: str) -> str:
    """A short regular file's text ("" when absent or odd); never follows a symlink, never
    blocks on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, 32).decode("ascii", "replace").strip()
    finally:
        os.close(fd)


def _forward(path: str, fd: int, job: dict) -> int:
    """Copy the kernel's complete frames to the channel, unparsed but for their headers;
    returns how many case records they hold. A symlink, a non-regular file or a broken header
    ends the copy (the grader's channel judges what arrives)."""
    import stat

    from .channel import _HEAD, KINDS, MAGIC

    try:
        src = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return 0
    cases = 0
    try:
        if not stat.S_ISREG(os.fstat(src).st_mode):
            return 0
        with os.fdopen(src, "rb", closefd=False) as f:
            while True:
                head = f.read(_HEAD.size)
                if len(head) < _HEAD.size:
                    break
                magic, code, length = _HEAD.unpack(head)
                if magic != MAGIC or code not in KINDS:
                    break
                body = f.read(length)
                if len(body) < length:
                    break
                os.write(fd, head)
                for k in range(0, length, 1 << 20):
                    os.write(fd, body[k:k + 1 << 20])
                if KINDS[code] == "case":
                    cases += 1
    finally:
        os.close(src)
    return min(cases, len(job["cases"]))


# ---- in the kernel ------------------------------------------------------------------------
def kernel_setup(job_dir: str) -> None:
    """The kernel's first cell: what the harness does for a .py before the learner's code."""
    from . import harness

    # IPython formats tracebacks with these, and its common magics (%time, %timeit, %prun)
    # import these, lazily: after the drop, `nobody` may not read the interpreter's files
    for name in ("fractions", "stack_data", "pure_eval", "executing", "asttokens", "pygments",
                 "IPython.core.ultratb", "IPython.core.magics", "IPython.core.magics.execution",
                 "timeit", "cProfile", "pstats"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    ip = _ipython()
    if ip is not None:  # format a traceback and time a statement now, so that their lazy
        from IPython.utils.capture import capture_output  # imports happen before the drop

        with capture_output():
            try:
                raise NameError("warm-up")
            except NameError:
                ip.InteractiveTB.structured_traceback(*sys.exc_info())
            ip.run_line_magic("time", "pass")
            ip.run_line_magic("timeit", "-n1 -r1 pass")
    job = harness.setup(job_dir)  # preload, drop root, chdir to the work folder
    from .channel import send_json

    fd = os.open(os.path.join(job["work_dir"], RECORDS),
                 os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    _records_fd[:] = [fd]
    send_json(fd, "status", {**job["status"], "runner": "papermill"})
    if ip is not None:  # note the learner cell running, for a kernel that dies in it
        numbers = {src: n for n, _t, src in job["cells"]}
        out = os.path.join(job["work_dir"], CELL)

        def note(info: Any) -> None:
            n = numbers.get(getattr(info, "raw_cell", None))
            if n is not None:
                with open(out, "w") as f:
                    f.write(str(n))

        ip.events.register("pre_run_cell", note)


def kernel_grade(job_dir: str, namespace: dict) -> None:
    """The kernel's last cell: call the entry on every case and write the records."""
    from . import harness

    with open(os.path.join(job_dir, "job.json")) as f:
        job = json.load(f)
    labels = _cell_files(job)
    entry, load_error = None, None
    try:
        entry = harness.entry_of(namespace, job)
    except BaseException as exc:  # noqa: BLE001
        load_error = harness._error(exc, labels, "import")
    harness.run_cases(job, _records_fd[0], entry, labels, load_error)


def _ipython() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _cell_files(job: dict) -> dict[str, str]:
    """The file names IPython gave the learner's cells (linecache) -> "cell N"."""
    by_text = {src.strip(): n for n, _t, src in job["cells"]}
    out = {}
    for fn, entry in list(linecache.cache.items()):
        if len(entry) == 4 and entry[1] is None:  # IPython's cells: no mtime
            n = by_text.get("".join(entry[2]).strip())
            if n is not None:
                out[fn] = f"cell {n}"
    return out


__all__ = ["KERNEL_NAME", "available", "build", "kernel_grade", "kernel_setup",
           "run_notebook"]
