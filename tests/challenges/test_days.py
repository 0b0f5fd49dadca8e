"""The 7-day challenge: every day is well formed and fair, its starter fails with a message
that says what to do (as .py and as a notebook), its reference is correct on the public
cases, its tiers are anchored to a current record with the reference's note, and (slow) the
reference graded in full reaches gold at exactly its record, a first correct untuned kernel
(untuned.py) is ACCEPTED below gold, and the same kernel with SLOW = True (one core, one MIX
group, one buffer or tiny tiles), launched on the performance case, is correct but below
gold."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

import ascendlab
from ascendlab import precision
from ascendlab.analysis import sanitize
from ascendlab.grader import GradeOptions, grade
from ascendlab.grader.challenge import load_challenge
from ascendlab.grader.perf import bound_cycles
from ascendlab.grader.report import Verdict
from ascendlab.runtime.chips import get_chip

from .build import REFERENCES, days, masters_note, notebook, slow_source

DAYS = days()
IDS = [d.name for d in DAYS]
SECRET = 20261201
PUBLIC = GradeOptions(secret=SECRET, public_only=True)


def test_the_days_exist_in_order():
    assert [d.name.split("-")[0] for d in DAYS] == [f"day{i}" for i in range(1, len(DAYS) + 1)]
    assert len(DAYS) >= 5


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_folder_readme_and_no_solution(day):
    ch = load_challenge(day)
    assert ch.name == ("swish" if day.name == "day1-swish" else day.name)
    for word in ("Story", "Formula", "Shapes", "Rules", "Tiers", "Hints", "launch("):
        assert word in ch.readme, (day.name, word)
    assert "FILL ME IN (roughly" in (day / "starter.py").read_text()
    assert not (day / "reference.py").exists()
    assert (REFERENCES / day.name / "reference.py").is_file()


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_hidden_cases_come_from_the_secret_and_include_a_perf_case(day):
    spec = load_challenge(day).spec
    a, c = spec.cases(1), spec.cases(2)
    assert a == spec.cases(1)
    assert [x.seed for x in a if x.hidden] != [x.seed for x in c if x.hidden]
    perf = [x for x in a if x.perf]
    assert len(perf) == 1 and perf[0].size == max(x.size for x in a)
    assert any(min(x.shape) <= 3 for x in a if x.hidden)  # a 1-3 long dimension


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_cases_are_fair(day):
    """The correctly rounded golden passes the precision rule on every small case."""
    spec = load_challenge(day).spec
    for secret in range(3):
        for case in spec.cases(secret):
            if case.size > 200_000:
                continue
            golden = spec.golden(case, spec.make_inputs(case))
            for name, (_, dtype) in spec.outputs_for(case).items():
                g = golden[name]
                with np.errstate(over="ignore"):
                    r = precision.check(g.astype(dtype), g, standard=spec.precision)
                assert r.passed, (case.describe(), name, str(r))


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_notebook_is_built_from_the_starter(day):
    assert json.loads((day / "starter.ipynb").read_text()) == notebook(day), \
        "run: python tests/challenges/build.py notebooks"


@pytest.mark.parametrize("kind", ["starter.py", "starter.ipynb"])
@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_starter_is_gradeable_and_says_what_to_do(day, kind):
    r = grade(day, day / kind, PUBLIC)
    assert r.verdict == Verdict.RUNTIME_ERROR, r.message
    assert "FILL ME IN (roughly" in r.message and "README.md: Hints" in r.message, r.message


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_reference_is_correct_on_the_public_cases(day):
    r = grade(day, REFERENCES / day.name / "reference.py", PUBLIC)
    assert r.verdict == Verdict.ACCEPTED, r.message


@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_tiers_are_anchored_to_a_current_record(day):
    """Gold and silver are multiples of the day's record (the best known kernel, under the
    current cost model), and the record carries the reference's "why it is fast" note."""
    from ascendlab.analysis.cost import MODEL_VERSION
    from ascendlab.grader.challenge import RECORD_GOLD, RECORD_SILVER

    t = load_challenge(day).spec.tiers
    assert t.record is not None and t.model == MODEL_VERSION, \
        "run: python tests/challenges/build.py records"
    assert (t.gold, t.silver) == (RECORD_GOLD, RECORD_SILVER)
    note = masters_note(REFERENCES / day.name / "reference.py")
    assert t.note.endswith(note) and len(note) > 200
    assert t.limits(1) == (int(RECORD_GOLD * t.record), int(RECORD_SILVER * t.record))
    assert t.tier(t.record, 1) == "gold" and t.tier(int(RECORD_SILVER * t.record) + 1, 1) \
        == "bronze"


@pytest.mark.slow
@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_reference_is_accepted_at_gold(day):
    """ACCEPTED at gold, and at its record (or slower than a leaderboard record)."""
    r = grade(day, REFERENCES / day.name / "reference.py", GradeOptions(secret=SECRET))
    assert r.verdict == Verdict.ACCEPTED and r.tier == "gold", (r.tier, r.message)
    t = load_challenge(day).spec.tiers
    if t.holder == "reference":
        assert r.perf[0].cycles == t.record, (r.perf[0].cycles, t.record)
    else:
        assert r.perf[0].cycles >= t.record


