"""The tutorials' tests never touch the learner's real progress file."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCENDLAB_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path / "data"


@pytest.fixture(scope="session")
def course_dir(tmp_path_factory):
    """The course as a learner gets it: copied by `ascendlab lab`'s own code path
    (ascendlab.cli.lab.prepare_course) into a fresh folder outside the repository, so a lesson
    that reads a file only the repository has (`../examples/...`) fails here as it would for
    the learner."""
    from ascendlab.cli.lab import prepare_course

    dest = tmp_path_factory.mktemp("ascendlab-course")
    plan = prepare_course(dest)
    assert plan.copied, plan.describe()
    return plan.dest
