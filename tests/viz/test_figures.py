"""Static figures of a small and a large run, saved for looking at.

Written to pytest's tmp_path; with ASCENDLAB_UPDATE_FIGURES=1 the ones in docs/figures/ are
rewritten (look at them before committing: they are the project's pictures of the views).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from ascendlab import viz

DOCS = Path(__file__).resolve().parents[2] / "docs" / "figures"


def _size(png: Path) -> tuple[int, int]:
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def _out(tmp_path: Path) -> Path:
    return DOCS if os.environ.get("ASCENDLAB_UPDATE_FIGURES") else tmp_path


def test_small_run_figures(small, single, tmp_path):
    out = _out(tmp_path)
    saved = {
        "timeline-small.png": viz.timeline(small).save(out / "timeline-small.png", dpi=80),
        "tiling-small.png": viz.tiling(small).save(tmp_path / "tiling-small.png", dpi=80),
        "memory-small.png": viz.memory_access(small).save(tmp_path / "memory-small.png", dpi=80),
        "roofline-small.png": viz.roofline(small, single).save(tmp_path / "roofline.png", dpi=80),
    }
    for name, path in saved.items():
        w, h = _size(path)
        assert w >= 500 and h >= 250, (name, w, h)


def test_large_run_figures(large, tmp_path):
    out = _out(tmp_path)
    tl = viz.timeline(large)
    assert tl.model.mode == "binned"
    w, h = _size(tl.save(out / "timeline-large.png", dpi=80))
    assert w >= 900 and h >= 500
    zoom = viz.timeline(large, window=(4000, 5000), cores=[0, 1])
    assert zoom.model.mode == "bars"
    _size(zoom.save(tmp_path / "timeline-large-zoom.png", dpi=80))
    _size(viz.memory_access(large).save(tmp_path / "memory-large.png", dpi=80))
    _size(viz.tiling(large).save(tmp_path / "tiling-large.png", dpi=80))
