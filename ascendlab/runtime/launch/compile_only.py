"""Compile-only launches: check a kernel the way pyasc's compiler does, without its run-time values.

pyasc's unit tests patch `asc.runtime.launcher.Launcher.run` (or set DRY_RUN): the kernel is
compiled and never run, so pyasc checks signatures, overloads, dtypes and positions, but never
a mask, a count, an address or a queue's occupancy, which exist only at run time. Such tests
pass values a run would reject (`mask=512` on a float16 add, a reduce over more elements than
UB holds, alloc_tensor on a queue that init_buffer never gave buffers).

ascendlab still runs such a kernel (that is how it checks it), in compile-only mode:

* the rule: an error whose class derives from errors.RuntimeValueError (ParamError,
  OutOfBoundsError, AlignmentError, EmptyHandleError, QueueStateError: values, addresses and
  counts known only at run time)
  raised by a statement of the kernel is reported as a CompileOnlyWarning naming the statement,
  and that statement is skipped; the kernel goes on with its next statement. The names a
  skipped assignment would have bound hold an Unset placeholder, and a later statement that
  uses one is skipped too, whatever it raises;
* every other error (TypeError for a wrong signature, DTypeError, PositionError, CoreTypeError,
  KernelSyntaxError, NotImplementedError ...) raises as in any launch;
* a normal launch (Launcher.run not patched, DRY_RUN unset) raises every error.

How: kernel_ast compiles each expression statement and assignment of a kernel inside
`try: ... except Exception: if not skip(...): raise` (plus the Unset bindings). A try block
costs nothing until it raises (Python >= 3.11; one cheap opcode before), so the wrap is always
there; a normal launch re-raises the same exception with its traceback untouched.

Limitations: a loop header, a condition or a `return` is not a statement that can be skipped:
an error there raises, and an Unset used there raises SkippedValueError. Skipped statements
leave no trace event, so a compile-only Run's cycles and findings are not those of a real run.
"""

from __future__ import annotations

import ast
import sys
import warnings
from typing import Any, NoReturn

from ...errors import CompileOnlyWarning, RuntimeValueError, SkippedValueError
from .. import core as _core

SKIP_HELPER = "__asc_skip"
UNSET_HELPER = "__asc_unset"
ANY_ERROR = "__asc_Exception"  # Exception, under a name a kernel's module cannot shadow
EXC = "__asc_exc"


class Unset:
    """What a name holds after the compile-only launch skipped the assignment that set it."""

    __slots__ = ("name", "statement", "line")

    def __init__(self, name: str, statement: str, line: int) -> None:
        self.name, self.statement, self.line = name, statement, line

    def _fail(self, *args: Any) -> NoReturn:
        raise SkippedValueError(
            f"{self.name} has no value: the compile-only launch skipped `{self.statement}` "
            f"(line {self.line}) that sets it, and it is used where a statement cannot be "
            "skipped (a condition, a loop bound)")

    __bool__ = __index__ = __int__ = __float__ = __iter__ = __len__ = _fail

    def __getattr__(self, attr: str) -> NoReturn:
        self._fail()

    def __repr__(self) -> str:
        return f"<{self.name}: unset, `{self.statement}` was skipped>"


def _uses_unset(frame: Any, names: tuple[str, ...]) -> str:
    """The first of `names` that holds an Unset in `frame`, or ""."""
    scope = frame.f_locals
    for n in names:
        if type(scope.get(n)) is Unset:
            return n
    return ""


