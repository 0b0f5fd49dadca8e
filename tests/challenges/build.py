"""Regenerate what the days derive from their sources (run from the repository root):

    python tests/challenges/build.py notebooks   # challenges/day*/starter.ipynb from starter.py
    python tests/challenges/build.py rows [day2 ...]  # print the rows, write nothing
    python tests/challenges/build.py table       # grade every reference and slow variant and
                                                 # write the table in challenges/README.md
    python tests/challenges/build.py readmes [day2 ...]  # each challenge README's spec block
                                                 # (cases, values, chips, rules, tiers)

The table's numbers come from running the grader (fixed secret SECRET), never typed by hand;
the README blocks come from each spec.py (ascendlab/grader/spec_doc.py). Both are written
between markers by the same function (spec_doc.replace_block); tests/challenges/
test_readmes.py fails when a README block has drifted from its spec.py.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHALLENGES = REPO / "challenges"
REFERENCES = Path(__file__).resolve().parent
SECRET = 20261201


def days() -> list[Path]:
    """challenges/day1-... to day7-..., in order."""
    return sorted(p for p in CHALLENGES.glob("day*-*") if (p / "spec.py").is_file())


def challenges(root: Path = CHALLENGES) -> list[Path]:
    """Every challenge folder with a spec.py (vadd and the days, bonus days included)."""
    return sorted(p.parent for p in root.glob("*/spec.py"))


def slow_source(reference: Path) -> str:
    """The reference with SLOW = True: the correct kernel that must land below gold."""
    src = reference.read_text()
    if src.count("\nSLOW = False") != 1:
        raise ValueError(f"{reference}: needs exactly one line 'SLOW = False'")
    return src.replace("\nSLOW = False", "\nSLOW = True")


def notebook(day: Path) -> dict:
    """starter.ipynb: the README pointer, the starter code (tagged solution), a check cell."""
    code = (day / "starter.py").read_text().rstrip("\n")

    def cell(kind: str, text: str, tags: list[str]) -> dict:
        c = {"cell_type": kind, "metadata": {"tags": tags}, "source": text.splitlines(True)}
        if kind == "code":
            c.update(execution_count=None, outputs=[])
        return c

    title = (day / "README.md").read_text().splitlines()[0].lstrip("# ")
    cells = [
        cell("markdown", f"# {title}\n\nThe story, the shapes, the rules and the tiers are in "
             f"`challenges/{day.name}/README.md` (`ascendlab challenge show {day.name}`). "
             "Fill in the places marked FILL ME IN in the next cell, run it, then run the "
             "check cell. Grade the notebook with "
             f"`ascendlab grade {day.name} starter.ipynb`: the grader runs the cells tagged "
             "`solution`.", []),
        cell("code", code, ["solution"]),
        cell("code", "from ascendlab.grader import check\n\n"
             f"check({day.name!r}, launch)  # the public cases, replayed and judged here",
             ["skip-grading"]),
    ]
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3",
                                                        "language": "python",
                                                        "name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


def write_notebooks() -> None:
    for day in days():
        (day / "starter.ipynb").write_text(json.dumps(notebook(day), indent=1) + "\n")


def grade_row(day: Path) -> str:
    from ascendlab.grader import GradeOptions, grade
    from ascendlab.grader.challenge import load_challenge

    opts = GradeOptions(secret=SECRET)
    ref = REFERENCES / day.name / "reference.py"
    r = grade(day.name, ref, opts)
    with tempfile.TemporaryDirectory() as tmp:
        slow = Path(tmp) / "slow_variant.py"
        slow.write_text(slow_source(ref))
        s = grade(day.name, slow, opts)
    spec = load_challenge(day).spec
    p, q = r.perf[0] if r.perf else None, s.perf[0] if s.perf else None
    if p is None or q is None:
        return (f"| {day.name} | {r.verdict.value}: {r.message[:60]} | | | | "
                f"{s.verdict.value} | |")
    gold = int(spec.tiers.gold * p.bound_cycles)
    silver = int(spec.tiers.silver * p.bound_cycles)
    return (f"| {day.name} | {p.cycles:,} | {p.tier} | {p.bound_cycles:,} | ≤ {gold:,} / "
            f"≤ {silver:,} | {q.cycles:,} | {q.tier} |")


def write_table() -> None:
    from ascendlab.analysis.cost import MODEL_VERSION

    head = (f"Cost model {MODEL_VERSION}, secret {SECRET}.\n\n"
            "| day | reference cycles | tier | bound | gold / silver cycles | slow variant "
            "cycles | its tier |\n|---|---|---|---|---|---|---|")
    from ascendlab.grader.spec_doc import replace_block

    rows = [grade_row(d) for d in days()]
    readme = CHALLENGES / "README.md"
    readme.write_text(replace_block(readme.read_text(), "days-table",
                                    head + "\n" + "\n".join(rows), str(readme)))


def write_readmes(*names: str, root: Path = CHALLENGES) -> None:
    """The spec block of each challenge's README.md under `root` (all, or the named ones)."""
    from ascendlab.grader.challenge import load_challenge
    from ascendlab.grader.spec_doc import block_of, replace_block, spec_block

    for folder in challenges(root):
        if names and folder.name not in names and folder.name.split("-")[0] not in names:
            continue
        readme = folder / "README.md"
        text = readme.read_text()
        if block_of(text, "spec") is None:  # a new challenge: the section goes at the end
            text = text.rstrip("\n") + ("\n\n## Cases, values and rules\n\n"
                                       "<!-- spec:begin -->\n<!-- spec:end -->\n")
            print(f"{readme.relative_to(root.parent)}: no spec block yet, added one at the end")
        new = replace_block(text, "spec", spec_block(load_challenge(folder)), str(readme))
        if new != readme.read_text():
            readme.write_text(new)
            print(f"wrote {readme.relative_to(root.parent)}")


def print_rows(*names: str) -> None:
    for day in days():
        if not names or day.name in names or day.name.split("-")[0] in names:
            print(grade_row(day), flush=True)


if __name__ == "__main__":
    {"notebooks": write_notebooks, "table": write_table, "rows": print_rows,
     "readmes": write_readmes}[sys.argv[1]](*sys.argv[2:])
