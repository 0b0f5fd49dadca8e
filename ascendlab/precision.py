"""The precision verdict: does an output match its golden reference closely enough?

One rule, used by `ascendlab.viz.compare` and the grader. Two domains per output dtype:

* Normal values, |golden| >= S: the CANN community operator precision standard, "threshold"
  form (the design brief, "Precision rules"). With the relative error of each element

      rel = |actual - golden| / (|golden| + 1e-7)

  MERE = mean(rel) and MARE = max(rel) over these elements, they pass when MERE < T and
  MARE < 10 T, where T = 2^-10 for float16, 2^-7 for bfloat16 and 2^-13 for float32 (float64:
  2^-13 as well, the rule has no stricter class).
* Small values, |golden| < S: judged by absolute error, as Ascend's accuracy tool msprobe does
  (its benchmark comparison standard, "small value domain": relative error is meaningless next
  to zero). Each element passes when |actual - golden| <= A. S and A per dtype:

      dtype     S (small-value domain)  A (absolute error allowed)
      float16   2^-10                   2^-16
      bfloat16  2^-10                   2^-16  (ASSUMPTION, see below)
      float32   2^-20                   2^-30  (float64: the same)

  Source: msprobe (Ascend mstt, debug/accuracy_tools/msprobe/pytorch/api_accuracy_checker/
  precision_standard/standard_config.py, class StandardConfig): `_small_value` = {float16:
  2**-10, bfloat16: 2**-10, float32: 2**-20} and `_threshold_small_value_atol` = {float16:
  2**-16, bfloat16: 1e-16, float32: 2**-30}. msprobe's bfloat16 value (1e-16) is below the
  rounding error of bfloat16 itself in that domain (half an ulp reaches 2^-19 just under
  2^-10), so no bfloat16 kernel could pass it without a second device to compare against
  (msprobe's benchmark standard compares error ratios, NPU vs GPU); here bfloat16 takes
  float16's 2^-16 (ASSUMPTION). A correctly rounded output always passes: its error in the
  small domain is at most half an ulp, 2^-22 for float16 and 2^-45 for float32.

Outputs of long accumulations (a matmul, attention) carry rounding error proportional to the
magnitude of their terms, not of their result, so an element that cancels to near zero has a
large relative error however well the kernel is written. For them `standard="accumulative"`
applies msprobe's accumulative-error standard (StandardConfig `_special_samll_value` = 1 and
`_accumulative_error_bound` = {float16: 2**-8, bfloat16: 2**-7, float32: 2**-11}): elements
with |golden| < 1 are judged by absolute error, the others by relative error, and every one
must be within the bound B of its dtype. (Requiring every element within B is this project's
reading; msprobe also weighs the error balance, which is not modelled: ASSUMPTION.)

Integer and bool outputs must match exactly. NaN and inf positions must match (NaN where the
golden is NaN, the same signed inf where it is inf); those elements are excluded from the error
statistics: MERE and MARE are taken over the finite pairs only, and the report says how many
pairs that is and how many NaN and inf the output holds where the golden has none (an all-NaN
output reads "8,192 NaN in the output where the golden has none; MERE and MARE: no finite pair
to measure", never "MERE 0"). The golden is computed in higher precision (float64) by the
reference; errors are measured in float64.

Limitations: numpy has no bfloat16; pass `dtype="bfloat16"` to judge bfloat16 outputs held in
another float type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

EPS = 1e-7  # added to |golden| in the denominator (the standard's value)
THRESHOLDS: dict[str, float] = {  # T per output dtype; MERE < T and MARE < 10 T
    "float16": 2.0**-10,
    "bfloat16": 2.0**-7,
    "float32": 2.0**-13,
    "float64": 2.0**-13,
}
MARE_FACTOR = 10  # MARE may reach 10 T
# (S, A): |golden| < S is the small-value domain, judged by |actual - golden| <= A (msprobe
# StandardConfig._small_value / _threshold_small_value_atol; bfloat16's A: see the docstring)
SMALL_VALUE: dict[str, tuple[float, float]] = {
    "float16": (2.0**-10, 2.0**-16),
    "bfloat16": (2.0**-10, 2.0**-16),
    "float32": (2.0**-20, 2.0**-30),
    "float64": (2.0**-20, 2.0**-30),
}
# msprobe StandardConfig._accumulative_error_bound (small-value domain: |golden| < 1)
ACCUMULATIVE_BOUND: dict[str, float] = {
    "float16": 2.0**-8,
    "bfloat16": 2.0**-7,
    "float32": 2.0**-11,
    "float64": 2.0**-11,
}
Standard = Literal["threshold", "accumulative"]


@dataclass(frozen=True)
class PrecisionResult:
    """The verdict and the numbers behind it; str() is the one-paragraph report."""

    passed: bool
    dtype: str  # the dtype the rule was applied for
    threshold: float | None  # T (None: exact match required)
    mere: float  # mean relative error over the finite-golden elements compared
    mare: float  # max relative error
    off: int  # elements off: rel > T (or unequal, for exact dtypes), plus NaN/inf mismatches
    total: int  # elements compared
    nonfinite_mismatch: int  # positions where NaN/inf of actual and golden differ
    worst: tuple[tuple[int, ...], float, float] | None  # (index, got, want) of the max error
    reason: str  # why it failed ("" when it passed)
    small: int = 0  # elements in the small-value domain (|golden| < S), judged absolutely
    small_off: int = 0  # of those, elements with |actual - golden| > A
    max_abs_small: float = 0.0  # the largest absolute error in the small-value domain
    small_value: tuple[float, float] | None = None  # (S, A) for this dtype
    standard: str = "threshold"  # or "accumulative" (threshold is then the bound B)
    # NaN/inf in the actual output: NaN where the golden is not NaN, inf where the golden is
    # not that same inf (both counted in nonfinite_mismatch), and the finite pairs (actual and
    # golden both finite) that MERE and MARE are taken over (-1: not counted, old records)
    nan: int = 0
    inf: int = 0
    finite: int = -1

    def stats(self) -> str:
        """'MERE 0.25, MARE 1 over 6,144 finite pairs' (say so when no pair is finite)."""
        if self.finite == 0:
            return "MERE and MARE: no finite pair to measure"
        over = f" over {self.finite:,} finite pairs" if self.finite > 0 else ""
        return f"MERE {self.mere:.3g}, MARE {self.mare:.3g}{over}"

    def nonfinite(self) -> str:
        """'8,192 NaN and 2 inf in the output where the golden has none' ('' if neither)."""
        parts = [f"{n:,} {w}" for n, w in ((self.nan, "NaN"), (self.inf, "inf")) if n]
        if not parts:
            return ""
        return f"{' and '.join(parts)} in the output where the golden has none"

    def __str__(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        rule = (f"MERE < T and MARE < {MARE_FACTOR}T with T = {self.threshold:.3g}"
                if self.threshold is not None else "exact match")
        if self.standard == "accumulative":
            rule = f"accumulative: every error <= {self.threshold:.3g}"
        bad = self.nonfinite()
        lines = [f"{verdict} ({self.dtype}, {rule}): " + (f"{bad}; " if bad else "")
                 + f"{self.stats()}, {self.off:,} of {self.total:,} elements off"]
        if self.small and self.small_value is not None:
            lim, tol = self.small_value
            lines.append(f"{self.small:,} elements with |golden| < {lim:.3g} judged by absolute "
                         f"error <= {tol:.3g}: max {self.max_abs_small:.3g}, "
                         f"{self.small_off:,} off")
        if self.worst is not None:
            idx, got, want = self.worst
            lines.append(f"worst element {list(idx)}: got {got!r}, want {want!r}")
        if self.reason:
            lines.append(self.reason)
        return "\n".join(lines)


def threshold(dtype: Any) -> float | None:
    """T of the precision rule for an output of `dtype`; None means exact match (integers)."""
    name = _dtype_name(dtype)
    if name in THRESHOLDS:
        return THRESHOLDS[name]
    if name.startswith(("int", "uint", "bool")):
        return None
    raise ValueError(f"precision: no threshold for dtype {name!r}; known: "
                     f"{', '.join(THRESHOLDS)} and integer types")


def small_value(dtype: Any) -> tuple[float, float] | None:
    """(S, A) of the small-value domain for `dtype` (None for exact dtypes)."""
    name = _dtype_name(dtype)
    threshold(name)
    return SMALL_VALUE.get(name)


def relative_error(actual: Any, golden: Any) -> np.ndarray:
    """|actual - golden| / (|golden| + 1e-7) element-wise, in float64 (NaN where either is
    not finite)."""
    a = np.asarray(actual, dtype=np.float64)
    g = np.asarray(golden, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        rel = np.abs(a - g) / (np.abs(g) + EPS)
    rel[~(np.isfinite(a) & np.isfinite(g))] = np.nan
    return rel


def check(actual: Any, golden: Any, dtype: Any = None,
          standard: Standard = "threshold") -> PrecisionResult:
    """Judge `actual` against `golden` with the rule of this module's docstring. `dtype`
    defaults to actual's dtype (the output type the kernel produced); `standard` is
    "threshold" (the default) or "accumulative" (outputs of long accumulations)."""
    if standard not in ("threshold", "accumulative"):
        raise ValueError(f"precision: standard must be 'threshold' or 'accumulative', got "
                         f"{standard!r}")
    a_in = np.asarray(actual)
    g_in = np.asarray(golden)
    name = _dtype_name(dtype if dtype is not None else a_in.dtype)
    t = threshold(name)
    if a_in.shape != g_in.shape:
        return PrecisionResult(False, name, t, float("nan"), float("nan"), max(a_in.size,
                               g_in.size), max(a_in.size, g_in.size), 0, None,
                               f"shape mismatch: actual {a_in.shape}, golden {g_in.shape}")
    if a_in.ndim == 0:  # a scalar is judged as a one-element array
        a_in, g_in = a_in.reshape(1), g_in.reshape(1)
    total = int(a_in.size)
    if total == 0:
        return PrecisionResult(True, name, t, 0.0, 0.0, 0, 0, 0, None, "")
    if t is None:
        return _check_exact(a_in, g_in, name)
    a = a_in.astype(np.float64)
    g = g_in.astype(np.float64)
    # NaN/inf positions must match: NaN with NaN, +inf with +inf, -inf with -inf
    a_nan, g_nan = np.isnan(a), np.isnan(g)
    a_inf, g_inf = np.isinf(a), np.isinf(g)
    same_nonfinite = (a_nan & g_nan) | (a_inf & g_inf & (np.sign(a) == np.sign(g)))
    nonfinite = a_nan | g_nan | a_inf | g_inf
    mismatch = nonfinite & ~same_nonfinite
    finite = ~nonfinite
    rel = relative_error(a, g)
    counts = {"nan": int((a_nan & ~g_nan).sum()), "inf": int((a_inf & ~same_nonfinite).sum()),
              "finite": int(finite.sum())}
    if standard == "accumulative":
        return _check_accumulative(a_in, a, g, rel, finite, mismatch, name, counts)
    lim, tol = SMALL_VALUE.get(name, SMALL_VALUE["float32"])
    with np.errstate(invalid="ignore"):
        small = finite & (np.abs(g) < lim)
        abs_err = np.abs(a - g)
    normal = finite & ~small
    rel_f = rel[normal]
    mere = float(rel_f.mean()) if rel_f.size else 0.0
    mare = float(rel_f.max()) if rel_f.size else 0.0
    err_s = abs_err[small]
    n_small = int(err_s.size)
    max_small = float(err_s.max()) if n_small else 0.0
    small_off = int((err_s > tol).sum())
    n_mismatch = int(mismatch.sum())
    off = int((rel_f > t).sum()) + small_off + n_mismatch
    # the worst element: a NaN/inf mismatch, else the larger of the worst relative error and
    # the worst small-value error (each as a fraction of its own limit)
    score = np.where(normal, rel / (MARE_FACTOR * t), -1.0)
    score[small] = abs_err[small] / tol
    flat = -1
    if n_mismatch:
        flat = int(np.flatnonzero(mismatch.ravel())[0])
    elif mare > 0 or max_small > 0:
        flat = int(np.argmax(score.ravel()))
    worst = None
    if flat >= 0:
        idx = tuple(int(i) for i in np.unravel_index(flat, a_in.shape))
        worst = (idx, a_in.ravel()[flat].item(), g_in.ravel()[flat].item())
    reasons = []
    if n_mismatch:
        reasons.append(_mismatch_reason(n_mismatch, counts))
    if mere >= t:
        reasons.append(f"MERE {mere:.3g} >= T {t:.3g}")
    if mare >= MARE_FACTOR * t:
        reasons.append(f"MARE {mare:.3g} >= {MARE_FACTOR}T {MARE_FACTOR * t:.3g}")
    if small_off:
        reasons.append(f"{small_off:,} elements with |golden| < {lim:.3g} are off by more than "
                       f"{tol:.3g} (largest {max_small:.3g})")
    return PrecisionResult(not reasons, name, t, mere, mare, off, total, n_mismatch, worst,
                           "; ".join(reasons), n_small, small_off, max_small, (lim, tol),
                           **counts)


def _mismatch_reason(n: int, counts: dict) -> str:
    """'8,192 NaN/inf positions differ from the golden (8,192 NaN in the output)'."""
    parts = [f"{counts[k]:,} {w}" for k, w in (("nan", "NaN"), ("inf", "inf")) if counts[k]]
    more = f" ({' and '.join(parts)} in the output)" if parts else ""
    return f"{n:,} NaN/inf positions differ from the golden{more}"


def _check_accumulative(a_in: np.ndarray, a: np.ndarray, g: np.ndarray, rel: np.ndarray,
                        finite: np.ndarray, mismatch: np.ndarray, name: str,
                        counts: dict) -> PrecisionResult:
    """msprobe's accumulative-error rule: |golden| < 1 by absolute error, else relative, each
    within ACCUMULATIVE_BOUND of the dtype."""
    bound = ACCUMULATIVE_BOUND.get(name, ACCUMULATIVE_BOUND["float32"])
    with np.errstate(invalid="ignore"):
        small = finite & (np.abs(g) < 1.0)
        err = np.where(small, np.abs(a - g), rel)
    err[~finite] = 0.0
    normal = finite & ~small
    rel_f = rel[normal]
    mere = float(rel_f.mean()) if rel_f.size else 0.0
    mare = float(rel_f.max()) if rel_f.size else 0.0
    err_s = err[small]
    max_small = float(err_s.max()) if err_s.size else 0.0
    n_mismatch = int(mismatch.sum())
    off_mask = finite & (err > bound)
    off = int(off_mask.sum()) + n_mismatch
    flat = (int(np.flatnonzero(mismatch.ravel())[0]) if n_mismatch
            else int(np.argmax(err.ravel())) if err.size and err.max() > 0 else -1)
    worst = None
    if flat >= 0:
        idx = tuple(int(i) for i in np.unravel_index(flat, a_in.shape))
        worst = (idx, a_in.ravel()[flat].item(), float(g.ravel()[flat]))
    reasons = []
    if n_mismatch:
        reasons.append(_mismatch_reason(n_mismatch, counts))
    if off_mask.any():
        reasons.append(f"{int(off_mask.sum()):,} elements off by more than {bound:.3g} "
                       "(absolute where |golden| < 1, else relative)")
    return PrecisionResult(not reasons, name, bound, mere, mare, off, int(a.size), n_mismatch,
                           worst, "; ".join(reasons), int(small.sum()),
                           int((off_mask & small).sum()), max_small, (1.0, bound),
                           "accumulative", **counts)


def _check_exact(a: np.ndarray, g: np.ndarray, name: str) -> PrecisionResult:
    """Integers and bools: every element equal."""
    neq = a != g
    off = int(neq.sum())
    rel = relative_error(a, g)
    mere, mare = float(rel.mean()), float(rel.max())
    worst = None
    if off:
        flat = int(np.argmax(rel))  # rel > 0 exactly where the elements differ
        idx = tuple(int(i) for i in np.unravel_index(flat, a.shape))
        worst = (idx, a.ravel()[flat].item(), g.ravel()[flat].item())
    reason = f"{off:,} elements differ (integers must match exactly)" if off else ""
    return PrecisionResult(not off, name, None, mere, mare, off, int(a.size), 0, worst, reason)


def _dtype_name(dtype: Any) -> str:
    """'float16', 'bfloat16', 'int32', ... from a numpy dtype, a string, an ascendlab/pyasc
    DataType or a torch dtype."""
    if isinstance(dtype, str):
        return dtype.removeprefix("torch.")
    name = getattr(dtype, "name", None)
    if isinstance(name, str) and not isinstance(dtype, np.dtype):
        return name.removeprefix("torch.")
    try:
        return np.dtype(dtype).name
    except TypeError:
        return str(dtype).removeprefix("torch.")
