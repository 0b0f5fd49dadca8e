"""The README's code is real: its kernel example runs and its commands exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_kernel_example_runs(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "README has no python example"
    script = tmp_path / "readme_example.py"
    script.write_text(blocks[0])
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "vadd on Ascend910B2, 8 aiv cores" in r.stdout


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "<!-- test-command -->" in ci and "<!-- test-command -->" in README
    after = README.split("<!-- test-command -->", 1)[1]
    assert "python -m pytest" in after.split("```")[1]


def test_readme_main_command_script_exists():
    assert "ascendlab pyasc examples/vadd.py" in README
    assert (ROOT / "examples" / "vadd.py").is_file()
