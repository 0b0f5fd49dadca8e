# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: computes every case honestly, then kills its own process after the harness sent
# the last record: the grade must not ignore how the child ended.
import atexit
import os
import signal

atexit.register(lambda: os.kill(os.getpid(), signal.SIGKILL))


def launch(x, y, z, core_num):
    run(x, y, z)
