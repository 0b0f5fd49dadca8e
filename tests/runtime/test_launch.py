"""Kernel definition and launch: arguments in and out, Run records, launch errors."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import KernelSyntaxError, LaunchError
from ascendlab.runtime.launch.jit import JITFunction

from .kernels import vadd_flags, vadd_framework

STREAM = asc.lib.runtime.current_stream()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32])
@pytest.mark.parametrize("buffers", [1, 2])
def test_add_framework_matches_numpy(dtype, buffers):
    rng = np.random.default_rng(0)
    n, cores, tile = 8 * 2048, 8, 256
    x = (rng.random(n) * 100).astype(dtype)
    y = (rng.random(n) * 100).astype(dtype)
    z = np.zeros_like(x)
    vadd_framework[cores, STREAM](x, y, z, n // cores, tile, buffers)
    np.testing.assert_array_equal(z, x + y)
    run = ascendlab.last_run()
    assert run.block_num == cores and run.core_kind == "aiv"
    assert run.findings == [] and run.error is None
    np.testing.assert_array_equal(run.outputs["z"], x + y)


def test_add_with_flags_matches_numpy():
    x = np.arange(4096, dtype=np.float32)
    y = np.full(4096, 0.5, dtype=np.float32)
    z = np.zeros_like(x)
    vadd_flags[4, STREAM](x, y, z, 1024, 128)
    np.testing.assert_array_equal(z, x + y)
    ops = {(e.op, e.pipe) for e in ascendlab.last_run().trace}
    assert ("set_flag", "MTE2") in ops and ("wait_flag", "V") in ops
    assert ("set_flag", "MTE3") in ops and ("wait_flag", "MTE2") in ops


def test_multicore_offsets_each_core_writes_its_block():
    @asc.jit
    def tag(z: asc.GlobalAddress, block: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(z + asc.get_block_idx() * block)
        g.set_value(0, asc.get_block_idx() * 10 + asc.get_block_num())

    z = np.zeros(6 * 8, dtype=np.int32)
    tag[6, STREAM](z, 8)
    assert list(z[::8]) == [i * 10 + 6 for i in range(6)]
    cores = {e.core for e in ascendlab.last_run().trace}
    assert cores == set(range(6))


@pytest.mark.torch
def test_torch_tensors_are_filled_in_place():
    torch = pytest.importorskip("torch")
    x = torch.rand(4096)
    y = torch.rand(4096)
    z = torch.zeros(4096)
    vadd_framework[4, STREAM](x, y, z, 1024, 256, 2)
    assert torch.equal(z, x + y)


def test_launch_helper_returns_run_and_overrides_chip():
    x = np.ones(1024, np.float16)
    z = np.zeros_like(x)
    run = ascendlab.launch(vadd_framework, 2, x, x, z, 512, 256, 2, chip="Ascend310P3")
    assert run.chip.name == "Ascend310P3" and run is ascendlab.last_run()
    assert z.sum() == 2048
    assert run.gm["x"].nbytes == 2048 and run.gm["x"].dtype == "float16"
    assert run.arg_at(run.gm["z"].base + 10).name == "z"
    assert run.arg_at(run.gm["z"].base - 1) is None  # guard zone


def test_failed_launch_leaves_arrays_untouched_and_keeps_partial_run():
    @asc.jit
    def half_then_fail(z: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(z)
        g.set_value(0, 7)
        q = asc.TQue(asc.TPosition.VECIN, 1)  # no TPipe.init_buffer: deque must fail
        q.deque(asc.int32)

    z = np.zeros(8, dtype=np.int32)
    with pytest.raises(Exception, match="no buffers"):
        half_then_fail[1, STREAM](z)
    assert z[0] == 0  # nothing written back
    run = ascendlab.last_run()
    assert run.error and "no buffers" in run.error
    assert run.outputs["z"][0] == 7  # the device copy shows how far the kernel got
    assert [e.op for e in run.trace] == ["set_value"]


def test_scalar_arguments_follow_pyasc_transport():
    @asc.jit
    def scalars(out: asc.GlobalAddress, i: int, f: float, flag: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        g.set_value(0, i)
        g.set_value(1, f)
        g.set_value(2, flag)

    out = np.zeros(8, dtype=np.float32)
    scalars[1, STREAM](out, 3, 0.1, True)
    assert out[0] == 3 and out[1] == np.float32(0.1) and out[2] == 1
    run = ascendlab.last_run()
    assert isinstance(run.scalars["f"], np.float32) and run.scalars["flag"] == 1


def test_c_integer_division_inside_kernels():
    @asc.jit
    def divide(out: asc.GlobalAddress, a: int, b: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        g.set_value(0, a // b)
        g.set_value(1, a / b)
        g.set_value(2, a % b)
        r = a
        r //= b
        g.set_value(3, r)

    out = np.zeros(8, dtype=np.int32)
    divide[1, STREAM](out, -7, 2)
    assert list(out[:4]) == [-3, -3, -1, -3]  # truncation toward zero, C remainder
    divide[1, STREAM](out, 7, 2)
    assert list(out[:4]) == [3, 3, 1, 3]


def test_unsupported_python_in_kernel_is_a_syntax_error():
    @asc.jit
    def noisy(x: asc.GlobalAddress):
        print("hello")

    with pytest.raises(KernelSyntaxError, match=r"print\(\) is not supported.*asc.printf"):
        noisy[1, STREAM](np.zeros(8, np.float32))

    @asc.jit
    def early(x: asc.GlobalAddress, n: int):
        if n > 0:
            return

    with pytest.raises(KernelSyntaxError, match="return` inside if"):
        early[1, STREAM](np.zeros(8, np.float32), 1)


def test_closure_values_are_seen_by_kernels():
    factor = 3

    @asc.jit
    def scaled(out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        g.set_value(0, factor * 2)

    out = np.zeros(8, np.int32)
    scaled[1, STREAM](out)
    assert out[0] == 6


@pytest.mark.parametrize("launch, exc, words", [
    (0, ValueError, "large than 0"),
    (65536, LaunchError, "[1, 65535]"),
    ("8", TypeError, "block_num must be an int"),
])
def test_bad_block_num(launch, exc, words):
    x = np.zeros(1024, np.float32)
    with pytest.raises(exc, match=words.replace("[", r"\[").replace("]", r"\]")):
        vadd_framework[launch, STREAM](x, x, x, 1024, 256, 1)


def test_bad_arguments():
    x = np.zeros(1024, np.float32)
    with pytest.raises(TypeError, match="argument 'tile' is ConstExpr\\[int\\] but got float"):
        vadd_framework[1, STREAM](x, x, x, 1024, 256.0, 1)
    with pytest.raises(TypeError, match="not supported: str"):
        vadd_framework[1, STREAM]("x", x, x, 1024, 256, 1)
    with pytest.raises(LaunchError, match="does not fit the int32"):
        vadd_framework[1, STREAM](x, x, x, 2**31, 256, 1)
    with pytest.raises(LaunchError, match="bool array"):
        vadd_framework[1, STREAM](x.astype(bool), x, x, 1024, 256, 1)
    with pytest.raises(LaunchError, match="missing a required argument"):
        vadd_framework[1, STREAM](x, x, x)


def test_jit_options_follow_pyasc():
    def k(x: asc.GlobalAddress):
        pass

    assert isinstance(asc.jit(always_compile=True, debug=False)(k), JITFunction)
    with pytest.raises(RuntimeError, match="unknown: bogus"):
        asc.jit(bogus=1)(k)

    def clash(x: asc.GlobalAddress, debug: int):
        pass

    with pytest.raises(RuntimeError, match="conflict with JIT configuration options: debug"):
        asc.jit(clash)


def test_calling_a_kernel_directly_explains_the_launch_syntax():
    with pytest.raises(LaunchError, match=r"launch it as vadd_framework\[block_num, stream\]"):
        vadd_framework(1, 2, 3)


def test_kernel_api_outside_a_kernel_explains_itself():
    with pytest.raises(RuntimeError, match="can only run inside a kernel"):
        asc.get_block_idx()
    with pytest.raises(RuntimeError, match="can only run inside a kernel"):
        asc.TPipe()


def test_set_platform_selects_the_chip_and_rejects_npu():
    config = asc.runtime.config
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B3)
    x = np.ones(1024, np.float32)
    vadd_framework[1, STREAM](x, x, x.copy(), 1024, 256, 1)
    assert ascendlab.last_run().chip.name == "Ascend910B3"
    config.set_platform("Model")
    assert asc.lib.runtime.current_platform() == "Ascend910B1"
    with pytest.raises(RuntimeError, match="Runtime library is not available"):
        config.set_platform(config.Backend.NPU)
    with pytest.raises(NotImplementedError, match="Ascend910_9392 is not emulated"):
        config.set_platform("Model", config.Platform.Ascend910_9392)
    assert [p.value for p in config.Platform][0] == "Ascend910B1"
    assert config.Backend("Model") is config.Backend.Model


def test_run_summary_and_event_filters():
    x = np.ones(2048, np.float32)
    run = ascendlab.launch(vadd_framework, 2, x, x, x.copy(), 1024, 256, 2)
    assert "vadd_framework on Ascend910B2, 2 aiv cores" in run.summary()
    adds = run.events(op="add")
    assert len(adds) == 8 and {e.pipe for e in adds} == {"V"}
    assert all(e.file.endswith("kernels.py") and e.line > 0 for e in adds)
    assert len(run.events(core=1, pipe="MTE3", op="data_copy")) == 4
    assert len(run.events(core=1, pipe="MTE3")) == 12  # + deque and free_tensor of the VECOUT queue


def test_read_only_output_warns_and_keeps_the_result_in_the_run():
    x = np.ones(1024, np.float32)
    z = np.zeros(1024, np.float32)
    z.setflags(write=False)
    with pytest.warns(UserWarning, match="'z' is a read-only array"):
        run = ascendlab.launch(vadd_framework, 1, x, x, z, 1024, 256, 1)
    assert not z.any() and (run.outputs["z"] == 2).all()


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_the_emulation_runs_on_one_blas_thread_and_restores_the_pool(monkeypatch):
    from threadpoolctl import threadpool_limits

    from ascendlab.runtime.launch import jit as launch

    with threadpool_limits(2, user_api="blas"):  # a pool of 2 outside the launch
        before = _blas_threads()
        with launch.one_blas_thread():
            assert set(_blas_threads()) == {1}
        assert _blas_threads() == before == [2] * len(before)
        seen = []
        real = launch.one_blas_thread

        def spy():
            seen.append(True)
            return real()

        monkeypatch.setattr(launch, "one_blas_thread", spy)
        n = 256
        x, y = np.ones(n, np.float32), np.ones(n, np.float32)
        z = np.zeros(n, np.float32)
        vadd_framework[1, STREAM](x, y, z, n, 128, 2)
        assert seen == [True] and np.array_equal(z, x + y)
        assert _blas_threads() == before


def test_max_events_caps_the_trace_with_an_error_naming_the_cap():
    from ascendlab.errors import TraceLimitError

    n = 8 * 256
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    z = np.zeros(n, np.float32)
    full = vadd_framework[1, STREAM](x, y, z, n, 256, 2)
    assert len(full.trace) > 40
    ascendlab.configure(max_events=40)
    with pytest.raises(TraceLimitError, match=r"max_events=40 events .*configure\(max_events=N\)"):
        vadd_framework[1, STREAM](x, y, z, n, 256, 2)
    run = ascendlab.last_run()
    assert len(run.trace) == 40 and run.error.startswith("TraceLimitError")
    assert run.trace == full.trace[:40]
    ascendlab.configure(max_events=len(full.trace))  # exactly enough: no error
    assert vadd_framework[1, STREAM](x, y, z, n, 256, 2).trace == full.trace
    for bad in (0, -1, 2.5, "10"):
        with pytest.raises(ValueError, match="max_events must be None or an int >= 1"):
            ascendlab.configure(max_events=bad)


def test_a_loops_trace_shares_its_recurring_events():
    """Queue events, UB accesses and repeated vector instructions are built once per core and
    shared by every iteration (the trace holds references; Events are immutable)."""
    n = 16 * 256
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    run = vadd_framework[1, STREAM](x, y, np.zeros(n, np.float32), n, 256, 2)
    by_op: dict[str, list] = {}
    for e in run.trace:
        by_op.setdefault(e.op, []).append(e)
    for op in ("alloc_tensor", "enque", "deque", "free_tensor", "add"):
        assert len({id(e) for e in by_op[op]}) <= len(by_op[op]) // 4, op
    copies = by_op["data_copy"]
    ub_sides = {id(e.writes) for e in copies if e.writes[0].space == "UB"}
    assert len(ub_sides) <= 4  # one per (slot, queue), not one per copy


def _count_down(n: int) -> int:
    return _count_down(n + 1)  # never stops: the recursion the emulator must name


@asc.jit
def _recursive(x: asc.GlobalAddress):
    _count_down(0)


@asc.jit
def _inner(x: asc.GlobalAddress):
    pass


@asc.jit
def _nested(x: asc.GlobalAddress):
    _inner[1](x)


def test_recursion_and_nested_launches_get_clear_errors_and_the_session_survives():
    from ascendlab.errors import KernelRecursionError

    x = np.zeros(16, np.float32)
    with pytest.raises(KernelRecursionError) as e:
        ascendlab.launch(_recursive, 1, x)
    msg = str(e.value)
    assert "_count_down() calls itself" in msg and "write it as a loop" in msg
    assert "[core 0, test_launch.py:" in msg
    assert isinstance(e.value, RecursionError)
    with pytest.raises(LaunchError, match="a kernel cannot launch another kernel"):
        ascendlab.launch(_nested, 1, x)
    y = np.arange(2048, dtype=np.float32)
    z = np.zeros_like(y)
    run = ascendlab.launch(vadd_framework, 1, y, y, z, 2048, 256, 2)  # the session still works
    assert run.error is None
    np.testing.assert_array_equal(z, y + y)
