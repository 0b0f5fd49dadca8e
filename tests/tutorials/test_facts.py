"""The course's sources are ones a learner can open: the hardware facts the lessons cite ship
as docs/hardware-facts.md (in the repository and the wheel), every section a lesson cites
exists there, and no lesson points at a file on a developer's machine."""

from __future__ import annotations

import re

from ascendlab import resources
from ascendlab.tutorials.notebooks import notebooks, read, source

FACTS = "docs/hardware-facts.md"
# "hardware facts section 1.4", "hardware facts, section 1.4", "hardware facts §3.2",
# "hardware facts page,\nsection 2.1"; lessons not yet renamed cite `ascend-facts.md` §1.4
CITE = re.compile(r"(?:hardware facts(?: page)?|ascend-facts\.md`),?\s+(?:section\s+|§)"
                  r"(\d+(?:\.\d+)?)")


def _sections() -> set[str]:
    text = resources.data_path(FACTS).read_text()
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)[. ]", text, flags=re.M))


def _text(path) -> str:
    return "\n".join(source(c) for c in read(path)["cells"])


def test_the_facts_page_ships_and_names_its_sources():
    assert FACTS in resources.SHIPPED
    path = resources.data_path(FACTS)
    assert path is not None and path.is_file()
    text = path.read_text()
    assert "## Sources" in text and "asc-devkit" in text and "hicann/pyasc" in text
    assert {"1.4", "1.7", "2.3", "2.4", "3.1"} <= _sections()


def test_every_cited_section_exists():
    sections = _sections()
    cited = {}
    for path in notebooks():
        for sec in CITE.findall(_text(path)):
            cited.setdefault(sec, []).append(path.name)
    assert len(cited) >= 8, cited  # the lessons do cite it
    missing = {s: names for s, names in cited.items() if s not in sections}
    assert not missing, f"sections cited but not in {FACTS}: {missing}"


def test_no_lesson_points_at_a_developers_machine():
    for path in notebooks():
        text = _text(path)
        assert not re.search(r"/(?:work|home|Users|tmp)/\w", text), path.name
        assert "reference/ascend-facts" not in text, path.name
