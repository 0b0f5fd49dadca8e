"""Compile-only launches (ascendlab/runtime/launch/compile_only.py): with Launcher.run patched or
DRY_RUN set, errors that depend on run-time values warn and skip the instruction; every other
error still raises; a normal launch raises them all."""

from __future__ import annotations

import warnings
from unittest.mock import patch

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import (
    CompileOnlyWarning,
    DTypeError,
    EmptyHandleError,
    OutOfBoundsError,
    ParamError,
    QueueError,
    QueueStateError,
    RuntimeValueError,
    SkippedValueError,
)

RUN = "ascendlab.asc.runtime.launcher.Launcher.run"
N = 128


@asc.jit
def masked_add(x: asc.GlobalAddress, z: asc.GlobalAddress, mask: int):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2 * N, N)
    asc.data_copy(a, xg, N)
    params = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    asc.add(c, a, a, mask=mask, repeat_times=1, repeat_params=params)  # MASKED
    asc.muls(c, a, 3.0, N)  # AFTER
    asc.data_copy(zg, c, N)


@asc.jit
def wide_reduce(x: asc.GlobalAddress, z: asc.GlobalAddress, count: int):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    w = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 2 * N, N)
    c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4 * N, 16)
    asc.data_copy(a, xg, N)
    asc.reduce_sum(c, a, w, count)  # REDUCE
    asc.data_copy(zg, c, 16)


@asc.jit
def mixed_dtypes(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 2 * N, N)
    asc.add(a, a, b, N)  # DTYPE


@asc.jit
def short_call(x: asc.GlobalAddress, z: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    asc.add(a, a)  # a missing operand: a signature error


@asc.jit
def read_past_end(x: asc.GlobalAddress, z: asc.GlobalAddress, i: int):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    v = a.get_value(i)  # READ
    a.set_value(0, v)  # USE
    a.set_value(1, 2.0)


@asc.jit
def loop_on_unset(x: asc.GlobalAddress, z: asc.GlobalAddress, i: int):
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, N)
    n = a.get_value(i)
    for k in range(n):  # a loop bound cannot be skipped
        a.set_value(k, 0)


@asc.jit
def no_buffers(x: asc.GlobalAddress, z: asc.GlobalAddress):
    que = asc.TQue(asc.TPosition.VECIN, 1)
    t = que.alloc_tensor(asc.float16)  # ALLOC
    asc.adds(t, t, 1.0, N)  # ADDS
    que.free_tensor(t)


