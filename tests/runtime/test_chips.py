"""Chip specs: frozen, validated, sourced; the numbers DESIGN.md starts from."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from ascendlab.runtime import chips
from ascendlab.runtime.chips import CHIPS, get_chip


def test_the_emulated_chips():
    assert set(CHIPS) == {"Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4",
                          "Ascend310P3", "Ascend310B1"}
    b2 = get_chip("Ascend910B2")
    assert (b2.aic_cores, b2.aiv_cores, b2.clock_mhz) == (24, 48, 1800)
    assert (b2.ub_bytes, b2.l1_bytes, b2.l0a_bytes, b2.l0c_bytes) == (
        192 * 1024, 512 * 1024, 64 * 1024, 128 * 1024)
    p3 = get_chip("Ascend310P3")
    assert p3.layout == "coupled" and p3.aic_cores == 8 and p3.l0c_bytes == 256 * 1024
    assert not p3.has_fixpipe and b2.has_fixpipe


def test_specs_are_frozen_and_validated():
    b1 = get_chip("Ascend910B1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        b1.ub_bytes = 1
    with pytest.raises(ValueError, match="ub_bytes must be >= 1, got 0"):
        dataclasses.replace(b1, name="broken", ub_bytes=0)
    with pytest.raises(ValueError, match="chip 'Ascend999' is not emulated; emulated chips: "):
        get_chip("Ascend999")


def test_every_number_carries_a_source_or_an_assumption():
    """Each field assignment in chips.py sits next to a source tag (INI, ADK, DER) or the word
    ASSUMPTION, on its line or in the comment block just above."""
    text = Path(chips.__file__).read_text().splitlines()
    tags = re.compile(r"INI|ADK|DER|ASSUMPTION|assumption|pyasc")
    for i, line in enumerate(text):
        m = re.match(r"\s+(\w+): (int|float) = ", line)
        if m:
            assert tags.search(line), f"chips.py:{i + 1} {m.group(1)} has no source"
    for c in CHIPS.values():
        assert c.hbm_source and ("ASSUMPTION" in c.hbm_source or "INI" in c.hbm_source)
