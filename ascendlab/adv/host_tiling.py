"""asc.lib.host on the emulator: the setters and get_tiling every pyasc Matmul host tiling class
shares (`MatmulApiTilingBase`) and the single-core `MatmulApiTiling`; `MultiCoreMatmulTiling`
is in host_multicore.py, `BatchMatmulTiling` in host_batch.py. ascendlab.asc.lib.host
re-exports them.

The setters record what they are given (host_rules.Settings) and return pyasc's int status: 0
ok, -1 failed; after a failure `tiling_api.last_error` says why (and a warning is logged, as
Ascend C logs "MatmulApi Tiling" failures). `get_tiling` validates the settings and runs the
generator (tiling.py) with Ascend C's rules around it (host_rules.py). The host enums and the
platform are in host_platform.py.
"""

from __future__ import annotations

import logging
from typing import Any

from ..runtime.structs import TCubeTiling
from .host_platform import (
    CubeFormat,
    DataType,
    DequantType,
    MatrixMadType,
    MatrixTraverse,
    PlatformAscendC,
    PlatformAscendCManager,
    ScheduleType,
    TPosition,
    get_ascendc_platform,
)
from .host_rules import Settings, build_problem, fill, fix_split_error, plan_with_rules
from .tiling import Plan, check, l1_usable

_log = logging.getLogger("ascendlab.host")


def _enum(value: Any, cls: type, where: str) -> Any:
    if not isinstance(value, cls):
        raise TypeError(f"{where}: expected host.{cls.__name__} (asc.lib.host), got {value!r}; "
                        "host enums are separate from the kernel's asc.* enums")
    return value


def int32_args(where: str, **values: Any) -> None:
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or not -2**31 <= v < 2**31:
            raise TypeError(f"{where}: {name} must be an int32, got {v!r}")


def _unemulated(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"{name} is part of pyasc's host tiling but not emulated by ascendlab "
        "(docs/adv.md, Host tiling)")


class MatmulConfigParams:
    """pyasc's MatmulConfigParams (for set_matmul_config_params)."""

    def __init__(self, mm_config_type: int = 1, enable_l1_cache_ub: bool = False,
                 schedule_type: ScheduleType = ScheduleType.INNER_PRODUCT,
                 traverse: MatrixTraverse = MatrixTraverse.NOSET, en_vec_nd2nz: bool = False):
        self.mm_config_type = mm_config_type
        self.enable_l1_cache_ub = enable_l1_cache_ub
        self.schedule_type = schedule_type
        self.traverse = traverse
        self.en_vec_nd2nz = en_vec_nd2nz


