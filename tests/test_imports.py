"""The names a newcomer types first: `import ascendlab` then ascendlab.grader.check(...) /
ascendlab.viz...., and check() staying a function however often it is imported or called."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import importlib, ascendlab
check = ascendlab.grader.check              # a bare `import ascendlab` reaches the grader
assert callable(check), type(check)
import ascendlab.grader.check               # importing the submodule again
importlib.import_module("ascendlab.grader.check")
from ascendlab.grader import check as again
assert ascendlab.grader.check is check is again, ascendlab.grader.check
assert callable(ascendlab.viz.timeline)
try:
    ascendlab.nonexistent
except AttributeError as e:
    assert "nonexistent" in str(e)
else:
    raise SystemExit("no AttributeError")
print("ok")
"""


def test_grader_check_stays_a_function_after_a_bare_import():
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
