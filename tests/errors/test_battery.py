"""The battery of errors the chip would punish (issue 27): each mistake, launched or graded the
way a learner would, and the first line of what they are told. Data-driven: BATTERY lists
(name, how it is run, the expected first line as a regex); the kernel is
tests/errors/battery_kernels.py, whose tagged lines (`# @tag`) the patterns name as {tag}."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ascendlab
from ascendlab import precision
from ascendlab.analysis.sanitizer import CAUSALITY, causality_rank, sanitize
from ascendlab.errors import DeadlockError
from ascendlab.grader import Verdict, check
from ascendlab.runtime.launch.jit import COURSE_CHIP

from ..grader.conftest import MINI
from . import battery_kernels as K

X = np.random.default_rng(27).uniform(-1, 1, 2048).astype(np.float16)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def launched(bug: str, **options) -> str:
    """A plain launch (default options unless given): the error's message, or the first
    finding's, or "" when neither."""
    z = np.zeros_like(X)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = ascendlab.launch(K.flags_add, 2, X, X, z, 4, bug, **options)
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        return f"{type(e).__name__}: {e}"
    return run.findings[0].message if run.findings else ""


def graded(bug: str) -> str:
    """check() on the mini challenge (the grader's judge, in this process): the verdict, then
    the failing case's message."""
    r = check(MINI, K.launcher(bug))
    case = next((c for c in r.cases if c.verdict not in (None, Verdict.ACCEPTED)), None)
    return f"{r.verdict.value}: {case.message if case else r.message}"


