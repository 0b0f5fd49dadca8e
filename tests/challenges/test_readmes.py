"""Each challenge's README tells the truth the grader works by (issue 31): its generated block
matches its spec.py (regenerate with `python tests/challenges/build.py readmes`), the prose
claims about values hold on every case or name their exception, and the cost facts quoted in
"What the model charges" are the cost model's own numbers."""

from __future__ import annotations

import re
import runpy
from dataclasses import replace

import numpy as np
import pytest

from ascendlab.analysis.cost import COST
from ascendlab.grader.challenge import Challenge, load_challenge
from ascendlab.grader.spec_doc import (
    DRAWS,
    block_of,
    describe_sizes,
    describe_values,
    op_groups,
    readme_drift,
    replace_block,
    rules_lines,
    spec_block,
)
from ascendlab.runtime.chips import get_chip

from .build import REPO, challenges

FOLDERS = challenges()
IDS = [f.name for f in FOLDERS]
SECRETS = (1, 2, 3)


def _cases(spec, secrets=SECRETS):
    """Public cases and the hidden ones of `secrets` (a fixed-shape hidden case once)."""
    seen, out = set(), list(spec.public_cases)
    for s in secrets:
        for c in spec.hidden_cases(s):
            if (c.name, c.shape) not in seen:
                seen.add((c.name, c.shape))
                out.append(c)
    return out


def test_every_challenge_folder_is_covered():
    assert {"vadd", "day1-swish", "day4-qkv-permute", "day7-condition-fusion"} <= set(IDS)


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_readme_block_matches_spec(folder):
    problem = readme_drift(load_challenge(folder))
    assert problem is None, problem


def test_drift_is_caught():
    """A spec changed under a README (tiers, the allowed list) no longer matches."""
    ch = load_challenge("vadd")
    assert "gold ≤ 1.5 × bound" in block_of(ch.readme, "spec")
    rules = ch.spec.rules
    for spec in (replace(ch.spec, tiers=replace(ch.spec.tiers, gold=1.6)),
                 replace(ch.spec, rules=replace(rules, allowed_ops=rules.allowed_ops
                                                | {"duplicate"}))):
        other = Challenge(spec, ch.path)
        assert spec_block(other, draws=50) != spec_block(ch, draws=50)
        assert readme_drift(other, draws=50) is not None


def test_the_terminal_view_hides_the_markers():
    from ascendlab.grader.challenge_cli import render_markdown

    shown = render_markdown(load_challenge("day4").readme)
    assert "<!--" not in shown and "Generated from spec.py by python tests/" in shown
    assert "a UB → UB data_copy is allowed" in shown


def test_replace_block_needs_its_markers():
    text = "a\n<!-- spec:begin -->\nold\n<!-- spec:end -->\nb\n"
    assert replace_block(text, "spec", "new") == text.replace("old", "new")
    with pytest.raises(ValueError, match="needs exactly one <!-- spec:begin -->"):
        replace_block("no markers", "spec", "new", "README.md")


def test_the_days_table_is_written_by_the_same_function():
    text = (REPO / "challenges" / "README.md").read_text()
    table = block_of(text, "days-table")
    assert table and table.startswith("Cost model ")
    assert replace_block(text, "days-table", table) == text


def test_a_new_challenge_gets_its_block(tmp_path):
    """build.py readmes adds the section to a README that has none (a bonus day's)."""
    from . import build

    day = tmp_path / "challenges" / "day9-copy"
    day.mkdir(parents=True)
    vadd = REPO / "challenges" / "vadd"
    (day / "spec.py").write_text((vadd / "spec.py").read_text())
    (day / "README.md").write_text("# Day 9\n\n## Story\n\nCopy.\n")
    build.write_readmes("day9", root=tmp_path / "challenges")
    problem = readme_drift(load_challenge(day), draws=DRAWS)
    assert problem is None, problem
    assert (day / "README.md").read_text().startswith("# Day 9\n\n## Story\n\nCopy.\n\n## Cases")


def test_sizes_and_values_are_described_as_they_are():
    assert describe_sizes([64] * 5) == ("64", "")
    assert describe_sizes([3, 5, 7, 3]) == ("{3, 5, 7}", "")
    assert describe_sizes(range(51, 400, 2)) == ("odd 51–399", "")
    assert describe_sizes([16 * m + 1 for m in range(40, 200)]) == ("16·m + 1", "40–199")
    assert describe_sizes([h * (h + 2) for h in range(21, 60, 2)]) == (
        "one of 20 sizes in 483–3599", "")  # scattered sizes are not called a range
    rng = np.random.default_rng(0)
    assert describe_values(rng.uniform(-4, 4, 10_000)) == "[-4, 4]"
    n = 200_000  # enough draws that a gap of 0.001 around zero cannot be chance
    signed = rng.choice([-1.0, 1.0], n) * rng.uniform(1e-3, 6.0, n)
    assert describe_values(signed) == "±[0.001, 6]"
    assert describe_values(-rng.uniform(0.5, 11, 1000)) == "[-11, -0.5]"


