"""Make `import asc` (and asc.runtime.config, asc.lib.runtime, asc.language.*) resolve to
ascendlab.asc, so an unmodified pyasc script runs on the emulator.

pyasc defines its kernel API in the submodules of asc.language and re-exports it from asc;
scripts and tests sometimes import a name from its defining module
(`from asc.language.fwk.tpipe import TQueBind`). Each of those module paths is a view of asc
here (asc.language.adv.* of asc.adv first): the same objects under pyasc's paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any

_ALIASED = ("asc", "asc.adv", "asc.runtime", "asc.runtime.config", "asc.runtime.jit",
            "asc.runtime.launcher", "asc.lib", "asc.lib.runtime", "asc.lib.host")

# pyasc's asc.language package and its submodules (hicann/pyasc python/asc/language).
_LANGUAGE = ("", ".adv", ".adv.activation", ".adv.math", ".adv.matmul", ".adv.normalization",
             ".adv.quantization", ".adv.sort", ".adv.tiling", ".adv.types", ".adv.utils",
             ".basic", ".basic.block_sync", ".basic.cache", ".basic.common", ".basic.data_copy",
             ".basic.determine_compute_sync", ".basic.dump_tensor", ".basic.fixpipe",
             ".basic.list_tensor", ".basic.mm", ".basic.proposal", ".basic.scalar",
             ".basic.set_atomic", ".basic.sys_var", ".basic.utils", ".basic.vec_binary",
             ".basic.vec_binary_scalar", ".basic.vec_brcb", ".basic.vec_cmpsel",
             ".basic.vec_duplicate", ".basic.vec_gather", ".basic.vec_gather_mask",
             ".basic.vec_reduce", ".basic.vec_scatter", ".basic.vec_ternary_scalar",
             ".basic.vec_transpose", ".basic.vec_unary", ".basic.vec_vconv", ".core",
             ".core.aipp_types", ".core.array", ".core.constexpr", ".core.dtype", ".core.enums",
             ".core.ir_value", ".core.memory_allocator", ".core.ops", ".core.properties",
             ".core.range", ".core.struct", ".core.tensor", ".core.types", ".core.utils",
             ".fwk", ".fwk.tpipe", ".fwk.utils")
LANGUAGE_MODULES = tuple("asc.language" + m for m in _LANGUAGE)


class _LanguageView(types.ModuleType):
    """pyasc's asc.language.X: its attributes are asc's (asc.adv's first under .adv)."""

    def __init__(self, name: str, sources: tuple[types.ModuleType, ...]) -> None:
        super().__init__(name, f"pyasc's {name}, a view of ascendlab.asc")
        self.__path__: list[str] = []  # a package, so that its submodules import
        self._sources = sources

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        for src in self._sources:
            if attr in getattr(src, "__all__", ()) or attr in vars(src):
                return getattr(src, attr)
        for src in self._sources:
            try:
                return getattr(src, attr)  # a stub raising NotImplementedError when used
            except AttributeError:
                pass
        # NotImplementedError, not AttributeError: `from ... import` would hide the message
        raise NotImplementedError(f"{self.__name__}.{attr} is part of pyasc but ascendlab does "
                                  "not emulate it (docs/emulated-api.md lists what is)")


def _known_types(asc: types.ModuleType) -> type:
    """pyasc's asc.language.core.dtype.KnownTypes: the dtypes as class attributes (its int1 and
    bit are not emulated; its bool_ is int8)."""
    names = ("void", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "uint8",
             "uint16", "uint32", "uint64", "int_", "half", "float_", "double")
    attrs = {n: getattr(asc, n) for n in names}
    attrs["bool_"] = asc.int8
    attrs["__doc__"] = _known_types.__doc__
    return type("KnownTypes", (), attrs)


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
        module = importlib.import_module("ascendlab." + name)
        module.__name__ = name  # asc.__name__ == "asc", as a pyasc script expects
        sys.modules[name] = module
    asc, adv = sys.modules["asc"], sys.modules["asc.adv"]
    for name in LANGUAGE_MODULES:
        if name not in sys.modules:
            is_adv = name.startswith("asc.language.adv")
            sys.modules[name] = _LanguageView(name, (adv, asc) if is_adv else (asc,))
    sys.modules["asc.language.core.dtype"].KnownTypes = _known_types(asc)
    if not any(isinstance(f, _UnemulatedModules) for f in sys.meta_path):
        sys.meta_path.append(_UnemulatedModules())


def uninstall() -> None:
    """Remove the aliases (tests use this to leave the interpreter as they found it)."""
    for name in _ALIASED:
        module = sys.modules.pop(name, None)
        if module is not None:
            module.__name__ = "ascendlab." + name
    for name in LANGUAGE_MODULES:
        sys.modules.pop(name, None)
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _UnemulatedModules)]


# torch's tensor factories that take device=, for npu_tensors_on_cpu.
_TORCH_FACTORIES = ("tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange", "rand",
                    "randn", "randint", "randperm", "zeros_like", "ones_like", "empty_like",
                    "full_like", "rand_like", "randn_like", "randint_like")


def _cpu_if_npu(device: Any) -> Any:
    text = str(device)
    return "cpu" if text == "npu" or text.startswith("npu:") else device


def npu_tensors_on_cpu(torch: Any) -> None:
    """For `--emulate-npu`: torch tensors asked for on device "npu" are made on the CPU (where
    the emulator reads them), and Tensor.to("npu") / Tensor.npu() keep them there. Idempotent."""
    if getattr(torch, "_ascendlab_npu_on_cpu", False):
        return

    def factory(fn: Any) -> Any:
        def made_on_cpu(*args: Any, **kwargs: Any) -> Any:
            if "device" in kwargs:
                kwargs["device"] = _cpu_if_npu(kwargs["device"])
            return fn(*args, **kwargs)

        made_on_cpu.__wrapped__ = fn
        return made_on_cpu

    for name in _TORCH_FACTORIES:
        setattr(torch, name, factory(getattr(torch, name)))
    to = torch.Tensor.to

    def tensor_to(self: Any, *args: Any, **kwargs: Any) -> Any:
        args = tuple(_cpu_if_npu(a) if isinstance(a, str) else a for a in args)
        if "device" in kwargs:
            kwargs["device"] = _cpu_if_npu(kwargs["device"])
        return to(self, *args, **kwargs)

    torch.Tensor.to = tensor_to
    torch.Tensor.npu = lambda self, *a, **k: self
    torch._ascendlab_npu_on_cpu = True
