"""Without Chromium, Playwright or JupyterLab the browser tests skip with the reason (locally and
in CI's bare pass), and fail in CI's extras pass (ASCENDLAB_CI_PASS=extras), which installs them
(.ci/run)."""

from __future__ import annotations

import pytest

from .conftest import _unavailable


@pytest.mark.parametrize("ci_pass", [None, "bare"])
def test_missing_browser_skips_outside_the_extras_pass(monkeypatch, ci_pass):
    if ci_pass is None:
        monkeypatch.delenv("ASCENDLAB_CI_PASS", raising=False)
    else:
        monkeypatch.setenv("ASCENDLAB_CI_PASS", ci_pass)
    with pytest.raises(pytest.skip.Exception, match="no Chromium"):
        _unavailable("no Chromium at /usr/bin/chromium")


def test_missing_browser_fails_in_the_extras_pass(monkeypatch):
    monkeypatch.setenv("ASCENDLAB_CI_PASS", "extras")
    with pytest.raises(pytest.fail.Exception, match="extras pass installs it"):
        _unavailable("no Chromium at /usr/bin/chromium")
