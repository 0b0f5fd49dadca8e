"""asc.adv.get_matmul_api_tiling and MatmulApiStaticTiling: the compile-time Matmul tiling a
MatmulConfig implies.

Facts (sources: pyasc python/asc/language/adv/tiling.py MatmulApiStaticTiling (fields, all
int32 defaulting to -1 = "known at run time", plus the MatmulConfig `cfg`) and matmul.py
get_matmul_api_tiling; Ascend C include/adv_api/matmul/constant_tiling.h GetMatmulApiTiling and
its GetL0ADb / GetL0BDb): the tiling carries the config; when the config has no single-core
shape (single_core_m, _n or _k is 0) the shapes stay -1, and when it has basic_m/n/k they become
base_m/n/k with is_bias = enable_set_bias and L0A/L0B double buffering (db_l0a = 1 when
basic_m x basic_k elements of A take more than half of L0A, else 2; db_l0b likewise with
basic_n x basic_k of B).

Limitations: a config with a single-core shape (the full constant tiling, which also plans the
L1 steps and depths) raises NotImplementedError.
"""

from __future__ import annotations

from typing import Any

from ..runtime import core as _core
from ..runtime.dtypes import DataType
from ..runtime.structs import CUBE_HEAD, CUBE_TAIL, Field, Struct
from .matmul import MatmulConfig, MatmulType

# TCubeTiling's fields without its batch ones, plus mx_type_para; pyasc names trans_length
# "transLength" here (and "trans_length" in TCubeTiling)
_FIELDS = (CUBE_HEAD.replace("trans_length:trans_length", "trans_length:transLength") + " "
           + CUBE_TAIL + " mx_type_para:mxTypePara")


class MatmulApiStaticTiling(Struct):
    """The compile-time Matmul tiling (pyasc asc.adv.MatmulApiStaticTiling); every int32 field
    defaults to -1, `cfg` is the MatmulConfig it was made from."""

    locals().update({attr: Field("int32", -1, cname)
                     for attr, cname in (item.split(":") for item in _FIELDS.split())})

    def __init__(self, cfg: MatmulConfig | None = None, **values: Any) -> None:
        super().__init__(**values)
        object.__setattr__(self, "cfg", cfg if cfg is not None else MatmulConfig())

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "cfg":
            object.__setattr__(self, name, value)
        else:
            super().__setattr__(name, value)

    def copy(self) -> MatmulApiStaticTiling:
        new = super().copy()
        object.__setattr__(new, "cfg", self.cfg)
        return new  # type: ignore[return-value]


def get_matmul_api_tiling(mm_cfg: MatmulConfig, l1_size: Any = None, a_type: Any = None,
                          b_type: Any = None, c_type: Any = None,
                          bias_type: Any = None) -> MatmulApiStaticTiling:
    """The MatmulApiStaticTiling of `mm_cfg` for these operand types (see the module
    docstring)."""
    if not isinstance(mm_cfg, MatmulConfig):
        raise TypeError(f"get_matmul_api_tiling: mm_cfg must be an asc.adv.MatmulConfig, got "
                        f"{type(mm_cfg).__name__}")
    for role, t in (("a_type", a_type), ("b_type", b_type), ("c_type", c_type)):
        if not isinstance(t, MatmulType):
            raise TypeError(f"get_matmul_api_tiling: {role} must be an asc.adv.MatmulType, got "
                            f"{type(t).__name__}")
    opt = mm_cfg.options
    tiling = MatmulApiStaticTiling(mm_cfg)
    if all(int(opt.get(f"single_core_{d}", 0)) for d in "mnk"):
        raise NotImplementedError("get_matmul_api_tiling: a MatmulConfig with single-core shapes "
                                  "(the full constant tiling) is not emulated")
    bm, bn, bk = (int(opt.get(f"basic_{d}", 0)) for d in "mnk")
    if bm and bn and bk:
        chip = _core.core().chip
        half_a, half_b = chip.capacity("L0A") // 2, chip.capacity("L0B") // 2
        tiling.base_m, tiling.base_n, tiling.base_k = bm, bn, bk
        tiling.db_l0a = 1 if bm * bk * DataType(a_type.dtype).itemsize > half_a else 2
        tiling.db_l0b = 1 if bn * bk * DataType(b_type.dtype).itemsize > half_b else 2
        tiling.is_bias = int(bool(opt.get("enable_set_bias", True)))
    return tiling


__all__ = ["MatmulApiStaticTiling", "get_matmul_api_tiling"]
