"""Turning a Python kernel function into what pyasc would compile.

pyasc compiles a kernel's body: runtime integers are int32, `/` and `//` truncate toward zero
and `%` is C's remainder; some Python constructs do not compile at all (print, try, raise, ...).
This module re-compiles a kernel's source with those semantics (line numbers preserved, so
tracebacks and trace events point at the user's lines) and lists the names the kernel uses,
which tells the launcher whether it needs cube cores or a cross-core barrier.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

from ...errors import KernelSyntaxError
from ..structs import CInt
from . import compile_only

_INTS = (int, CInt)


def c_div(a: Any, b: Any) -> Any:
    """pyasc `/`: integer division truncating toward zero for ints, true division otherwise."""
    if type(a) in _INTS and type(b) in _INTS:
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def c_floordiv(a: Any, b: Any) -> Any:
    """pyasc `//` on runtime ints truncates toward zero (C semantics)."""
    if type(a) in _INTS and type(b) in _INTS:
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a // b


def c_mod(a: Any, b: Any) -> Any:
    """pyasc `%` on ints is C's remainder: its sign follows the dividend."""
    if type(a) in _INTS and type(b) in _INTS:
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    return a % b


def c_pow(a: Any, b: Any) -> Any:
    """pyasc folds `**` on compile-time constants and rejects it on runtime values. The emulator
    rejects the runtime values it can tell apart (a float read in the kernel is a numpy scalar,
    a struct field a CInt); Python ints and floats pass (an int read from memory is one too)."""
    for v in (a, b):
        if type(v) not in (int, float, bool):
            raise NotImplementedError(f"`**` on a runtime value ({type(v).__name__} {v!r}): "
                                      "pyasc evaluates `**` only on compile-time constants "
                                      "(multiply explicitly)")
    return a ** b


def while_loop(obj: Any) -> Any:
    """`with mm.iterate() as count:` is a while loop in pyasc: iterate the object."""
    if not hasattr(obj, "__iter__"):
        raise TypeError(f"`with ... .iterate() as count:` needs a Matmul iterate(), got "
                        f"{type(obj).__name__}")
    return obj


_HELPERS = {"__asc_div": c_div, "__asc_floordiv": c_floordiv, "__asc_mod": c_mod,
            "__asc_while": while_loop, "__asc_pow": c_pow, **compile_only.HELPERS}
_OPS = {ast.Div: "__asc_div", ast.FloorDiv: "__asc_floordiv", ast.Mod: "__asc_mod",
        ast.Pow: "__asc_pow"}


def _literal(node: ast.AST) -> bool:
    """A number written in the source (possibly negated)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


class _Rewriter(ast.NodeTransformer):
    """C integer arithmetic, and pyasc's unsupported constructs as KernelSyntaxError."""

    def __init__(self, filename: str, fn_name: str) -> None:
        self.filename = filename
        self.fn_name = fn_name
        self.depth = 0  # nesting of if/for/while inside the kernel body

    def _reject(self, node: ast.AST, what: str, hint: str) -> None:
        line = getattr(node, "lineno", 0)
        raise KernelSyntaxError(f"{self.fn_name}: {what} is not supported inside a pyasc "
                                f"kernel ({hint}) [{self.filename}:{line}]")

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow) and _literal(node.left) and _literal(node.right):
            return node  # 2**64 - 1: a constant, folded by Python
        name = _OPS.get(type(node.op))
        if name is None:
            return node
        call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[node.left, node.right],
                        keywords=[])
        return ast.copy_location(call, node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        name = _OPS.get(type(node.op))
        if isinstance(node.op, ast.Pow):
            self._reject(node, "`**=`", "multiply explicitly")
        if name is None or not isinstance(node.target, ast.Name):
            return node
        load = ast.Name(id=node.target.id, ctx=ast.Load())
        call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[load, node.value],
                        keywords=[])
        return ast.copy_location(ast.Assign(targets=[node.target], value=call), node)

    def _nested(self, node: ast.AST) -> ast.AST:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    visit_If = visit_For = visit_While = _nested

    def visit_With(self, node: ast.With) -> ast.AST:
        """`with x.iterate(...) as count: body` -> `for count in __asc_while(x.iterate(...)):
        body` (pyasc compiles it to a while loop over the Matmul's blocks)."""
        item = node.items[0] if len(node.items) == 1 else None
        call = item.context_expr if item is not None else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr in ("iterate", "iterate_batch")):
            self._reject(node, "this `with` statement",
                         "only `with matmul.iterate() as count:` is a pyasc construct")
        target = item.optional_vars or ast.Name(id="_", ctx=ast.Store())
        loop = ast.For(target=target,
                       iter=ast.Call(func=ast.Name(id="__asc_while", ctx=ast.Load()),
                                     args=[call], keywords=[]),
                       body=node.body, orelse=[])
        ast.copy_location(loop, node)
        return self._nested(loop)

    def visit_Return(self, node: ast.Return) -> ast.AST:
        if self.depth:
            self._reject(node, "`return` inside if/for/while", "return once, at the end")
        return self.generic_visit(node)

    def visit_Continue(self, node: ast.Continue) -> ast.AST:
        self._reject(node, "`continue`", "use an if around the rest of the loop body")
        return node

    def visit_Try(self, node: ast.AST) -> ast.AST:
        self._reject(node, "`try`", "kernels cannot catch exceptions")
        return node

    visit_TryStar = visit_Try

    def visit_Raise(self, node: ast.Raise) -> ast.AST:
        self._reject(node, "`raise`", "use asc.printf / asc.trap to report problems")
        return node

    def visit_Yield(self, node: ast.AST) -> ast.AST:
        self._reject(node, "`yield`", "a kernel runs to its end; write results to GM tensors")
        return node

    visit_YieldFrom = visit_Await = visit_Yield

    def visit_Global(self, node: ast.AST) -> ast.AST:
        self._reject(node, "`global`/`nonlocal`", "pass values as arguments")
        return node

    visit_Nonlocal = visit_Global

    def visit_FunctionDef(self, node: ast.AST) -> ast.AST:
        self._reject(node, "a nested function", "define it at module level with @asc.jit")
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            self._reject(node, "print()", "use asc.printf")
        return self.generic_visit(node)


