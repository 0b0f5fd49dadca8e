"""The rules: what a submission's source may contain, and what its recorded launch may do.

Static (the source, before anything runs): imports from an allow-list, no dynamic code or
file access builtins (eval, exec, open, __import__, getattr, ...), no private or dunder
attributes (the usual ways around an import check), no numpy inside @asc.jit kernels (kernels
compute with emulated instructions only), and the entry function exists. The static check
gives early, precise messages; it is not what makes cheating pointless (that is the replay,
see judge.py): a determined submission can get around an AST check, never around the replay.

Dynamic (the replayed launch): chip, core kind, block_num range, kernel arguments that are the
challenge's arrays, ops from the allowed set, no scalar GM access, read-only inputs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from ..runtime.trace import Event
from .challenge import Rules
from .wire import RunMeta

FORBIDDEN_BUILTINS = frozenset({
    "eval", "exec", "compile", "open", "__import__", "globals", "locals", "vars", "getattr",
    "setattr", "delattr", "input", "breakpoint", "exit", "quit", "help", "__builtins__",
    "memoryview",
})
# what `import ascendlab` may reach: the pyasc surface and the launch helpers
ASCENDLAB_PUBLIC = frozenset({"asc", "launch", "last_run", "get_chip", "configure", "profile",
                              "CHIPS", "MODEL_VERSION", "RunOptions", "autotune", "sanitize",
                              "precision"})
NUMPY_SUBMODULES_DENIED = frozenset({"ctypeslib", "distutils", "f2py", "testing", "lib"})


@dataclass(frozen=True)
class Violation:
    """A broken rule: what, where, and what to do instead."""

    message: str
    line: int = 0

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


def _allowed_module(name: str, allowed: frozenset[str]) -> bool:
    if name in allowed:
        return True
    parts = name.split(".")
    if parts[0] == "numpy" and "numpy" in allowed:
        return not (len(parts) > 1 and parts[1] in NUMPY_SUBMODULES_DENIED)
    if name.startswith(("ascendlab.asc.", "asc.")):
        return "ascendlab.asc" in allowed or "asc" in allowed
    return False


def _is_jit(dec: ast.expr) -> bool:
    node = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(node, ast.Attribute):
        return node.attr == "jit"
    return isinstance(node, ast.Name) and node.id == "jit"


def check_source(source: str, filename: str, rules: Rules, entry: str) -> list[Violation]:
    """Static violations of `source` (empty when it passes). Raises SyntaxError if it does not
    parse (the caller reports that as the learner's error, not as a rule)."""
    tree = ast.parse(source, filename)
    out: list[Violation] = []
    numpy_names: set[str] = set()
    ascendlab_names: set[str] = set()
    allowed = rules.imports
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if not _allowed_module(a.name, allowed):
                    out.append(Violation(f"`import {a.name}` is not allowed; allowed modules: "
                                         f"{', '.join(sorted(allowed))}", node.lineno))
                bound = a.asname or a.name.split(".")[0]
                if a.name.split(".")[0] == "numpy":
                    numpy_names.add(bound)
                if a.name == "ascendlab" or (a.asname is None and a.name.startswith("ascendlab.")):
                    ascendlab_names.add(bound)
        elif isinstance(node, ast.ImportFrom):
            mod = "." * node.level + (node.module or "")
            if node.level or not _allowed_module(mod, allowed):
                out.append(Violation(f"`from {mod} import ...` is not allowed; allowed modules: "
                                     f"{', '.join(sorted(allowed))}", node.lineno))
                continue
            for a in node.names:
                if a.name == "*":
                    out.append(Violation(f"`from {mod} import *` hides what is used; import "
                                         "names explicitly", node.lineno))
                elif mod == "ascendlab" and a.name not in ASCENDLAB_PUBLIC:
                    out.append(Violation(f"`from ascendlab import {a.name}` is not allowed; "
                                         f"use ascendlab.asc (pyasc's API) and "
                                         f"{', '.join(sorted(ASCENDLAB_PUBLIC - {'asc'}))}",
                                         node.lineno))
                elif mod == "numpy" and a.name in NUMPY_SUBMODULES_DENIED:
                    out.append(Violation(f"numpy.{a.name} is not allowed", node.lineno))
                if mod == "numpy" or mod.startswith("numpy."):
                    numpy_names.add(a.asname or a.name)
        elif isinstance(node, ast.Name):
            if node.id in FORBIDDEN_BUILTINS:
                out.append(Violation(f"`{node.id}` is not allowed in a submission (no dynamic "
                                     "code, no file or attribute tricks)", node.lineno))
            elif node.id.startswith("__") and node.id != "__name__":
                out.append(Violation(f"`{node.id}` is not allowed (dunder names reach "
                                     "interpreter internals)", node.lineno))
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                out.append(Violation(f"`.{node.attr}`: private and dunder attributes are not "
                                     "allowed; use the public pyasc API", node.lineno))
            elif isinstance(node.value, ast.Name) and node.value.id in ascendlab_names and (
                    node.attr not in ASCENDLAB_PUBLIC):
                out.append(Violation(f"`{node.value.id}.{node.attr}` is not allowed; use "
                                     "ascendlab.asc (pyasc's API) and the launch helpers",
                                     node.lineno))
            elif isinstance(node.value, ast.Name) and node.value.id in numpy_names and (
                    node.attr in NUMPY_SUBMODULES_DENIED):
                out.append(Violation(f"`{node.value.id}.{node.attr}` is not allowed",
                                     node.lineno))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _is_jit(d) for d in node.decorator_list):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and sub.id in numpy_names:
                    out.append(Violation(f"kernel {node.name}() uses numpy (`{sub.id}`): "
                                         "kernels compute with emulated instructions only "
                                         "(asc.add, asc.exp, ...); do host-side numpy in "
                                         f"{entry}()", sub.lineno))
                    break
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef,
                                                            ast.AsyncFunctionDef))}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                if isinstance(t, ast.Name)}
    if entry not in defined:
        out.append(Violation(f"the submission must define {entry}(...) at module level: the "
                             f"grader calls it once per case"))
    seen: set[tuple[str, int]] = set()
    uniq = []
    for v in sorted(out, key=lambda v: v.line):
        if (v.message, v.line) not in seen:
            seen.add((v.message, v.line))
            uniq.append(v)
    return uniq


