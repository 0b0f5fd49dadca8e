"""Every exception ascendlab raises on a kernel author's path.

Each class subclasses the builtin a Python user would expect to catch, so `except MemoryError`
still works. Messages name the object, its coordinates, the value and the limit, and end with
the core index and the kernel source line: ``[core 3, add.py:41]``. The base class adds that
suffix itself when a kernel is running and the message does not carry one yet: the line is the
innermost caller outside the ascendlab package (the kernel's call).
"""

from __future__ import annotations

import os
import sys

_PKG = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _where_now() -> str:
    """"[core N, file:line]" for the running core and the kernel line that called into
    ascendlab; "" outside a kernel."""
    core = sys.modules.get("ascendlab.runtime.core")
    c = getattr(core, "current", None)
    if c is None:
        return ""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        f = f.f_back
    if f is None:
        return f"[core {c.idx}]"
    return f"[core {c.idx}, {os.path.basename(f.f_code.co_filename)}:{f.f_lineno}]"


class AscendlabError(Exception):
    """Base class: every error raised by the emulator (not by the user's own code). Inside a
    kernel, a message without a "[core N, file:line]" suffix gets one."""

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str) and "[core " not in args[0]:
            where = _where_now()
            if where:
                args = (f"{args[0]} {where}",)
        super().__init__(*args)


class KernelSyntaxError(AscendlabError, SyntaxError):
    """The kernel uses Python that pyasc cannot compile (print, try, raise, ...)."""


class KernelRecursionError(AscendlabError, RecursionError):
    """A kernel (or a helper it calls) calls itself: device code cannot recurse."""


class LaunchError(AscendlabError, ValueError):
    """A kernel launch is malformed: block_num, arguments, options."""


class CapacityError(AscendlabError, MemoryError):
    """A buffer does not fit in its on-chip memory (UB, L1, L0A/B/C)."""


class TraceLimitError(AscendlabError, MemoryError):
    """A launch recorded more events than RunOptions.max_events allows."""


class RuntimeValueError(AscendlabError):
    """Base of the errors that depend only on values a kernel computes or receives at run time
    (a mask, a repeat or element count, a stride, an address or offset, a queue's buffer count),
    never on the kernel's types, signatures or positions. pyasc's compiler cannot see these
    values, so a compile-only launch (Launcher.run patched, or DRY_RUN set:
    runtime/launch/compile_only.py) reports one as a CompileOnlyWarning and skips the statement;
    every other launch raises it."""


class EmptyHandleError(RuntimeValueError, ValueError):
    """An instruction is given a LocalTensor handle that was never filled (LocalTensor(dtype)
    before alloc_tensor / deque / TBuf.get): its address is a run-time value that never came."""


class CompileOnlyWarning(UserWarning):
    """A RuntimeValueError met in a compile-only launch: the statement (named, with the value,
    the limit and the kernel's source line) was skipped instead of raising."""


class SkippedValueError(AscendlabError, RuntimeError):
    """A compile-only launch skipped the assignment that sets a name, and the name is then used
    where no statement can be skipped (a condition, a loop bound)."""


class AlignmentError(RuntimeValueError, ValueError):
    """An address or length violates an alignment rule (32 B in UB/L1, 512 B in L0A/L0B)."""


class OutOfBoundsError(RuntimeValueError, IndexError):
    """An access falls outside its tensor, its buffer slot or its memory (a memcheck finding
    raised in strict mode)."""


class ParamError(RuntimeValueError, ValueError):
    """An instruction parameter is out of its documented range (mask, repeat_times, strides...)."""


class DTypeError(AscendlabError, TypeError):
    """An instruction does not support the operands' data types."""


class PositionError(AscendlabError, ValueError):
    """An instruction is given a tensor in a TPosition it cannot read or write."""


class QueueError(AscendlabError, RuntimeError):
    """TQue / TPipe state machine violations: deque on empty, enque past depth, wrong queue."""


class QueueStateError(RuntimeValueError, QueueError):
    """A queue or TBufPool operation finds the wrong number of buffers, bytes or tensors: no
    buffers (init_buffer never ran), no free buffer, depth reached, nothing to deque, a pool
    without bytes. The counts exist only at run time, so a compile-only launch skips it."""


class SyncError(AscendlabError, RuntimeError):
    """Pipe synchronisation the hardware cannot execute (bad event ids, a PIPE_S barrier)."""


class DeadlockError(RuntimeValueError, SyncError):
    """A wait the chip would never pass: a wait_flag whose set_flag never fires (checked in
    every launch when the cores finish, runtime/sync/deadlock.py), or cores waiting for each
    other at cross_core_wait_flag with none able to go on. The chip would hang. Whether it
    happens depends on what the cores do at run time, so a compile-only launch skips it."""


class SanitizerError(AscendlabError, RuntimeError):
    """The sanitizer found a memcheck/initcheck/racecheck/synccheck problem in a strict launch
    (the message is the first finding; ascendlab.last_run().findings has them all)."""


class TrapError(AscendlabError, RuntimeError):
    """The kernel called asc.trap(): the chip stops it with an AI Core exception."""


class CoreTypeError(AscendlabError, RuntimeError):
    """A cube instruction on a vector core or the reverse."""


class ContextError(AscendlabError, RuntimeError):
    """A kernel-only API was called outside a running kernel."""


class ExtraMissingError(ImportError):
    """An optional dependency is missing: the message names the extra that installs it."""


class ShapeError(AscendlabError, ValueError):
    """An operator's inputs do not match its TensorSpecs (rank, a symbolic dim bound elsewhere),
    or a traced op's shapes do not fit (broadcasting, matmul's inner dims)."""
