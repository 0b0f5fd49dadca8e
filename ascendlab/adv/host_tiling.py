"""asc.lib.host on the emulator: the Matmul host tiling API. The rules it applies (the
contract with the kernel-side Matmul and the generator) are in tiling.py.

1. Host enums and the platform (host_platform.py): Ascend C's matmul_tiling enums and
   `get_ascendc_platform()`.
2. pyasc's classes (`MultiCoreMatmulTiling`, `MatmulApiTiling`), re-exported by
   ascendlab.asc.lib.host. Methods return pyasc's int status: 0 ok, -1 failed; after a failure
   `tiling_api.last_error` says why (and a warning is logged, as Ascend C logs "MatmulApi
   Tiling" failures).
"""

from __future__ import annotations

import logging
from typing import Any

from ..runtime.structs import TCubeTiling
from .tiling import (
    L0C_ELEM_BYTES,
    Plan,
    Problem,
    align_up,
    check,
    fill,
    k_align,
    l1_usable,
    plan,
)

_log = logging.getLogger("ascendlab.host")


# The host enums and the platform (part 1) are in host_platform.py
from .host_platform import (  # noqa: E402
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

# ---- pyasc's classes -----------------------------------------------------------------------------
_A_B_TYPES = {DataType.DT_FLOAT16: 2, DataType.DT_FLOAT: 4}
_C_TYPES = {DataType.DT_FLOAT16: (DataType.DT_FLOAT, DataType.DT_FLOAT16),
            DataType.DT_FLOAT: (DataType.DT_FLOAT,)}
_BIAS_TYPES = (DataType.DT_FLOAT, DataType.DT_FLOAT16)
_BYTES = {DataType.DT_FLOAT16: 2, DataType.DT_FLOAT: 4}


def _enum(value: Any, cls: type, where: str) -> Any:
    if not isinstance(value, cls):
        raise TypeError(f"{where}: expected host.{cls.__name__} (asc.lib.host), got {value!r}; "
                        "host enums are separate from the kernel's asc.* enums")
    return value


def _ints(where: str, **values: Any) -> None:
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or not -2**31 <= v < 2**31:
            raise TypeError(f"{where}: {name} must be an int32, got {v!r}")


def _unemulated(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"{name} is part of pyasc's host tiling but not emulated by ascendlab; emulated: "
        "set_a/b/c/bias_type, set_org_shape, set_shape, set_single_shape, set_dim, "
        "set_fix_split, set_align_split, set_buffer_space, set_traverse, enable_bias, "
        "get_tiling (docs/adv.md, Host tiling)")


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
    """The setters and get_tiling shared by MatmulApiTiling and MultiCoreMatmulTiling.

    Limitations: A/B must both be DT_FLOAT16 (C DT_FLOAT or DT_FLOAT16) or both DT_FLOAT (C
    DT_FLOAT); no split-K, batch, quantisation, sparse or HF32; set_shape must cover the whole
    set_org_shape in m and n (the emulated Matmul's blocks cover the org shape).
    """

    _multi_core = False

    def __init__(self, ascendc_platform: PlatformAscendC | None = None) -> None:
        if ascendc_platform is None:
            ascendc_platform = get_ascendc_platform()
        if not isinstance(ascendc_platform, PlatformAscendC):
            raise TypeError(f"{type(self).__name__}(ascendc_platform): expected "
                            f"host.get_ascendc_platform(), got {ascendc_platform!r}")
        self.platform = ascendc_platform
        # position, format, data type, transposed: Ascend C's MatTilingType defaults
        default = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT, False)
        self._types = {"A": default, "B": default, "C": default, "Bias": default}
        self._org: tuple[int, int, int, int] | None = None
        self._shape: tuple[int, int, int] | None = None
        self._bias = False
        self._base = (-1, -1, -1)
        self._space = (-1, -1, -1, -1)  # l1, l0c, ub, bt bytes; -1 = whole memory
        self._traverse = MatrixTraverse.FIRSTM
        self._dim = 1
        self._single = (-1, -1, -1)
        self._align = (1, 1)
        self._result: Plan | None = None
        self._k = 0  # single_core_k of the last successful get_tiling
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
        self._types[which] = (pos, type, data_type, bool(is_trans))
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
        """The whole matrices: (m, n, k) or (m, n, ka, kb), in elements."""
        ka = org_ka_in if org_ka_in is not None else org_k_in
        kb = org_kb_in if org_kb_in is not None else ka
        if ka is None:
            raise TypeError("set_org_shape(m, n, k) or set_org_shape(m, n, ka, kb): k missing")
        _ints("set_org_shape", m=org_m_in, n=org_n_in, ka=ka, kb=kb)
        if min(org_m_in, org_n_in, ka, kb) < 1:
            return self._fail(f"set_org_shape({org_m_in}, {org_n_in}, {ka}, {kb}): every size "
                              "must be >= 1")
        self._org = (org_m_in, org_n_in, ka, kb)
        return self._ok()

    def set_shape(self, m: int, n: int, k: int) -> int:
        """The part of the org shape this Matmul computes (over all cores), in elements."""
        _ints("set_shape", m=m, n=n, k=k)
        if min(m, n, k) < 1:
            return self._fail(f"set_shape({m}, {n}, {k}): every size must be >= 1")
        self._shape = (m, n, k)
        return self._ok()

    def enable_bias(self, is_bias_in: bool = False) -> int:
        """Whether a bias row is added to C."""
        self._bias = bool(is_bias_in)
        return self._ok()

    def set_fix_split(self, base_m_in: int = -1, base_n_in: int = -1, base_k_in: int = -1) -> int:
        """Fix base_m / base_n / base_k (-1: the tiling chooses)."""
        _ints("set_fix_split", base_m=base_m_in, base_n=base_n_in, base_k=base_k_in)
        for name, v in (("base_m", base_m_in), ("base_n", base_n_in), ("base_k", base_k_in)):
            if v != -1 and v < 1:
                return self._fail(f"set_fix_split: {name} = {v} must be -1 or >= 1")
        self._base = (base_m_in, base_n_in, base_k_in)
        return self._ok()

    def set_buffer_space(self, l1_size: int = -1, l0_c_size: int = -1, ub_size: int = -1,
                         bt_size: int = -1) -> int:
        """Bytes of L1 / L0C / UB / BiasTable the Matmul may use (-1: all of it)."""
        _ints("set_buffer_space", l1_size=l1_size, l0_c_size=l0_c_size, ub_size=ub_size,
              bt_size=bt_size)
        chip = self.platform.chip
        for name, v, cap in (("l1_size", l1_size, l1_usable(chip)),
                             ("l0_c_size", l0_c_size, chip.l0c_bytes),
                             ("ub_size", ub_size, chip.ub_bytes), ("bt_size", bt_size, None)):
            if v != -1 and (v < 0 or (cap is not None and v > cap)):
                limit = f"0..{cap}" if cap is not None else ">= 0"
                return self._fail(f"set_buffer_space: {name} = {v} B must be -1 or {limit} B "
                                  f"on {chip.name}")
        self._space = (l1_size, l0_c_size, ub_size, bt_size)
        return self._ok()

    def set_traverse(self, traverse: MatrixTraverse) -> int:
        """FIRSTM (M varies fastest, iterate_order 0) or FIRSTN (iterate_order 1)."""
        _enum(traverse, MatrixTraverse, "set_traverse")
        self._traverse = traverse
        return self._ok()

    def set_matmul_config_params(self, mm_config_type: int | MatmulConfigParams = 1,
                                 enable_l1_cache_ub: bool = False,
                                 schedule_type: ScheduleType = ScheduleType.INNER_PRODUCT,
                                 traverse: MatrixTraverse = MatrixTraverse.NOSET,
                                 en_vec_nd2nz: bool = False) -> None:
        """MatmulConfig choices the tiling must agree with; only the traverse affects it here."""
        if isinstance(mm_config_type, MatmulConfigParams):
            c = mm_config_type
            mm_config_type, enable_l1_cache_ub = c.mm_config_type, c.enable_l1_cache_ub
            schedule_type, traverse, en_vec_nd2nz = c.schedule_type, c.traverse, c.en_vec_nd2nz
        if enable_l1_cache_ub or en_vec_nd2nz or schedule_type != ScheduleType.INNER_PRODUCT:
            raise _unemulated("set_matmul_config_params(enable_l1_cache_ub / en_vec_nd2nz / "
                              "OUTER_PRODUCT)")
        if _enum(traverse, MatrixTraverse, "set_matmul_config_params") != MatrixTraverse.NOSET:
            self._traverse = traverse

    def set_mad_type(self, mad_type: MatrixMadType) -> int:
        """NORMAL only (HF32 is not emulated)."""
        if _enum(mad_type, MatrixMadType, "set_mad_type") != MatrixMadType.NORMAL:
            raise _unemulated(f"set_mad_type({mad_type.name})")
        return self._ok()

    def set_sparse(self, is_sparce_in: bool = False) -> int:
        """False only (sparse Matmul is not emulated)."""
        if is_sparce_in:
            raise _unemulated("set_sparse(True)")
        return self._ok()

    def set_dequant_type(self, dequant_type: DequantType) -> int:
        """Accepted; no emulated (float) Matmul dequantises."""
        _enum(dequant_type, DequantType, "set_dequant_type")
        return self._ok()

    # -- results
    def get_base_m(self) -> int:
        """base_m of the last successful get_tiling (0 before)."""
        return self._result.bm if self._result else 0

    def get_base_n(self) -> int:
        """base_n of the last successful get_tiling (0 before)."""
        return self._result.bn if self._result else 0

    def get_base_k(self) -> int:
        """base_k of the last successful get_tiling (0 before)."""
        return self._result.bk if self._result else 0

    def get_tiling(self, tiling: Any) -> int:
        """Fill TCubeTiling `tiling` in place: 0 on success; -1 (tiling untouched, reason in
        last_error) when the problem cannot be tiled or is not emulated."""
        if not isinstance(tiling, TCubeTiling):
            raise TypeError(f"get_tiling(tiling): expected asc.adv.TCubeTiling(), got "
                            f"{type(tiling).__name__}")
        problem = self._problem()
        if isinstance(problem, str):
            return self._fail(problem)
        chosen = plan(problem)
        if isinstance(chosen, str):
            return self._fail(chosen)
        m, n, ka, kb = self._org or (problem.m, problem.n, problem.k, problem.k)
        out = TCubeTiling()
        fill(out, problem, chosen, (m, n, ka, kb))
        errs = check(out, problem.chip, problem.a_bytes, problem.b_bytes, problem.bias,
                     max_cores=problem.dim)
        if errs:  # the generator's own output must always pass: a bug in this file
            raise RuntimeError("ascendlab host tiling produced an invalid tiling: "
                               + "; ".join(errs))
        for f in out._fields:
            setattr(tiling, f.attr, getattr(out, f.attr))
        self._result, self._k = chosen, problem.k
        return self._ok()

    def _problem(self) -> Problem | str:
        chip = self.platform.chip
        a, b = self._types["A"][2], self._types["B"][2]
        c, bias_t = self._types["C"][2], self._types["Bias"][2]
        if a not in _A_B_TYPES or b != a:
            return (f"A {a.name} / B {b.name}: the emulated Matmul supports A and B both "
                    "DT_FLOAT16 (C DT_FLOAT or DT_FLOAT16) or both DT_FLOAT (C DT_FLOAT)")
        if c not in _C_TYPES[a]:
            return (f"C {c.name} with A/B {a.name}: supported C types are "
                    + " or ".join(t.name for t in _C_TYPES[a]))
        if self._bias and bias_t not in _BIAS_TYPES:
            return f"bias {bias_t.name}: supported bias types are DT_FLOAT or DT_FLOAT16"
        if self._org is None and self._shape is None:
            return "no shape: call set_org_shape(m, n, k) and/or set_shape(m, n, k) first"
        om, on, oka, okb = self._org or (*self._shape, self._shape[2])  # type: ignore[misc]
        m, n, k = self._shape or (om, on, oka)
        if oka != okb:
            return (f"set_org_shape ka = {oka} differs from kb = {okb}: the emulated Matmul "
                    "needs k_a == k_b")
        if (m, n) != (om, on) or k > oka:
            return (f"set_shape({m}, {n}, {k}) vs set_org_shape({om}, {on}, {oka}): the emulated "
                    "Matmul's blocks cover the whole org m x n, so set_shape must equal it in m "
                    "and n (and k <= org k)")
        if self._dim < 1:
            return "set_dim was not called: call set_dim(n) with the number of blocks to use"
        l1 = l1_usable(chip) if self._space[0] == -1 else self._space[0]
        l0c = chip.l0c_bytes if self._space[1] == -1 else self._space[1]
        a_bytes = _A_B_TYPES[a]
        kal = k_align(a_bytes, a_bytes)
        bm, bn, bk = self._base
        for name, v, unit, size in (("base_m", bm, 16, m), ("base_n", bn, 16, n)):
            if v > 0 and v % unit:
                return f"set_fix_split: {name} = {v} is not a multiple of {unit} (fractal size)"
            if v > align_up(size, 16):
                return (f"set_fix_split: {name} = {v} exceeds the single-core size {size} "
                        f"aligned to 16 ({align_up(size, 16)})")
        if bk > 0 and bk % kal:
            return (f"set_fix_split: base_k = {bk} is not a multiple of {kal} (32 B of K per "
                    f"fractal row with {a_bytes}-byte A/B)")
        if bm > 0 and bn > 0 and bm * bn * L0C_ELEM_BYTES > l0c:
            return (f"set_fix_split: base_m*base_n*{L0C_ELEM_BYTES} B = {bm}*{bn}*"
                    f"{L0C_ELEM_BYTES} = {bm * bn * L0C_ELEM_BYTES} B exceeds the {l0c} B of "
                    f"L0C available on {chip.name}")
        if bk > 0 and (bm > 0 and bm * bk * a_bytes > chip.l0a_bytes
                       or bn > 0 and bk * bn * a_bytes > chip.l0b_bytes):
            return (f"set_fix_split: base_k = {bk} makes an A tile (base_m*base_k*{a_bytes} B) or "
                    f"a B tile (base_k*base_n*{a_bytes} B) larger than L0A/L0B "
                    f"({chip.l0a_bytes} B) on {chip.name}")
        sm, sn, sk = self._single
        if sk not in (-1, k):
            return (f"set_single_shape: single_k = {sk} differs from k = {k}: split-K is not "
                    "emulated (single_core_k is always k)")
        for name, v, size, base in (("single_m", sm, m, bm), ("single_n", sn, n, bn)):
            if v > size:
                return f"set_single_shape: {name} = {v} exceeds the shape's {size}"
            if v > 0 and base > align_up(v, 16):
                return (f"set_fix_split base {base} exceeds set_single_shape {name} = {v} "
                        f"aligned to 16 ({align_up(v, 16)})")
        if not self._multi_core:
            sm, sn = m, n  # one core computes the whole shape
        return Problem(
            chip=chip, m=m, n=n, k=k, a_bytes=a_bytes, b_bytes=a_bytes,
            c_bytes=_BYTES[c], bias=self._bias, dim=self._dim, l1=l1, l0c=l0c,
            base=self._base, single=(sm, sn), align=self._align,
            iterate_order=1 if self._traverse == MatrixTraverse.FIRSTN else 0)


