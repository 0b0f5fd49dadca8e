"""The tutorials' tests never touch the learner's real progress file."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCENDLAB_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path / "data"
