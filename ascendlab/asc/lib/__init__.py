"""pyasc's `asc.lib` package: `asc.lib.runtime` (streams) on the emulator."""

from . import runtime  # noqa: F401
