"""The AI Core diagram draws every memory and pipe, with the chip's own capacities."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import ascendlab  # noqa: E402
from ascendlab.tutorials.figures import ai_core  # noqa: E402


@pytest.mark.parametrize("name", ["Ascend910B2", "Ascend910B1"])
def test_ai_core_labels_come_from_the_chip(name):
    chip = ascendlab.get_chip(name)
    fig = ai_core(chip)
    text = "\n".join(t.get_text() for t in fig.axes[0].texts)
    for memory in ("GM", "L1", "L0A", "L0B", "L0C", "UB"):
        assert memory in text
    for pipe in ("MTE1", "MTE2", "MTE3", "FIX", "V", "(M)", "(S)"):
        assert pipe in text
    assert f"{chip.ub_bytes // 1024} KiB" in text and f"{chip.l1_bytes // 1024} KiB" in text
    assert f"x{chip.aiv_cores}" in text and f"x{chip.aic_cores}" in text
    matplotlib.pyplot.close(fig)
