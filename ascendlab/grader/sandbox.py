"""The child process a submission runs in, and what the grader does to contain it.

    result = run_sandboxed(job, limits)          # SandboxResult: exit, timeout, output, records

Each job gets (each where the OS allows it; `describe()` and Report.sandbox say what was):
  * bubblewrap (Debian's `bwrap`, Flatpak's sandbox) when it works here: new PID, network,
    IPC and UTS namespaces; a mount namespace in which only the Python installation, the
    ascendlab package and the job's own folder exist (read-only), with private size-bounded
    tmpfs for the work folder, /tmp, /var/tmp and /dev/shm (gone when the job ends), a fresh
    /proc and a minimal /dev; `--die-with-parent` (the child dies with the grader) and
    `--new-session`. Other jobs' folders, the repository (challenge specs, references) and
    the rest of the disk are not there at all;
  * otherwise `unshare` (util-linux) for new network, PID and mount namespaces (the previous
    path, kept as the documented fallback), and no private mounts;
  * a private identity: as root, the child drops to a uid/gid of its own (JOB_UID_BASE + a
    random offset) after it has loaded Python, so no two jobs share a uid; the job's folder
    belongs to that uid with mode 0700. Files the job leaves in /tmp, /var/tmp or /dev/shm
    (fallback path) are found by that uid and removed, and so are those of graders that died
    (`sweep_leftovers`, at the start of every grade);
  * `python -I` (no user site, no PYTHON* variables), a scrubbed environment, its own
    session, cwd in its work folder; resource limits applied by the harness (RLIMIT_CPU, _AS,
    _FSIZE, _NPROC, _CORE 0) and PR_SET_PDEATHSIG (SIGKILL when the grader dies);
  * a wall-clock timeout in the parent, after which the whole process group is killed;
  * records come back through a pipe the grader created (channel.py), never through files the
    child could replace; stdout/stderr are drained as they come and cut at a cap.
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
from collections.abc import Callable
from dataclasses import dataclass, field

from . import isolation
from .challenge import Limits
from .channel import Channel
from .replay.budget import CLOCK

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
    channel: Channel | None = None  # the records the child sent

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


def describe(namespaces: bool = True) -> list[str]:
    """The isolation a job gets on this machine, one phrase each (`ascendlab doctor`)."""
    return isolation.describe(namespace_prefix() if namespaces else ())


def run_sandboxed(job_dir: str, work_dir: str, limits: Limits, *, namespaces: bool = True,
                  uid: int | None = None, max_frames: int = 1024,
                  bwrap: bool = True,
                  while_running: Callable[[Channel, threading.Event], None] | None = None,
                  ) -> SandboxResult:
    """Run the harness on `job_dir` in a contained child; returns when it ends or is killed.
    `uid`: the job's private uid (the harness drops to it); records come back through a pipe
    (SandboxResult.channel). bwrap=False takes the unshare fallback even where bubblewrap
    works. `while_running(channel, ended)` is called in this thread while the child runs (a
    waiter thread keeps the wall limit; `ended` is set when the child is gone): the grader
    judges the records that have arrived; if it raises, the child is killed."""
    bw = isolation.bwrap() if namespaces and bwrap else None
    prefix: tuple[str, ...] = () if bw or not namespaces else namespace_prefix()
    isolation_notes = ["python -I", "scrubbed env", "rlimits cpu/as/fsize/core", "wall timeout",
                       "records through a pipe"]
    disk = int(limits.disk_mb) * 1024 * 1024
    if bw:
        wrap = isolation.bwrap_command(bw, job_dir, work_dir, disk)
        isolation_notes.append(f"bubblewrap: private mounts and tmpfs ({limits.disk_mb} MiB "
                               "each), net/pid/ipc namespaces, dies with the grader")
    elif prefix:
        wrap = list(prefix)
        isolation_notes.append("unshare: net/pid/mount namespaces"
                               + (" (user ns)" if "--user" in prefix else ""))
    else:
        wrap = []
        isolation_notes.append("NO namespaces (neither bwrap nor unshare here): network not "
                               "removed")
    if os.geteuid() == 0:
        nproc: int | None = _NPROC_ROOT
        isolation_notes.append(f"private uid {uid} + rlimit nproc {_NPROC_ROOT}" if uid
                               else f"uid {NOBODY} + rlimit nproc {_NPROC_ROOT}")
    else:
        seen = _user_processes()
        nproc = seen + _NPROC_MARGIN if seen else None
        if nproc:
            isolation_notes.append(f"rlimit nproc {nproc}")
    limits_path = os.path.join(job_dir, "limits.json")
    with open(limits_path, "w") as f:
        json.dump(rlimits(limits, nproc), f)
    read_end, write_end = os.pipe()
    _widen(write_end)
    channel = Channel(read_end, max_record=int(limits.record_mb) * 1024 * 1024,
                      max_total=int(limits.records_mb) * 1024 * 1024, max_frames=max_frames,
                      max_events=limits.max_events, max_events_total=limits.max_events_total)
    cmd = wrap + [sys.executable, "-I", "-m", "ascendlab.grader.harness", job_dir,
                  str(write_end)]
    cap = int(limits.output_kb) * 1024
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, cwd=work_dir, env=child_env(work_dir),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
                                pass_fds=(write_end,))
    finally:
        os.close(write_end)  # the child holds the only write end: EOF when it is gone
    channel.start()
    out, err = _Drain(proc.stdout, cap), _Drain(proc.stderr, cap)
    out.start()
    err.start()
    timed_out = threading.Event()
    ended = threading.Event()

    def wait() -> None:
        try:
            proc.wait(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out.set()
        finally:
            _kill_group(proc)
            CLOCK.child_ended()  # the judge's budget: at most judge_s more seconds
            ended.set()

    try:
        if while_running is None:
            wait()
        else:
            waiter = threading.Thread(target=wait, daemon=True)
            waiter.start()
            try:
                while_running(channel, ended)
            except BaseException:
                _kill_group(proc)  # the callback failed: do not wait for the child
                raise
            finally:
                waiter.join()
    finally:
        _kill_group(proc)
        proc.wait()
        if uid is not None:
            isolation.kill_uid(uid)  # whatever escaped the process group
    wall = time.perf_counter() - t0
    for d in (out, err):
        d.join(timeout=2.0)
    channel.join(timeout=5.0)
    for p in (proc.stdout, proc.stderr):
        try:
            p.close()
        except OSError:
            pass
    return SandboxResult(returncode=proc.returncode, timed_out=timed_out.is_set(), wall_s=wall,
                         stdout=out.text(), stderr=err.text(), stdout_dropped=out.dropped,
                         stderr_dropped=err.dropped, isolation=isolation_notes,
                         channel=channel)


def _widen(fd: int) -> None:
    """A 1 MiB pipe (Linux; the default is 64 KiB): the channel thread then wakes, and takes
    the GIL from a judge judging in the main thread, once per MiB of records rather than per
    64 KiB, so the child does not stall on a full pipe while the grader judges."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):
        pass  # the default size: slower under overlap, same records


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's process group (with namespaces, the namespace dies with it)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


__all__ = ["NOBODY", "SandboxResult", "child_env", "describe", "namespace_prefix", "rlimits",
           "run_sandboxed"]
