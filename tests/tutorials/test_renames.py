"""Renumbered lessons: a learner's recorded passes and lab folder follow the new numbers."""

from __future__ import annotations

import json

from ascendlab.cli.lab import prepare_course
from ascendlab.tutorials import all_exercises, renames
from ascendlab.tutorials import progress as P
from ascendlab.tutorials.notebooks import notebooks


def test_the_maps_point_at_what_the_course_ships():
    ids = {e.id for e in all_exercises()}
    assert set(renames.EXERCISES.values()) <= ids
    assert not set(renames.EXERCISES) & ids, "an old id is still registered"
    names = {p.name for p in notebooks()}
    assert set(renames.NOTEBOOKS.values()) <= names
    assert not set(renames.NOTEBOOKS) & names, "an old notebook name is still shipped"
    for old, new in renames.EXERCISES.items():  # an id moves with its lesson's notebook
        moved = [nb for nb in renames.NOTEBOOKS if nb.startswith(old[:2] + "-")]
        assert len(moved) == 1 and renames.NOTEBOOKS[moved[0]].startswith(new[:2] + "-")


def test_passes_under_old_ids_count_for_the_new_ones(_private_data_dir):
    _private_data_dir.mkdir(parents=True)
    (_private_data_dir / "progress.json").write_text(json.dumps({"format": P.FORMAT, "passed": {
        "01.vadd": {"cycles": 900},
        "08.residual_gelu": {"at": "2026-01-01T00:00:00Z", "cycles": 5000, "tier": "gold"},
        "12.leaky_relu": {"cycles": 700}, "16.leaky_relu": {"cycles": 800}}}))
    got = P.load()
    assert set(got) == {"01.vadd", "09.residual_gelu", "16.leaky_relu"}
    assert got["09.residual_gelu"] == {"at": "2026-01-01T00:00:00Z", "cycles": 5000,
                                       "tier": "gold"}
    assert got["16.leaky_relu"]["cycles"] == 700  # the fewer cycles of the two records
    assert "Lesson 09: 1 of 1 - all done." in P.Progress(9).line()
    P.record_pass("00.double")  # the next save writes the new ids
    on_disk = json.loads((_private_data_dir / "progress.json").read_text())["passed"]
    assert "08.residual_gelu" not in on_disk and "09.residual_gelu" in on_disk


def test_lab_replaces_untouched_old_copies_and_keeps_edited_ones(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    old = {n: src / n for n in ("07-cube-unit.ipynb", "08-operator-fusion.ipynb",
                                "09-debugging.ipynb")}
    for p in old.values():
        p.write_text('{"v": "old course"}')
    course = tmp_path / "course"
    assert len(prepare_course(course, old).copied) == 3
    (course / "09-debugging.ipynb").write_text('{"v": "my notes"}')  # the learner's work
    new = {n: src / n for n in ("07-cube-unit.ipynb", "08-cube-tiling.ipynb",
                                "09-operator-fusion.ipynb", "13-debugging.ipynb")}
    for p in new.values():
        p.write_text('{"v": "new course"}')
    plan = prepare_course(course, new)
    assert plan.renamed == ["08-operator-fusion.ipynb -> 09-operator-fusion.ipynb"]
    assert plan.kept_renamed == ["09-debugging.ipynb (now 13-debugging.ipynb)"]
    assert not (course / "08-operator-fusion.ipynb").exists()
    assert (course / "09-debugging.ipynb").read_text() == '{"v": "my notes"}'
    assert sorted(plan.copied) == ["08-cube-tiling.ipynb", "09-operator-fusion.ipynb",
                                   "13-debugging.ipynb"]
    text = plan.describe()
    assert "renumbered" in text and "09-debugging.ipynb (now 13-debugging.ipynb)" in text
    manifest = json.loads((course / ".ascendlab-course.json").read_text())
    assert "08-operator-fusion.ipynb" not in manifest
    again = prepare_course(course, new)  # the edited copy stays reported, nothing else moves
    assert again.kept_renamed == plan.kept_renamed and not again.renamed and not again.copied
