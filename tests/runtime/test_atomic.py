"""Atomic stores (runtime/dma/atomic.py): set_atomic_add/max/min make UB->GM moves combine with GM,
against numpy; the store-atomic register; the sanitizer's exemption for atomic writes."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import DTypeError, SanitizerError
from ascendlab.runtime.core import MemcheckWarning
from tests.runtime.test_cube import matmul

N = 256  # elements each core moves


@asc.jit
def accumulate(x: asc.GlobalAddress, z: asc.GlobalAddress, mode: asc.ConstExpr,
               form: asc.ConstExpr):
    """Every core moves its N-element slice of x onto z[0:N] under atomic `mode`, then (after
    set_atomic_none) z[N:2N] is overwritten by the same data."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * N)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    asc.data_copy(a, xg, N)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    if mode == "add":
        asc.set_atomic_add(x.dtype)
    elif mode == "max":
        asc.set_atomic_max(x.dtype)
    elif mode == "min":
        asc.set_atomic_min(x.dtype)
    nbytes = N * x.dtype.sizeof()
    if form == "count":
        asc.data_copy(zg, a, N)
    elif form == "params":
        asc.data_copy(zg, a, repeat_params=asc.DataCopyParams(1, nbytes // 32, 0, 0))
    else:
        asc.data_copy_pad(zg, a, asc.DataCopyExtParams(1, nbytes, 0, 0, 0))
    asc.set_atomic_none()
    asc.data_copy(zg[N:], a, N)


COMBINE = {"add": np.add, "max": np.maximum, "min": np.minimum}


@pytest.mark.parametrize("mode", ["add", "max", "min"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16])
def test_atomic_modes_combine_with_gm_like_numpy(mode, dtype):
    rng = np.random.default_rng(1)
    cores = 3
    x = rng.integers(-50, 50, cores * N).astype(dtype)
    z0 = rng.integers(-50, 50, 2 * N).astype(dtype)
    z = z0.copy()
    ascendlab.launch(accumulate, cores, x, z, mode, "count")
    want = z0[:N].copy()
    for k in range(cores):  # cores run in order; add/max/min commute anyway
        want = COMBINE[mode](want, x[k * N:(k + 1) * N]).astype(dtype)
    np.testing.assert_array_equal(z[:N], want)
    np.testing.assert_array_equal(z[N:], x[(cores - 1) * N:])  # set_atomic_none: overwrite


@pytest.mark.parametrize("form", ["params", "pad"])
def test_every_move_into_gm_is_atomic(form):
    x = np.arange(2 * N, dtype=np.float32)
    z = np.ones(2 * N, np.float32)
    run = ascendlab.launch(accumulate, 2, x, z, "add", form)
    np.testing.assert_array_equal(z[:N], 1 + x[:N] + x[N:])
    moves = [e for e in run.trace if e.op in ("data_copy", "data_copy_pad")
             and e.writes[0].space == "GM"]
    assert [dict(e.args).get("atomic") for e in moves] == ["sum", None] * 2


def test_the_setters_are_scalar_events():
    x = np.zeros(N, np.float32)
    z = np.zeros(2 * N, np.float32)
    run = ascendlab.launch(accumulate, 1, x, z, "max", "count")
    ev = run.events(op="set_atomic_max")[0]
    assert (ev.pipe, ev.dtype, dict(ev.args)) == ("S", "float32", {"dtype": "float32"})
    assert run.events(op="set_atomic_none")[0].pipe == "S"


def test_atomic_writes_of_several_cores_are_no_race_but_plain_ones_are():
    x = np.arange(2 * N, dtype=np.float32)
    with pytest.warns(MemcheckWarning):
        run = ascendlab.launch(accumulate, 2, x, np.zeros(2 * N, np.float32), "add", "count",
                               sanitize=True, strict=False)
    # the atomic stores to z[:N] are fine; the plain stores to z[N:] overlap across cores
    msgs = [f.message for f in run.findings]
    assert len(msgs) == 1 and "both write z" in msgs[0] and "elements 256..511" in msgs[0]
    with pytest.raises(SanitizerError, match="both write z"):
        ascendlab.launch(accumulate, 2, x, np.zeros(2 * N, np.float32), "none", "count",
                         sanitize=True)


@asc.jit
def register(out: asc.GlobalAddress, which: asc.ConstExpr):
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    if which == "config":
        asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_F16, asc.AtomicOp.ATOMIC_SUM)
    elif which == "add_int32":
        asc.set_atomic_add(asc.int32)
    elif which == "type":
        asc.set_atomic_min(asc.int32)
        asc.set_atomic_type(asc.float32)
    elif which == "reset":
        asc.set_atomic_add(asc.float32)
        asc.init_soc_state()
    elif which == "none":  # clears the type field only
        asc.set_atomic_max(asc.int32)
        asc.set_atomic_none()
    elif which == "type_alone":
        asc.set_atomic_type(asc.float16)
    t, op = asc.get_store_atomic_config()
    og.set_value(0, t)
    og.set_value(1, op)


@pytest.mark.parametrize("which, want", [
    ("start", (0, 0)), ("config", (2, 0)), ("add_int32", (4, 0)), ("type", (1, 2)),
    ("reset", (0, 0)), ("none", (0, 1)), ("type_alone", (2, 0)),
])
def test_store_atomic_register_reads_back(which, want):
    out = np.full(8, -1, np.int32)
    ascendlab.launch(register, 1, out, which)
    assert tuple(out[:2]) == want


@asc.jit
def typed(z: asc.GlobalAddress, which: asc.ConstExpr):
    """set_store_atomic_config(ATOMIC_F32, ATOMIC_SUM) makes the move into GM accumulate."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
    asc.duplicate(a, 2.0, 64)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    if which == "bad":
        asc.set_atomic_add(asc.uint8)
    asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_F32, asc.AtomicOp.ATOMIC_SUM)
    asc.data_copy(zg, a, 64)


def test_store_atomic_config_accumulates_and_bad_types_are_named():
    z = np.full(64, 0.5, np.float32)
    ascendlab.launch(typed, 1, z, "ok")
    np.testing.assert_array_equal(z, 2.5)
    with pytest.raises(DTypeError, match="asc.uint8 is not an atomic type; supported: "
                                         "asc.float32, asc.float16"):
        ascendlab.launch(typed, 1, z, "bad")


@asc.jit
def matmul_acc(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int,
               k: int, n: int):
    """Every core adds a @ b into c: fixpipe (L0C -> GM) under set_atomic_add."""
    asc.set_atomic_add(asc.float32)
    matmul(a, b, c, m, k, n, 16, 0)
    asc.set_atomic_none()


def test_fixpipe_accumulates_under_atomic_add():
    rng = np.random.default_rng(3)
    m, k, n = 32, 32, 48
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    c0 = rng.integers(-9, 10, (m, n)).astype(np.float32)
    c = c0.copy()
    run = ascendlab.launch(matmul_acc, 2, a, b, c, m, k, n)
    np.testing.assert_array_equal(c, c0 + 2 * (a.astype(np.float32) @ b.astype(np.float32)))
    assert all(dict(e.args)["atomic"] == "sum" for e in run.events(op="fixpipe"))
