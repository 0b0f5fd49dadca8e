# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: pretends everything went fine by exiting with status 0.
import sys


def launch(x, y, z, core_num):
    run(x, y, z)
    sys.exit(0)
