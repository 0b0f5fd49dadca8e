# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: sends a huge crafted record through the record channel before the harness's own.
import sys

from ascendlab.grader.channel import send


def launch(x, y, z, core_num):
    blob = b"[" + b"[[]]," * (8 << 20) + b"0]"  # 40 MiB of tiny nested lists
    send(int(sys.argv[2]), "case", blob)
    run(x, y, z)
