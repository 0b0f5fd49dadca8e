"""batch.py and `ascendlab grade DIR/`: parallel workers, summaries, the Dask executor."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from ascendlab.grader import GradeOptions, Verdict
from ascendlab.grader.batch import LocalExecutor, SerialExecutor, grade_dir, write_summary

from .conftest import FAST, MINI, SECRET, compose

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
OPTS = GradeOptions(secret=SECRET, static_rules=False, limits=FAST)


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "subs"
    d.mkdir()
    for name in ("honest", "write_outputs", "no_launch"):
        compose(tmp_path, name).rename(d / f"{name}.py")
    (d / "notes.txt").write_text("not a submission")
    return d


EXPECTED = {"honest.py": Verdict.ACCEPTED, "no_launch.py": Verdict.RULE_VIOLATION,
            "write_outputs.py": Verdict.RULE_VIOLATION}


def test_serial_executor(folder):
    reports = grade_dir(MINI, folder, SerialExecutor(), OPTS, progress=False)
    assert {r.submission: r.verdict for r in reports} == EXPECTED


def test_local_workers_and_summaries(folder, tmp_path):
    reports = grade_dir(MINI, folder, LocalExecutor(2), OPTS, progress=False)
    assert [r.submission for r in reports] == sorted(EXPECTED)
    assert {r.submission: r.verdict for r in reports} == EXPECTED
    rows = list(csv.DictReader(write_summary(reports, tmp_path / "g.csv").open()))
    assert [r["verdict"] for r in rows] == [EXPECTED[r["submission"]].value for r in rows]
    assert rows[0]["cycles"] and rows[0]["tier"]
    data = json.loads(write_summary(reports, tmp_path / "g.json").read_text())
    assert len(data["reports"]) == 3 and data["summary"][0]["submission"] == "honest.py"


def test_cli_folder(folder):
    p = subprocess.run([sys.executable, "-m", "ascendlab", "grade", str(MINI), str(folder),
                        "--jobs", "2", "--no-progress"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "honest.py" in p.stdout and "RULE_VIOLATION" in p.stdout
    assert (folder / "grades.csv").exists()


def test_cli_single_json(tmp_path):
    sub = compose(tmp_path, "honest")
    p = subprocess.run([sys.executable, "-m", "ascendlab", "grade", str(MINI), str(sub),
                        "--json", "--public-only"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    d = json.loads(p.stdout)
    assert d["verdict"] == "ACCEPTED" and d["cases"][0]["case"] == "public-a"


@pytest.mark.slow
def test_dask_local_cluster(folder):
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install "
                              "'ascendlab[grader]')")
    from ascendlab.grader.batch import DaskExecutor

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        ex = DaskExecutor(cluster.scheduler_address)
        try:
            reports = grade_dir(MINI, folder, ex, OPTS, progress=True)
        finally:
            ex.close()
    assert {r.submission: r.verdict for r in reports} == EXPECTED
