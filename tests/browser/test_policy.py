"""Without Chromium or Playwright the browser tests skip with the reason locally, and fail in
CI (CI=true), which installs both (.ci/run)."""

from __future__ import annotations

import pytest

from .conftest import _unavailable


def test_missing_browser_skips_locally(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium"):
        _unavailable("no Chromium at /usr/bin/chromium")


def test_missing_browser_fails_in_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI installs it"):
        _unavailable("no Chromium at /usr/bin/chromium")
