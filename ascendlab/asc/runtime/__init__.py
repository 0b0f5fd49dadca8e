"""pyasc's `asc.runtime` package: only `asc.runtime.config` is part of the kernel API."""

from . import config  # noqa: F401