def test_rules_say_what_the_grader_enforces():
    day4 = load_challenge("day4").spec
    text = "\n".join(rules_lines(day4))
    assert "no vector instruction at all: not `duplicate`, not `cast`" in text
    assert "a UB → UB `data_copy` is allowed" in text
    assert "no scalar access to UB or GM" in text
    groups = dict(op_groups(load_challenge("day2").spec.rules.allowed_ops))
    assert "cast" in groups["vector casts (V pipe)"]
    assert "duplicate" in groups["vector arithmetic, compares and fills (V pipe)"]
    assert "any instruction the grader can replay" in "\n".join(
        rules_lines(load_challenge("day6").spec))


# ---- prose claims against every case -------------------------------------------------------
def test_day1_beta_x_ranges():
    """README: negative puts β·x in [-11, -0.5], deep in [-14, -11.2]; uniform and tiny keep
    |x| ≥ 0.001; huge has |x| in [100, 60000]."""
    spec = load_challenge("day1").spec
    for c in _cases(spec):
        bx = c.params["beta"] * spec.make_inputs(c)["x"].astype(np.float64)
        x = np.abs(bx / c.params["beta"])
        if c.kind == "negative":
            assert bx.min() >= -11.0 - 0.02 and bx.max() <= -0.5 + 1e-3, c.name
        elif c.kind == "deep":
            assert bx.min() >= -14.0 - 0.02 and bx.max() <= -11.2 + 0.02, c.name
        elif c.kind == "huge":
            assert x.min() >= 100 - 0.1 and x.max() <= 60000 + 32, c.name
        else:
            assert x.min() >= 1e-3 * (1 - 2**-10), c.name


def test_day2_u_bounds_hold_except_hidden_huge():
    """README: u = x + bias ≥ -4.5 and |u| ≥ 1e-3 in every case but hidden-huge, where |x| is
    in [100, 30000] and u reaches ±30000."""
    spec = load_challenge("day2").spec
    for c in _cases(spec):
        inp = spec.make_inputs(c)
        u = inp["x"].astype(np.float64) + inp["bias"]
        if c.kind == "huge":
            x = np.abs(inp["x"].astype(np.float64))
            assert x.min() >= 100 - 0.1 and x.max() <= 30000 + 16
            assert u.min() < -4.5  # the exception is real
        else:
            assert u.min() >= -4.5 and np.abs(u).min() >= 1e-3, c.name
    assert "**The exception is `hidden-huge`**" in load_challenge("day2").readme


