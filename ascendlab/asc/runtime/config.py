"""pyasc's `asc.runtime.config`: backends, platforms, kernel types and set_platform.

On ascendlab the "Model" backend is the emulator. The NPU backend needs a real chip and raises,
as pyasc does when its runtime library is missing, unless NPU emulation is switched on
(`ascendlab pyasc --emulate-npu`, or emulate_npu()): then it is the emulator too, and the first
set_platform(Backend.NPU) prints a one-line notice saying so.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Any

from ...runtime.chips import CHIPS, DEFAULT_CHIP
from ...runtime.launch.jit import SESSION, configure


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"


class Platform(Enum):
    """SoC versions pyasc knows; ascendlab emulates those in ascendlab.runtime.chips.CHIPS."""

    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"
    # Not in pyasc's enum: chips ascendlab also emulates.
    Ascend310P3 = "Ascend310P3"
    Ascend310B1 = "Ascend310B1"


class KernelType(Enum):
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


class _NPUEmulation:
    on = False  # Backend.NPU runs on the emulator
    noticed = False  # the notice was printed


def emulate_npu(on: bool = True) -> None:
    """Make Backend.NPU mean the emulator (what `ascendlab pyasc --emulate-npu` does)."""
    _NPUEmulation.on = bool(on)
    _NPUEmulation.noticed = False


def set_platform(backend: Any, soc_version: Any = None, device_id: Any = None,
                 check: bool = True) -> None:
    """Select the backend and SoC; the Model backend defaults to Ascend910B1 (as in pyasc)."""
    backend = Backend(backend)
    name = DEFAULT_CHIP if soc_version is None else Platform(soc_version).value
    if backend == Backend.NPU:
        if soc_version is None:  # the "device" is the session's chip (`--chip`)
            name = SESSION.options.chip
        if not _NPUEmulation.on:
            raise RuntimeError("Runtime library is not available! ascendlab emulates the NPU on "
                               "the CPU: use config.Backend.Model (or run the script with "
                               "`ascendlab pyasc --emulate-npu`)")
        if not _NPUEmulation.noticed:
            _NPUEmulation.noticed = True
            print(f"ascendlab: --emulate-npu: kernels launched for Backend.NPU run on the "
                  f"emulated {name}, not on an NPU", file=sys.stderr)
    if name not in CHIPS:
        raise NotImplementedError(f"platform {name} is not emulated; emulated: "
                                  + ", ".join(CHIPS))
    configure(chip=name)
