"""Which isolation the sandbox can use here, the bubblewrap command line, job identities and
the sweep of what dead graders left behind (sandbox.py runs the child with these)."""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JOB_UID_BASE = 0x2A000000  # private uids of jobs: base + a random 24-bit offset
JOB_PREFIX = "ascendlab-grade-"  # job folders: JOB_PREFIX + "<grader pid>-<job uid>-<random>"
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")


@functools.lru_cache(maxsize=1)
def bwrap() -> str | None:
    """The bubblewrap executable when it can build this sandbox here, else None."""
    exe = shutil.which("bwrap")
    if exe is None or not sys.platform.startswith("linux"):
        return None
    cmd = bwrap_command(exe, "/", "/", 1 << 20) + ["/bin/true"]
    try:
        ok = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return exe if ok else None


@functools.lru_cache(maxsize=1)
def bwrap_version() -> str:
    exe = bwrap()
    if exe is None:
        return ""
    try:
        return subprocess.run([exe, "--version"], capture_output=True, text=True,
                              timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "bubblewrap"


def visible_paths() -> list[str]:
    """What a job may read besides its own folder: the Python installation(s), the
    site-packages on sys.path and the ascendlab package itself (not the repository around
    it: challenge specs and reference solutions stay out of sight), and system libraries."""
    import ascendlab

    paths = {sys.base_prefix, sys.prefix, str(Path(ascendlab.__file__).parent)}
    for p in sys.path:
        if p and ("site-packages" in p or "dist-packages" in p) and os.path.isdir(p):
            paths.add(p)
    for p in ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache",
              "/etc/alternatives", "/sys/devices/system/cpu"):
        if os.path.exists(p):
            paths.add(p)
    real = sorted({os.path.realpath(p) for p in paths} | paths)
    # drop paths inside another bound path (bwrap binds each once)
    out: list[str] = []
    for p in real:
        if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in real):
            out.append(p)
    return out


def bwrap_command(exe: str, job_dir: str, work_dir: str, disk_bytes: int) -> list[str]:
    """bwrap's arguments: namespaces, read-only binds of what a job may see, private tmpfs
    (each at most `disk_bytes`) for the work folder and the scratch folders."""
    cmd = [exe, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
           "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if os.geteuid() != 0:
        cmd.append("--unshare-user")
    if job_dir == "/":  # the probe in bwrap(): the smallest sandbox that runs /bin/true
        return cmd + ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    size = str(int(disk_bytes))
    for d in SCRATCH:  # first: a Python or a clone that lives under /tmp is bound on top
        cmd += ["--perms", "1777", "--size", size, "--tmpfs", d]
    made: set[str] = set()
    for p in visible_paths():
        cmd += _parents(p, made) + ["--ro-bind", p, p]
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    cmd += _parents(work_dir, made) + ["--perms", "1777", "--size", size, "--tmpfs", work_dir]
    cmd += _parents(job_dir, made) + ["--ro-bind", job_dir, job_dir, "--chdir", work_dir]
    return cmd


def _parents(path: str, made: set[str]) -> list[str]:
    """`--dir` (mode 0755) for each missing ancestor of `path`: bubblewrap would create them
    0700, which a job's private uid could not traverse (lazy imports would then fail)."""
    out: list[str] = []
    parts = Path(path).parts[1:-1]
    for k in range(1, len(parts) + 1):
        d = "/" + "/".join(parts[:k])
        if d not in made:
            made.add(d)
            out += ["--perms", "0755", "--dir", d]
    return out


def new_job_uid() -> int | None:
    """A uid no other job uses (root only; None: the child keeps the grader's uid)."""
    if os.geteuid() != 0:
        return None
    return JOB_UID_BASE + secrets.randbelow(1 << 24)


def job_root(uid: int | None) -> str:
    """A fresh job folder (mode 0700), named so that a later grader can tell whose it was."""
    root = tempfile.mkdtemp(prefix=f"{JOB_PREFIX}{os.getpid()}-{uid or 0}-")
    os.chmod(root, 0o700)
    return root


def remove_job(root: str, uid: int | None) -> None:
    """Remove a job folder, and (for a private uid) its processes and scratch files."""
    if uid is not None and uid >= JOB_UID_BASE:
        kill_uid(uid)
        remove_uid_files(uid)
    shutil.rmtree(root, ignore_errors=True)


def kill_uid(uid: int) -> None:
    """SIGKILL every process of `uid` (only ever a job's private uid)."""
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.stat(f"/proc/{pid}").st_uid == uid:
                    os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def remove_uid_files(uid: int) -> None:
    """Delete what `uid` left in the scratch folders (one level: files and folders it owns)."""
    for d in SCRATCH:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            p = os.path.join(d, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if st.st_uid != uid:
                continue
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    os.unlink(p)
                except OSError:
                    pass


def sweep_leftovers(min_age_s: float = 60.0) -> list[str]:
    """Remove job folders (and their uids' processes and files) of graders that are gone:
    folders named JOB_PREFIX<pid>-<uid>-… whose pid no longer runs. Returns what it removed."""
    base = tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    now = time.time()
    for n in names:
        if not n.startswith(JOB_PREFIX):
            continue
        parts = n[len(JOB_PREFIX):].split("-")
        if len(parts) < 3 or not parts[0].isdigit() or not parts[1].isdigit():
            continue
        pid, uid = int(parts[0]), int(parts[1])
        path = os.path.join(base, n)
        try:
            if now - os.lstat(path).st_mtime < min_age_s or _alive(pid):
                continue
        except OSError:
            continue
        remove_job(path, uid if uid >= JOB_UID_BASE else None)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def describe(namespaces_prefix: tuple[str, ...]) -> list[str]:
    """What isolation a job gets here, one phrase each (doctor and Report.sandbox)."""
    out = []
    if bwrap():
        out.append(f"{bwrap_version()}: private mounts (job folder, Python, ascendlab only), "
                   "private tmpfs /tmp /var/tmp /dev/shm, net/pid/ipc namespaces, "
                   "dies with the grader")
    elif namespaces_prefix:
        out.append("unshare: net/pid/mount namespaces"
                   + (" (user ns)" if "--user" in namespaces_prefix else "")
                   + "; no private mounts (bubblewrap not available: apt-get install "
                     "bubblewrap)")
    else:
        out.append("NO namespaces (neither bwrap nor unshare works here): network not removed")
    out.append("private uid per job, folders 0700" if os.geteuid() == 0 else
               "same uid as the grader (run as root for a private uid per job)")
    return out