# ---- the launch ----------------------------------------------------------------------------
def block_advice(lo: int, hi: int) -> str:
    """What to launch, for the allowed block_num range [lo, hi]."""
    if lo == hi:
        return f"launch exactly {hi} block{'s' * (hi != 1)}"
    if lo <= 1:
        return f"launch at most {hi} blocks"
    return f"launch between {lo} and {hi} blocks"


def check_launch(meta: RunMeta, events: Iterable[Event], rules: Rules, chip: str,
                 mapping: dict[str, str | None], arrays: dict[str, tuple[int, str, tuple]],
                 inputs: tuple[str, ...]) -> list[Violation]:
    """Rules on the recorded launch. mapping: GM parameter name -> challenge array name (None
    for an argument that is none of them); arrays: name -> (nbytes, dtype)."""
    out: list[Violation] = []
    if meta.chip != chip:
        out.append(Violation(f"the kernel ran on {meta.chip}, but this case runs on {chip}: do "
                             "not call set_platform/configure(chip=...) in a submission"))
    if meta.core_kind != rules.core_kind:
        want = {"aiv": "vector (AIV)", "aic": "cube (AIC)",
                "mix": "MIX (cube and vector, e.g. asc.adv.Matmul with a vector epilogue)"}
        out.append(Violation(f"the kernel ran on {meta.core_kind.upper()} cores; this challenge "
                             f"wants a {want[rules.core_kind]} kernel"))
    lo, hi = rules.block_range(chip)
    if not lo <= meta.block_num <= hi:
        out.append(Violation(f"block_num {meta.block_num} is outside [{lo}, {hi}] on {chip}; "
                             f"{block_advice(lo, hi)} (core_num tells you the cores)"))
    extra = 0
    strays = []
    for g in meta.gm:
        target = mapping.get(g.name)
        if target is None:
            extra += g.nbytes
            strays.append(f"{g.name!r} ({_describe(g.dtype, g.shape)})")
            continue
        nbytes, dtype, shape = arrays[target]
        if g.nbytes != nbytes:
            out.append(Violation(f"kernel argument {g.name!r} is {_describe(g.dtype, g.shape)} "
                                 f"({g.nbytes} B), but it is array {target!r}, "
                                 f"{_describe(dtype, shape)} ({nbytes} B)"))
        elif target not in inputs and g.dtype != dtype:
            out.append(Violation(f"kernel argument {g.name!r} views output {target!r} as "
                                 f"{_describe(g.dtype, g.shape)}, but the output is "
                                 f"{_describe(dtype, shape)}: write it in its own dtype (cast "
                                 "in UB before copying out)"))
    if extra > rules.workspace_bytes:
        passed = ", ".join(f"{n} {_describe(d, s)}" for n, (_b, d, s) in arrays.items())
        out.append(Violation(
            f"kernel argument(s) {', '.join(strays)} are not arrays the grader passed to your "
            f"entry ({passed}): pass those arrays themselves (not copies, slices or new "
            f"arrays), and sizes or tiling as int/float scalars"
            + (f"; at most {rules.workspace_bytes} B of workspace are allowed"
               if rules.workspace_bytes else "")))
    bases = {g.name: g for g in meta.gm}
    input_ranges = [(g.base, g.base + g.nbytes, g.name, mapping.get(g.name))
                    for g in bases.values() if mapping.get(g.name) in inputs]
    allowed = rules.allowed_ops
    bad_ops: dict[str, Event] = {}
    for e in events:
        if allowed is not None and e.op not in allowed and e.op not in bad_ops:
            bad_ops[e.op] = e
        if not rules.gm_scalar_access and e.op in ("get_value", "set_value") and any(
                a.space == "GM" for a in e.reads + e.writes):  # (an operand-less one: replay)
            out.append(Violation(f"{e.op} on GM ({_at(e)}) is not allowed in this challenge: "
                                 "move data with data_copy and compute with vector "
                                 "instructions"))
            break
        if rules.readonly_inputs and input_ranges:
            for a in e.writes:
                if a.space != "GM":
                    continue
                for lo_, hi_, pname, arr in input_ranges:
                    if a.addr < hi_ and lo_ < a.end:
                        out.append(Violation(f"{e.op} at {_at(e)} writes input {arr!r} (kernel "
                                             f"argument {pname!r}): inputs are read-only"))
                        input_ranges = []
                        break
    for op, e in bad_ops.items():
        out.append(Violation(f"{op} ({_at(e)}) is not among the instructions this challenge "
                             f"allows: {', '.join(sorted(allowed or ()))}"))
    return out


def _describe(dtype: str, shape: tuple) -> str:
    return f"{dtype}[{'x'.join(map(str, shape))}]"


def _at(e: Event) -> str:
    return f"{e.file.rsplit('/', 1)[-1]}:{e.line}"


__all__ = ["FORBIDDEN_BUILTINS", "Violation", "block_advice", "check_launch", "check_source"]
