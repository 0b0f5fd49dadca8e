"""docs/emulated-api.md's reference part is generated from the code (python -m
ascendlab.asc.apidoc) and must match it: every emulated name with its signature and one line
of doc."""

from __future__ import annotations

import ascendlab.asc as asc
from ascendlab.asc import apidoc


def test_committed_page_is_up_to_date():
    current = apidoc.DOC.read_text()
    assert apidoc.MARKER in current, "the generated part is missing: run python -m " \
                                     "ascendlab.asc.apidoc"
    assert current == apidoc.page(current), ("docs/emulated-api.md is stale: run python -m "
                                             "ascendlab.asc.apidoc and commit the result")


def test_every_name_has_its_signature_and_doc_line():
    text = apidoc.render()
    assert "- `add(dst, src0, src1, *args, **kwargs)` — Vector add, dst = src0 + src1: " \
           "add(dst, src0, src1, count)" in text
    assert "- `TQue(pos=TPosition.VECIN, depth=1)`" in text
    assert "  - `alloc_tensor(" in text  # a class's methods, each with its signature
    assert " at 0x" not in text  # no memory addresses: the page is reproducible
    for name in asc.__all__:
        if type(getattr(asc, name)).__name__ != "DataType":
            assert f"- `{name}" in text, name


def test_check_mode_reports_a_stale_page(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "emulated-api.md"
    stale.write_text(apidoc.DOC.read_text().replace("Vector add,", "Vector sum,"))
    monkeypatch.setattr(apidoc, "DOC", stale)
    assert apidoc.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert apidoc.main([]) == 0 and apidoc.main(["--check"]) == 0
