"""The course in a real browser: `ascendlab lab` serves the double-buffering notebook, Chromium
runs every cell, the widgets render (asserted by their stable classes and data attributes), and
moving an explorer slider re-runs the kernel in the notebook's kernel (the cycles readout
changes). Screenshots go to the artifacts folder the session prints.

With ASCENDLAB_UPDATE_FIGURES=1 the screenshot of the widgets is also written to
docs/figures/jupyterlab-widgets.png (shown in the README).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CELL_TIMEOUT_MS = 240_000  # the whole notebook, on a loaded 2-core machine
# The double-buffering tutorial once tutorials/ has it (copied to the top of the course folder
# by `ascendlab lab`), else the widgets tour. Either must show a timeline, a tiling map and an
# explorer with a slider.
NOTEBOOK_GLOB, FALLBACK = "03-*.ipynb", "widgets.ipynb"


def notebook_name(course: Path) -> str:
    """The notebook the test opens: NOTEBOOK_GLOB's first match, else FALLBACK."""
    found = sorted(course.glob(NOTEBOOK_GLOB))
    return found[0].name if found else FALLBACK


@pytest.fixture(scope="module")
def page(lab_server: dict, browser, artifacts: Path):
    """JupyterLab with the notebook open and every cell run."""
    name = notebook_name(lab_server["course"])
    assert (lab_server["course"] / name).is_file(), f"`ascendlab lab` did not copy {name}"
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(60_000)
        pg.goto(f"{lab_server['base']}/lab/tree/{name}?reset&token={lab_server['token']}")
        pg.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        pg.wait_for_function("window.jupyterapp && window.jupyterapp.shell.currentWidget"
                             " && window.jupyterapp.shell.currentWidget.sessionContext"
                             " && window.jupyterapp.shell.currentWidget.sessionContext.session"
                             " && window.jupyterapp.shell.currentWidget.sessionContext.session"
                             ".kernel.status === 'idle'", timeout=90_000)
        pg.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        # every code cell has an execution count: "[3]:", not "[*]:" or "[ ]:"
        pg.wait_for_function(
            "(() => { const p = [...document.querySelectorAll('.jp-CodeCell "
            ".jp-InputArea-prompt')]; return p.length > 0 && p.every(e => "
            "/\\[\\d+\\]/.test(e.textContent)); })()", timeout=CELL_TIMEOUT_MS)
        pg.screenshot(path=str(artifacts / "notebook-top.png"))
        yield pg
    finally:
        ctx.close()


def test_no_news_popup_covers_the_course(page):
    """`ascendlab lab` disables JupyterLab's news plugin for the course's server: the plugin is
    in the page config's disabled list, and no news or update toast is shown."""
    disabled = page.evaluate("JSON.parse(document.getElementById('jupyter-config-data')"
                             ".textContent).disabledExtensions || []")
    assert "@jupyterlab/apputils-extension:announcements" in disabled, disabled
    texts = [t.inner_text() for t in page.locator(".Toastify__toast").all()]
    assert not any("news" in t.lower() or "newer version" in t.lower() for t in texts), texts


def test_every_cell_ran_without_error(page):
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, errors.first.inner_text()


def test_timeline_widget_renders_bars(page, artifacts: Path):
    tl = page.locator(".ascendlab-timeline").first
    tl.scroll_into_view_if_needed()
    svg = tl.locator("svg.ascendlab-timeline-svg")
    svg.wait_for()
    assert int(svg.get_attribute("data-cycles")) > 0
    assert svg.get_attribute("data-mode") in ("bars", "binned")
    assert tl.locator("rect[data-pipe='MTE2']").count() > 0  # instruction bars, by pipe
    assert tl.locator("rect[data-pipe='V']").count() > 0
    assert "cycles" in tl.locator(".ascendlab-readout").text_content()
    zoom_out = tl.locator("button", has_text="zoom out")
    assert zoom_out.evaluate("b => b.scrollWidth <= b.clientWidth"), "label cut"
    tl.screenshot(path=str(artifacts / "timeline.png"))


def test_tiling_widget_renders_tiles(page, artifacts: Path):
    tw = page.locator(".ascendlab-tiling").first
    tw.scroll_into_view_if_needed()
    maps = tw.locator("svg.ascendlab-tiling-svg")
    assert maps.count() >= 3  # x, y, z
    x = tw.locator("svg.ascendlab-tiling-svg[data-tensor='x']")
    assert int(x.get_attribute("data-tiles")) > 0
    assert x.locator("rect[data-tile]").count() > 0
    tw.screenshot(path=str(artifacts / "tiling.png"))


def test_explorer_slider_reruns_the_kernel(page, artifacts: Path):
    ex = page.locator(".ascendlab-explorer").first
    ex.scroll_into_view_if_needed()
    readout = ex.locator(".ascendlab-readout").first
    before = readout.text_content()
    assert "cycles" in before
    handle = ex.locator(".widget-slider [role=slider]").first  # the first slider (`tile`)
    handle.wait_for(state="attached")
    at_start = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemin")
    handle.focus()
    handle.press("ArrowRight" if at_start else "ArrowLeft")  # one step, whichever exists
    page.wait_for_function("([el, old]) => el.textContent !== old && el.textContent.length > 0",
                           arg=[readout.element_handle(), before], timeout=120_000)
    after = readout.text_content()
    assert after != before and "cycles" in after, (before, after)
    ex.screenshot(path=str(artifacts / "explorer.png"))
    page.screenshot(path=str(artifacts / "explorer-page.png"))
    if os.environ.get("ASCENDLAB_UPDATE_FIGURES") == "1":
        shutil.copyfile(artifacts / "explorer-page.png", ROOT / "docs" / "figures" /
                        "jupyterlab-explorer.png")
