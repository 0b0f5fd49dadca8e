"""Views in a notebook kernel: re-running a cell closes the widgets its last run built (their
comms) and releases the views it made (their Runs); a missing optional dependency names the
extra that installs it."""

from __future__ import annotations

import builtins
import gc
import weakref

import pytest
from IPython.core.interactiveshell import InteractiveShell

import ascendlab.viz.view as view_mod
from ascendlab.errors import ExtraMissingError

from .conftest import vadd_run

CELLS = [("c1", "run = make_run()\nviz.timeline(run)"),
         ("c2", "viz.tiling(run)"),
         ("c3", "ex = viz.explore(lambda tile: make_run(tile=tile), tile=[1024, 2048])\nex")]


@pytest.fixture
def shell():
    """An in-process IPython whose displays build the widgets, as a kernel's would."""
    import ipywidgets.widgets.widget as ww

    sh = InteractiveShell.instance()  # its display calls _repr_mimebundle_: widgets built
    view_mod._CELLS.hook()
    sh.user_ns.update(viz=__import__("ascendlab.viz").viz, make_run=vadd_run)
    try:
        yield sh, ww._instances
    finally:
        sh.events.unregister("pre_run_cell", view_mod._CELLS.pre_run_cell)
        view_mod._CELLS.shell, view_mod._CELLS.current = None, None
        view_mod._CELLS.views.clear()
        InteractiveShell.clear_instance()


def _pass(sh) -> None:
    for cid, src in CELLS:
        result = sh.run_cell(src, cell_id=cid, store_history=True)
        assert result.success, result.error_in_exec


def test_rerunning_cells_does_not_grow_widget_comms(shell):
    sh, instances = shell
    _pass(sh)
    first = len(instances)
    tl = sh.user_ns["Out"][min(sh.user_ns["Out"])]  # the first pass's timeline view
    run_ref = weakref.ref(tl.run)
    assert tl._widget is not None and first > 20  # displayed: its widgets were built
    del tl
    for _ in range(2):
        _pass(sh)
    assert len(instances) == first, (first, len(instances))
    gc.collect()
    assert run_ref() is None, "the first pass's Run is still alive"


def test_a_released_view_says_so(shell):
    sh, _ = shell
    _pass(sh)
    old = sh.user_ns["ex"]
    _pass(sh)
    with pytest.raises(AttributeError, match="released when the notebook cell that made it ran "
                                             "again"):
        old.model  # noqa: B018
    assert "released" in old._repr_mimebundle_()["text/plain"]


def test_a_view_made_outside_a_cell_is_never_closed(small):
    from ascendlab import viz

    v = viz.timeline(small)
    assert v._cell is None and v.widget is v.widget


def test_missing_matplotlib_names_the_viz_extra(small, monkeypatch):
    from ascendlab import viz

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.split(".")[0] == "matplotlib":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    view_mod._figure_class.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    try:
        for v in (viz.tiling(small), viz.timeline(small)):
            with pytest.raises(ExtraMissingError, match=r'pip install "ascendlab\[viz\]"'):
                v.figure()
    finally:
        monkeypatch.undo()
        view_mod._figure_class.cache_clear()
    assert issubclass(ExtraMissingError, ImportError)
