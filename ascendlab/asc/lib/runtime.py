"""pyasc's `asc.lib.runtime`: streams and device queries. Launches are synchronous on the
emulator, so a stream is only a token that kernel[block_num, stream] accepts."""

from __future__ import annotations

import enum
from typing import Any

from ...runtime.chips import get_chip
from ...runtime.launch.jit import SESSION


class Stream:
    """An opaque stream handle (all work on the emulator completes at launch)."""

    def __init__(self, device_id: int = 0) -> None:
        self.device_id = device_id

    def __repr__(self) -> str:
        return f"<ascendlab Stream device {self.device_id}>"


_STREAM = Stream()


def current_stream(device_id: int | None = None) -> Stream:
    """The current stream of the (emulated) device."""
    return _STREAM


def synchronize() -> None:
    """Wait for queued work: a launch on the emulator has already completed."""


def current_platform() -> str:
    """The emulated SoC name chosen by config.set_platform."""
    return get_chip(SESSION.options.chip).name


def is_available() -> bool:
    """The emulator needs no runtime library: always True."""
    return True


class CoreType(enum.Enum):
    """pyasc's core kinds (asc.lib.runtime.CoreType)."""

    AiCore = "AiCore"
    VectorCore = "VectorCore"
    CubeCore = "CubeCore"
    AiCpu = "AiCpu"


def get_soc_version() -> Any:
    """The emulated SoC as pyasc's config.Platform (the chip set_platform chose)."""
    from ..runtime.config import Platform

    return Platform(get_chip(SESSION.options.chip).name)


def set_soc_version(soc_version: Any) -> None:
    """Select the emulated SoC (a config.Platform or its name), as set_platform does."""
    from ..runtime.config import Backend, set_platform

    set_platform(Backend.Model, soc_version)
