"""pyasc's module paths and compile-only test helpers (ascendlab/pyasc_compat.py,
ascendlab/asc/runtime/jit.py and launcher.py), used in-process as pyasc's unit tests use them."""

from __future__ import annotations

import importlib
from unittest.mock import patch

import numpy as np
import pytest

from ascendlab import pyasc_compat
from ascendlab.errors import KernelSyntaxError, QueueError


@pytest.fixture
def asc():
    pyasc_compat.install()
    try:
        yield importlib.import_module("asc")
    finally:
        pyasc_compat.uninstall()


def test_module_paths_and_name(asc):
    assert asc.__name__ == "asc"
    from asc.language.fwk.tpipe import TQueBind
    from asc.runtime.jit import MockTensor  # noqa: F401
    from asc.runtime.launcher import Launcher  # noqa: F401

    assert TQueBind is asc.TQueBind
    tiling = importlib.import_module("asc.language.adv.tiling")
    assert tiling.softmax is asc.adv.softmax  # asc.adv first under asc.language.adv
    assert importlib.import_module("asc.language.basic.list_tensor").TensorDesc is asc.TensorDesc
    enums = importlib.import_module("asc.language.core.enums")
    assert enums.BlockMode is asc.BlockMode  # emulated now (py-rest)
    with pytest.raises(NotImplementedError, match="asc.CO2Layout.ROW_MAJOR is part of"):
        _ = enums.CO2Layout.ROW_MAJOR
    pyasc_compat.uninstall()
    assert importlib.import_module("ascendlab.asc").__name__ == "ascendlab.asc"
    pyasc_compat.install()


def _copy_kernel(asc):
    @asc.jit
    def copy(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
        xg = asc.GlobalTensor()
        yg = asc.GlobalTensor()
        xg.set_global_buffer(x, n)
        yg.set_global_buffer(y, n)
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, n * 4)
        t = buf.get(asc.float32)
        asc.data_copy(t, xg, n)
        asc.adds(t, t, 2 ** 3 - 1, n)  # constant `**` folds (pyasc does too)
        asc.data_copy(yg, t, n)

    return copy


def test_launcher_run_copies_back_and_patching_it_keeps_the_check(asc):
    copy = _copy_kernel(asc)
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    copy[1](x, y, 64)
    np.testing.assert_array_equal(y, x + 7)

    y[:] = 0
    with patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        copy[1](x, y, 64)
    assert run.call_count == 1
    assert not y.any()  # the patched last step did not copy back
    with patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        with pytest.raises(ValueError, match="init_buffer"):  # the emulator still checks it
            copy[1](x, y, -1)


def test_mock_tensor_and_value(asc):
    from asc.runtime.jit import MOCK_BYTES, MockTensor, MockValue

    m = MockTensor(asc.float16)
    assert m.asc_dtype is asc.float16 and m.dtype == np.float16
    assert m.nbytes == MOCK_BYTES and not m.any()
    v = MockValue(asc.int32)
    assert v == 0 and v.dtype == np.int32
    with pytest.raises(TypeError, match="asc dtype"):
        MockTensor(np.float16)

    copy = _copy_kernel(asc)
    with patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        copy[1](MockTensor(asc.float32), MockTensor(asc.float32), 256)
    assert run.call_count == 1


def test_pow_on_runtime_values_is_rejected(asc):
    @asc.jit
    def runtime_pow(x: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x, 8)
        k = 2
        xg.set_value(0, xg.get_value(1) ** k)  # a float read is a runtime value

    x = np.ones(8, np.float32)
    with pytest.raises(NotImplementedError, match=r"`\*\*` on a runtime value"):
        runtime_pow[1](x)

    @asc.jit
    def aug_pow(x: asc.GlobalAddress):
        k = 2
        k **= 2

    with pytest.raises(KernelSyntaxError, match=r"`\*\*=`"):
        aug_pow[1](x)


def test_get_tpipe_ptr(asc):
    @asc.jit
    def events(out: asc.GlobalAddress):
        pipe = asc.TPipe()
        ptr = asc.get_tpipe_ptr()
        g = asc.GlobalTensor()
        g.set_global_buffer(out, 8)
        g.set_value(0, ptr.alloc_event_id(asc.HardEvent.V_S))
        g.set_value(1, pipe.alloc_event_id(asc.HardEvent.V_S))  # the same pipe: the next id

    out = np.full(8, -1, np.int32)
    events[1](out)
    assert out[:2].tolist() == [0, 1]

    @asc.jit
    def no_pipe():
        asc.get_tpipe_ptr()

    with pytest.raises(QueueError, match="get_tpipe_ptr: this kernel has no TPipe yet"):
        no_pipe[1]()
