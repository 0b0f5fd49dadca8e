"""A launch's arguments: host arrays (numpy, torch CPU tensors) placed in GM as GMAllocs,
scalars and constexprs converted as pyasc does, and the device copies written back into the
caller's objects after the launch (launch/jit.py runs the kernel in between)."""

from __future__ import annotations

import inspect
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import LaunchError
from ..dtypes import DataType, from_numpy
from ..memory.gm import GlobalAddress, GMAlloc
from ..structs import Struct

if TYPE_CHECKING:
    from .jit import JITFunction


class ConstExpr:
    """Annotation for compile-time constants: `n: asc.ConstExpr[int]` (or bare ConstExpr)."""

    def __class_getitem__(cls, item: Any) -> _ConstExprOf:
        return _ConstExprOf(item)


class _ConstExprOf:
    __slots__ = ("type",)

    def __init__(self, type_: Any) -> None:
        self.type = type_

    def __repr__(self) -> str:
        return f"ConstExpr[{getattr(self.type, '__name__', self.type)}]"


def _constexpr_type(annotation: Any) -> tuple[bool, Any]:
    """(is constexpr, required type or None) for a parameter annotation."""
    if annotation is ConstExpr:
        return True, None
    if isinstance(annotation, _ConstExprOf):
        return True, annotation.type
    if isinstance(annotation, str) and "ConstExpr" in annotation:
        inner = annotation.split("[", 1)[1].rstrip("]") if "[" in annotation else ""
        return True, {"int": int, "bool": bool, "float": float}.get(inner.strip())
    return False, None


# ---- arguments ----------------------------------------------------------------------------
def _host_array(value: Any) -> np.ndarray | None:
    """The numpy view of a memory argument (ndarray, CPU torch tensor, bytes), else None."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bytes, bytearray)):
        return np.frombuffer(value, dtype=np.uint8)
    mod = type(value).__module__
    if mod.startswith("torch") and hasattr(value, "numpy"):
        if str(getattr(value, "device", "cpu")) != "cpu":
            raise LaunchError(f"torch tensor on device {value.device}: ascendlab emulates the "
                              "NPU on the CPU; pass CPU tensors")
        if str(value.dtype) == "torch.bfloat16":
            raise LaunchError("bfloat16 tensors are not supported by pyasc")
        return value.detach().numpy()
    return None


def _convert_args(kernel: JITFunction, args: tuple, kwargs: dict) -> tuple[list, dict, dict]:
    """Bind the call; returns (positional values for the body, GM allocations, scalars)."""
    try:
        bound = kernel.signature.bind(*args, **kwargs)
    except TypeError as e:
        raise LaunchError(f"{kernel.__name__}: {e}") from None
    bound.apply_defaults()
    try:
        annotations = inspect.get_annotations(kernel.fn, eval_str=True)
    except Exception:
        annotations = dict(getattr(kernel.fn, "__annotations__", {}))
    values: list[Any] = []
    allocs: dict[str, GMAlloc] = {}
    scalars: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        is_const, want = _constexpr_type(annotations.get(name))
        if is_const:
            if want is not None and not isinstance(value, want):
                raise TypeError(f"{kernel.__name__}: argument {name!r} is ConstExpr["
                                f"{want.__name__}] but got {type(value).__name__} {value!r}")
            scalars[name] = value
            values.append(value)
            continue
        if isinstance(value, Struct):
            scalars[name] = value.as_dict()
            values.append(value)
            continue
        host = _host_array(value)
        if host is not None:
            if host.dtype == np.bool_:
                raise LaunchError(f"{kernel.__name__}: argument {name!r} is a bool array; pyasc "
                                  "does not support bool (DataType.sizeof fails): use uint8")
            dtype = DataType("uint8") if host.dtype == np.uint8 and not isinstance(
                value, np.ndarray) else from_numpy(host.dtype)
            raw = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
            alloc = GMAlloc(name, len(allocs), raw, dtype, tuple(host.shape))
            allocs[name] = alloc
            values.append(GlobalAddress(alloc, 0, dtype))
        elif isinstance(value, (bool, int, np.integer)) and not isinstance(value, np.generic):
            v = int(value)
            if not -2**31 <= v < 2**31:
                raise LaunchError(f"{kernel.__name__}: int argument {name}={v} does not fit the "
                                  "int32 that pyasc passes scalars as")
            scalars[name] = v
            values.append(v)
        elif isinstance(value, float):  # np.float64 included
            f32 = _float32_arg(kernel, name, value)
            scalars[name] = f32
            values.append(f32)
        elif isinstance(value, np.generic):
            if isinstance(value, np.integer) and value.dtype.itemsize == 8 and not (
                    -2**31 <= int(value) < 2**31):  # the same check as a Python int's
                raise LaunchError(f"{kernel.__name__}: {value.dtype} argument {name}="
                                  f"{int(value)} does not fit int32 (ascendlab checks 64-bit "
                                  "numpy ints as it checks Python ints)")
            scalars[name] = value
            values.append(value)
        else:
            raise TypeError(f"Argument type in JIT function is not supported: "
                            f"{type(value).__name__} ({kernel.__name__} argument {name!r})")
    return values, allocs, scalars


def _float32_arg(kernel: JITFunction, name: str, value: float) -> np.float32:
    """A float argument as the float32 pyasc passes; a finite value beyond float32's range is
    an error rather than a silent inf."""
    with np.errstate(over="ignore"):
        f32 = np.float32(value)
    if np.isinf(f32) and np.isfinite(value):
        raise LaunchError(f"{kernel.__name__}: float argument {name}={value!r} does not fit the "
                          f"float32 that pyasc passes floats as (|x| <= "
                          f"{float(np.finfo(np.float32).max):.6g})")
    return f32


def _copy_back(args: tuple, kwargs: dict, kernel: JITFunction, allocs: dict) -> None:
    """Write every memory argument's device copy back into the caller's object (pyasc copies
    all of them back; an argument the kernel never wrote is unchanged, so it is skipped)."""
    bound = kernel.signature.bind(*args, **kwargs).arguments
    for name, alloc in allocs.items():
        if not alloc.written:
            continue
        value = bound[name]
        if isinstance(value, bytes):
            continue  # immutable: pyasc's round trip cannot write it either
        host = _host_array(value)
        if not host.flags.writeable:
            warnings.warn(f"{kernel.__name__}: argument {name!r} is a read-only array, so the "
                          f"kernel's writes stay in Run.outputs[{name!r}]", stacklevel=4)
            continue
        np.copyto(host, alloc.array().reshape(host.shape), casting="no")
