"""The pyasc name surface: emulated names work, known-but-unemulated ones say so, and
docs/emulated-api.md lists exactly what the code emulates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ascendlab.asc as asc
from ascendlab.asc._unemulated import UNEMULATED

DOC = Path(__file__).resolve().parents[1] / "docs" / "emulated-api.md"


def test_unemulated_name_raises_naming_it():
    with pytest.raises(NotImplementedError, match="asc.LoadData2DParamsV2 is part of pyasc "
                                                  "but ascendlab does not emulate it yet; docs/"):
        asc.LoadData2DParamsV2(1, 2)
    with pytest.raises(NotImplementedError, match="asc.CO2Layout.ROW_MAJOR"):
        _ = asc.CO2Layout.ROW_MAJOR
    with pytest.raises(AttributeError, match="not a pyasc name either"):
        _ = asc.definitely_not_pyasc


def test_no_name_is_both_emulated_and_unemulated():
    assert not (set(asc.__all__) & UNEMULATED)
    assert {"add", "TQue", "data_copy", "mmad", "cast", "compare", "sync_all"} <= set(asc.__all__)


def _doc_names(section: str) -> set[str]:
    text = DOC.read_text()
    part = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([A-Za-z_][\w.]*)`", part))


def test_docs_list_matches_the_code():
    emulated = set(asc.__all__)
    documented = _doc_names("Emulated")
    assert emulated <= documented, sorted(emulated - documented)
    assert UNEMULATED <= _doc_names("Not emulated yet"), sorted(
        UNEMULATED - _doc_names("Not emulated yet"))


def test_lib_runtime_soc_version_and_core_type():
    from ascendlab.asc.lib import runtime
    from ascendlab.asc.runtime import config

    config.set_platform(config.Backend.Model, config.Platform.Ascend910B2)
    try:
        assert runtime.get_soc_version() is config.Platform.Ascend910B2
        runtime.set_soc_version(config.Platform.Ascend910B4)
        assert runtime.get_soc_version() is config.Platform.Ascend910B4
        assert runtime.CoreType("VectorCore") is runtime.CoreType.VectorCore
    finally:
        config.set_platform(config.Backend.Model)


def test_every_binary_instruction_documents_its_formula():
    from ascendlab.runtime.vector.elementwise import BINARY

    for name in BINARY:
        assert "dst = " in getattr(asc, name).__doc__, name
