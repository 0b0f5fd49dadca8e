"""Runtime robustness (issue 13): numpy's floating-point warnings carry the kernel's line
(ascendlab/runtime/launch/fpe.py), Ctrl-C during a sync_all kernel leaves the session usable,
negative data_copy counts and 64-bit numpy scalars get named errors."""

from __future__ import annotations

import os
import signal
import threading
import warnings

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.errors import LaunchError, ParamError
from ascendlab.runtime import core as _core


@asc.jit
def sqrt_kernel(x: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(x, 64)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, g, 64)
    asc.sqrt(t, t, 64)  # SQRT_LINE
    asc.data_copy(g, t, 64)


def _line_of(marker: str) -> int:
    with open(__file__) as f:
        return next(i for i, ln in enumerate(f, 1) if marker in ln and "_line_of" not in ln)


def test_numpy_warning_names_the_kernel_line():
    x = -np.ones(64, np.float32)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        sqrt_kernel[1](x)
    msgs = [w for w in got if issubclass(w.category, RuntimeWarning)]
    assert len(msgs) == 1, [str(w.message) for w in got]
    w = msgs[0]
    assert w.filename == __file__ and w.lineno == _line_of("SQRT_LINE")
    assert "invalid value encountered in an emulated instruction [core 0, test_fpe.py:" in str(
        w.message)
    assert np.isnan(x).all()


def test_negative_data_copy_count_is_named():
    @asc.jit
    def neg(x: asc.GlobalAddress, n: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(x, 64)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, g, n)

    for n in (-8, -3):  # -8 x 4 B is a multiple of 32 B, -3 x 4 B is not
        with pytest.raises(ParamError, match=f"data_copy: count must be >= 0, got {n}"):
            neg[1](np.zeros(64, np.float32), n)


def test_numpy_scalars_get_the_python_scalar_checks():
    @asc.jit
    def take(x: asc.GlobalAddress, v: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(x, 8)
        g.set_value(0, v)

    x = np.zeros(8, np.int64)
    take[1](x, np.int64(7))
    assert x[0] == 7
    with pytest.raises(LaunchError, match=r"int64 argument v=1099511627776 does not fit int32"):
        take[1](x, np.int64(2**40))
    with pytest.raises(LaunchError, match=r"int argument v=1099511627776 does not fit"):
        take[1](x, 2**40)
    with pytest.raises(LaunchError, match="float argument v=.*does not fit the float32"):
        take[1](x, np.float64(1e300))
    with pytest.raises(LaunchError, match="float argument v=.*does not fit the float32"):
        take[1](x, 1e300)


@asc.jit
def busy_with_barrier(x: asc.GlobalAddress, n: int):
    g = asc.GlobalTensor()
    g.set_global_buffer(x, 64)
    for i in range(n):
        g.set_value(asc.get_block_idx(), i)
    asc.sync_all()
    g.set_value(8 + asc.get_block_idx(), 1)


def test_ctrl_c_during_a_sync_all_kernel_leaves_the_session_usable():
    x = np.zeros(64, np.int32)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))  # a real Ctrl-C
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            busy_with_barrier[2](x, 10**6)  # long enough to be interrupted
    finally:
        timer.cancel()
    assert _core.current is None
    busy_with_barrier[2](x, 3)  # the next launch runs normally
    assert x[:2].tolist() == [2, 2] and x[8:10].tolist() == [1, 1]


@asc.jit
def sqrt_on_cores(x: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(x + asc.get_block_idx() * 64, 64)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, g, 64)
    asc.sqrt(t, t, 64)  # EVERY_CORE_LINE
    asc.data_copy(g, t, 64)


def test_a_line_is_reported_once_per_launch_not_once_per_core():
    """Four cores meet the same invalid sqrt: one warning (at the first core), even under the
    'always' filter; the next launch reports it again."""
    for _ in range(2):
        x = -np.ones(4 * 64, np.float32)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            sqrt_on_cores[4](x)
        msgs = [str(w.message) for w in got if issubclass(w.category, RuntimeWarning)]
        assert msgs == [f"invalid value encountered in an emulated instruction [core 0, "
                        f"test_fpe.py:{_line_of('EVERY_CORE_LINE')}]"], msgs
        assert np.isnan(x).all()
