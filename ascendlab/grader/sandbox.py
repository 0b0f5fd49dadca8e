"""The child process a submission runs in, and what the grader does to contain it.

    result = run_sandboxed(job_dir, limits)     # SandboxResult: exit, timeout, captured output

What is applied (each where the OS allows it; Report.sandbox says what was):
  * a new process with `python -I` (no user site, no PYTHON* variables), a scrubbed
    environment, its own session, cwd in a temporary directory;
  * resource limits (resource.setrlimit, applied by the harness before it loads the
    submission): RLIMIT_CPU (CPU seconds), RLIMIT_AS (memory), RLIMIT_FSIZE (largest file),
    RLIMIT_NPROC (processes), RLIMIT_CORE 0;
  * a wall-clock timeout in the parent, after which the whole process group is killed;
  * `unshare` (util-linux) for new network, PID and mount namespaces with a private /proc: no
    network (not even loopback), no view of other processes, and everything the submission
    forks dies with the namespace's first process. As root this needs nothing else; as a user
    it needs unprivileged user namespaces (--map-root-user). Without either, the child runs
    without namespaces (documented in docs/grader.md as not defended);
  * as root, the child drops to uid/gid 65534 (nobody) before it loads the submission, which
    also makes RLIMIT_NPROC bite (root is exempt from it);
  * stdout/stderr are drained by the parent as they come and cut at a cap, so a flood neither
    blocks the child nor fills the grader's memory.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from .challenge import Limits

NOBODY = 65534
_NPROC_ROOT = 512  # processes of uid nobody (threads count too: lockstep cores are threads)
_NPROC_MARGIN = 256  # extra processes over what the user already runs, when not root


@dataclass
class SandboxResult:
    """How the child ended and what it printed."""

    returncode: int | None
    timed_out: bool
    wall_s: float
    stdout: str
    stderr: str
    stdout_dropped: int = 0  # bytes past the cap
    stderr_dropped: int = 0
    isolation: list[str] = field(default_factory=list)

    @property
    def signal(self) -> int | None:
        """The signal that ended the child (from a negative code or a shell-style 128+N)."""
        rc = self.returncode
        if rc is None:
            return None
        if rc < 0:
            return -rc
        if 128 < rc < 128 + 65:
            return rc - 128
        return None


@functools.lru_cache(maxsize=1)
def namespace_prefix() -> tuple[str, ...]:
    """The `unshare` command that gives the child new net/pid/mount namespaces here, or ()."""
    exe = shutil.which("unshare")
    if exe is None or not sys.platform.startswith("linux"):
        return ()
    base = (exe, "--net", "--pid", "--fork", "--kill-child", "--mount-proc")
    tries = [base] if os.geteuid() == 0 else []
    tries.append((exe, "--user", "--map-root-user") + base[1:])
    for cmd in tries:
        try:
            ok = subprocess.run(list(cmd) + ["true"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, timeout=10).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            return cmd
    return ()


def _user_processes() -> int:
    """Processes (and threads) of this user, from /proc (0 if unknown)."""
    uid = os.getuid()
    n = 0
    try:
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if os.stat(f"/proc/{pid}").st_uid == uid:
                        n += len(os.listdir(f"/proc/{pid}/task"))
                except OSError:
                    pass
    except OSError:
        return 0
    return n


def rlimits(limits: Limits, nproc: int | None) -> dict[str, list[int]]:
    """The resource limits the harness applies to itself before it loads the submission
    (soft, hard). Set there rather than in a preexec_fn, which is unsafe in a threaded parent
    (a Dask worker): the harness is the child's first code, so the effect is the same."""
    cpu = max(1, int(limits.cpu_s + 0.999))
    mem = int(limits.memory_mb) * 1024 * 1024
    fsize = int(limits.file_mb) * 1024 * 1024
    out = {"RLIMIT_CPU": [cpu, cpu + 1], "RLIMIT_AS": [mem, mem],
           "RLIMIT_FSIZE": [fsize, fsize], "RLIMIT_CORE": [0, 0]}
    if nproc is not None:
        out["RLIMIT_NPROC"] = [nproc, nproc]
    return out


class _Drain(threading.Thread):
    """Reads a pipe to its end, keeping the first `cap` bytes."""

    def __init__(self, pipe, cap: int) -> None:  # noqa: ANN001
        super().__init__(daemon=True)
        self.pipe = pipe
        self.cap = cap
        self.kept = bytearray()
        self.dropped = 0

    def run(self) -> None:
        try:
            while True:
                chunk = self.pipe.read1(65536) if hasattr(self.pipe, "read1") else \
                    self.pipe.read(65536)
                if not chunk:
                    break
                room = self.cap - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]
                self.dropped += max(0, len(chunk) - max(room, 0))
        except (OSError, ValueError):
            pass

    def text(self) -> str:
        s = self.kept.decode("utf-8", "replace")
        if self.dropped:
            s += f"\n... [{self.dropped:,} more bytes not shown]"
        return s


def child_env(work_dir: str) -> dict[str, str]:
    """The scrubbed environment of the child."""
    return {"PATH": "/usr/bin:/bin", "HOME": work_dir, "TMPDIR": work_dir, "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8", "MPLBACKEND": "Agg", "TQDM_DISABLE": "1",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}


def run_sandboxed(job_dir: str, work_dir: str, limits: Limits, *,
                  namespaces: bool = True) -> SandboxResult:
    """Run the harness on `job_dir` in a contained child; returns when it ends or is killed."""
    prefix = namespace_prefix() if namespaces else ()
    isolation = ["python -I", "scrubbed env", "rlimits cpu/as/fsize/core", "wall timeout"]
    if prefix:
        isolation.append("namespaces net/pid/mount" + (" (user ns)" if "--user" in prefix
                                                       else ""))
    else:
        isolation.append("NO namespaces (unshare unavailable): network not removed")
    if os.geteuid() == 0:
        nproc: int | None = _NPROC_ROOT
        isolation.append(f"uid {NOBODY} + rlimit nproc {_NPROC_ROOT}")
    else:
        seen = _user_processes()
        nproc = seen + _NPROC_MARGIN if seen else None
        if nproc:
            isolation.append(f"rlimit nproc {nproc}")
    with open(os.path.join(job_dir, "limits.json"), "w") as f:
        json.dump(rlimits(limits, nproc), f)
    os.chmod(os.path.join(job_dir, "limits.json"), 0o644)
    cmd = list(prefix) + [sys.executable, "-I", "-m", "ascendlab.grader.harness", job_dir]
    cap = int(limits.output_kb) * 1024
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=work_dir, env=child_env(work_dir), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, close_fds=True)
    out, err = _Drain(proc.stdout, cap), _Drain(proc.stderr, cap)
    out.start()
    err.start()
    timed_out = False
    try:
        proc.wait(timeout=limits.wall_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(proc)
        proc.wait()
    wall = time.perf_counter() - t0
    for d in (out, err):
        d.join(timeout=2.0)
    for p in (proc.stdout, proc.stderr):
        try:
            p.close()
        except OSError:
            pass
    return SandboxResult(returncode=proc.returncode, timed_out=timed_out, wall_s=wall,
                         stdout=out.text(), stderr=err.text(), stdout_dropped=out.dropped,
                         stderr_dropped=err.dropped, isolation=isolation)


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's process group (with namespaces, the namespace dies with it)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


__all__ = ["NOBODY", "SandboxResult", "child_env", "namespace_prefix", "rlimits",
           "run_sandboxed"]
