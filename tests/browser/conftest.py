"""Fixtures of the real-browser tests: JupyterLab started by `ascendlab lab` on 127.0.0.1 with a
token, Debian's Chromium driven by Python Playwright (the system browser: no `playwright
install`). Both are stopped on every path. Without Chromium, Playwright or JupyterLab the tests
skip with the reason — except in CI's extras pass (ASCENDLAB_CI_PASS=extras, set by .ci/run
after it installs them), where they fail instead.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("ASCENDLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]
SERVER_START_S = 90  # a loaded 2-core machine starts JupyterLab in 5-20 s


def _unavailable(reason: str) -> None:
    if os.environ.get("ASCENDLAB_CI_PASS") == "extras":
        pytest.fail(f"{reason} (CI's extras pass installs it: see .ci/run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go: $ASCENDLAB_ARTIFACTS or test-artifacts/browser (git-ignored)."""
    d = Path(os.environ.get("ASCENDLAB_ARTIFACTS", ROOT / "test-artifacts" / "browser"))
    d.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser test screenshots: {d}")
    return d


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_up(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"JupyterLab did not answer {url} in {SERVER_START_S} s:\n"
                       f"{log.read_text()}")


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """`ascendlab lab --no-browser` on a free port, with a token and private Jupyter dirs."""
    if shutil.which("ascendlab") is None and not Path(sys.executable).with_name(
            "ascendlab").exists():
        pytest.fail("the `ascendlab` command is not installed in this environment")
    if __import__("importlib").util.find_spec("jupyterlab") is None:
        _unavailable("jupyterlab is not installed (pip install -e \".[lab]\")")
    tmp = tmp_path_factory.mktemp("lab")
    token, port = secrets.token_hex(16), _free_port()
    # fresh, private Jupyter folders; the news pop-up is `ascendlab lab`'s to turn off (a test
    # checks that it does)
    env = dict(os.environ, JUPYTER_TOKEN=token, JUPYTER_CONFIG_DIR=str(tmp / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), IPYTHONDIR=str(tmp / "ipython"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"), JUPYTERLAB_WORKSPACES_DIR=str(
                   tmp / "workspaces"), MPLBACKEND="Agg", TQDM_DISABLE="1")
    exe = Path(sys.executable).with_name("ascendlab")
    cmd = [str(exe), "lab", "--no-browser", "--port", str(port), "--dir", str(tmp / "course"),
           "--", "--expose-app-in-browser"]
    log = tmp / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_up(f"{base}/api/status?token={token}", proc, log)
        yield {"base": base, "token": token, "course": tmp / "course", "log": log}
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the server's process group (it and its kernels), SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
    except ProcessLookupError:
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Debian's Chromium under Playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Python playwright is not installed (pip install playwright)")
    if not os.access(CHROMIUM, os.X_OK):
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()
