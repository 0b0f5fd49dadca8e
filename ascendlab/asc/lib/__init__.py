"""pyasc's `asc.lib` package on the emulator: `asc.lib.runtime` (streams) and `asc.lib.host`
(host-side tiling)."""

from . import host, runtime  # noqa: F401
