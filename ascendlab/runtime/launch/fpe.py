"""Floating-point errors (overflow, invalid value, divide by zero) that numpy meets while it
computes an emulated instruction: reported as a RuntimeWarning at the kernel's source line
(with the core), not at a line inside the emulator.

Each core runs its kernel body inside `kernel_errstate()`; the emulator's own deliberate
`np.errstate(...="ignore")` blocks still silence the cases they expect. One launch reports an
error once for each kernel line, at the first core that meets it: the other cores running the
same line on their own slice would repeat it (48 times on a 910B2), whatever the warnings
filter says.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import numpy as np

from .. import core as _core

_PKG = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
_NUMPY = os.sep + "numpy" + os.sep


def _kernel_frame() -> Any:
    """The innermost frame outside ascendlab and numpy: the kernel line being run."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not (name.startswith(_PKG) or _NUMPY in name):
            return frame
        frame = frame.f_back
    return None


def _report(err: str, flag: int) -> None:
    frame = _kernel_frame()
    c = _core.current
    if frame is None or c is None:
        warnings.warn(f"{err} encountered in an emulated instruction", RuntimeWarning,
                      stacklevel=3)
        return
    seen = c.launch.fpe_reported
    key = (err, frame.f_code.co_filename, frame.f_lineno)
    if key in seen:
        return
    seen.add(key)
    warnings.warn_explicit(f"{err} encountered in an emulated instruction "
                           f"{_core.where(c, frame)}", RuntimeWarning,
                           frame.f_code.co_filename, frame.f_lineno,
                           module=frame.f_globals.get("__name__"),
                           registry=frame.f_globals.setdefault("__warningregistry__", {}))


def kernel_errstate() -> Any:
    """numpy's error state for a kernel body: its floating-point warnings go to _report."""
    return np.errstate(over="call", invalid="call", divide="call", call=_report)


__all__ = ["kernel_errstate"]
