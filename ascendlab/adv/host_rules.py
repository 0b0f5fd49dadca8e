"""What asc.lib.host's tiling classes (host_tiling.py, host_batch.py) record and the rules they
apply around the generator (tiling.py's `plan`): Ascend C's matmul_tiling semantics, as its
host library (matmul_tiling_base.cpp, bmm_tiling.cpp, matmul_tiling_algorithm.cpp of CANN's
asc-devkit) applies them.

1. `Settings`: everything the setters record (Ascend C's MatmulApiTilingBase members).
2. `fix_split_error`: SetFixSplit's own check (at the call).
3. `build_problem`: the settings, validated, as the generator's `Problem` (or why not).
4. The rules applied to the generator's plan: sparse base_k, OUTER_PRODUCT, the batch L1 rule.
5. `fill`: a plan into a TCubeTiling, with the fields Ascend C copies from the settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..runtime.chips import ChipSpec
from .host_platform import CubeFormat, DataType, MatrixTraverse, ScheduleType, TPosition
from .tiling import (
    BIAS_ROW_BYTES,
    L0C_ELEM_BYTES,
    Plan,
    Problem,
    align_up,
    cdiv,
    k_align,
    l1_usable,
    plan,
)

# Bits per element of the host data types (Ascend C's DTYPE_BIT_TAB, matmul_tiling_base.h)
DTYPE_BITS = {DataType.DT_FLOAT: 32, DataType.DT_FLOAT16: 16, DataType.DT_INT8: 8,
              DataType.DT_INT16: 16, DataType.DT_UINT16: 16, DataType.DT_UINT8: 8,
              DataType.DT_INT32: 32, DataType.DT_INT64: 64, DataType.DT_UINT32: 32,
              DataType.DT_UINT64: 64, DataType.DT_BF16: 16, DataType.DT_BFLOAT16: 16,
              DataType.DT_INT4: 4}
_A_B_TYPES = {DataType.DT_FLOAT16: 2, DataType.DT_FLOAT: 4}  # what the emulated Matmul computes
_C_TYPES = {DataType.DT_FLOAT16: (DataType.DT_FLOAT, DataType.DT_FLOAT16),
            DataType.DT_FLOAT: (DataType.DT_FLOAT,)}
_BIAS_TYPES = (DataType.DT_FLOAT, DataType.DT_FLOAT16)
_BYTES = {DataType.DT_FLOAT16: 2, DataType.DT_FLOAT: 4}
SPARSE_BASE_K = 64  # Ascend C aligns base_k to 64 for a sparse Matmul (AdjustSparseL0Factors)


@dataclass
class Settings:
    """What the setters recorded. -1 means "not set" (the tiling chooses), as in Ascend C."""

    # position, format, data type, transposed: Ascend C's MatTilingType defaults (DT_FLOAT)
    types: dict[str, tuple] = field(default_factory=lambda: {
        w: (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT, False)
        for w in ("A", "B", "C", "Bias")})
    org: tuple[int, int, int, int] | None = None  # m, n, ka, kb
    shape: tuple[int, int, int] | None = None  # set_shape m, n, k
    bias: bool = False
    base: tuple[int, int, int] = (-1, -1, -1)  # set_fix_split
    space: tuple[int, int, int, int] = (-1, -1, -1, -1)  # l1, l0c, ub, bt bytes
    traverse: MatrixTraverse = MatrixTraverse.NOSET
    dim: int = 1  # Ascend C's blockDim starts at 1
    single: tuple[int, int, int] = (-1, -1, -1)  # set_single_shape
    align: tuple[int, int] = (1, 1)  # set_align_split m, n
    sparse: bool = False
    mm_config_type: int = 1  # 0: Norm, 1: MDL
    schedule: ScheduleType = ScheduleType.INNER_PRODUCT
    l1_cache_ub: bool = False
    vec_nd2nz: bool = False
    # set_a/b/c_layout: (b, s, n, g, d); for C (b, s1, n, g, s2)
    layouts: dict[str, tuple[int, ...]] = field(default_factory=lambda: {
        w: (0, 0, 0, 0, 0) for w in ("A", "B", "C")})
    batch_num: int = 0
    bmnk: bool = False  # set_batch_info_for_normal was called (NORMAL layout)
    # recorded only: Ascend C's tiling reads neither (its docs: "not supported yet")
    split_range: tuple[int, ...] = (-1,) * 6
    single_range: tuple[int, ...] = (-1,) * 6
    split_k: bool = False


def k0(data_type: DataType) -> int:
    """Elements of K in one 32-byte fractal row for A's type (0 for an unknown type)."""
    bits = DTYPE_BITS.get(data_type, 0)
    return 32 * 8 // bits if bits else 0


def fix_split_error(bm: int, bn: int, bk: int, a_type: DataType) -> str | None:
    """SetFixSplit's check: 0 is refused, base_m / base_n multiples of 16, base_k of the K per
    fractal row of A's type at the time of the call (-1 = leave to the tiling)."""
    for name, v, unit in (("base_m", bm, 16), ("base_n", bn, 16), ("base_k", bk, k0(a_type))):
        if v != -1 and (v < 1 or not unit or v % unit):
            why = (f"a multiple of {unit}" if unit else f"alignable ({a_type.name} A)")
            return f"set_fix_split: {name} = {v} must be -1 or {why}"
    return None


