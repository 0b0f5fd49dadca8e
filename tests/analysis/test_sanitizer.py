"""The sanitizer (analysis/sanitizer.py): a battery of small buggy kernels, one or more per
class, each detected with the right class and source line(s); the correct twin of each reports
nothing; the correct reference kernels report nothing; rendering and launch integration."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.analysis.sanitizer import SanitizerReport, sanitize
from ascendlab.errors import (
    AlignmentError,
    CapacityError,
    DeadlockError,
    OutOfBoundsError,
    QueueError,
    SanitizerError,
    SyncError,
)
from ascendlab.runtime.launch.jit import RunOptions, configure

from ..runtime.kernels import vadd_flags, vadd_framework
from . import sanitizer_kernels as K
from .cost_kernels import layernorm_gelu, matmul_tile

N = K.N
STREAM = asc.lib.runtime.current_stream()


def at(tag: str) -> str:
    """'.../sanitizer_kernels.py:LINE' of a tagged line, as in Finding.lines."""
    return f"{K.__file__}:{K.LINES[tag]}"


def f32(n: int = 2 * N) -> np.ndarray:
    return np.arange(n, dtype=np.float32)


def fp16_tile() -> np.ndarray:
    return np.ones(256, np.float16)


# kernel, cores, argument factory; the kernel's last argument is `bug`
KERNELS = {
    "flags": (K.flags_pipeline, 1, lambda: (f32(), np.zeros(2 * N, np.float32), 2)),
    "chain": (K.vector_chain, 1, lambda: (f32(N), np.zeros(N, np.float32))),
    "scalar": (K.scalar_read, 1, lambda: (f32(N), np.zeros(N, np.float32))),
    "framework": (K.framework_add, 1, lambda: (f32(N), f32(N), np.zeros(N, np.float32))),
    "masked": (K.masked_read, 1, lambda: (f32(64), np.zeros(64, np.float32))),
    "slices": (K.per_core_slices, 2, lambda: (f32(2 * N), np.zeros(2 * N, np.float32))),
    "neighbours": (K.neighbours, 4, lambda: (np.zeros(4, np.int32), np.zeros(4, np.int32))),
    "pairs": (K.flag_pairs, 1, lambda: (f32(N), np.zeros(N, np.float32))),
    "early": (K.early_wait, 1, lambda: (f32(N), np.zeros(N, np.float32))),
    "cube": (K.cube_tile, 1, lambda: (fp16_tile(), fp16_tile(), np.zeros(256, np.float32))),
    "runtime": (K.runtime_checks, 1, lambda: (f32(N), np.zeros(N, np.float32))),
}


def launch(name: str, bug: int, **options) -> ascendlab.Run:
    kernel, cores, args = KERNELS[name]
    return ascendlab.launch(kernel, cores, *args(), bug, **options)


# name, bug, class, tags of Finding.lines of the first finding (earlier instruction first)
SANITIZER_BATTERY = [
    ("flags", 1, "racecheck", ("copy_in", "compute")),  # missing MTE2_V: read-after-write
    ("flags", 2, "racecheck", ("compute", "copy_out")),  # missing V_MTE3: read-after-write
    ("flags", 3, "racecheck", ("compute", "copy_in")),  # missing MTE3_MTE2: write-after-read
    ("chain", 4, "racecheck", ("v_first", "v_second")),  # auto_sync=False, no PIPE_V barrier
    ("scalar", 5, "racecheck", ("s_write", "s_read")),  # get_value without V_S
    ("scalar", 19, "racecheck", ("s_store", "s_copy")),  # set_value, data_copy: no S_MTE3
    ("cube", 17, "racecheck", ("mmad", "fixpipe")),  # fixpipe without M_FIX
    ("neighbours", 11, "racecheck", ("publish", "read_neighbour")),  # inter-core, no sync_all
    ("framework", 6, "initcheck", ("x_copy", "add_reads")),  # x copied half way: the copy
    ("framework", 7, "initcheck", ("add_reads",)),  # y never copied
    ("masked", 16, "initcheck", ("masked_copy", "masked_adds")),  # a block the copy skipped
    ("framework", 8, "memcheck", ("x_alloc", "x_deque")),  # leak: never freed
    ("framework", 9, "memcheck", ("z_alloc", "z_enque")),  # queue not empty at kernel end
    ("slices", 10, "memcheck", ("slice_out", "slice_out")),  # two cores write the same GM
    ("pairs", 12, "synccheck", ("set_unwaited",)),  # set_flag without wait_flag
    ("pairs", 15, "synccheck", ("set_first", "set_again")),  # two sets in a row
]

# Waits the chip never passes: every launch raises DeadlockError (runtime/sync/deadlock.py),
# sanitize or not, and records the deadlock as the first finding.
DEADLOCK_BATTERY = [
    ("pairs", 13, ("wait_unset",)),  # wait_flag without set_flag: hang
    ("pairs", 14, ("wait_first", "set_late")),  # set after its wait: deadlock
    ("early", 18, ("early_wait", "late_set")),  # set behind its own pipe
]

# What the runtime raises on while it emulates (the detection is the exception and its line).
RUNTIME_BATTERY = [
    ("runtime", 20, OutOfBoundsError, "copy_gm", "overrun the argument"),  # memcheck: GM OOB
    ("runtime", 21, OutOfBoundsError, "ub_overrun", "buffer holds 256"),  # memcheck: UB OOB
    ("runtime", 22, CapacityError, "init_buffer", "Ascend910B2 has 196608 B"),  # capacity
    ("runtime", 23, OutOfBoundsError, "copy_gm", "not a multiple of 32 B"),  # unaligned DMA
    ("cube", 28, AlignmentError, "l0", "512 B aligned"),  # unaligned L0 address
    ("runtime", 24, QueueError, "double_free", "double free"),
    ("runtime", 25, QueueError, "wrong_queue", "not to this queue"),  # free into wrong queue
    ("runtime", 26, SyncError, "flag_id", "event_id must be in"),  # synccheck: id range
    ("runtime", 27, QueueError, "deque_empty", "the queue is empty"),  # deque never enqueued
]


@pytest.mark.parametrize("name, bug, kind, tags", SANITIZER_BATTERY,
                         ids=[f"{r[0]}-{r[1]}-{r[2]}" for r in SANITIZER_BATTERY])
def test_battery_detects_class_and_lines(name, bug, kind, tags):
    with pytest.warns(UserWarning):
        run = launch(name, bug, sanitize=True, strict=False)
    assert run.findings, "no finding"
    first = run.findings[0]
    assert (first.kind, first.lines) == (kind, tuple(at(t) for t in tags)), first.message
    assert first.message.startswith(f"{kind}: ")
    assert f"{K.FILE}:{K.LINES[tags[-1]]}" in first.message and "Fix: " in first.message
    with pytest.raises(SanitizerError, match=kind):  # strict: the first finding raises
        launch(name, bug, sanitize=True)
    assert ascendlab.last_run().findings[0].message == first.message


@pytest.mark.parametrize("name, bug, tags", DEADLOCK_BATTERY,
                         ids=[f"{r[0]}-{r[1]}" for r in DEADLOCK_BATTERY])
@pytest.mark.parametrize("options", [{}, {"strict": False}, {"sanitize": True, "strict": False}])
def test_deadlocks_raise_in_every_launch_naming_wait_and_set(name, bug, tags, options):
    with pytest.raises(DeadlockError, match="^deadlock: ") as info:
        launch(name, bug, **options)
    first = ascendlab.last_run().findings[0]
    assert (first.kind, first.lines) == ("synccheck", tuple(at(t) for t in tags))
    assert first.message == str(info.value)
    for t in tags:
        assert f"{K.FILE}:{K.LINES[t]}" in first.message


@pytest.mark.parametrize("name, bug, exc, tag, words", RUNTIME_BATTERY,
                         ids=[f"{r[0]}-{r[1]}-{r[2].__name__}" for r in RUNTIME_BATTERY])
def test_battery_runtime_classes_raise_at_the_line(name, bug, exc, tag, words):
    with pytest.raises(exc, match=words) as info:
        launch(name, bug, sanitize=True)
    assert f"{K.FILE}:{K.LINES[tag]}]" in str(info.value)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_correct_twins_report_nothing(name):
    run = launch(name, 0, sanitize=True)  # strict: any finding would raise
    assert run.findings == [] and run.options["sanitize"] is True


def test_race_is_judged_on_happens_before_not_on_the_emulators_order():
    # Sequential emulation gives the right numbers, the missing wait_flag is still reported.
    x, z = f32(), np.zeros(2 * N, np.float32)
    with pytest.warns(UserWarning, match="racecheck"):
        run = ascendlab.launch(K.flags_pipeline, 1, x, z, 2, 1, sanitize=True, strict=False)
    np.testing.assert_array_equal(z, x + 1)
    assert run.findings[0].kind == "racecheck"
    # A wait issued before its set (legal on the chip) and PIPE_ALL barriers order correctly.
    assert launch("early", 0, sanitize=True).findings == []
    assert launch("flags", -1, sanitize=True).findings == []


def test_same_pipe_vector_dependency_is_ordered_by_auto_sync():
    x, z = f32(N), np.zeros(N, np.float32)
    run = K.vector_chain[1, STREAM](x, z, 4, auto_sync=True)  # the kernel option wins
    assert sanitize(run) == []
    assert any(e.sync and e.sync.implicit for e in run.trace)  # the barrier CANN would insert
    run = K.vector_chain[1, STREAM](x, z, 4)  # @asc.jit(auto_sync=False): the raw rule
    assert [f.kind for f in sanitize(run)] == ["racecheck"]


@pytest.mark.parametrize("buffers", [1, 2])
def test_reference_kernels_report_nothing(buffers):
    n = 8 * 2048
    x = np.arange(n, dtype=np.float32)
    z = np.zeros_like(x)
    assert ascendlab.launch(vadd_framework, 8, x, x, z, n // 8, 256, buffers,
                            sanitize=True).findings == []
    assert ascendlab.launch(vadd_flags, 4, x, x, z, n // 4, 128, sanitize=True).findings == []
    rows = np.random.default_rng(0).standard_normal((4, 256)).astype(np.float32)
    for stage in ("ln", "gelu", "fused"):
        out = np.zeros_like(rows)
        assert ascendlab.launch(layernorm_gelu, 2, rows, out, 4, 256, stage,
                                sanitize=True).findings == []
    a = np.ones((2 * 32, 32), np.float16)
    c = np.zeros((2 * 32, 32), np.float32)
    assert ascendlab.launch(matmul_tile, 2, a, np.ones((32, 32), np.float16), c, 32, 32, 32,
                            sanitize=True).findings == []


def test_findings_are_part_of_the_run_and_render():
    with pytest.warns(UserWarning):
        run = launch("framework", 8, sanitize=True, strict=False)
    report = SanitizerReport(run)
    text = str(report)
    assert text.startswith("sanitizer: 1 finding (memcheck 1)")
    assert f"at {at('x_alloc')}" in text
    page = report._repr_html_()
    assert "<table>" in page and "memcheck" in page and f"{K.FILE}:{K.LINES['x_alloc']}" in page
    assert report.counts() == {"memcheck": 1, "initcheck": 0, "racecheck": 0, "synccheck": 0}
    assert str(SanitizerReport([])) == "sanitizer: no findings"
    assert "<table>" not in SanitizerReport([])._repr_html_()
    f = run.findings[0]
    assert (f.core, f.event) == (0, run.trace.index(run.events(op="alloc_tensor")[0]))


def test_sanitize_is_a_run_option():
    with pytest.raises(ValueError, match="RunOptions.sanitize must be a bool"):
        RunOptions(sanitize="yes")
    configure(sanitize=True)
    kernel, _, args = KERNELS["pairs"]
    with pytest.raises(SanitizerError, match="synccheck: set_flag\\(MTE2_V, 1\\)"):
        kernel[1, STREAM](*args(), 12)
    run = ascendlab.launch(kernel, 1, *args(), 12, sanitize=False)
    assert run.findings == [] and run.options["sanitize"] is False
    assert [f.kind for f in sanitize(run)] == ["synccheck"]  # a reader: callable any time


def test_failed_launch_keeps_partial_findings():
    # the race comes first, then the GM overrun raises (before its event is traced): the
    # partial trace is still sanitized, without the end-of-kernel checks
    @asc.jit
    def racy_then_overrun(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
        zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 4, N)
        asc.data_copy(xl, xg, N)
        asc.adds(zl, xl, 1.0, N)
        asc.data_copy(xl, xg[N:], N)

    with pytest.raises(OutOfBoundsError):
        ascendlab.launch(racy_then_overrun, 1, f32(N), f32(N), sanitize=True)
    run = ascendlab.last_run()
    assert run.error and [f.kind for f in run.findings] == ["racecheck"]


def test_cli_sanitize_flag(tmp_path):
    script = tmp_path / "racy.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import asc
        import asc.lib.runtime as rt

        @asc.jit
        def racy(x: asc.GlobalAddress, z: asc.GlobalAddress):
            xg = asc.GlobalTensor()
            zg = asc.GlobalTensor()
            xg.set_global_buffer(x)
            zg.set_global_buffer(z)
            xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
            asc.data_copy(xl, xg, 64)
            asc.adds(xl, xl, 1.0, 64)
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
            asc.data_copy(zg, xl, 64)

        z = np.zeros(64, np.float32)
        racy[1, rt.current_stream()](np.ones(64, np.float32), z)
        print("done", z[0])
    """))
    r = subprocess.run([sys.executable, "-m", "ascendlab", "pyasc", "--sanitize", str(script)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "done 2.0" in r.stdout
    assert "MemcheckWarning: racecheck: read-after-write" in r.stderr and "racy.py:14" in r.stderr
