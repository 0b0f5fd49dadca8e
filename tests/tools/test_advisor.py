"""The advisor's trace detectors on kernels with the patterns learners found by hand (issue 23,
tests/tools/advisor_kernels.py): the top finding names the change that fixes the kernel, and
its estimate is positive and at most the re-run's gain x 1.5 (a measured finding: its gain is
the re-run's). Also: the critical path of a sync_all kernel covers every phase."""

from __future__ import annotations

import re

import pytest

import ascendlab
from ascendlab.analysis.critical_path import analyze, phases
from ascendlab.runtime.launch.jit import SESSION, RunOptions
from ascendlab.tools.hotlines import remember_source, source_line

from . import advisor_kernels as K

# kind -> words its fix must contain (the change, named)
CHANGE = {"single-buffer": ("double-buffer", "two L1 slots"),
          "reuse": ("keep the reused data in L1",),
          "serial-reduction": ("whole_reduce_sum", "instead of get_value per row"),
          "gm-round-trip": ("keep what the core itself reads back in UB",),
          "mix-balance": ("fewer, larger blocks",)}


@pytest.fixture(scope="module")
def battery():
    """name -> (run, profile with its launcher, the fixed kernel's run)."""
    saved, SESSION.options = SESSION.options, RunOptions()
    out = {}
    try:
        for name, (launcher, cfg, _kind, fix) in K.BATTERY.items():
            run = launcher(**cfg)
            prof = ascendlab.profile(run, launcher=launcher, config=cfg)
            out[name] = (run, prof, launcher(**fix))
    finally:
        SESSION.options = saved
    return out


@pytest.mark.parametrize("name", list(K.BATTERY))
def test_top_finding_names_the_change_and_bounds_its_gain(battery, name):
    run, prof, fixed = battery[name]
    kind = K.BATTERY[name][2]
    top = prof.advice[0]
    assert top.kind == kind, [(a.kind, a.gain) for a in prof.advice]
    assert all(w in top.fix for w in CHANGE[kind]), top.fix
    gain = run.cycles - fixed.cycles
    assert gain > 0.05 * run.cycles  # the fix is worth it
    estimate = top.estimate if top.measured else top.gain
    assert 0 < estimate <= 1.5 * gain, (estimate, gain)
    if top.measured:  # re-run by the advisor: the same variant as ours
        assert top.gain == gain and top.cycles_after == fixed.cycles
    assert "upper bound" in top.label or top.measured


@pytest.mark.parametrize("name", list(K.BATTERY))
def test_no_advice_without_gain_and_no_empty_field(battery, name):
    _run, prof, _fixed = battery[name]
    assert all(a.gain > 0 for a in prof.advice)
    assert all(a.gain <= 0 for a in prof.checked)
    for line in str(prof).splitlines():  # a field's name with nothing after it
        empty = re.fullmatch(r"[a-z][a-z ()'-]*:", line.strip())
        assert not empty or line.strip() in ("advisor:", "hot lines (per core):"), line


def test_a_reload_the_model_prices_low_is_ranked_low():
    """The bias reloads of bias_rows are L2 hits beside a saturated HBM port: the advisor
    bounds their gain by the core's other work, and keeping the bias saves that little."""
    run = K.launch_bias()
    prof = ascendlab.profile(run)
    found = [a for a in prof.advice + prof.checked if a.kind == "reuse"]
    assert found and "28,672 B of 'bias'" in found[0].title
    assert found[0].gain < 0.05 * run.cycles  # not the 1/3 of the loads' bytes they are
    assert run.cycles - K.launch_bias(keep=True).cycles <= found[0].gain  # an upper bound


def test_the_critical_path_covers_every_phase(battery):
    run, prof, _fixed = battery["gm-round-trip"]
    cp = analyze(run)
    assert sum(cp.share.values()) == pytest.approx(run.cycles, abs=1)
    parts = phases(run)
    assert len(parts) == 2 and parts[0].until >= 0 and parts[1].until == -1
    assert sum(p.cycles for p in parts) == pytest.approx(run.cycles, abs=1)
    assert parts[0].cycles > 0.3 * run.cycles  # the phase before the sync_all is on the path
    text = str(prof)
    assert "phase 1 (to sync_all at advisor_kernels.py:" in text
    assert "phase 2 (to the end)" in text


def test_hot_lines_read_a_registered_source_when_the_file_is_gone():
    remember_source("/tmp/job-123/kernel.py", "import x\n    asc.add(z, x, y, n)\n")
    assert source_line("/tmp/job-456/gone/kernel.py", 2) == "asc.add(z, x, y, n)"
    assert source_line("/tmp/job-456/gone/kernel.py", 3) == ""
    assert source_line("/tmp/job-456/gone/other.py", 1) == ""


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_the_graded_report_shows_source_and_names_each_bound(tmp_path):
    """The grader's profile: hot lines with the submission's source (its sandbox copy is gone),
    the tier bound and this run's own bound each named with its meaning, no empty field."""
    from ..grader.conftest import compose, grade_mini

    r = grade_mini(compose(tmp_path, "honest"))
    assert r.ok, r
    prof = r.perf[0].profile
    rows = prof.splitlines()
    head = rows.index("hot lines (per core):")
    assert all(len(line.split("%  ", 1)) == 2 and line.split("%  ", 1)[1].strip()
               for line in rows[head + 2:head + 5]), rows[head:head + 5]
    assert prof.count("tier bound") == 1 and prof.count("this run's own bound") == 2
    assert "the least traffic" in prof and "the roofline of the bytes" in prof
    assert "x the tier bound of" in str(r)
    for line in rows:
        assert not re.fullmatch(r"[a-z][a-z ()'-]*:", line.strip()) or line.strip() in (
            "advisor:", "hot lines (per core):"), line
