"""rules.py: the static source rules (with line numbers) and the launch rules."""

from __future__ import annotations

from ascendlab.grader.challenge import Rules
from ascendlab.grader.rules import check_source

RULES = Rules()
OK = '''
import numpy as np
import ascendlab.asc as asc
from ascendlab import launch as run_it

@asc.jit
def k(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)

def launch(x, y, core_num):
    n = np.int32(x.size)
    k[1, asc.lib.runtime.current_stream()](x)
'''


def _msgs(src):
    return [str(v) for v in check_source(src, "s.py", RULES, "launch")]


def test_an_ordinary_submission_passes():
    assert _msgs(OK) == []


def test_imports():
    m = _msgs(OK + "import os\nimport subprocess as sp\nfrom ctypes import CDLL\n")
    assert any("line 14: `import os` is not allowed" in s for s in m), m
    assert any("`import subprocess`" in s for s in m)
    assert any("`from ctypes import ...`" in s for s in m)
    assert _msgs(OK + "import numpy.ctypeslib\n")
    assert _msgs(OK + "from ascendlab import runtime\n")
    assert _msgs(OK + "from . import x\n")


def test_dynamic_code_and_files():
    for bad in ("eval('1')", "exec('x=1')", "open('/etc/passwd')", "__import__('os')",
                "getattr(np, 'ctypeslib')", "globals()['x'] = 1"):
        assert _msgs(OK + bad + "\n"), bad


def test_private_and_dunder_attributes():
    assert any("`.__class__`" in s for s in _msgs(OK + "c = ().__class__\n"))
    assert any("`._sys`" in s for s in _msgs(OK + "s = asc._sys\n"))
    assert any("ascendlab.runtime" in s or "`ascendlab.runtime`" in s
               for s in _msgs(OK + "import ascendlab\nascendlab.runtime\n"))


def test_numpy_inside_a_kernel():
    src = OK.replace("    xg.set_global_buffer(x)\n",
                     "    xg.set_global_buffer(x)\n    y = np.exp(1.0)\n")
    m = _msgs(src)
    assert any("kernel k() uses numpy" in s and "line 10" in s for s in m), m


def test_the_entry_must_exist():
    m = _msgs(OK.replace("def launch(", "def main("))
    assert any("must define launch(...)" in s for s in m)