def _types(s: Settings) -> str | tuple[int, int]:
    """(A/B bytes, C bytes), or why the emulated Matmul cannot compute these types."""
    a, b = s.types["A"][2], s.types["B"][2]
    c, bias_t = s.types["C"][2], s.types["Bias"][2]
    if a not in _A_B_TYPES or b != a:
        return (f"A {a.name} / B {b.name}: the emulated Matmul supports A and B both "
                "DT_FLOAT16 (C DT_FLOAT or DT_FLOAT16) or both DT_FLOAT (C DT_FLOAT)")
    if c not in _C_TYPES[a]:
        return (f"C {c.name} with A/B {a.name}: supported C types are "
                + " or ".join(t.name for t in _C_TYPES[a]))
    if s.bias and bias_t not in _BIAS_TYPES:
        return f"bias {bias_t.name}: supported bias types are DT_FLOAT or DT_FLOAT16"
    return _A_B_TYPES[a], _BYTES[c]


def _fix_split_fits(s: Settings, chip: ChipSpec, m: int, n: int, a_bytes: int,
                    l0c: int) -> str | None:
    """A fixed base against the shape, the K alignment and L0A/L0B/L0C."""
    kal = k_align(a_bytes, a_bytes)
    bm, bn, bk = s.base
    for name, v, size in (("base_m", bm, m), ("base_n", bn, n)):
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
    return None


def build_problem(s: Settings, chip: ChipSpec, multi_core: bool) -> Problem | str:
    """The generator's problem for settings `s`, or why there is none.

    With a set_single_shape value Ascend C tiles one core's block (single_core_m/n/k = the
    values set, else set_shape's) and reports used_core_num = set_dim, leaving the coverage of
    the shape to the kernel (MatmulTilingAlgorithm::FillParam / UpdateTiling).
    """
    types = _types(s)
    if isinstance(types, str):
        return types
    a_bytes, c_bytes = types
    if s.org is None and s.shape is None:
        return "no shape: call set_org_shape(m, n, k) and/or set_shape(m, n, k) first"
    om, on, oka, okb = s.org or (*s.shape, s.shape[2])  # type: ignore[misc]
    m, n, k = s.shape or (om, on, oka)  # Ascend C: set_shape's, else the org shape's
    if (m, n) != (om, on) or k > oka:
        return (f"set_shape({m}, {n}, {k}) vs set_org_shape({om}, {on}, {oka}): the emulated "
                "Matmul's blocks cover the whole org m x n, so set_shape must equal it in m "
                "and n (and k <= org k)")
    l1 = l1_usable(chip) if s.space[0] == -1 else s.space[0]
    l0c = chip.l0c_bytes if s.space[1] == -1 else s.space[1]
    user_single = multi_core and s.single != (-1, -1, -1)
    sm, sn, sk = ((v if v > 0 else size) for v, size in zip(s.single, (m, n, k), strict=True))
    for name, v, size in (("single_m", sm, m), ("single_n", sn, n), ("single_k", sk, k)):
        if v > size:
            return f"set_single_shape: {name} = {v} exceeds the shape's {size}"
    bad = _fix_split_fits(s, chip, sm if user_single else m, sn if user_single else n,
                          a_bytes, l0c)
    if bad:
        return bad
    dim = s.dim if multi_core else 1
    if user_single:  # the cost model sees every block the shape needs, as before
        dim = max(dim, cdiv(m, sm) * cdiv(n, sn))
    return Problem(
        chip=chip, m=m, n=n, k=sk, a_bytes=a_bytes, b_bytes=a_bytes, c_bytes=c_bytes,
        bias=s.bias, dim=dim, l1=l1, l0c=l0c, base=s.base,
        single=(sm, sn) if user_single else (-1, -1), align=s.align,
        iterate_order=1 if s.traverse == MatrixTraverse.FIRSTN else 0)


# ---- rules applied to the plan ------------------------------------------------------------------
def plan_with_rules(s: Settings, p: Problem) -> tuple[Problem, Plan, tuple[int, int]] | str:
    """The generator's plan with Ascend C's adjustments: (problem, plan, (step_m, step_n))."""
    chosen = plan(p)
    if isinstance(chosen, str):
        return chosen
    if s.sparse:  # base_k 64, or aligned down to 64 (AdjustSparseL0Factors)
        bk = SPARSE_BASE_K if chosen.bk <= SPARSE_BASE_K else chosen.bk // 64 * 64
        if bk != chosen.bk:
            p = _refix(p, chosen, chosen.bm, chosen.bn, bk)
            chosen = plan(p)
            if isinstance(chosen, str):
                return f"sparse Matmul (base_k {bk}): {chosen}"
    steps = (1, 1)
    if s.schedule == ScheduleType.OUTER_PRODUCT:
        outer = _outer_product(s, p, chosen)
        if isinstance(outer, str):
            return outer
        p, chosen, steps = outer
    bad = _batch_l1(s, p, chosen)
    return bad if bad else (p, chosen, steps)


