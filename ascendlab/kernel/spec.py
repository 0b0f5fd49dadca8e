"""TensorSpec and the validation that runs before any kernel: ranks, symbolic dims bound on first
use and checked everywhere after, dtypes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import DTypeError, ShapeError

Dim = int | str | None  # a fixed size, a symbolic name bound on first use, or None (any)
FLOAT_DTYPES = ("float16", "float32")


@dataclass(frozen=True)
class TensorSpec:
    """An operator input or output: name, dtype and shape (ints, symbolic names or None)."""

    name: str
    dtype: str = "float32"
    shape: tuple[Dim, ...] | None = None  # None: any shape

    def __init__(self, name: str, dtype: Any = "float32",
                 shape: Sequence[Dim] | None = None) -> None:
        object.__setattr__(self, "name", str(name))
        dt = np.dtype(dtype).name
        if dt not in FLOAT_DTYPES:
            raise DTypeError(f"TensorSpec {name!r}: dtype {dt} is not supported (float16 or "
                             f"float32)")
        object.__setattr__(self, "dtype", dt)
        object.__setattr__(self, "shape", None if shape is None else tuple(shape))

    def __str__(self) -> str:
        dims = "any" if self.shape is None else "[" + ", ".join(
            "?" if d is None else str(d) for d in self.shape) + "]"
        return f"TensorSpec({self.name!r}, {self.dtype}, {dims})"


def _dtype_name(x: Any) -> str:
    dt = getattr(x, "dtype", None)
    if dt is None:
        return np.asarray(x).dtype.name
    return str(dt).replace("torch.", "")


def bind(op: str, role: str, specs: Sequence[TensorSpec], shapes: Sequence[tuple[int, ...]],
         dtypes: Sequence[str] | None, dims: dict[str, tuple[int, str, int]]) -> None:
    """Check shapes (and dtypes) against specs, binding symbolic dims into `dims`
    (name -> (value, spec that bound it, axis)). Raises ShapeError / DTypeError."""
    if len(shapes) != len(specs):
        names = ", ".join(s.name for s in specs)
        raise ShapeError(f"{op}: expected {len(specs)} {role}s ({names}), got {len(shapes)}")
    for i, (spec, shape) in enumerate(zip(specs, shapes, strict=True)):
        if dtypes is not None and dtypes[i] != spec.dtype:
            raise DTypeError(f"{op}: {role} {spec.name!r} dtype: expected {spec.dtype}, got "
                             f"{dtypes[i]}")
        if spec.shape is None:
            continue
        if len(shape) != len(spec.shape):
            raise ShapeError(f"{op}: {role} {spec.name!r} rank: expected {len(spec.shape)} "
                             f"(shape {list(spec.shape)}), got {len(shape)} (shape "
                             f"{list(shape)})")
        for axis, (want, got) in enumerate(zip(spec.shape, shape, strict=True)):
            if want is None:
                continue
            if isinstance(want, int):
                if got != want:
                    raise ShapeError(f"{op}: {role} {spec.name!r} axis {axis}: expected "
                                     f"{want}, got {got}")
                continue
            if want not in dims:
                dims[want] = (int(got), spec.name, axis)
            elif dims[want][0] != got:
                value, by, at = dims[want]
                raise ShapeError(f"{op}: {role} {spec.name!r} dim {want!r} (axis {axis}): "
                                 f"expected {value} (bound by {by!r} axis {at}), got {got}")


def validate_inputs(op: str, specs: Sequence[TensorSpec], args: Sequence[Any]
                    ) -> dict[str, tuple[int, str, int]]:
    dims: dict[str, tuple[int, str, int]] = {}
    shapes = [tuple(int(d) for d in np.shape(a)) for a in args]
    bind(op, "input", specs, shapes, [_dtype_name(a) for a in args], dims)
    return dims
