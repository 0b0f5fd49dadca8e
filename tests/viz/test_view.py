"""What every view shares: a stable CSS class on the widget's root, Jupyter display, text,
PNG; and `import ascendlab.viz` stays light."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ascendlab import viz

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _views(small, single):
    x, y, z = (small.outputs[k] for k in "xyz")
    return {
        "ascendlab-tiling": viz.tiling(small),
        "ascendlab-memory": viz.memory_access(small),
        "ascendlab-timeline": viz.timeline(small),
        "ascendlab-roofline": viz.roofline(small, single),
        "ascendlab-compare": viz.compare(x.astype(np.float64) + y, z),
        "ascendlab-explorer": viz.explore(lambda tile: small, tile=[1024]),
    }


def test_every_view_is_identifiable_in_the_dom_and_displays_as_a_widget(small, single):
    for css, view in _views(small, single).items():
        assert view.css_class == css
        w = view.widget
        assert {"ascendlab-view", css} <= set(w._dom_classes), css
        bundle = view._repr_mimebundle_()
        assert bundle[WIDGET_MIME]["model_id"] == w.model_id
        assert bundle["text/plain"] == view.summary()
        assert repr(view).startswith(f"<{type(view).__name__}: ")


def test_static_forms_render_headless(small, single):
    for css, view in _views(small, single).items():
        fig = view.figure()
        assert fig._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n", css  # shown without pyplot


def test_import_does_not_load_matplotlib_or_ipywidgets():
    code = ("import sys, ascendlab, ascendlab.viz; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('matplotlib', 'ipywidgets')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("name", ["tiling", "memory_access", "timeline", "roofline", "compare",
                                  "explore"])
def test_public_names(name):
    assert name in viz.__all__ and callable(getattr(viz, name))
    assert getattr(viz, name).__doc__