def skip(exc: BaseException, statement: str, names: tuple[str, ...]) -> bool:
    """Called from a kernel's except clause: in a compile-only launch, if the error is a
    RuntimeValueError or the statement uses an Unset name, warn (at the kernel's line) and return
    True so the statement is skipped; otherwise False (the kernel re-raises)."""
    c = _core.current
    if c is None or not getattr(c.launch, "compile_only", ""):
        return False
    frame = sys._getframe(1)  # the kernel's frame: its line is the statement's
    if isinstance(exc, RuntimeValueError):
        why = f"needs run-time values pyasc's compiler never sees: {exc}"
    else:
        unset = _uses_unset(frame, names)
        if not unset:
            return False
        held = frame.f_locals[unset]
        why = f"uses {unset}, which `{held.statement}` (line {held.line}) left unset"
        if not isinstance(exc, SkippedValueError):  # the error the unset value caused
            why += f" ({type(exc).__name__}: {exc})"
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    seen = c.launch.skipped.get(where)
    if seen is not None:  # warned once per statement and launch (a loop repeats it)
        c.launch.skipped[where] = (seen[0], seen[1] + 1)
        return True
    c.launch.skipped[where] = (statement, 1)
    warnings.warn_explicit(
        f"`{statement}` skipped: compile-only launch ({c.launch.compile_only}); it {why}",
        CompileOnlyWarning, frame.f_code.co_filename, frame.f_lineno)
    return True


def unset(name: str, statement: str) -> Unset:
    """The placeholder bound to `name` when `statement` was skipped."""
    return Unset(name, statement, sys._getframe(1).f_lineno)


def _label(node: ast.stmt) -> str:
    """How a message names a statement: its source, shortened."""
    text = ast.unparse(node).splitlines()[0]
    return text if len(text) <= 72 else text[:69] + "..."


def statement_labels(fdef: ast.FunctionDef) -> dict[tuple[int, int], str]:
    """The labels of a kernel's statements as written, by position: taken before kernel_ast
    rewrites `/` and `%` into helper calls, so messages show the user's source."""
    return {(n.lineno, n.col_offset): _label(n) for n in ast.walk(fdef)
            if isinstance(n, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign))}


def _targets(node: ast.AST) -> list[str]:
    """The plain names an assignment target binds (attributes and subscripts bind none)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for e in node.elts for n in _targets(e)]
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    return []


class WrapStatements(ast.NodeTransformer):
    """Wrap every call statement and assignment as the module docstring describes."""

    def __init__(self, labels: dict[tuple[int, int], str] | None = None) -> None:
        self.labels = labels or {}

    def _wrap(self, node: ast.stmt, targets: list[ast.AST]) -> ast.AST:
        label = self.labels.get((node.lineno, node.col_offset)) or _label(node)
        names = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)})
        test = ast.UnaryOp(op=ast.Not(), operand=ast.Call(
            func=ast.Name(id=SKIP_HELPER, ctx=ast.Load()),
            args=[ast.Name(id=EXC, ctx=ast.Load()), ast.Constant(value=label),
                  ast.Constant(value=tuple(names))], keywords=[]))
        body: list[ast.stmt] = [ast.If(test=test, body=[ast.Raise(exc=None, cause=None)],
                                       orelse=[])]
        for name in dict.fromkeys(n for t in targets for n in _targets(t)):
            body.append(ast.Assign(
                targets=[ast.Name(id=name, ctx=ast.Store())],
                value=ast.Call(func=ast.Name(id=UNSET_HELPER, ctx=ast.Load()),
                               args=[ast.Constant(value=name), ast.Constant(value=label)],
                               keywords=[])))
        handler = ast.ExceptHandler(type=ast.Name(id=ANY_ERROR, ctx=ast.Load()), name=EXC,
                                    body=body)
        for n in ast.walk(handler):  # new nodes only: the statement keeps its own positions
            if not isinstance(n, ast.expr_context):
                ast.copy_location(n, node)
        return ast.copy_location(
            ast.Try(body=[node], handlers=[handler], orelse=[], finalbody=[]), node)

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if not isinstance(node.value, ast.Call):
            return node  # a docstring, a bare name
        return self._wrap(node, [])

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        return self._wrap(node, list(node.targets))

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        return self._wrap(node, [node.target])

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        return node if node.value is None else self._wrap(node, [node.target])


HELPERS = {SKIP_HELPER: skip, UNSET_HELPER: unset, ANY_ERROR: Exception}
