"""Tiling structs: pyasc's `Struct` kernel arguments (TCubeTiling, SoftmaxTiling, ...).

A Struct is a fixed list of typed fields with defaults. The host fills one (by keywords, by
attribute, or through a tiling generator such as asc.lib.host.MultiCoreMatmulTiling) and passes
it to a kernel; pyasc packs it into a ctypes struct and copies it one way, so each core sees its
own copy: writes in the kernel (`tiling.share_l1_size = ...`) stay on that core and never reach
the host. Integer fields read as `CInt`, an int with pyasc's `.ceildiv(y)`.

Field names, order and defaults are pyasc's (python/asc/language/adv/tiling.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

_INT32 = (-2**31, 2**31 - 1)


class CInt(int):
    """An int32 struct field as a kernel reads it: an int that also has `.ceildiv(y)`."""

    __slots__ = ()

    def ceildiv(self, y: Any) -> int:
        """Ceiling division (pyasc's PlainValue.ceildiv)."""
        y = int(y)
        if y == 0:
            raise ZeroDivisionError(f"ceildiv({int(self)}, 0): division by zero")
        return -(-int(self) // y)


class Field:
    """One struct member: its element type ("int32" or "float32"), default and C name."""

    __slots__ = ("dtype", "default", "name", "attr")

    def __init__(self, dtype: Any = "int32", default: Any = 0, name: str | None = None) -> None:
        self.dtype = getattr(dtype, "name", str(dtype))
        if self.dtype not in ("int32", "float32"):
            raise ValueError(f"Field dtype {self.dtype!r}: ascendlab structs hold int32 or "
                             "float32 fields")
        self.default = default
        self.name = name
        self.attr = ""

    def __set_name__(self, owner: type, attr: str) -> None:
        self.attr = attr
        if self.name is None:
            self.name = attr

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        v = obj._values[self.attr]
        return CInt(v) if self.dtype == "int32" else v

    def __set__(self, obj: Any, value: Any) -> None:
        obj._values[self.attr] = self.coerce(type(obj).__name__, value)

    def coerce(self, owner: str, value: Any) -> Any:
        if self.dtype == "int32":
            if isinstance(value, (bool, np.bool_)):
                value = int(value)
            if not isinstance(value, (int, np.integer)):
                raise TypeError(f"{owner}.{self.attr} is an int32 field; got "
                                f"{type(value).__name__} {value!r}")
            v = int(value)
            if not _INT32[0] <= v <= _INT32[1]:
                raise OverflowError(f"{owner}.{self.attr} = {v} does not fit int32")
            return v
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{owner}.{self.attr} is a float32 field; got "
                            f"{type(value).__name__} {value!r}")
        return float(np.float32(value))


class Struct:
    """Base class of tiling structs: subclasses declare `name = Field(...)` class attributes."""

    _fields: ClassVar[tuple[Field, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        inherited = [f for f in cls._fields]
        own = [v for v in vars(cls).values() if isinstance(v, Field)]
        cls._fields = tuple(inherited + [f for f in own if f not in inherited])

    def __init__(self, **values: Any) -> None:
        object.__setattr__(self, "_values", {f.attr: _copied(f.default) for f in self._fields})
        names = {f.attr for f in self._fields}
        for k, v in values.items():
            if k not in names:
                raise TypeError(f"{type(self).__name__} has no field {k!r}; fields: "
                                + ", ".join(f.attr for f in self._fields))
            setattr(self, k, v)

    def __setattr__(self, name: str, value: Any) -> None:
        if not isinstance(getattr(type(self), name, None), Field):
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        object.__setattr__(self, name, value)

    def copy(self) -> Struct:
        """A field-by-field copy (what a kernel receives)."""
        new = object.__new__(type(self))
        object.__setattr__(new, "_values", {k: _copied(v) for k, v in self._values.items()})
        return new

    def as_dict(self) -> dict[str, Any]:
        """{field: value} in declaration order (a nested struct as its own dict)."""
        return {k: v.as_dict() if isinstance(v, Struct) else v for k, v in self._values.items()}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._values == self._values  # type: ignore

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        changed = ", ".join(f"{f.attr}={self._values[f.attr]!r}" for f in self._fields
                            if self._values[f.attr] != f.default)
        return f"{type(self).__name__}({changed})"


def _copied(value: Any) -> Any:
    return value.copy() if isinstance(value, Struct) else value


class StructField(Field):
    """A member that is itself a struct (pyasc's StructField(StructClass[, default]))."""

    __slots__ = ("struct_cls",)

    def __init__(self, struct_cls: type[Struct], default: Struct | None = None,
                 name: str | None = None) -> None:
        if not (isinstance(struct_cls, type) and issubclass(struct_cls, Struct)):
            raise TypeError(f"StructField needs a Struct subclass, got {struct_cls!r}")
        self.struct_cls = struct_cls
        self.dtype = struct_cls.__name__
        self.name = name
        self.attr = ""
        self.default = struct_cls() if default is None else self.coerce("StructField", default)

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else obj._values[self.attr]

    def coerce(self, owner: str, value: Any) -> Any:
        if not isinstance(value, self.struct_cls):
            raise TypeError(f"{owner}.{self.attr} is a {self.struct_cls.__name__}; got "
                            f"{type(value).__name__} {value!r}")
        return value.copy()


def _int_fields(spec: str, default: int = 0) -> dict[str, Field]:
    """Fields from "attr:CName attr:CName ..." (all int32 with one default)."""
    out = {}
    for item in spec.split():
        attr, cname = item.split(":")
        out[attr] = Field("int32", default, cname)
    return out


# TCubeTiling's fields as "attribute:C name", in order (MatmulApiStaticTiling reuses them)
CUBE_HEAD = """used_core_num:usedCoreNum m:M n:N k_a:Ka k_b:Kb single_core_m:singleCoreM
single_core_n:singleCoreN single_core_k:singleCoreK base_m:baseM base_n:baseN base_k:baseK
depth_a1:depthA1 depth_b1:depthB1 step_m:stepM step_n:stepN is_bias:isBias
trans_length:trans_length iterate_order:iterateOrder share_mode:shareMode
share_l1_size:shareL1Size share_l0c_size:shareL0CSize share_ub_size:shareUbSize"""
CUBE_BATCH = """batch_m:batchM batch_n:batchN single_batch_m:singleBatchM
single_batch_n:singleBatchN"""
CUBE_TAIL = """step_k_a:stepKa step_k_b:stepKb depth_a_l1_cache_ub:depthAL1CacheUB
depth_b_l1_cache_ub:depthBL1CacheUB db_l0a:dbL0A db_l0b:dbL0B db_l0c:dbL0C
a_layout_info_b:ALayoutInfoB a_layout_info_s:ALayoutInfoS a_layout_info_n:ALayoutInfoN
a_layout_info_g:ALayoutInfoG a_layout_info_d:ALayoutInfoD b_layout_info_b:BLayoutInfoB
b_layout_info_s:BLayoutInfoS b_layout_info_n:BLayoutInfoN b_layout_info_g:BLayoutInfoG
b_layout_info_d:BLayoutInfoD c_layout_info_b:CLayoutInfoB c_layout_info_s1:CLayoutInfoS1
c_layout_info_n:CLayoutInfoN c_layout_info_g:CLayoutInfoG c_layout_info_s2:CLayoutInfoS2
batch_num:BatchNum"""

# TCubeTiling: the Matmul tiling (field order of pyasc's and Ascend C's TCubeTiling).
TCubeTiling = type("TCubeTiling", (Struct,), {
    "__doc__": "Matmul tiling (pyasc asc.adv.TCubeTiling); every field int32, default 0. "
               "See docs/adv.md for what the emulated Matmul reads from it.",
    "__module__": __name__,
    **_int_fields(CUBE_HEAD), **_int_fields(CUBE_BATCH), **_int_fields(CUBE_TAIL),
})

_SOFTMAX = """src_m:srcM src_k:srcK src_size:srcSize out_max_m:outMaxM out_max_k:outMaxK
out_max_size:outMaxSize split_m:splitM split_k:splitK split_size:splitSize reduce_m:reduceM
reduce_k:reduceK reduce_size:reduceSize range_m:rangeM tail_m:tailM
tail_split_size:tailSplitSize tail_reduce_size:tailReduceSize"""

SoftmaxTiling = type("SoftmaxTiling", (Struct,), {
    "__doc__": "SoftMax tiling (pyasc asc.adv.SoftmaxTiling); every field int32, default 0.",
    "__module__": __name__,
    **_int_fields(_SOFTMAX),
})
