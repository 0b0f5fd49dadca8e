"""Make `import asc` (and asc.runtime.config, asc.lib.runtime) resolve to ascendlab.asc, so an
unmodified pyasc script runs on the emulator."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from typing import Any

_ALIASED = ("asc", "asc.adv", "asc.runtime", "asc.runtime.config", "asc.lib",
            "asc.lib.runtime", "asc.lib.host")


class _UnemulatedModules(importlib.abc.MetaPathFinder):
    """Any other `asc.*` module is part of pyasc that ascendlab does not provide."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.startswith("asc.") and fullname not in sys.modules:
            raise ModuleNotFoundError(
                f"{fullname} is part of pyasc but ascendlab does not emulate it; kernels "
                "import asc, asc.runtime.config and asc.lib.runtime (docs/emulated-api.md)",
                name=fullname)
        return None


def install() -> None:
    """Alias pyasc's module names to ascendlab's (idempotent)."""
    importlib.import_module("ascendlab.asc")
    for name in _ALIASED:
        sys.modules[name] = importlib.import_module("ascendlab." + name)
    if not any(isinstance(f, _UnemulatedModules) for f in sys.meta_path):
        sys.meta_path.append(_UnemulatedModules())


def uninstall() -> None:
    """Remove the aliases (tests use this to leave the interpreter as they found it)."""
    for name in _ALIASED:
        sys.modules.pop(name, None)
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _UnemulatedModules)]