def test_day3_u_bounds_and_the_few_that_stay():
    """README: u ≥ -4.5 everywhere; at most about 1 in 10,000 elements stay within 1e-3 of
    zero, with |u| above 5e-5."""
    ch = load_challenge("day3")
    pre = runpy.run_path(str(ch.path / "spec.py"))["_pre"]
    for c in _cases(ch.spec):
        inp = {k: v.astype(np.float64) for k, v in ch.spec.make_inputs(c).items()}
        u = pre(inp["x"], inp["gamma"], inp["beta"], c.params["eps"])
        near = np.abs(u) < 1e-3
        assert u.min() >= -4.5, c.name
        assert near.sum() <= max(1, u.size // 10_000), (c.name, near.sum())
        assert np.abs(u).min() > 5e-5, c.name


def test_day6_only_peaky_scores_overflow_float16_exp():
    """README: peaky scores reach about ±21 (past 11.09, within float32's 88.7); the other
    cases stay within about ±6."""
    spec = load_challenge("day6").spec
    for c in _cases(spec):
        if c.perf:
            continue
        inp = spec.make_inputs(c)
        s = np.abs(inp["q"].astype(np.float64) @ inp["k_t"] / np.sqrt(c.shape[2])).max()
        if c.kind == "peaky":
            assert 11.09 < s < 30, (c.name, s)
        else:
            assert s < 7, (c.name, s)


def test_day7_outputs_are_positive():
    spec = load_challenge("day7").spec
    for c in _cases(spec, (1,)):
        if c.perf:
            continue
        out = spec.golden(c, spec.make_inputs(c))["out"]
        assert out.min() > 0, c.name


# ---- the cost facts ------------------------------------------------------------------------
def _facts() -> dict[str, list[str]]:
    chip = get_chip("Ascend910B2")
    per_core = chip.gm_rates(chip.aiv_cores)[0]
    dma = [f"{COST.dma_setup} cycles", f"{COST.dma_latency} cycles"]
    align = [f"{chip.gm_fast_align} B", f"{round(chip.gm_misaligned_rate * 100)} %"]
    share = [f"about {round(per_core)} B/cycle",
             f"{round(chip.hbm_sustained_fraction * 100)} % of the "
             f"{chip.hbm_gbps / 1000:g} TB/s"]
    vec = [f"{COST.vector_setup} cycles of issue",
           f"{dict(COST.vector_elements_per_cycle)['exp']:g} elements per cycle"]
    reduce = [f"{dict(COST.vector_repeat)['reduce']:g} cycles per repeat"]
    per_block = [f"plus {COST.dma_block} cycles for each further block"]
    return {
        "vadd": dma + align + share,
        "day1-swish": dma + share + vec,
        "day2-gelu-bias": dma + align + share + vec + per_block,
        "day3-layernorm-gelu": dma[:1] + align + vec + reduce
        + [f"takes the scalar unit {COST.scalar_local} cycles"],
        "day4-qkv-permute": dma + align + share + per_block
        + [f"30 + {COST.dma_block}·(block_count − 1)",
           f"at {chip.vector_bytes_per_cycle} B/cycle",
           f"{round(128 / per_core)} cycles of port time"],
        "day5-matmul": dma + align
        + [f"about {round(chip.gm_rates(chip.aic_cores)[0])} B/cycle per core",
           f"{chip.l2_gbps / 1000:g} TB/s",
           f"at most {chip.l2_read_bytes_per_cycle}",
           f"{chip.l1_to_l0a_bytes_per_cycle} B/cycle into L0A",
           f"{chip.l1_to_l0b_bytes_per_cycle} B/cycle into L0B",
           f"{COST.l0_load_latency} cycles later",
           f"{COST.cube_setup} cycles of setup", f"{COST.cube_latency} cycles later",
           f"plus {COST.fix_setup} cycles"],
        "day6-attention": dma + [f"{COST.vector_setup} cycles of issue",
                                 f"{2048 // 32 // dict(COST.vector_elements_per_cycle)['exp']:g}"
                                 " cycles for a float32 `exp`",
                                 f"{dict(COST.vector_repeat)['reduce']:g} for a reduction"],
        "day8-conv-gelu": dma + [f"{chip.l1_to_l0a_bytes_per_cycle} B/cycle into L0A",
                                 f"ready {COST.l0_load_latency} cycles later",
                                 f"{COST.cube_setup} cycles of setup",
                                 f"plus {COST.fix_setup} cycles",
                                 f"{COST.vector_setup} cycles of issue",
                                 f"{dict(COST.vector_elements_per_cycle)['exp']:g} elements "
                                 "per cycle"],
        "day7-condition-fusion": dma + align + share
        + [f"{chip.l2_gbps / 1000:g} TB/s", f"{COST.vector_setup} cycles of",
           f"{dict(COST.vector_repeat)['reduce']:g} per repeat for a reduction"],
    }


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_what_the_model_charges(folder):
    """Each README has the paragraph, links docs/cycle-model.md, and quotes the cost model's
    current numbers (a changed COST or ChipSpec fails here until the README follows)."""
    text = (folder / "README.md").read_text()
    part = text[text.index("## What the model charges"):]
    part = part[:part.index("\n## ", 4)]
    flat = re.sub(r"\s+", " ", part)
    assert "(../../docs/cycle-model.md)" in flat
    assert (REPO / "docs" / "cycle-model.md").is_file()
    missing = [f for f in _facts().get(folder.name, []) if f not in flat]
    assert not missing, f"{folder.name}/README.md 'What the model charges' lacks {missing}"


def test_lesson_06_states_the_dma_rules_it_measures():
    """Lesson 06 teaches the DMA setup, the per-block cost and the 512 B rule with a measured
    example (nbval runs it); its prose quotes the cost model's numbers."""
    import json

    chip = get_chip("Ascend910B2")
    nb = json.loads((REPO / "tutorials" / "06-data-movement.ipynb").read_text())
    text = re.sub(r"\s+", " ", "\n".join("".join(c["source"]) for c in nb["cells"]))
    for fact in (f"**{COST.dma_setup} cycles**", f"**{COST.dma_block} cycles for each further "
                 "block**", f"**not a multiple of {chip.gm_fast_align} B**",
                 f"**{round(chip.gm_misaligned_rate * 100)} %**",
                 f"1 / {chip.gm_misaligned_rate:.2f}", "def copy_in(", "def gather_rows("):
        assert fact in text, fact


def test_day4_back_to_back_rows_are_charged_off_512_b():
    """Day 4's README: rows written back to back by one multi-block copy have a GM stride of
    their length (128 B at d = 64), so the model runs them at 70 %; the same bytes as one
    block starting on 512 B do not pay it."""
    import ascendlab
    import ascendlab.asc as asc

    @asc.jit
    def write_out(z: asc.GlobalAddress, blocks: asc.ConstExpr[int]):
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(q, 1, 4096)
        t = q.alloc_tensor(asc.float16)
        asc.duplicate(t, 1.0, 2048)
        q.enque(t)
        t = q.deque(asc.float16)
        asc.data_copy_pad(zg, t, asc.DataCopyExtParams(blocks, 4096 // blocks, 0, 0, 0))
        q.free_tensor(t)

    chip = get_chip("Ascend910B2")
    busy = {}
    for blocks in (1, 32):  # one 4 KiB block, or 32 rows of 128 B back to back
        z = np.zeros(2048, np.float16)
        run = ascendlab.launch(write_out, 1, z, blocks, chip="Ascend910B2")
        assert (z == 1).all()
        busy[blocks] = run.pipe_busy["MTE3"] - COST.dma_setup - COST.dma_block * (blocks - 1)
    assert busy[32] / busy[1] == pytest.approx(1 / chip.gm_misaligned_rate, rel=0.01)
