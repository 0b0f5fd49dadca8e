"""The reductions' numerics (float16 saturation, the in-repeat tree, first-occurrence arg
max/min) and the gathering of their lanes, for vector/reduce.py (which documents the facts and
assumptions they implement)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..memory.tensor import LocalTensor

HALF_MAX = 65504.0
_UINT = {2: np.uint16, 4: np.uint32}  # index bits by element size


# ---- numerics -------------------------------------------------------------------------------
def _saturate(s: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float16 a + b = s, with a finite overflow saturated to +-65504."""
    bad = np.isinf(s)
    if bad.any():
        bad &= np.isfinite(a) & np.isfinite(b)
        if bad.any():
            s = np.where(bad, np.copysign(np.float16(HALF_MAX), s), s).astype(np.float16)
    return s


def tree_sum(x: np.ndarray) -> np.ndarray:
    """Row sums of x (rows, 2**k) by a pairwise tree, rounding every addition to x's dtype
    (float16 sums saturate)."""
    half = x.dtype == np.float16
    with np.errstate(over="ignore", invalid="ignore"):
        while x.shape[1] > 1:
            a, b = x[:, 0::2], x[:, 1::2]
            s = a + b
            x = _saturate(s, a, b) if half else s
    return x[:, 0]


def tree_sum_1d(r: np.ndarray) -> Any:
    """Sum of r by a pairwise tree (zero padded to a power of two)."""
    n = max(1, 1 << (len(r) - 1).bit_length()) if len(r) else 1
    x = np.zeros((1, n), dtype=r.dtype)
    x[0, :len(r)] = r
    return tree_sum(x)[0]


def sequential_sum(r: np.ndarray) -> Any:
    """r[0] + r[1] + ... in order, every addition rounded to r's dtype (float16 saturates)."""
    if not len(r):
        return r.dtype.type(0)
    with np.errstate(over="ignore", invalid="ignore"):
        acc = np.add.accumulate(r)
        if r.dtype != np.float16 or not np.isinf(acc).any() or not np.isfinite(r).all():
            return acc[-1]
        total = np.float16(0)
        for v in r:  # an intermediate overflowed: redo with saturation (rare)
            s = total + v
            total = _saturate(np.asarray([s]), np.asarray([total]), np.asarray([v]))[0]
        return total


def arg_extreme(x: np.ndarray, valid: np.ndarray, is_max: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per row of x (rows, lanes): the max (or min) over valid lanes and the first lane
    holding it (a NaN wins and reports the first NaN)."""
    fill = -np.inf if is_max else np.inf
    masked = np.where(valid, x, x.dtype.type(fill))
    with np.errstate(invalid="ignore"):
        val = masked.max(axis=1) if is_max else masked.min(axis=1)
        hit = valid & ((x == val[:, None]) | (np.isnan(x) & np.isnan(val)[:, None]))
    return val, hit.argmax(axis=1)


# ---- gathering ------------------------------------------------------------------------------
def _gather_count(src: LocalTensor, n: int, L: int, fill: float) -> np.ndarray:
    """src[0:n] as (repeats, L) rows, the last one padded with fill."""
    R = -(-n // L)
    x = np.full(R * L, fill, dtype=src.dtype.np)
    x[:n] = src.arr[src.e0:src.e0 + n]
    return x.reshape(R, L)


@lru_cache(maxsize=1024)
def layout(lanes: tuple[int, ...], R: int, L: int, tail: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Where the elements of vector.plan(lanes, R, ..., tail) sit in an (R, L) repeat x lane
    grid: their flat positions r * L + lane, and the grid's valid-lane mask."""
    pos = (np.arange(R, dtype=np.int64)[:, None] * L
           + np.asarray(lanes, dtype=np.int64)[None, :]).ravel()
    if tail:
        pos = pos[:(R - 1) * len(lanes) + tail]
    valid = np.zeros(R * L, dtype=bool)
    valid[pos] = True
    valid = valid.reshape(R, L)
    pos.setflags(write=False)
    valid.setflags(write=False)
    return pos, valid


def _gather_plan(src: LocalTensor, idx: np.ndarray, pos: np.ndarray, R: int, L: int,
                 fill: float) -> np.ndarray:
    """The elements idx as an (R, L) grid (flat positions pos), other lanes = fill."""
    x = np.full(R * L, fill, dtype=src.dtype.np)
    x[pos] = src.arr[idx + src.e0]
    return x.reshape(R, L)


def _index_bits(idx: int | np.ndarray, dt: Any) -> np.ndarray:
    return np.asarray(idx, dtype=_UINT[dt.itemsize]).reshape(-1).view(dt.np)
