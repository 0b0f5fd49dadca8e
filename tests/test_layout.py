"""The layout's rules: the machine (ascendlab/runtime/) imports none of its readers
(ascendlab/analysis/, ascendlab/tools/, ascendlab/viz/) nor the grader; they register with the
trace (trace.register_reader) instead. The analysis reads the runtime only through the trace
(runtime.trace, with its op registry trace.OPS) and the chips' numbers (runtime.chips)."""

from __future__ import annotations

import ast
from pathlib import Path

import ascendlab

PKG = Path(ascendlab.__file__).parent
READERS = ("analysis", "tools", "viz", "grader")


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in `path`, relative ones resolved."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    package = list(rel.parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.append((node.lineno, mod))
    return out


def test_runtime_imports_no_reader():
    bad = [f"{path.relative_to(PKG.parent)}:{line} imports {mod}"
           for path in sorted((PKG / "runtime").glob("*.py"))
           for line, mod in _imports(path)
           if any(mod == f"ascendlab.{r}" or mod.startswith(f"ascendlab.{r}.")
                  for r in READERS)]
    assert not bad, "\n".join(bad)


ANALYSIS_MAY_IMPORT = ("ascendlab.runtime.trace", "ascendlab.runtime.chips")


def test_analysis_imports_only_the_trace_and_the_chips_of_the_runtime():
    bad = [f"{path.relative_to(PKG.parent)}:{line} imports {mod}"
           for path in sorted((PKG / "analysis").glob("*.py"))
           for line, mod in _imports(path)
           if (mod == "ascendlab.runtime" or mod.startswith("ascendlab.runtime."))
           and mod not in ANALYSIS_MAY_IMPORT]
    assert not bad, "\n".join(bad)


def test_readers_registered_on_import():
    from ascendlab.runtime import trace

    assert {"cost", "sanitize", "chrome_trace"} <= set(trace.READERS)


def test_import_rule_sees_relative_imports(tmp_path):
    """The checker resolves `from ..analysis import x` inside runtime/ (so it can fail)."""
    probe = PKG / "runtime" / "trace.py"
    assert ("ascendlab.runtime.chips" in {m for _, m in _imports(probe)})


def test_importing_the_runtime_registers_every_op():
    """The cost of a trace depends on the trace alone: `import ascendlab.runtime` (which
    trace.py's users get) already registers every op some module of the package defines."""
    import subprocess
    import sys

    code = ("import json, ascendlab.runtime, ascendlab.runtime.trace as t; "
            "print(json.dumps(sorted(t.OPS)))")
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
    import importlib
    import json
    import pkgutil

    from ascendlab.runtime.trace import OPS

    for m in pkgutil.walk_packages(ascendlab.__path__, "ascendlab."):
        if not m.name.endswith("__main__"):
            importlib.import_module(m.name)
    missing = sorted(set(OPS) - set(json.loads(first)))
    assert not missing, [(n, OPS[n].module) for n in missing]