def _refix(p: Problem, chosen: Plan, bm: int, bn: int, bk: int) -> Problem:
    """`p` with the plan's core block and the base block (bm, bn, bk) fixed: Ascend C adjusts
    the base after the core split, so only the L1 layout is chosen again."""
    return replace(p, base=(bm, bn, bk), single=(chosen.scm, chosen.scn))


def _outer_product(s: Settings, p: Problem, chosen: Plan
                   ) -> tuple[Problem, Plan, tuple[int, int]] | str:
    """OUTER_PRODUCT (AdjustOuterProductL0Factor): refused when base_k < single_core_k with the
    MDL template (or Norm with a batch); each iteration computes two base blocks, so when two
    do not fit L0C base_n (ORDER_M) or base_m (ORDER_N) is halved and step_n / step_m is 2."""
    if chosen.bk < p.k and (s.mm_config_type == 1 or s.mm_config_type == 0 and s.batch_num):
        return (f"OUTER_PRODUCT needs base_k >= single_core_k with mm_config_type "
                f"{s.mm_config_type}: base_k = {chosen.bk} < {p.k}")
    if 2 * chosen.bm * chosen.bn * L0C_ELEM_BYTES <= p.l0c:
        return p, chosen, (1, 1)
    order_n = p.iterate_order == 1
    bm = align_up(chosen.bm // 2, 16) if order_n else chosen.bm
    bn = chosen.bn if order_n else align_up(chosen.bn // 2, 16)
    p = _refix(p, chosen, bm, bn, chosen.bk)
    again = plan(p)
    if isinstance(again, str):
        return f"OUTER_PRODUCT (base {bm} x {bn}): {again}"
    return p, again, ((2, 1) if order_n else (1, 2))


def _batch_l1(s: Settings, p: Problem, chosen: Plan) -> str | None:
    """With set_batch_num (not NORMAL) all batches of A and B sit in L1 (CheckFinalParams)."""
    if s.bmnk or s.batch_num <= 0:
        return None
    scm, scn = chosen.scm, chosen.scn
    need = (scm * p.k + scn * p.k) * s.batch_num * p.a_bytes
    need += scn * s.batch_num * p.a_bytes if s.bias else 0
    if need > p.l1:
        return (f"batch: (single_core_m*k + single_core_n*k)*batch_num*{p.a_bytes} B"
                f"{' + bias' if s.bias else ''} = ({scm}*{p.k} + {scn}*{p.k})*{s.batch_num}*"
                f"{p.a_bytes} = {need} B exceeds the {p.l1} B of L1")
    return None


def fill(t: Any, s: Settings, p: Problem, chosen: Plan, used: int,
         steps: tuple[int, int] = (1, 1)) -> None:
    """Write `chosen` into TCubeTiling `t` (every field: stale values from a reused struct go).
    m, n, k_a, k_b are the org shape; batch_m/n and single_batch_m/n are 1 and the layouts and
    batch_num are the settings' (Ascend C's UpdateShapeAndLayout)."""
    for f in t._fields:
        setattr(t, f.attr, f.default)
    (ska, bufs_a), (skb, bufs_b) = chosen.l1a, chosen.l1b
    depth_a, depth_b = bufs_a * ska * steps[0], bufs_b * skb * steps[1]
    a_l1 = depth_a * chosen.bm * chosen.bk * p.a_bytes
    b_l1 = depth_b * chosen.bk * chosen.bn * p.b_bytes
    om, on, oka, okb = s.org or (*s.shape, s.shape[2])  # type: ignore[misc]
    values = dict(
        used_core_num=used, m=om, n=on, k_a=oka, k_b=okb,
        single_core_m=chosen.scm, single_core_n=chosen.scn, single_core_k=p.k,
        base_m=chosen.bm, base_n=chosen.bn, base_k=chosen.bk, depth_a1=depth_a,
        depth_b1=depth_b, step_m=steps[0], step_n=steps[1], step_k_a=ska, step_k_b=skb,
        is_bias=int(p.bias), iterate_order=p.iterate_order, share_mode=0,
        share_l1_size=a_l1 + b_l1 + (chosen.scn * BIAS_ROW_BYTES if p.bias else 0),
        share_l0c_size=chosen.bm * chosen.bn * L0C_ELEM_BYTES * chosen.db[2], share_ub_size=0,
        db_l0a=chosen.db[0], db_l0b=chosen.db[1], db_l0c=chosen.db[2],
        batch_m=1, batch_n=1, single_batch_m=1, single_batch_n=1, batch_num=s.batch_num)
    for which, names in (("A", "b s n g d"), ("B", "b s n g d"), ("C", "b s1 n g s2")):
        for name, v in zip(names.split(), s.layouts[which], strict=True):
            values[f"{which.lower()}_layout_info_{name}"] = v
    for name, v in values.items():
        setattr(t, name, v)
