"""pyasc names the emulator knows of but does not implement yet.

Using one raises NotImplementedError naming it and pointing at docs/emulated-api.md, so a
script fails loudly at the first unemulated call instead of silently computing something else.
"""

from __future__ import annotations

from typing import Any, NoReturn

DOCS = "docs/emulated-api.md"

# From pyasc's asc.language.{basic,core,fwk,adv} __all__ lists (hicann/pyasc), minus what
# ascendlab.asc implements.
UNEMULATED: frozenset[str] = frozenset("""
load_data_with_transpose number inline LoadData2DParamsV2 LoadData2dTransposeParams
LoadData2dTransposeParamsV2
static_assert CompileOptions CodegenOptions LaunchOptions CO2Layout
""".split())


class _Unemulated:
    """Stands in for a pyasc name ascendlab does not emulate: any use raises."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def _raise(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(f"{self._name} is part of pyasc but ascendlab does not emulate "
                                  f"it yet; {DOCS} lists what is emulated")

    __call__ = _raise

    def __getattr__(self, attr: str) -> NoReturn:
        raise NotImplementedError(f"{self._name}.{attr} is part of pyasc but ascendlab does not "
                                  f"emulate it yet; {DOCS} lists what is emulated")

    def __repr__(self) -> str:
        return f"<pyasc {self._name}: not emulated by ascendlab>"


def unemulated(name: str) -> _Unemulated:
    return _Unemulated(name)
