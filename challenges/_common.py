"""Shared by the days' spec.py files (loaded with runpy: a spec is loaded by path, so the
challenges folder is not a package): the op sets the vector days allow, a value helper."""

from __future__ import annotations

import numpy as np


def signed(rng: np.random.Generator, n: int, lo: float, hi: float) -> np.ndarray:
    """n values with |v| uniform in [lo, hi] and a random sign."""
    return rng.choice([-1.0, 1.0], n) * rng.uniform(lo, hi, n)


# DMA, the TPipe/TQue framework, flags and barriers, casts and the element-wise vector math
# (swish's set): what the vector days allow unless their README says more.
VECTOR_OPS = frozenset({
    "data_copy", "data_copy_pad", "init_buffer", "alloc_tensor", "enque", "deque",
    "free_tensor", "set_flag", "wait_flag", "pipe_barrier", "sync_all", "get_value",
    "set_value", "cast", "add", "sub", "mul", "div", "max", "min", "adds", "muls", "maxs",
    "mins", "exp", "ln", "abs", "reciprocal", "sqrt", "rsqrt", "relu", "duplicate", "axpy",
    "fused_mul_add", "mul_add_dst", "compare", "select",
})
# the reductions, and the per-row instructions (one result per 32 B block or per repeat, and
# brcb's broadcast back) that a fused row kernel such as LayerNorm needs
REDUCE_OPS = frozenset({"reduce_sum", "reduce_max", "reduce_min", "whole_reduce_sum",
                        "whole_reduce_max", "whole_reduce_min", "block_reduce_sum",
                        "block_reduce_max", "block_reduce_min", "pair_reduce_sum",
                        "repeat_reduce_sum", "brcb"})
