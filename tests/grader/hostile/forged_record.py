# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE (the "cheat-fd" of GPU MODE): takes the harness's record channel (its file
# descriptor is on the command line) and sends its own records, claiming a kernel whose trace
# sets every output element with set_value of the right value, then leaves before the harness
# can send the real ones.
import json
import os
import sys

import numpy as np

import ascendlab.grader.wire as wire
from ascendlab.grader.channel import send


def launch(x, y, z, core_num):
    job = json.load(open("../job/job.json"))
    for case in job["cases"]:
        xs = np.load(case["inputs"]["x"])
        ys = np.load(case["inputs"]["y"])
        ans = (xs + ys).reshape(-1)
        zz = ans.copy()
        base = (1 << 40)
        gm = [["x", base, xs.nbytes, "float16", list(xs.shape)],
              ["y", base * 2, ys.nbytes, "float16", list(ys.shape)],
              ["z", base * 3, zz.nbytes, "float16", list(zz.shape)]]
        events = [[0, "S", "set_value", [], [["GM", base * 3 + 2 * k, 2, 0, 1, 0]], 1,
                   "float16", 0, 1, 1, None, [["value", float(v)]]] for k, v in enumerate(ans)]
        run = {"format": wire.FORMAT, "version": wire.VERSION, "kernel": "k", "chip": case["chip"],
               "block_num": 1, "core_kind": "aiv", "auto_sync": True, "gm": gm,
               "strings": ["z", "forged.py"], "events": events}
        hashes = {"x": wire.digest(xs), "y": wire.digest(ys), "z": wire.digest(ans)}
        rec = {"error": None, "launches": 1, "mapping": [["x", "x"], ["y", "y"], ["z", "z"]],
               "hashes": hashes, "run": run, "elapsed_s": 0.0, "case": case["key"]}
        send(int(sys.argv[2]), "case", json.dumps(rec).encode())
    os._exit(0)