for _name in ("set_a_layout", "set_b_layout", "set_c_layout", "set_batch_num",
              "set_batch_info_for_normal", "set_double_buffer", "set_split_range"):
    def _method(self: Any, *args: Any, _name: str = _name, **kwargs: Any) -> int:
        raise _unemulated(_name)
    _method.__name__ = _name
    _method.__doc__ = "Not emulated: raises NotImplementedError."
    setattr(MatmulApiTilingBase, _name, _method)


class MatmulApiTiling(MatmulApiTilingBase):
    """Single-core tiling: one core computes the whole set_shape (used_core_num = 1)."""


class MultiCoreMatmulTiling(MatmulApiTilingBase):
    """Multi-core tiling: splits m x n into at most set_dim blocks (used_core_num of them)."""

    _multi_core = True

    def __init__(self, ascendc_platform: PlatformAscendC | None = None) -> None:
        super().__init__(ascendc_platform)
        self._dim = 0  # set_dim is required

    def set_dim(self, dim: int) -> int:
        """The number of blocks the tiling may use (a MIX kernel counts vector cores)."""
        _ints("set_dim", dim=dim)
        cap = self.platform.get_core_num()
        if not 1 <= dim <= cap:
            return self._fail(f"set_dim({dim}): must be 1..{cap} (the vector cores of "
                              f"{self.platform.chip.name})")
        self._dim = dim
        return self._ok()

    def set_single_shape(self, single_m_in: int = -1, single_n_in: int = -1,
                         single_k_in: int = -1) -> int:
        """Fix one core's block (-1: the tiling chooses)."""
        _ints("set_single_shape", single_m=single_m_in, single_n=single_n_in,
              single_k=single_k_in)
        for name, v in (("single_m", single_m_in), ("single_n", single_n_in),
                        ("single_k", single_k_in)):
            if v != -1 and v < 1:
                return self._fail(f"set_single_shape: {name} = {v} must be -1 or >= 1")
        self._single = (single_m_in, single_n_in, single_k_in)
        return self._ok()

    def set_align_split(self, align_m: int, align_n: int, align_k: int) -> int:
        """Make single_core_m / single_core_n multiples of align_m / align_n (-1 or 0: free).
        align_k has no effect: single_core_k is always k."""
        _ints("set_align_split", align_m=align_m, align_n=align_n, align_k=align_k)
        self._align = (max(1, align_m), max(1, align_n))
        return self._ok()

    def enable_multi_core_split_k(self, flag: bool) -> None:
        """Split-K is not emulated: enabling it raises NotImplementedError."""
        if flag:
            raise NotImplementedError(
                "enable_multi_core_split_k(True): split-K across cores is not emulated; the "
                "emulated Matmul computes the whole K on each core (single_core_k = k)")

    def set_single_range(self, *args: Any, **kwargs: Any) -> int:
        """Not emulated: raises NotImplementedError."""
        raise _unemulated("set_single_range")

    def get_core_num(self) -> tuple[int, int, int] | None:
        """(dim, m_dim, n_dim) of the last successful get_tiling: blocks used, and the blocks
        along m and n; None before."""
        p = self._result
        return (p.used, p.m_dim, p.n_dim) if p else None

    def get_single_shape(self) -> tuple[int, int, int] | None:
        """(single_core_m, single_core_n, single_core_k) of the last get_tiling; None before."""
        p = self._result
        return (p.scm, p.scn, self._k) if p else None


class BatchMatmulTiling(MatmulApiTilingBase):
    """Not emulated: constructing one raises NotImplementedError."""

    def __init__(self, ascendc_platform: PlatformAscendC | None = None) -> None:
        raise _unemulated("BatchMatmulTiling")


__all__ = ["BatchMatmulTiling", "CubeFormat", "DataType", "DequantType", "MatmulApiTiling",
           "MatmulApiTilingBase", "MatmulConfigParams", "MatrixMadType", "MatrixTraverse",
           "MultiCoreMatmulTiling", "PlatformAscendC", "PlatformAscendCManager", "ScheduleType",
           "TPosition", "get_ascendc_platform"]
