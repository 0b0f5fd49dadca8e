# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: floods stdout (64 MiB) and stderr, then computes honestly.
import sys

LINE = "x" * 1023 + "\n"


def launch(x, y, z, core_num):
    sys.stdout.write(LINE * 65536)
    sys.stderr.write(LINE * 1024)
    run(x, y, z)
