"""Runs of real kernels (tests/runtime's) shared by the viz tests; matplotlib stays headless."""

from __future__ import annotations

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import ascendlab  # noqa: E402

from ..analysis.cost_kernels import layernorm_gelu, matmul_tile  # noqa: E402
from ..runtime.kernels import vadd_flags, vadd_framework  # noqa: E402

CHIP = "Ascend910B2"


def vadd_run(cores=8, n=8 * 8192, tile=1024, buffers=2, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random(n).astype(np.float16)
    y = rng.random(n).astype(np.float16)
    return ascendlab.launch(vadd_framework, cores, x, y, np.zeros_like(x), n // cores, tile,
                            buffers, chip=CHIP)


@pytest.fixture(scope="session")
def small():
    """8 cores x 8 tiles of 1024 float16, double-buffered: ~1000 events."""
    return vadd_run()


@pytest.fixture(scope="session")
def single():
    """The same add, single-buffered."""
    return vadd_run(buffers=1)


@pytest.fixture(scope="session")
def large():
    """8 cores x 150 tiles of 256 float16: ~19 000 events, 4 800 of them costed bars."""
    return vadd_run(n=8 * 150 * 256, tile=256)


@pytest.fixture(scope="session")
def flags():
    x = np.arange(8 * 2048, dtype=np.float32)
    return ascendlab.launch(vadd_flags, 8, x, x, np.zeros_like(x), 2048, 256, chip=CHIP)


@pytest.fixture(scope="session")
def layernorm():
    x = np.random.default_rng(1).standard_normal((16, 512)).astype(np.float32)
    return ascendlab.launch(layernorm_gelu, 4, x, np.zeros_like(x), 16, 512, "fused", chip=CHIP)


@pytest.fixture(scope="session")
def matmul():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2 * 32, 64)).astype(np.float16)
    b = rng.standard_normal((64, 48)).astype(np.float16)
    return ascendlab.launch(matmul_tile, 2, a, b, np.zeros((64, 48), np.float32), 32, 64, 48,
                            chip=CHIP)
