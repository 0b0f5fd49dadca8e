"""Records: the tier rule anchored to the best known kernel (Tiers with a record), the
leaderboard's record line and distances, and the museum's record section."""

from __future__ import annotations

import pytest

from ascendlab.analysis.cost import MODEL_VERSION
from ascendlab.grader.challenge import RECORD_GOLD, RECORD_SILVER, Tiers, load_challenge
from ascendlab.grader.leaderboard import Leaderboard, distance, record_for, spec_record
from ascendlab.grader.museum import write_museum
from ascendlab.grader.report import PerfReport, Report, Verdict

DAY = "day5-matmul"


def _report(cycles: int, name: str = "a.py") -> Report:
    perf = [PerfReport(chip="Ascend910B2", case="hidden-largest", cycles=cycles,
                       bound_cycles=17343, ratio=cycles / 17343, tier="silver", time_us=25.0,
                       kernel_bound="cube")]
    return Report(challenge=DAY, submission=name, verdict=Verdict.ACCEPTED, message="",
                  perf=perf, tier="silver", model_version=MODEL_VERSION)


def test_record_tiers_are_multiples_of_the_record_not_the_bound():
    t = Tiers.for_record(10_000, MODEL_VERSION)
    assert (t.gold, t.silver) == (RECORD_GOLD, RECORD_SILVER)
    assert t.limits(bound=1) == t.limits(bound=9_999) == (11_500, 20_000)
    assert [t.tier(c, 5) for c in (9_000, 11_500, 11_501, 20_000, 20_001)] == \
        ["gold", "gold", "silver", "silver", "bronze"]
    assert "record 10,000 cycles" in t.rule() and "1.15 x record" in t.rule()
    old = Tiers(gold=2.0, silver=4.0)  # without a record: multiples of the bound, as before
    assert old.tier(2_000, 1_000) == "gold" and old.tier(2_001, 1_000) == "silver"


def test_a_record_needs_its_cost_model():
    with pytest.raises(ValueError, match="cost model"):
        Tiers(gold=1.15, silver=2.0, record=100)
    with pytest.raises(ValueError, match="record"):
        Tiers.for_record(0, MODEL_VERSION)


def test_leaderboard_shows_the_record_and_each_distance(tmp_path):
    ref = spec_record(DAY)
    assert ref is not None and ref[1] == "reference"
    assert load_challenge(DAY).spec.tiers.record == ref[0]
    lb = Leaderboard(tmp_path / "lb.sqlite3")
    assert f"the record to aim at: {ref[0]:,} cycles (reference)" in lb.render(DAY)
    lb.record(_report(ref[0] * 2), "ana", submitted_at=1.0)
    text = lb.render(DAY)
    assert f"record {ref[0]:,} cycles (reference)" in text and "+100.0%" in text
    lb.record(_report(ref[0] - 100, "fast.py"), "bo", submitted_at=2.0)
    text = lb.render(DAY)
    assert f"record {ref[0] - 100:,} cycles (bo)" in text
    lines = [x for x in text.splitlines() if " bo " in x or " ana " in x]
    assert "record" in lines[0] and " bo " in lines[0] and " ana " in lines[1]  # by cycles
    assert record_for(DAY, []) == ref
    assert distance(150, 100) == "+50.0%" and distance(100, 100) == "record"


def test_museum_shows_the_record_progression_and_the_masters_note(tmp_path):
    ref = spec_record(DAY)
    lb = Leaderboard(tmp_path / "lb.sqlite3")
    lb.record(_report(ref[0] + 500), "ana", submitted_at=1.0)  # slower: no progress
    lb.record(_report(ref[0] - 10), "bo", submitted_at=2.0)  # a new record
    lb.record(_report(ref[0] - 5), "cy", submitted_at=3.0)  # faster than ref, not than bo
    lb.record(_report(ref[0] - 20), "di", submitted_at=4.0)  # a newer record
    pages = write_museum(tmp_path / "museum", lb, [DAY])
    html = pages[1].read_text()
    section = html[html.index("record progression"):html.index('class="entry"')]
    assert "Why it is fast" in html and "masters" in html
    assert section.index(">bo<") < section.index(">di<") and ">cy<" not in section \
        and ">ana<" not in section
    assert f"{ref[0]:,}" in section  # the reference's record opens the progression
