"""pyasc's `asc.runtime.launcher`: LaunchOptions and Launcher.

pyasc's Launcher.run puts a compiled kernel on the device and copies the memory arguments back.
On ascendlab the emulator has already run the kernel when Launcher.run is called; run is the
last step, copying the device copies of the memory arguments back into the caller's arrays.

A test that patches Launcher.run (pyasc's compile-only unit tests), or DRY_RUN in the
environment (which makes pyasc's run return at once), makes the launch compile-only: the
kernel still runs and is checked, but an instruction whose error depends only on run-time
values (errors.RuntimeValueError: masks, counts, strides, addresses) is skipped with a
CompileOnlyWarning instead of raising, as pyasc's compiler never sees those values
(ascendlab/runtime/launch/compile_only.py). The copy back is skipped too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ...runtime.launch import jit as _launch  # noqa: E402

__all__ = ["EmulatedKernel", "LaunchOptions", "Launcher"]


@dataclass(frozen=True)
class LaunchOptions:
    """pyasc's launch options: the core count and the stream (ignored by the emulator)."""

    core_num: int = 0
    stream: Any = None


@dataclass(frozen=True)
class EmulatedKernel:
    """What Launcher.run receives on ascendlab: the kernel that ran, and its GM arguments."""

    kernel: Any
    args: tuple
    kwargs: dict
    allocs: dict


class Launcher:
    """Runs the last step of a launch (see the module docstring)."""

    def __init__(self, options: LaunchOptions | None = None) -> None:
        self.options = options or LaunchOptions()

    def run(self, kernel: EmulatedKernel, function_name: str, user_args: tuple) -> None:
        """Copy the kernel's memory arguments back into the caller's arrays."""
        if os.environ.get("DRY_RUN"):
            return
        _launch._copy_back(kernel.args, kernel.kwargs, kernel.kernel, kernel.allocs)


def _deliver(args: tuple, kwargs: dict, kernel: Any, allocs: dict) -> None:
    # looked up on the class at every launch, so unittest.mock.patch of Launcher.run applies
    Launcher(LaunchOptions()).run(EmulatedKernel(kernel, args, kwargs, allocs),
                                  kernel.__name__, args)


_OWN_RUN = Launcher.run


def _compile_only_reason() -> str:
    # looked up on the class at every launch: unittest.mock.patch replaces the class attribute
    if Launcher.__dict__.get("run") is not _OWN_RUN:
        return "asc.runtime.launcher.Launcher.run is patched"
    if os.environ.get("DRY_RUN"):
        return "DRY_RUN is set"
    return ""


_launch.deliver = _deliver
_launch.compile_only_reason = _compile_only_reason
