"""ascendlab: learn to write Ascend NPU operators in pyasc's Python API, on a CPU.

    import ascendlab.asc as asc          # pyasc's kernel API on the emulator
    kernel[8, asc.lib.runtime.current_stream()](x, y, z, n)
    run = ascendlab.last_run()           # the trace and outputs of that launch
    run.cycles, run.time_us              # the cycle model's estimate
    print(ascendlab.profile(run))        # pipe utilization, roofline, advisor
"""

from __future__ import annotations

from typing import Any

from .analysis import MODEL_VERSION, SanitizerReport, sanitize  # registers the trace readers
from .errors import ShapeError
from .runtime.chips import CHIPS, ChipSpec, get_chip
from .runtime.launch.jit import JITFunction, RunOptions, configure, last_run
from .runtime.trace import Access, Event, Finding, Run, Sync
from .tools.autotune import autotune
from .tools.profile import profile

__version__ = "0.1.0"


def launch(kernel: JITFunction, block_num: int, *args: Any, chip: str | None = None,
           strict: bool | None = None, auto_sync: bool | None = None,
           sanitize: bool | None = None, **kwargs: Any) -> Run:
    """Launch `kernel` on `block_num` cores and return its Run.

    chip/strict/auto_sync/sanitize override the session defaults (ascendlab.configure) for this
    launch; other keyword arguments go to the kernel. sanitize=True runs the sanitizer after the
    launch (see ascendlab.analysis.sanitizer).
    """
    if not isinstance(kernel, JITFunction):
        raise TypeError(f"launch: expected an @asc.jit kernel, got {type(kernel).__name__}")
    from dataclasses import replace

    from .runtime.launch.jit import SESSION

    changes = {k: v for k, v in (("chip", chip), ("strict", strict), ("auto_sync", auto_sync),
                                 ("sanitize", sanitize)) if v is not None}
    return kernel.launch(block_num, args, kwargs, replace(SESSION.options, **changes))


_SUBPACKAGES = frozenset({"adv", "analysis", "asc", "grader", "kernel", "ops", "tools", "viz"})
# Python-first operators (ascendlab.kernel) load on first use: they import the adv library,
# which a plain `import ascendlab` does not need
_KERNEL_NAMES = frozenset({"TensorSpec", "ascend_kernel", "grad"})


def __getattr__(name: str) -> Any:
    """`ascendlab.grader.check(...)` and `ascendlab.viz.timeline(...)` after a bare
    `import ascendlab`: subpackages load on first use (viz would pull in matplotlib otherwise
    only when drawing, the grader its sandbox)."""
    import importlib

    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    if name in _KERNEL_NAMES:
        return getattr(importlib.import_module(".kernel", __name__), name)
    raise AttributeError(f"module 'ascendlab' has no attribute {name!r}")


__all__ = ["CHIPS", "MODEL_VERSION", "Access", "ChipSpec", "Event", "Finding", "Run",
           "RunOptions", "SanitizerReport", "ShapeError", "Sync", "TensorSpec", "ascend_kernel",
           "autotune", "configure", "get_chip", "grad", "last_run", "launch", "profile",
           "sanitize"]
