# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: plants named pipes where a grader might read records or status (its work folder,
# a sibling out/ folder), hoping the grader opens one and blocks forever.
import os

for path in ("case_0.json", "status.json", "progress", "../out/case_0.json",
             "../out/status.json", "../out/progress"):
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        os.mkfifo(path)
    except OSError:
        pass


def launch(x, y, z, core_num):
    run(x, y, z)
