"""Each tutorial runs top to bottom once under papermill (its `parameters` cell, where it has
one, is injected with the defaults), and any error fails the test."""

from __future__ import annotations

import papermill as pm  # in the test extras, so CI always runs this
import pytest

from ascendlab.tutorials.notebooks import notebooks


@pytest.mark.slow
@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.name)
def test_notebook_runs_under_papermill(path, tmp_path):
    out = tmp_path / path.name
    pm.execute_notebook(str(path), str(out), cwd=str(path.parent), kernel_name="python3",
                        progress_bar=False, log_output=False, parameters={})
    assert out.is_file()
