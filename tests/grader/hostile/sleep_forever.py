# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: blocks without using CPU.
import time


def launch(x, y, z, core_num):
    time.sleep(10_000)
