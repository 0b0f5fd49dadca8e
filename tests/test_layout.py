"""The layout's rules: the machine (ascendlab/runtime/) imports none of its readers
(ascendlab/analysis/, ascendlab/tools/, ascendlab/viz/) nor the grader; they register with the
trace (trace.register_reader) instead. The analysis reads the runtime only through the trace
(runtime.trace, with its op registry trace.OPS) and the chips' numbers (runtime.chips), and
nothing of tools/. The runtime is cut into rooms (subpackages) whose imports form no circle;
no module outgrows 450 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import ascendlab

PKG = Path(ascendlab.__file__).parent
READERS = ("analysis", "tools", "viz", "grader")


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """Lines inside `if TYPE_CHECKING:` blocks: imports there never run."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def _imports(path: Path, modules: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in `path` that runs (at import time or inside a
    function), relative ones resolved; `from pkg import name` counts as an import of the
    module pkg.name when that is one of `modules`."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    package = list(rel.parts[:-1]) if rel.name != "__init__" else list(rel.parts[:-1])
    tree = ast.parse(path.read_text())
    typing_only = _type_checking_lines(tree)
    out = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in modules]
            out += [(node.lineno, m) for m in subs] or [(node.lineno, mod)]
    return out


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _graph(root: str) -> dict[str, set[str]]:
    """module -> the modules of ascendlab it imports, for the modules under `root`."""
    names = frozenset(MODULES)
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        if name == root or name.startswith(root + "."):
            graph[name] = {m for _, m in _imports(path, names) if m in names and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(graph.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def test_runtime_imports_no_reader():
    bad = [f"{path.relative_to(PKG.parent)}:{line} imports {mod}"
           for path in sorted((PKG / "runtime").rglob("*.py"))
           for line, mod in _imports(path)
           if any(mod == f"ascendlab.{r}" or mod.startswith(f"ascendlab.{r}.")
                  for r in READERS)]
    assert not bad, "\n".join(bad)


ANALYSIS_MAY_IMPORT = ("ascendlab.runtime.trace", "ascendlab.runtime.chips")


def test_analysis_imports_nothing_of_tools():
    """The model does not reach up into what is built on it: tools/ registers its Chrome-trace
    export with the trace (tools/__init__.py) instead."""
    bad = [f"{path.relative_to(PKG.parent)}:{line} imports {mod}"
           for path in sorted((PKG / "analysis").rglob("*.py"))
           for line, mod in _imports(path)
           if mod == "ascendlab.tools" or mod.startswith("ascendlab.tools.")]
    assert not bad, "\n".join(bad)


def test_tools_read_runs_and_the_cli_helpers_live_with_the_cli():
    """tools/ holds the readers of a Run (profile, advisor, hot lines, autotune, Chrome trace);
    `ascendlab lab` and `ascendlab doctor` live in cli/, beside the command that uses them."""
    tools = {p.stem for p in (PKG / "tools").glob("*.py")} - {"__init__"}
    tools |= {p.parent.name for p in (PKG / "tools").glob("*/__init__.py")}  # advisor/
    assert tools == {"advisor", "autotune", "chrome_trace", "hotlines", "profile"}, tools
    assert {"lab", "doctor", "main"} <= {p.stem for p in (PKG / "cli").glob("*.py")}


RUNTIME_TOP_MAX = 12


def test_runtime_is_cut_into_rooms():
    """At most 12 modules at runtime/'s top (the foundation every room uses), at least 3
    rooms, and each room and top-level module named in runtime/README.md's map."""
    top = sorted(p.name for p in (PKG / "runtime").glob("*.py"))
    rooms = sorted(p.name for p in (PKG / "runtime").iterdir()
                   if p.is_dir() and (p / "__init__.py").exists())
    assert len(top) <= RUNTIME_TOP_MAX, top
    assert len(rooms) >= 3, rooms
    readme = (PKG / "runtime" / "README.md").read_text()
    missing = [f"`{n}`" for n in top if n != "__init__.py" and f"`{n}`" not in readme]
    missing += [f"`{r}/`" for r in rooms if f"`{r}/`" not in readme]
    assert not missing, f"not in runtime/README.md's map: {missing}"


def _room(module: str) -> str:
    """The runtime room of a module (its subpackage), or "" for a top-level module."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 else ""


def test_no_import_circle_across_packages():
    """No circle of imports (at import time or inside a function) joins modules of two
    packages; inside ascendlab/ a circle may only stay within one package."""
    bad = [c for c in _cycles(_graph("ascendlab"))
           if len({m.rsplit(".", 1)[0] if m not in {"ascendlab"} else m for m in c}) > 1]
    assert not bad, bad


def test_runtime_rooms_import_downward_only():
    """The rooms form a hierarchy: no two rooms import each other, directly or around a loop,
    and the top level (the foundation) imports no room (the package's __init__ aside, which
    imports every op-defining module so trace.OPS is complete)."""
    graph = _graph("ascendlab.runtime")
    rooms: dict[str, set[str]] = {}
    edges = []
    for mod, deps in graph.items():
        if mod == "ascendlab.runtime":
            continue
        for dep in deps:
            if dep.startswith("ascendlab.runtime.") and _room(dep) != _room(mod):
                rooms.setdefault(_room(mod) or "<top>", set()).add(_room(dep) or "<top>")
                edges.append(f"{mod} -> {dep}")
    up = [e for e in edges if _room(e.split(" -> ")[0]) == ""]
    assert not up, f"top-level modules importing a room: {up}"
    rooms = {k: v - {"<top>"} for k, v in rooms.items() if k != "<top>"}
    assert not _cycles(rooms), (_cycles(rooms), sorted(edges))


def test_the_circle_check_can_fail():
    """The checks above see a circle when there is one (so they can fail)."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert not _cycles({"a": {"b"}, "b": set()})
    tpipe = {m for _, m in _imports(MODULES["ascendlab.runtime.framework.tpipe"],
                                    frozenset(MODULES))}
    assert "ascendlab.runtime.framework.queue" in tpipe
    # `from .. import core` is an import of the module runtime.core, not of the package
    checks = {m for _, m in _imports(MODULES["ascendlab.runtime.memory.checks"],
                                     frozenset(MODULES))}
    assert "ascendlab.runtime.core" in checks


MAX_LINES = 450


def test_no_module_outgrows_its_job():
    big = [f"{p.relative_to(PKG.parent)}: {n} lines" for p in sorted(PKG.rglob("*.py"))
           if (n := len(p.read_text().splitlines())) > MAX_LINES]
    assert not big, big


def test_analysis_imports_only_the_trace_and_the_chips_of_the_runtime():
    bad = [f"{path.relative_to(PKG.parent)}:{line} imports {mod}"
           for path in sorted((PKG / "analysis").rglob("*.py"))
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
