"""Shared test helpers: every test leaves the session defaults as it found them."""

from __future__ import annotations

import pytest

from ascendlab.runtime.launch.jit import SESSION, RunOptions


@pytest.fixture(autouse=True)
def _fresh_session():
    """Each test starts from the default RunOptions (strict, Ascend910B2, auto_sync)."""
    saved = SESSION.options
    SESSION.options = RunOptions()
    yield
    SESSION.options = saved
