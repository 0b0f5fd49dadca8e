# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: a wrong kernel (z = x - y) that loads the challenge's spec in its own process and
# patches the reference to match itself. The grader's reference lives in the grader.
import os

import ascendlab
import ascendlab.grader.challenge as challenge

base = os.path.dirname(os.path.dirname(ascendlab.__path__[0]))
for dirpath, _dirs, files in os.walk(base):
    if dirpath.endswith("mini") and "spec.py" in files:
        spec = challenge.load_challenge(dirpath).spec
        object.__setattr__(spec, "reference", lambda inputs, **p: inputs["x"] - inputs["y"])


def launch(x, y, z, core_num):
    run(x, y, z, op="sub")