class CompiledKernel:
    """A kernel function re-compiled with pyasc semantics, and the names its body uses."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.names: frozenset[str] = frozenset()
        self.rewritten: Callable[..., Any] | None = None
        self._factory: Callable[..., Any] | None = None
        self._free: tuple[str, ...] = ()
        try:
            source = textwrap.dedent(inspect.getsource(fn))
            filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
        except (OSError, TypeError):
            warnings.warn(f"ascendlab: the source of kernel {fn.__name__} is not available; it "
                          f"runs as plain Python (integer `/` then differs from pyasc)",
                          stacklevel=3)
            return
        tree = ast.parse(source)
        fdef = tree.body[0]
        if not isinstance(fdef, ast.FunctionDef):
            return
        fdef.decorator_list = []
        ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
        self.names = frozenset(
            n.attr if isinstance(n, ast.Attribute) else n.id
            for n in ast.walk(fdef) if isinstance(n, (ast.Attribute, ast.Name)))
        labels = compile_only.statement_labels(fdef)
        rewriter = _Rewriter(filename, fn.__name__)
        fdef.body = [rewriter.visit(stmt) for stmt in fdef.body]
        # statements skip run-time value errors in compile-only launches (launch/compile_only.py)
        wrap = compile_only.WrapStatements(labels)
        fdef.body = [wrap.visit(stmt) for stmt in fdef.body]
        # Wrap in a factory so the helpers and the original closure variables are free
        # variables of the new function; its globals stay the user's module globals.
        self._free = fn.__code__.co_freevars
        params = [ast.arg(arg=n) for n in (*_HELPERS, *self._free)]
        extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
        factory = ast.FunctionDef(
            name="__asc_factory",
            args=ast.arguments(posonlyargs=[], args=params, vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=[]),
            body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
            decorator_list=[], returns=None, **extra)
        ast.copy_location(factory, fdef)
        module = ast.Module(body=[factory], type_ignores=[])
        ast.fix_missing_locations(module)
        code = compile(module, filename, "exec")
        scope: dict[str, Any] = {}
        exec(code, fn.__globals__, scope)  # noqa: S102 - the user's own kernel source
        self._factory = scope["__asc_factory"]
        if not self._free:
            self.rewritten = self._build()

    def _build(self) -> Callable[..., Any]:
        cells = [c.cell_contents for c in (self.fn.__closure__ or ())]
        built = self._factory(*_HELPERS.values(), *cells)
        built.__defaults__ = self.fn.__defaults__
        built.__kwdefaults__ = self.fn.__kwdefaults__
        return built

    def callable(self) -> Callable[..., Any]:
        """The function to run: rewritten when the source was available, else the original."""
        if self._factory is None:
            return self.fn
        if self.rewritten is not None:
            return self.rewritten
        return self._build()  # closures: rebuild so current cell values are seen