class MatmulApiTilingBase:
    """The setters and get_tiling shared by every Matmul tiling class.

    Limitations: A/B must both be DT_FLOAT16 (C DT_FLOAT or DT_FLOAT16) or both DT_FLOAT (C
    DT_FLOAT); set_shape must cover the whole set_org_shape in m and n (the emulated Matmul's
    blocks cover the org shape); no K split across cores, quantisation or HF32.
    """

    _multi_core = False

    def __init__(self, ascendc_platform: PlatformAscendC | None = None) -> None:
        if ascendc_platform is None:
            ascendc_platform = get_ascendc_platform()
        if not isinstance(ascendc_platform, PlatformAscendC):
            raise TypeError(f"{type(self).__name__}(ascendc_platform): expected "
                            f"host.get_ascendc_platform(), got {ascendc_platform!r}")
        self.platform = ascendc_platform
        self._s = Settings()
        self._base = [-1, -1, -1]  # what get_base_m/n/k report (Ascend C's baseM/N/K members)
        self._result: tuple[Plan, int, int] | None = None  # plan, single_core_k, used cores
        self.last_error: str | None = None  # why the last call returned -1 (None after success)

    # -- status helpers
    def _fail(self, msg: str) -> int:
        self.last_error = msg
        _log.warning("MatmulApi Tiling: %s", msg)
        return -1

    def _ok(self) -> int:
        self.last_error = None
        return 0

    # -- types
    def _set_type(self, which: str, pos: Any, type: Any, data_type: Any, is_trans: bool) -> int:
        where = f"set_{which.lower()}_type"
        _enum(pos, TPosition, where)
        _enum(type, CubeFormat, where)
        _enum(data_type, DataType, where)
        self._s.types[which] = (pos, type, data_type, bool(is_trans))
        return self._ok()

    def set_a_type(self, pos: TPosition, type: CubeFormat, data_type: DataType,
                   is_trans: bool = False) -> int:
        """Where A lives, its format, data type and whether it is transposed."""
        return self._set_type("A", pos, type, data_type, is_trans)

    def set_b_type(self, pos: TPosition, type: CubeFormat, data_type: DataType,
                   is_trans: bool = False) -> int:
        """Where B lives, its format, data type and whether it is transposed."""
        return self._set_type("B", pos, type, data_type, is_trans)

    def set_c_type(self, pos: TPosition, type: CubeFormat, data_type: DataType) -> int:
        """Where C goes (GM, or VECCALC/VECIN for a vector epilogue), format and data type."""
        return self._set_type("C", pos, type, data_type, False)

    def set_bias_type(self, pos: TPosition, type: CubeFormat,
                      data_type: DataType) -> int:
        """Where the bias row lives, its format and data type."""
        return self._set_type("Bias", pos, type, data_type, False)

    # -- shapes and options
    def set_org_shape(self, org_m_in: int, org_n_in: int, org_k_in: int | None = None,
                      org_kb_in: int | None = None, *, org_ka_in: int | None = None) -> int:
        """The whole matrices: (m, n, k) or (m, n, ka, kb), in elements. ka and kb may differ:
        they only place A's and B's blocks in GM (Ascend C: SetOrgShape)."""
        ka = org_ka_in if org_ka_in is not None else org_k_in
        kb = org_kb_in if org_kb_in is not None else ka
        if ka is None:
            raise TypeError("set_org_shape(m, n, k) or set_org_shape(m, n, ka, kb): k missing")
        int32_args("set_org_shape", m=org_m_in, n=org_n_in, ka=ka, kb=kb)
        if min(org_m_in, org_n_in, ka, kb) < 1:
            return self._fail(f"set_org_shape({org_m_in}, {org_n_in}, {ka}, {kb}): every size "
                              "must be >= 1")
        self._s.org = (org_m_in, org_n_in, ka, kb)
        return self._ok()

    def set_shape(self, m: int, n: int, k: int) -> int:
        """The part of the org shape this Matmul computes (over all cores), in elements."""
        int32_args("set_shape", m=m, n=n, k=k)
        if min(m, n, k) < 1:
            return self._fail(f"set_shape({m}, {n}, {k}): every size must be >= 1")
        self._s.shape = (m, n, k)
        return self._ok()

    def enable_bias(self, is_bias_in: bool = False) -> int:
        """Whether a bias row is added to C."""
        self._s.bias = bool(is_bias_in)
        return self._ok()

    def set_fix_split(self, base_m_in: int = -1, base_n_in: int = -1, base_k_in: int = -1) -> int:
        """Fix base_m / base_n / base_k (-1: the tiling chooses). base_m and base_n must be
        multiples of 16, base_k of the K in 32 bytes of A's type (set A's type first)."""
        int32_args("set_fix_split", base_m=base_m_in, base_n=base_n_in, base_k=base_k_in)
        bad = fix_split_error(base_m_in, base_n_in, base_k_in, self._s.types["A"][2])
        if bad:
            return self._fail(bad)
        self._s.base = (base_m_in, base_n_in, base_k_in)
        for i, v in enumerate(self._s.base):  # Ascend C sets baseM/N/K at once
            if v != -1:
                self._base[i] = v
        return self._ok()

    def set_buffer_space(self, l1_size: int = -1, l0_c_size: int = -1, ub_size: int = -1,
                         bt_size: int = -1) -> int:
        """Bytes of L1 / L0C / UB / BiasTable the Matmul may use (-1: all of it)."""
        int32_args("set_buffer_space", l1_size=l1_size, l0_c_size=l0_c_size, ub_size=ub_size,
              bt_size=bt_size)
        chip = self.platform.chip
        for name, v, cap in (("l1_size", l1_size, l1_usable(chip)),
                             ("l0_c_size", l0_c_size, chip.l0c_bytes),
                             ("ub_size", ub_size, chip.ub_bytes), ("bt_size", bt_size, None)):
            if v != -1 and (v < 0 or (cap is not None and v > cap)):
                limit = f"0..{cap}" if cap is not None else ">= 0"
                return self._fail(f"set_buffer_space: {name} = {v} B must be -1 or {limit} B "
                                  f"on {chip.name}")
        self._s.space = (l1_size, l0_c_size, ub_size, bt_size)
        return self._ok()

    def set_traverse(self, traverse: MatrixTraverse) -> int:
        """FIRSTM (M varies fastest, iterate_order 0) or FIRSTN (iterate_order 1)."""
        self._s.traverse = _enum(traverse, MatrixTraverse, "set_traverse")
        return self._ok()

    def set_matmul_config_params(self, mm_config_type: int | MatmulConfigParams = 1,
                                 enable_l1_cache_ub: bool = False,
                                 schedule_type: ScheduleType = ScheduleType.INNER_PRODUCT,
                                 traverse: MatrixTraverse = MatrixTraverse.NOSET,
                                 en_vec_nd2nz: bool = False) -> None:
        """The kernel's MatmulConfig choices the tiling must agree with (recorded; the traverse
        replaces set_traverse's, NOSET included, as in Ascend C). OUTER_PRODUCT shapes the base
        block; L1-cache-UB and vector ND2NZ make get_tiling raise NotImplementedError."""
        if isinstance(mm_config_type, MatmulConfigParams):
            c = mm_config_type
            mm_config_type, enable_l1_cache_ub = c.mm_config_type, c.enable_l1_cache_ub
            schedule_type, traverse, en_vec_nd2nz = c.schedule_type, c.traverse, c.en_vec_nd2nz
        int32_args("set_matmul_config_params", mm_config_type=mm_config_type)
        s = self._s
        s.mm_config_type = mm_config_type
        s.schedule = _enum(schedule_type, ScheduleType, "set_matmul_config_params")
        s.traverse = _enum(traverse, MatrixTraverse, "set_matmul_config_params")
        s.l1_cache_ub, s.vec_nd2nz = bool(enable_l1_cache_ub), bool(en_vec_nd2nz)

    def set_mad_type(self, mad_type: MatrixMadType) -> int:
        """NORMAL only (HF32 is not emulated)."""
        if _enum(mad_type, MatrixMadType, "set_mad_type") != MatrixMadType.NORMAL:
            raise _unemulated(f"set_mad_type({mad_type.name})")
        return self._ok()

    def set_sparse(self, is_sparce_in: bool = False) -> int:
        """A sparse Matmul's tiling: base_k becomes 64, or a multiple of 64 (Ascend C's rule).
        The kernel-side sparse Matmul is not emulated."""
        self._s.sparse = bool(is_sparce_in)
        return self._ok()

    def set_dequant_type(self, dequant_type: DequantType) -> int:
        """Accepted; no emulated (float) Matmul dequantises."""
        _enum(dequant_type, DequantType, "set_dequant_type")
        return self._ok()

    def set_split_range(self, max_base_m: int = -1, max_base_n: int = -1, max_base_k: int = -1,
                        min_base_m: int = -1, min_base_n: int = -1, min_base_k: int = -1) -> int:
        """Recorded, no effect: Ascend C's tiling does not read the range yet (its docs say
        so)."""
        values = (max_base_m, max_base_n, max_base_k, min_base_m, min_base_n, min_base_k)
        int32_args("set_split_range", **dict(zip("max_m max_n max_k min_m min_n min_k".split(),
                                            values, strict=True)))
        self._s.split_range = values
        return self._ok()

    def set_double_buffer(self, a: bool, b: bool, c: bool, bias: bool, trans_nd2nz: bool = True,
                          trans_nz2nd: bool = True) -> int:
        """Accepted, no effect: a reserved API in Ascend C (its tiling ignores the flags)."""
        return self._ok()

    # -- batch layouts (IterateBatch): copied into the tiling
    def _set_layout(self, which: str, *values: int) -> int:
        names = "b s n g d".split()
        int32_args(f"set_{which.lower()}_layout", **dict(zip(names, values, strict=True)))
        self._s.layouts[which] = tuple(values)
        return self._ok()

    def set_a_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        """A's B, S, N, G, D axes (BSNGD / SBNGD / BNGS1S2 layouts): a_layout_info_*."""
        return self._set_layout("A", b, s, n, g, d)

    def set_b_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        """B's B, S, N, G, D axes: b_layout_info_*."""
        return self._set_layout("B", b, s, n, g, d)

    def set_c_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        """C's B, S1, N, G, S2 axes (s and d are S1 and S2): c_layout_info_*."""
        return self._set_layout("C", b, s, n, g, d)

    def set_batch_num(self, batch: int) -> int:
        """The batches IterateBatch computes (max of A's and B's): batch_num. Without
        set_batch_info_for_normal, get_tiling checks that every batch of A and B fits L1."""
        int32_args("set_batch_num", batch=batch)
        self._s.batch_num = batch
        return self._ok()

    def set_batch_info_for_normal(self, batch_a: int, batch_b: int, m: int, n: int,
                                  k: int) -> int:
        """NORMAL layout: A is (batch_a, 1, 1, m, k), B (batch_b, 1, 1, n, k), C (max batch, 1,
        1, m, n) in the layout fields (Ascend C: SetBatchInfoForNormal)."""
        int32_args("set_batch_info_for_normal", batch_a=batch_a, batch_b=batch_b, m=m, n=n, k=k)
        s = self._s
        s.layouts = {"A": (batch_a, m, 1, 1, k), "B": (batch_b, n, 1, 1, k),
                     "C": (max(batch_a, batch_b), m, 1, 1, n)}
        s.bmnk = True
        return self._ok()

    # -- results
    def get_base_m(self) -> int:
        """base_m of the last successful get_tiling, or the one set_fix_split fixed since
        (-1: neither)."""
        return self._base[0]

    def get_base_n(self) -> int:
        """base_n, as get_base_m."""
        return self._base[1]

    def get_base_k(self) -> int:
        """base_k, as get_base_m."""
        return self._base[2]

    def get_tiling(self, tiling: Any) -> int:
        """Fill TCubeTiling `tiling` in place: 0 on success; -1 (tiling untouched, reason in
        last_error) when the problem cannot be tiled or is not emulated."""
        if not isinstance(tiling, TCubeTiling):
            raise TypeError(f"get_tiling(tiling): expected asc.adv.TCubeTiling(), got "
                            f"{type(tiling).__name__}")
        s, chip = self._s, self.platform.chip
        if s.l1_cache_ub or s.vec_nd2nz:
            raise _unemulated("get_tiling with enable_l1_cache_ub / en_vec_nd2nz")
        problem = build_problem(s, chip, self._multi_core)
        if isinstance(problem, str):
            return self._fail(problem)
        planned = plan_with_rules(s, problem)
        if isinstance(planned, str):
            return self._fail(planned)
        problem, chosen, steps = planned
        user_single = self._multi_core and s.single != (-1, -1, -1)
        used = s.dim if user_single else chosen.used  # Ascend C: set_dim with a single shape
        out = TCubeTiling()
        fill(out, s, problem, chosen, used, steps)
        errs = check(out, chip, problem.a_bytes, problem.b_bytes, problem.bias,
                     max_cores=max(used, problem.dim),
                     kernel=not user_single and out.k_a == out.k_b)
        if errs and steps != (1, 1):  # OUTER_PRODUCT's doubled step may not fit L1
            return self._fail("OUTER_PRODUCT: " + "; ".join(errs))
        if errs:  # the generator's own output must always pass: a bug in this package
            raise RuntimeError("ascendlab host tiling produced an invalid tiling: "
                               + "; ".join(errs))
        for f in out._fields:
            setattr(tiling, f.attr, getattr(out, f.attr))
        self._result = (chosen, problem.k, used)
        self._base = [chosen.bm, chosen.bn, chosen.bk]
        return self._ok()

    def _shape_mn(self) -> tuple[int, int]:
        """The m, n computed (set_shape's, else the org shape's)."""
        s = self._s
        return s.shape[:2] if s.shape else (s.org[:2] if s.org else (0, 0))


class MatmulApiTiling(MatmulApiTilingBase):
    """Single-core tiling: one core computes the whole set_shape (used_core_num = 1)."""


__all__ = ["CubeFormat", "DataType", "DequantType", "MatmulApiTiling",
           "MatmulApiTilingBase", "MatmulConfigParams", "MatrixMadType", "MatrixTraverse",
           "PlatformAscendC", "PlatformAscendCManager", "ScheduleType", "TPosition",
           "get_ascendc_platform"]
