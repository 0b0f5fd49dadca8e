"""Compile-only launches: check a kernel the way pyasc's compiler does, without its run-time values.

pyasc's unit tests patch `asc.runtime.launcher.Launcher.run` (or set DRY_RUN): the kernel is
compiled and never run, so pyasc checks signatures, overloads, dtypes and positions, but never
a mask, a count, a stride or an address, which exist only at run time. Such tests pass values a
run would reject (`mask=512` on a float16 add, a reduce over more elements than UB holds).

ascendlab still runs such a kernel (that is how it checks it), in compile-only mode:

* the rule: an error whose class derives from errors.RuntimeValueError (ParamError,
  OutOfBoundsError, AlignmentError: values known only at run time) raised by an instruction
  statement of the kernel is reported as a CompileOnlyWarning naming the instruction, and that
  statement is skipped; the kernel goes on with its next statement;
* every other error (TypeError for a wrong signature, DTypeError, PositionError, CoreTypeError,
  QueueError, KernelSyntaxError, NotImplementedError ...) raises as in any launch;
* a normal launch (Launcher.run not patched, DRY_RUN unset) raises every error.

How: kernel_ast compiles each expression statement that is a call (`asc.add(...)`,
`que.enque(t)`) inside `try: ... except RuntimeValueError: if not skip(...): raise`. Python
3.11's exceptions cost nothing until raised, so the wrap is always there and a normal launch
re-raises the same exception with its traceback untouched.

Limitations: only expression statements are skipped; an error in an assignment
(`x = t.get_value(i)`), a loop header or a condition raises even in compile-only mode, since
skipping it would leave a name unbound. Skipped instructions leave no trace event, so a
compile-only Run's cycles and findings are not those of a real run.
"""

from __future__ import annotations

import ast
import sys
import warnings

from ..errors import CompileOnlyWarning, RuntimeValueError
from . import core as _core

SKIP_HELPER = "__asc_skip"
ERROR_HELPER = "__asc_RuntimeValueError"


def skip(exc: RuntimeValueError, instruction: str) -> bool:
    """Called from a kernel's except clause: in a compile-only launch, warn (at the kernel's
    line) and return True so the statement is skipped; otherwise False (the kernel re-raises)."""
    c = _core.current
    if c is None or not getattr(c.launch, "compile_only", ""):
        return False
    frame = sys._getframe(1)  # the kernel's frame: its line is the statement's
    c.launch.skipped.append((instruction, str(exc)))
    warnings.warn_explicit(
        f"{instruction} skipped: compile-only launch ({c.launch.compile_only}) and the "
        f"instruction needs run-time values pyasc's compiler never sees: {exc}",
        CompileOnlyWarning, frame.f_code.co_filename, frame.f_lineno)
    return True


def _instruction(call: ast.Call) -> str:
    """`asc.add` / `que.enque` / `helper`: how the statement names what it calls."""
    try:
        return ast.unparse(call.func)
    except Exception:  # noqa: BLE001 - a name for a message only
        return "instruction"


class WrapStatements(ast.NodeTransformer):
    """Wrap every call statement in the except clause described in the module docstring."""

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if not isinstance(node.value, ast.Call):
            return node
        name = ast.Name(id="__asc_exc", ctx=ast.Load())
        test = ast.UnaryOp(op=ast.Not(), operand=ast.Call(
            func=ast.Name(id=SKIP_HELPER, ctx=ast.Load()),
            args=[name, ast.Constant(value=_instruction(node.value))], keywords=[]))
        handler = ast.ExceptHandler(
            type=ast.Name(id=ERROR_HELPER, ctx=ast.Load()), name="__asc_exc",
            body=[ast.If(test=test, body=[ast.Raise(exc=None, cause=None)], orelse=[])])
        for n in ast.walk(handler):  # new nodes only: the call keeps its own positions
            if not isinstance(n, ast.expr_context):
                ast.copy_location(n, node)
        return ast.copy_location(
            ast.Try(body=[node], handlers=[handler], orelse=[], finalbody=[]), node)


HELPERS = {SKIP_HELPER: skip, ERROR_HELPER: RuntimeValueError}
