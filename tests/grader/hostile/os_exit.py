# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: exits the process from the inside, skipping the harness's bookkeeping.
import os


def launch(x, y, z, core_num):
    os._exit(0)