def _line(kernel, tag: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(k for k, s in enumerate(lines) if tag in s)


def _io():
    x = np.arange(N, dtype=np.float16)
    return x, np.zeros(N, np.float16)


def test_normal_launch_raises_a_run_time_value_error():
    x, z = _io()
    with pytest.raises(ParamError, match=r"continuous mask=512 is outside \[1, 128\]"):
        masked_add[1](x, z, 512)
    assert issubclass(ParamError, RuntimeValueError) and issubclass(ParamError, ValueError)


def test_patched_launcher_run_skips_the_instruction_with_a_warning():
    x, z = _io()
    with patch(RUN, return_value=None) as run, pytest.warns(CompileOnlyWarning) as got:
        masked_add[1](x, z, 512)
    assert run.call_count == 1
    (w,) = got.list
    text = str(w.message)
    assert "`asc.add(c, a, a, mask=mask, " in text and "skipped" in text
    assert "mask=512" in text and "[1, 128]" in text
    assert "Launcher.run is patched" in text
    assert w.filename.endswith("test_compile_only.py")
    assert w.lineno == _line(masked_add, "# MASKED")
    r = ascendlab.last_run()
    ops = [e.op for e in r.trace if e.pipe == "V"]
    assert ops == ["muls"]  # add skipped, the next statement ran
    assert r.options["compile_only"] == "asc.runtime.launcher.Launcher.run is patched"
    np.testing.assert_array_equal(r.outputs["z"], x * np.float16(3))


def test_a_valid_mask_runs_in_compile_only_mode_too():
    x, z = _io()
    with patch(RUN, return_value=None), warnings.catch_warnings():
        warnings.simplefilter("error", CompileOnlyWarning)
        masked_add[1](x, z, 128)
    ops = [e.op for e in ascendlab.last_run().trace if e.pipe == "V" and e.op != "pipe_barrier"]
    assert ops == ["add", "muls"]


def test_dry_run_is_compile_only(monkeypatch):
    x, z = _io()
    monkeypatch.setenv("DRY_RUN", "1")
    with pytest.warns(CompileOnlyWarning, match="DRY_RUN is set"):
        masked_add[1](x, z, 512)
    assert not z.any()  # DRY_RUN skips the copy back, as pyasc's run does


def test_address_bounds_skip_in_compile_only_and_raise_otherwise():
    x, z = np.ones(N, np.float16), np.zeros(16, np.float16)
    with pytest.raises(OutOfBoundsError, match="reduce_sum"):
        wide_reduce[1](x, z, 1 << 17)
    with patch(RUN, return_value=None), pytest.warns(CompileOnlyWarning, match="reduce_sum"):
        wide_reduce[1](x, z, 1 << 17)
    with patch(RUN, return_value=None):
        wide_reduce[1](x, z, N)  # in range: runs
    assert ascendlab.last_run().outputs["z"][0] == N


def test_type_errors_still_raise_in_compile_only():
    x, z = _io()
    with patch(RUN, return_value=None):
        with pytest.raises(DTypeError):
            mixed_dtypes[1](x, z)
        with pytest.raises(TypeError, match="src1"):
            short_call[1](x, z)


def test_a_skipped_assignment_leaves_its_names_unset():
    x, z = _io()
    with pytest.raises(OutOfBoundsError, match="get_value"):
        read_past_end[1](x, z, 1 << 20)
    with patch(RUN, return_value=None), pytest.warns(CompileOnlyWarning) as got:
        read_past_end[1](x, z, 1 << 20)
    read, use = (str(w.message) for w in got.list)
    assert "`v = a.get_value(i)` skipped" in read and "element 1048576" in read
    assert "`a.set_value(0, v)` skipped" in use and "uses v, which `v = a.get_value(i)`" in use
    assert [w.lineno for w in got.list] == [_line(read_past_end, t) for t in ("# READ", "# USE")]
    writes = [e.op for e in ascendlab.last_run().trace if e.op == "set_value"]
    assert len(writes) == 1  # the statement that needs no skipped value ran


def test_an_unset_name_in_a_loop_bound_raises():
    x, z = _io()
    with patch(RUN, return_value=None), pytest.warns(CompileOnlyWarning), \
            pytest.raises(SkippedValueError, match=r"n has no value: .*`n = a.get_value\(i\)`"):
        loop_on_unset[1](x, z, 1 << 20)


def test_queue_counts_are_run_time_values():
    x, z = _io()
    with pytest.raises(QueueStateError, match="the queue has no buffers"):
        no_buffers[1](x, z)
    assert issubclass(QueueStateError, QueueError)
    with patch(RUN, return_value=None), pytest.warns(CompileOnlyWarning) as got:
        no_buffers[1](x, z)
    assert len(got.list) == 3
    assert "no buffers" in str(got.list[0].message)
    assert "uses t, which `t = que.alloc_tensor(asc.float16)`" in str(got.list[1].message)
    assert "no buffers" in str(got.list[2].message)  # free_tensor's own check comes first


def test_the_traceback_still_points_at_the_kernel_line():
    x, z = _io()
    with pytest.raises(ParamError) as info:
        masked_add[1](x, z, 512)
    lines = [t.lineno for t in info.traceback if t.path.name == "test_compile_only.py"]
    assert _line(masked_add, "# MASKED") - 1 in lines  # traceback entries are 0-based


@asc.jit
def empty_handle(x: asc.GlobalAddress, z: asc.GlobalAddress):
    t = asc.LocalTensor(asc.float16)  # never filled by alloc_tensor / deque
    asc.adds(t, t, 1.0, N)  # EMPTY


def test_an_empty_handle_is_a_run_time_value():
    x, z = _io()
    with pytest.raises(EmptyHandleError, match="empty LocalTensor handle"):
        empty_handle[1](x, z)
    assert issubclass(EmptyHandleError, ValueError)
    with patch(RUN, return_value=None), pytest.warns(CompileOnlyWarning, match="empty"):
        empty_handle[1](x, z)


@asc.jit
def divided(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    asc.adds(a, a, 1.0, n // 2)  # a negative count after C division


def test_messages_show_the_statement_as_written():
    x, z = _io()
    with patch(RUN, return_value=None), pytest.warns(CompileOnlyWarning) as got:
        divided[1](x, z, -7)
    assert "`asc.adds(a, a, 1.0, n // 2)` skipped" in str(got.list[0].message)


@asc.jit
def skipped_in_a_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    params = asc.UnaryRepeatParams(1, 1, 8, 8)
    for _ in range(n):
        asc.adds(a, a, 1.0, mask=512, repeat_times=1, repeat_params=params)


def test_a_statement_skipped_in_a_loop_warns_once():
    x, z = _io()
    with patch(RUN, return_value=None), pytest.warns(CompileOnlyWarning) as got:
        skipped_in_a_loop[1](x, z, 50)
    assert len(got.list) == 1
