# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: sends status frames of its own (forged privileges, a 6 MiB one) through the
# record channel, hoping the grader reports them as what its sandbox applied.
import sys

from ascendlab.grader.channel import send_json

send_json(int(sys.argv[2]), "status", {"privileges": "FORGED: dropped to uid 0"})


_sent = []


def launch(x, y, z, core_num):
    if not _sent:  # once: the channel allows a few frames beyond the harness's own
        _sent.append(1)
        send_json(int(sys.argv[2]), "status", {"privileges": "F" * (6 << 20)})
    run(x, y, z)
