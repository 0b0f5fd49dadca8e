"""Which isolation the sandbox can use here, the bubblewrap command line, job identities and
the sweep of what dead graders left behind (sandbox.py runs the child with these)."""

from __future__ import annotations

import functools
import json
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JOB_UID_BASE = 0x2A000000  # private uids of jobs: base + a random 24-bit offset
JOB_PREFIX = "ascendlab-grade-"  # job folders: JOB_PREFIX + "<grader pid>-<random>"
REGISTRY_PREFIX = "ascendlab-jobs-"  # the registry: REGISTRY_PREFIX + "<grader euid>"
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


def registry() -> str | None:
    """The folder where this user's graders register their job folders (in the temporary
    folder, named for the effective uid), created 0700; None when it is not this user's own
    private folder (someone else made it first, or it is a symlink): then nothing is registered
    and nothing is swept, rather than trusting it."""
    d = os.path.join(tempfile.gettempdir(), f"{REGISTRY_PREFIX}{os.geteuid()}")
    try:
        os.mkdir(d, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(d)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        return None
    return d


def job_root(uid: int | None) -> str:
    """A fresh job folder (mkdtemp: created with O_EXCL semantics, mode 0700), registered (with
    the job's uid and this process's pid) for a later grader's sweep."""
    root = tempfile.mkdtemp(prefix=f"{JOB_PREFIX}{os.getpid()}-")
    os.chmod(root, 0o700)
    _register(root, uid, os.getpid())
    return root


def _register(root: str, uid: int | None, pid: int) -> None:
    """Record a job folder in the registry: a new file (O_EXCL, 0600) the grader writes and
    only it can change; the sweep reads nothing else."""
    reg = registry()
    if reg is None:
        return
    entry = os.path.join(reg, os.path.basename(root) + ".json")
    try:
        fd = os.open(entry, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    with os.fdopen(fd, "w") as f:
        json.dump({"pid": pid, "uid": uid, "root": root}, f)


def _unregister(root: str) -> None:
    reg = registry()
    if reg is not None:
        try:
            os.unlink(os.path.join(reg, os.path.basename(root) + ".json"))
        except OSError:
            pass


def _job_uid(uid: object) -> int | None:
    """A registered uid when it is a job's private uid (never anything else: no sweep ever
    kills the processes of a real user)."""
    if type(uid) is int and JOB_UID_BASE <= uid < JOB_UID_BASE + (1 << 24):
        return uid
    return None


def remove_job(root: str, uid: int | None) -> None:
    """Remove a job folder, and (for a private uid) its processes and scratch files; then its
    registry entry."""
    uid = _job_uid(uid)
    if uid is not None:
        kill_uid(uid)
        remove_uid_files(uid)
    shutil.rmtree(root, ignore_errors=True)
    _unregister(root)


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
    """Remove the job folders (and their uids' processes and files) that graders of this user
    registered and left behind when they died: registry entries whose pid no longer runs.
    Folder names are never read for a pid or a uid, and a folder is removed only when it is
    the registered one: directly in the temporary folder, named JOB_PREFIX…, a real folder
    owned by this user or by the registered job uid. Returns what it removed."""
    reg = registry()
    removed: list[str] = []
    if reg is None:
        return removed
    try:
        names = os.listdir(reg)
    except OSError:
        return removed
    now = time.time()
    base = tempfile.gettempdir()
    for n in names:
        entry = os.path.join(reg, n)
        info = _entry(entry)
        if info is None:
            continue
        pid, uid, root, mtime = info
        if now - mtime < min_age_s or _alive(pid):
            continue
        ok_root = (os.path.dirname(root) == base and os.path.basename(root) + ".json" == n
                   and os.path.basename(root).startswith(JOB_PREFIX))
        if ok_root:
            try:
                st = os.lstat(root)
                ok_root = stat.S_ISDIR(st.st_mode) and st.st_uid in (os.geteuid(), uid)
            except OSError:
                ok_root = False  # gone already: drop the entry, kill the registered uid
                if _job_uid(uid) is not None:
                    kill_uid(uid)
                    remove_uid_files(uid)
        if ok_root:
            remove_job(root, uid)
            removed.append(root)
        try:
            os.unlink(entry)
        except OSError:
            pass
    return removed


def _entry(path: str) -> tuple[int, int | None, str, float] | None:
    """(pid, job uid, folder, mtime) of a registry entry: a small regular file of ours."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size > 4096:
            return None
        d = json.loads(os.read(fd, 4096))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    if (type(d) is not dict or type(d.get("pid")) is not int or type(d.get("root")) is not str
            or not (d.get("uid") is None or type(d.get("uid")) is int)):
        return None
    return d["pid"], _job_uid(d.get("uid")), d["root"], st.st_mtime


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
