"""Structured-sparse matmul (load_data_with_sparse + mmad_with_sparse) against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import ParamError
from ascendlab.runtime import core as _core

SNAP: list[np.ndarray] = []
P = asc.TPosition


def snapshot():
    SNAP.append(_core.current.mem("L0C").copy())


@asc.jit
def sparse_mm(a: asc.GlobalAddress, b: asc.GlobalAddress, idx: asc.GlobalAddress, m: int,
              k: int, n: int):
    ag, bg, ig = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    ig.set_global_buffer(idx)
    m1, k1, n1, kd1 = m // 16, k // 32, n // 16, k // 64
    a2 = asc.LocalTensor(asc.int8, P.A2, 0, m1 * k1 * 512)
    b1 = asc.LocalTensor(asc.int8, P.B1, 0, kd1 * n1 * 512)
    i1 = asc.LocalTensor(asc.uint8, P.B1, kd1 * n1 * 512, kd1 * n1 * 128)
    b2 = asc.LocalTensor(asc.int8, P.B2, 0, kd1 * n1 * 512)
    c = asc.LocalTensor(asc.int32, P.CO1, 0, m1 * n1 * 256)
    asc.load_data(a2, ag, asc.LoadData2DParams(0, m1 * k1, 1))
    asc.data_copy(b1, bg, kd1 * n1 * 512)
    asc.data_copy(i1, ig, kd1 * n1 * 128)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.load_data_with_sparse(b2, b1, i1, asc.LoadData2DParams(0, kd1 * n1, 1))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad_with_sparse(c, a2, b2, asc.MmadParams(m, n, k))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    snapshot()


def _sparsify(k, n, rng):
    """A K x N int8 B with 2 non-zeros in every 4 K elements, its dense form and index."""
    b = np.zeros((k, n), np.int8)
    dense = np.zeros((k // 2, n), np.int8)
    code = np.zeros((k // 2, n), np.uint8)
    for g in range(k // 4):
        for j in range(n):
            p0, p1 = sorted(rng.choice(4, 2, replace=False))
            v = rng.integers(-100, 100, 2).astype(np.int8)
            b[4 * g + p0, j], b[4 * g + p1, j] = v
            dense[2 * g, j], dense[2 * g + 1, j] = v
            code[2 * g, j], code[2 * g + 1, j] = p0, p1 - 1
    return b, dense, code


def _zn(x):  # K x N -> fractals (k/32, n/16) of [16 n][32 k] bytes, as L0B holds them
    k, n = x.shape
    return x.reshape(k // 32, 32, n // 16, 16).transpose(0, 2, 3, 1).ravel()


def _pack(codes):  # four 2-bit indexes a byte, the first in the lowest bits
    c = codes.reshape(-1, 4)
    return (c[:, 0] | c[:, 1] << 2 | c[:, 2] << 4 | c[:, 3] << 6).astype(np.uint8)


@pytest.mark.parametrize("m, k, n", [(16, 64, 16), (32, 128, 32)])
def test_sparse_matmul_matches_the_dense_product(m, k, n):
    rng = np.random.default_rng(k)
    a = rng.integers(-100, 100, (m, k)).astype(np.int8)
    b, dense, code = _sparsify(k, n, rng)
    a_zz = a.reshape(m // 16, 16, k // 32, 32).transpose(0, 2, 1, 3).ravel()
    SNAP.clear()
    run = ascendlab.launch(sparse_mm, 1, a_zz, _zn(dense), _pack(_zn(code)), m, k, n,
                           chip="Ascend910B1")
    c = SNAP[0][:m * n * 4].view(np.int32).reshape(n // 16, m // 16, 16, 16)
    got = c.transpose(1, 2, 0, 3).reshape(m, n)
    np.testing.assert_array_equal(got, a.astype(np.int64) @ b.astype(np.int64))
    (ev,) = run.events(op="mmad_with_sparse")
    assert ev.pipe == "M" and ev.count == m * n * k // 2
    assert run.events(op="load_data_with_sparse")[0].pipe == "MTE1"


def test_an_index_of_3_is_an_error():
    rng = np.random.default_rng(0)
    _, dense, code = _sparsify(64, 16, rng)
    code[5, 3] = 3
    with pytest.raises(ParamError, match="holds 3"):
        ascendlab.launch(sparse_mm, 1, np.zeros(1024, np.int8), _zn(dense), _pack(_zn(code)),
                         16, 64, 16, chip="Ascend910B1")
