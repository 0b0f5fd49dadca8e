"""Progress: stored as JSON in the data dir, shown by `ascendlab progress`, never blocking."""

from __future__ import annotations

import json
import os

import pytest

from ascendlab.cli import main
from ascendlab.tutorials import progress as P
from ascendlab.tutorials import show_progress


def test_data_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("ASCENDLAB_DATA_DIR", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert P.data_dir() == tmp_path / "a"
    monkeypatch.delenv("ASCENDLAB_DATA_DIR")
    assert P.data_dir() == tmp_path / "x" / "ascendlab"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert P.data_dir() == tmp_path / "home" / ".local" / "share" / "ascendlab"


def test_record_and_load_keep_the_best_cycles(_private_data_dir):
    assert P.load() == {}
    assert P.record_pass("01.vadd", cycles=900, tier="bronze")
    assert P.record_pass("01.vadd", cycles=700)
    assert P.record_pass("01.vadd", cycles=800)
    got = P.load()["01.vadd"]
    assert got["cycles"] == 700 and got["tier"] == "bronze"
    on_disk = json.loads((_private_data_dir / "progress.json").read_text())
    assert on_disk["format"] == P.FORMAT and "01.vadd" in on_disk["passed"]


def test_progress_line_counts_passes():
    P.record_pass("01.vadd")
    prog = show_progress(1)
    total = len(prog.exercises)
    assert prog.line().startswith(f"Course progress: 1 of {total} exercises passed.")
    assert "Lesson 01: 1 of 1 - all done." in prog.line()
    assert "Lesson 00: 0 of 1 (to do: 00.double)." in show_progress(0).line()
    assert "<progress" in prog._repr_html_()


def test_damaged_file_warns_and_shows_nothing(_private_data_dir):
    _private_data_dir.mkdir(parents=True)
    (_private_data_dir / "progress.json").write_text("{not json")
    with pytest.warns(UserWarning, match="is damaged"):
        assert P.load() == {}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_dir_warns_and_does_not_raise(_private_data_dir):
    _private_data_dir.mkdir(parents=True)
    _private_data_dir.chmod(0o500)
    try:
        with pytest.warns(UserWarning, match="cannot save"):
            assert P.record_pass("01.vadd") is False
    finally:
        _private_data_dir.chmod(0o700)


def test_unwritable_data_dir_warns_and_does_not_raise(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the data dir should be")
    monkeypatch.setenv("ASCENDLAB_DATA_DIR", str(blocker / "sub"))
    with pytest.warns(UserWarning, match="cannot save"):
        assert P.record_pass("01.vadd") is False
    assert "0 of" in show_progress(1).line()


def test_cli_lists_resets_and_prints_json(capsys):
    P.record_pass("00.double", cycles=123)
    assert main(["progress"]) == 0
    out = capsys.readouterr().out
    assert "00.double" in out and "123" in out and "Course progress: 1 of" in out
    assert main(["progress", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["passed"]) == {"00.double"}
    assert main(["progress", "--reset"]) == 0
    capsys.readouterr()
    assert P.load() == {}
