"""The museum (`ascendlab leaderboard --html DIR`): every ACCEPTED entry with its tier, cycles,
timeline and escaped source; the leaderboard keeps what it needs to redraw them."""

from __future__ import annotations

import runpy
import sqlite3
from pathlib import Path

import pytest

from ascendlab.cli import main
from ascendlab.grader import check
from ascendlab.grader.leaderboard import Leaderboard
from ascendlab.grader.museum import has_matplotlib, write_museum

from .conftest import HOSTILE, MINI

SOURCE = (HOSTILE / "honest.py").read_text()


@pytest.fixture(scope="module")
def accepted():
    launch = runpy.run_path(str(HOSTILE / "honest.py"))["launch"]  # in this process
    r = check(MINI, launch, hidden=True, secret=3)
    assert r.ok and r.perf and r.perf_runs, r
    return r


def _board(tmp_path, report, users=("ana",), source=SOURCE + "\n# <script>alert(1)</script>\n"):
    lb = Leaderboard(tmp_path / "lb.sqlite3")
    for u in users:
        assert lb.record(report, u, source=source) == len(report.perf)
    return lb


def test_rows_keep_the_source_and_a_trace_that_redraws(tmp_path, accepted):
    lb = _board(tmp_path, accepted)
    (ex,) = lb.exhibits(["mini"])
    assert ex.source.startswith(SOURCE[:40]) and ex.tier == accepted.perf[0].tier
    run = ex.run()
    assert run.trace == accepted.perf_runs[ex.chip].trace
    assert run.cycles == ex.cycles  # the stored trace costs what was recorded


def test_museum_pages_show_every_accepted_entry(tmp_path, accepted):
    lb = _board(tmp_path, accepted, users=("ana", "bob"))
    pages = write_museum(tmp_path / "museum", lb)
    assert [p.name for p in pages] == ["index.html", "mini.html"]
    page = pages[1].read_text()
    assert page.count('class="entry"') == 2 and "ana" in page and "bob" in page
    assert f"{accepted.perf[0].cycles:,} cycles" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    pngs = sorted((tmp_path / "museum" / "mini").glob("*.png"))
    if has_matplotlib():
        assert len(pngs) == 2 and pngs[0].read_bytes()[:4] == b"\x89PNG"
    else:
        assert not pngs and "matplotlib is not installed" in page


def test_museum_without_matplotlib_says_so(tmp_path, accepted, monkeypatch):
    from ascendlab.grader import museum

    monkeypatch.setattr(museum, "has_matplotlib", lambda: False)
    pages = write_museum(tmp_path / "m", _board(tmp_path, accepted))
    assert "matplotlib is not installed" in pages[1].read_text()
    assert "matplotlib is not installed" in pages[0].read_text()


def test_an_old_leaderboard_file_gets_the_new_columns(tmp_path, accepted):
    path = tmp_path / "old.sqlite3"
    con = sqlite3.connect(path)
    con.executescript("""CREATE TABLE submissions (id INTEGER PRIMARY KEY AUTOINCREMENT,
        user TEXT NOT NULL, challenge TEXT NOT NULL, chip TEXT NOT NULL, cycles INTEGER NOT NULL,
        bound_cycles INTEGER NOT NULL, tier TEXT NOT NULL, submitted_at REAL NOT NULL,
        submission TEXT NOT NULL, sha256 TEXT NOT NULL, model_version TEXT NOT NULL);
        INSERT INTO submissions VALUES (1, 'old', 'mini', 'Ascend910B2', 9999, 100, 'bronze',
        0, 'x.py', '', 'v0');""")
    con.commit()
    con.close()
    lb = Leaderboard(path)
    lb.record(accepted, "new", source="pass")
    new, old = lb.exhibits(["mini"])  # fastest first: 9999 cycles is last
    assert new.user == "new" and new.trace is not None
    assert old.user == "old" and old.trace is None and old.run() is None
    page = write_museum(tmp_path / "m", lb)[1].read_text()
    assert "no trace was kept" in page


def test_the_command_writes_the_museum(tmp_path, accepted, capsys):
    _board(tmp_path, accepted)
    assert main(["leaderboard", "--html", str(tmp_path / "out"), "--db",
                 str(tmp_path / "lb.sqlite3")]) == 0
    assert "museum written" in capsys.readouterr().out
    assert (tmp_path / "out" / "mini.html").is_file()
    assert main(["leaderboard", "--db", str(tmp_path / "lb.sqlite3")]) == 2


def test_the_museum_is_empty_but_valid_without_rows(tmp_path):
    pages = write_museum(tmp_path / "m", Leaderboard(tmp_path / "none.sqlite3"))
    assert len(pages) == 1 and "No accepted submissions yet" in Path(pages[0]).read_text()