def sanitized(bug: str) -> str:
    """The first line of the sanitizer's report on a non-strict launch."""
    z = np.zeros_like(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = ascendlab.launch(K.flags_add, 2, X, X, z, 4, bug, sanitize=True, strict=False)
    return str(ascendlab.SanitizerReport(run)).splitlines()[1]


def all_nan() -> str:
    return str(precision.check(np.full(8192, np.nan, np.float16), np.ones(8192)))


def compared() -> str:
    from ascendlab import viz

    return viz.compare(np.ones(64), np.full(64, np.inf, np.float32)).summary()


def cross_core_deadlock() -> str:
    from ..runtime.test_cross_core import _inputs, mix_relu_matmul

    a, b, ws, out = _inputs(1)
    try:
        mix_relu_matmul[1](a, b, ws, out, 1.0, True, 3)  # waits on flag 3; the AIC sets 0
    except DeadlockError as e:
        return f"DeadlockError: {e}"
    return ""


def mix_race() -> str:
    from ..runtime.test_cross_core import _inputs, mix_no_wait

    a, b, ws, out = _inputs(1)
    return sanitize(mix_no_wait[1](a, b, ws, out, 1.0))[0].message


def sanitizer_kernel(kernel: str, cores: int, bug: int) -> str:
    from ..analysis import sanitizer_kernels as S

    n = S.N
    args = {"framework_add": (np.arange(n, dtype=np.float32),) * 2,
            "per_core_slices": (np.arange(2 * n, dtype=np.float32),)}[kernel]
    z = np.zeros(args[0].size, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = ascendlab.launch(getattr(S, kernel), cores, *args, z, bug, sanitize=True,
                               strict=False)
    return run.findings[0].message


F = re.escape(K.FILE)
DEAD_ID = (rf"^DeadlockError: deadlock: wait_flag\(MTE2_V, 1\) on pipe V at {F}:{{wait_in}} "
           r"waits for event MTE2_V id 1 \(set on pipe MTE2, waited on pipe V\).*nearest "
           rf"candidate set_flag: none with this id; .*set_flag\(MTE2_V, 0\) at {F}:{{set_in}}")
DEAD_LATE = (rf"^DeadlockError: deadlock: wait_flag\(MTE3_MTE2, 0\) on pipe MTE2 at "
             rf"{F}:{{wait_out_done}} .*nearest candidate set_flag: the set_flag\(MTE3_MTE2, 0\) "
             rf"at {F}:{{set_out_done}} would release it")

BATTERY = [
    # a missing set_flag: every launch, strict or not, sanitize or not
    ("deadlock, plain launch", lambda: launched("missing_set"), DEAD_ID),
    ("deadlock, not strict", lambda: launched("missing_set", strict=False), DEAD_ID),
    ("deadlock, sanitize", lambda: launched("missing_set", sanitize=True, strict=False),
     DEAD_ID),
    ("deadlock, set after its wait", lambda: launched("no_first_set"), DEAD_LATE),
    ("deadlock, graded", lambda: graded("missing_set"),
     rf"^RUNTIME_ERROR: DeadlockError in the kernel at .*: deadlock: wait_flag\(MTE2_V, 1\) "
     rf"on pipe V at {F}:{{wait_in}}"),
    ("cross-core deadlock", cross_core_deadlock,
     r"^DeadlockError: deadlock: core 0 \(AIV\) waits at cross_core_wait_flag\(flag_id=3, "
     r"mode_id=2\) \[core 0, test_cross_core\.py:\d+\] on pipe MTE2 .*nearest candidate: "
     r"core 2's cross_core_set_flag\(flag_id=0, mode_id=2\) is set and not consumed"),
    # fixes chosen by the kind of race, reported at the origin
    ("cube/vector race in MIX: a cross-core flag, not sync_all", mix_race,
     r"^racecheck: core 0 reads ws .*Fix: core 2 \(AIC\) and core 0 \(AIV\) are the cube and "
     r"a vector core of a MIX kernel.*asc\.cross_core_set_flag\(flag_id, 2, "
     r"asc\.PipeID\.PIPE_FIX\) on core 2 after the write and asc\.cross_core_wait_flag\("
     r"flag_id, 2, asc\.PipeID\.PIPE_MTE2\) on core 0 before the read$"),
    ("two cores, one instruction: an address bug", lambda: sanitizer_kernel(
        "per_core_slices", 2, 10),
     r"^memcheck: cores 0 and 1 both write z .*Fix: the same data_copy at "
     r"sanitizer_kernels\.py:\d+ writes these bytes on both cores, so its destination "
     r"offset, stride or length is wrong"),
    ("uninitialised read reported at the writer", lambda: sanitizer_kernel(
        "framework_add", 1, 6),
     r"^initcheck: add at sanitizer_kernels\.py:\d+ reads UB bytes .* that the data_copy at "
     r"sanitizer_kernels\.py:(\d+) left unwritten: .*\[core 0, sanitizer_kernels\.py:\1\]"),
    # root cause first: the race leads, the leak (earlier in the trace) comes after
    ("race before leak", lambda: sanitized("leak_race"),
     rf"^  1\. \[racecheck\] core 0: racecheck: read-after-write race .* data_copy on pipe MTE3 "
     rf"\({F}:{{copy_out}}\) reads bytes that add on pipe V \({F}:{{add}}\) writes"),
    ("race before leak, graded", lambda: graded("leak_race"),
     r"^SANITIZER_ERROR: the sanitizer found \d+ problem\(s\); first: racecheck: "),
    # chip limits are runtime errors, not MEMORY_LIMIT
    ("UB overflow", lambda: launched("ub_overflow"),
     rf"^CapacityError: init_buffer\(.*\): UB would need 204800 B .* but Ascend910B2 has "
     rf"196608 B \[core 0, {F}:{{init_buffer}}\]"),
    ("UB overflow, graded", lambda: graded("ub_overflow"),
     r"^RUNTIME_ERROR: CapacityError in the kernel at .*: init_buffer\(.*UB would need"),
    # NaN and inf are named; MERE/MARE over finite pairs
    ("all-NaN output", all_nan,
     r"^FAIL \(float16, .*\): 8,192 NaN in the output where the golden has none; MERE and "
     r"MARE: no finite pair to measure, 8,192 of 8,192 elements off$"),
    ("inf in viz.compare", compared,
     r"^FAIL \(float32, .*\): 64 inf in the output where the golden has none; MERE and MARE: "
     r"no finite pair to measure"),
    ("all-NaN output, graded", lambda: graded("nan"),
     r"^WRONG_ANSWER: output 'z': 2,048 of 2,048 elements off, 2,048 NaN in the output where "
     r"the golden has none \(MERE and MARE: no finite pair to measure; T = 0\.000977\)"),
    # an op the grader cannot replay: a rule message at the line, with the allowed list
    ("unreplayable op, graded", lambda: graded("tanh"),
     rf"^RULE_VIOLATION: adv\.tanh \({F}:{{tanh}}\) is not among the instructions this "
     r"challenge allows \(the grader cannot replay it\): abs, "),
]


def test_the_unreplayable_op_message_lists_no_library_internals():
    """With no allowed list (any replayable op), the message lists what a kernel may call:
    not the library's internal records such as mm_request."""
    from dataclasses import replace

    from ascendlab.grader.challenge import load_challenge
    from ascendlab.grader.judge import _unreplayable

    spec = load_challenge("vadd").spec
    spec = replace(spec, rules=replace(spec.rules, allowed_ops=None))
    record = {"strings": ["k.py"], "events": [[0, "V", "adv.tanh", 0, 0, 0, 0, 0, 0, 7, 0, 0]]}
    msg = _unreplayable(record, spec)
    assert msg.startswith("adv.tanh (k.py:7) is not among"), msg
    assert "add" in msg and "mm_request" not in msg and "mm_wait_result" not in msg


@pytest.mark.parametrize("name, run, first", BATTERY, ids=[b[0] for b in BATTERY])
def test_battery_first_line(name, run, first):
    text = run()
    line = text.splitlines()[0] if text else ""
    assert re.search(first.format(**K.LINES), line), f"{name}:\n{line}"


def test_the_honest_kernel_raises_nothing_and_is_accepted():
    assert launched("none", sanitize=True) == ""
    r = check(MINI, K.launcher("none"))
    assert r.verdict == Verdict.ACCEPTED, r


def test_the_deadlock_is_the_first_finding_and_never_priced():
    with pytest.raises(DeadlockError):
        launched_raising("missing_set")
    run = ascendlab.last_run()
    first = run.findings[0]
    assert first.kind == "synccheck" and causality_rank(first) == 0
    assert first.lines == (f"{K.__file__}:{K.LINES['wait_in']}",)
    with pytest.raises(DeadlockError, match="never satisfied"):
        run.cycles  # noqa: B018


def launched_raising(bug: str) -> None:
    ascendlab.launch(K.flags_add, 2, X, X, np.zeros_like(X), 4, bug)


def test_findings_are_ordered_by_causality_rank():
    z = np.zeros_like(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = ascendlab.launch(K.flags_add, 2, X, X, z, 4, "leak_race", sanitize=True,
                               strict=False)
    ranks = [causality_rank(f) for f in run.findings]
    assert ranks == sorted(ranks) and CAUSALITY[ranks[0]] == "race"
    assert CAUSALITY[ranks[-1]] == "leak"
    leak = run.findings[-1]
    assert leak.event < run.findings[0].event  # earlier in the trace, reported last
    assert sanitize(run) == [f for f in run.findings]


def test_one_default_chip_for_launches_the_course_and_the_grader():
    z = np.zeros_like(X)
    run = ascendlab.launch(K.flags_add, 2, X, X, z, 4, "none")
    assert run.chip.name == COURSE_CHIP == "Ascend910B2"
    assert f"on {COURSE_CHIP}" in run.summary()
    from ascendlab.grader import load_challenge

    for name in ("swish", "vadd"):
        assert load_challenge(name).spec.rules.chips[0] == COURSE_CHIP


def test_the_sandboxed_child_starts_without_a_grader_warning():
    """`python -I -m ascendlab.grader.harness` must not find itself imported already (runpy's
    RuntimeWarning would land in the report's "stderr of your code")."""
    r = subprocess.run([sys.executable, "-I", "-c",
                        "import sys, ascendlab.grader; "
                        "print('ascendlab.grader.harness' in sys.modules)"],
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "False", r.stderr