UNTUNED = [d for d in DAYS if (REFERENCES / d.name / "untuned.py").is_file()]


def test_days_3_to_7_have_an_untuned_kernel():
    assert {"day3", "day5", "day6", "day7"} <= {d.name.split("-")[0] for d in UNTUNED}


@pytest.mark.slow
@pytest.mark.parametrize("day", UNTUNED, ids=[d.name for d in UNTUNED])
def test_untuned_kernel_is_accepted_below_gold(day):
    """A first correct kernel without the tuning (the previous reference: a straightforward
    tiling, no overlap tricks) is ACCEPTED and lands silver or bronze, not gold."""
    r = grade(day, REFERENCES / day.name / "untuned.py", GradeOptions(secret=SECRET))
    assert r.verdict == Verdict.ACCEPTED, r.message
    assert r.tier in ("silver", "bronze"), (r.tier, r.perf[0].cycles)


@pytest.mark.slow
@pytest.mark.parametrize("day", DAYS, ids=IDS)
def test_slow_variant_is_correct_but_below_gold(day, tmp_path):
    """SLOW = True (one core, one group or one buffer) on the performance case, launched
    directly: correct, and its modelled cycles over the grader's bound miss gold."""
    slow = tmp_path / f"slow_{day.name.replace('-', '_')}.py"
    slow.write_text(slow_source(REFERENCES / day.name / "reference.py"))
    module = _load(slow)
    spec = load_challenge(day).spec
    case = next(c for c in spec.cases(SECRET) if c.perf)
    chip = spec.rules.chips[0]
    inputs = spec.make_inputs(case)
    outs = {k: np.full(shape, np.nan if np.dtype(dt).kind == "f" else -1, dt)
            for k, (shape, dt) in spec.outputs_for(case).items()}
    cores = get_chip(chip)
    core_num = cores.aiv_cores if spec.rules.core_kind == "aiv" else cores.aic_cores
    old = ascendlab.configure().chip
    try:
        ascendlab.configure(chip=chip)
        getattr(module, spec.entry)(*inputs.values(), *outs.values(), **case.params,
                                    core_num=core_num)
    finally:
        ascendlab.configure(chip=old)
    run = ascendlab.last_run()
    golden = spec.golden(case, inputs)
    for k, v in outs.items():
        assert precision.check(v, golden[k], standard=spec.precision).passed, k
    bound = bound_cycles(spec, case, chip, inputs)
    assert spec.tiers.tier(run.cycles, bound) != "gold", (run.cycles, bound)

def _load(path):
    spec = importlib.util.spec_from_file_location(f"days_ref_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_attention_reference_is_flash_attention_on_the_emulator():
    """Day 6 directly on the emulator (no grader): the reference matches float64 attention on
    a case with a key tail (the last score block padded), with the cube and vector cores of a
    MIX run, and the sanitizer finds nothing."""
    ref = _load(REFERENCES / "day6-attention" / "reference.py")
    ch = load_challenge("day6-attention")
    case = ch.spec.public_cases[1]  # keys not a multiple of the tile
    inputs = ch.spec.make_inputs(case)
    golden = ch.spec.golden(case, inputs)["o"]
    o = np.zeros(golden.shape, np.float16)
    chip = ascendlab.configure().chip
    try:
        ascendlab.configure(chip="Ascend910B2")
        ref.launch(inputs["q"], inputs["k_t"], inputs["v"], o, 24)
    finally:
        ascendlab.configure(chip=chip)
    run = ascendlab.last_run()
    assert run.core_kind == "mix" and len(run.events(op="mmad")) > 0
    assert precision.check(o, golden, standard=ch.spec.precision).passed
    assert sanitize(run) == []


def test_day6_without_its_local_flags_is_a_cross_core_race(tmp_path):
    """The vector core's write of p reaches the cube core only through the local MTE3 -> S /
    MTE3 -> MTE2 flags before the Matmul request (a cross-core flag on another pipe): the
    sanitizer follows that chain (the reference is clean), and without the flags it reports
    the race on p."""
    ref = (REFERENCES / "day6-attention" / "reference.py").read_text()
    cut = ref
    indent = " " * 8
    for call in ("set_flag(E.MTE3_S, 0)", "wait_flag(E.MTE3_S, 0)", "set_flag(E.MTE3_MTE2, 0)",
                 "wait_flag(E.MTE3_MTE2, 0)"):
        line = f"{indent}asc.{call}\n"
        assert line in cut, line
        cut = cut.replace(line, "", 1)
    racy = tmp_path / "racy_attention.py"
    racy.write_text(cut)
    day6 = next(d for d in DAYS if d.name == "day6-attention")
    r = grade(day6, racy, PUBLIC)
    assert r.verdict == Verdict.SANITIZER_ERROR and "pbuf" in r.message, r.message
