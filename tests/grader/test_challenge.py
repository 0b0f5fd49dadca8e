"""The two sample challenges: well formed, fair (the rounded golden passes the precision
rule), hidden cases covering the required shapes and drawn from the secret only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ascendlab import precision
from ascendlab.grader.challenge import Case, Rules, Tiers, day_of, find_challenge, load_challenge

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["vadd", "swish"])
def test_challenge_folder(name):
    ch = load_challenge(name)
    assert ch.path.parent == REPO / "challenges"  # swish: challenges/swish or day1-swish
    readme = ch.readme
    for word in ("Formula", "Shapes", "Rules", "Tiers", "launch("):
        assert word in readme, word
    # reference solutions live in tests/, never next to the challenge
    assert not any("solution" in p.name for p in ch.path.iterdir())


@pytest.mark.parametrize("name", ["vadd", "swish"])
def test_hidden_cases_cover_the_tricky_shapes(name):
    spec = load_challenge(name).spec
    cases = spec.cases(12345)
    hidden = [c for c in cases if c.hidden]
    sizes = [c.size for c in hidden]
    assert min(sizes) <= 3  # a case of 1-3 elements
    assert {c.size % 16 for c in hidden if c.name.startswith("hidden-tail")} == {1, 2, 3}
    assert any(c.size * np.dtype(c.dtype).itemsize % 32 for c in hidden)
    assert {"tiny", "huge", "negative"} <= {c.kind for c in hidden}
    perf = [c for c in cases if c.perf]
    assert len(perf) == 1 and perf[0].size == max(c.size for c in cases)


@pytest.mark.parametrize("name", ["vadd", "swish"])
def test_hidden_cases_come_from_the_secret(name):
    spec = load_challenge(name).spec
    a, b = spec.cases(1), spec.cases(1)
    c = spec.cases(2)
    assert a == b
    assert [x.seed for x in a if x.hidden] != [x.seed for x in c if x.hidden]
    assert [x.seed for x in a if not x.hidden] == [x.seed for x in c if not x.hidden]


@pytest.mark.parametrize("name", ["vadd", "swish"])
def test_cases_are_fair(name):
    """The correctly rounded golden passes the precision rule on every case (checked over a
    few secrets, and every beta for swish): a failing case would fail everyone."""
    spec = load_challenge(name).spec
    for secret in range(6):
        for case in spec.cases(secret):
            if case.size > 200_000:
                continue
            variants = [replace(case, params={"beta": b}) for b in (0.5, 1.0, 1.702)] \
                if name == "swish" else [case]
            for v in variants:
                golden = spec.golden(v, spec.make_inputs(v))
                for g in golden.values():
                    with np.errstate(over="ignore"):
                        r = precision.check(g.astype(v.dtype), g)
                    assert r.passed, (v.describe(), str(r))


def test_load_by_path_and_errors(tmp_path):
    ch = load_challenge(REPO / "challenges" / "vadd")
    assert ch.name == "vadd"
    with pytest.raises(FileNotFoundError, match="vadd"):
        load_challenge("no-such-challenge")
    (tmp_path / "spec.py").write_text("SPEC = 1\n")
    with pytest.raises(TypeError, match="ChallengeSpec"):
        load_challenge(tmp_path)


def test_case_and_tier_validation():
    with pytest.raises(ValueError):
        Case(name="bad name", shape=(4,), dtype="float16", seed=1)
    with pytest.raises(ValueError):
        Case(name="x", shape=(0,), dtype="float16", seed=1)
    with pytest.raises(ValueError):
        Tiers(gold=3.0, silver=2.0)
    t = Tiers(gold=1.2, silver=2.0)
    assert [t.tier(c, 100) for c in (100, 150, 300)] == ["gold", "silver", "bronze"]


def _fake_challenges(root: Path) -> None:
    """day0-... is absent on purpose; vadd-like and swish-like folders as the days will be."""
    mini = (Path(__file__).parent / "challenges" / "mini" / "spec.py").read_text()
    for folder, name, aliases in (("vadd", "vadd", ("day0",)), ("day1-swish", "day1-swish",
                                                                 ("swish",)),
                                  ("day3-layernorm-gelu", "day3-layernorm-gelu", ())):
        (root / folder).mkdir(parents=True)
        (root / folder / "spec.py").write_text(
            mini.replace('name="mini"', f"name={name!r}, aliases={aliases!r}"))


def test_challenges_resolve_by_day_folder_slug_and_alias(tmp_path, monkeypatch):
    _fake_challenges(tmp_path / "ch")
    from ascendlab.grader import challenge as C

    monkeypatch.setattr(C, "challenge_dirs", lambda: [tmp_path / "ch"])  # not the repo's
    want = {"day1": "day1-swish", "day1-swish": "day1-swish", "swish": "day1-swish",
            "day3": "day3-layernorm-gelu", "layernorm-gelu": "day3-layernorm-gelu",
            "day0": "vadd", "vadd": "vadd"}
    for name, folder in want.items():
        assert find_challenge(name) == tmp_path / "ch" / folder, name
        assert load_challenge(name).path == (tmp_path / "ch" / folder).resolve(), name
    assert find_challenge("day9") is None
    with pytest.raises(FileNotFoundError, match="dayN"):
        load_challenge("day9")
    assert (day_of("day3-layernorm-gelu"), day_of("day12"), day_of("vadd")) == (3, 12, None)


def test_rules_take_mix_kernels():
    r = Rules(core_kind="mix")
    assert r.block_range("Ascend910B2")[1] == 24  # groups: one cube core each
    with pytest.raises(ValueError, match="'mix'"):
        Rules(core_kind="cube")
