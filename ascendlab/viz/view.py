"""The View base class: one model, a static matplotlib figure, an interactive widget.

Every ascendlab.viz function returns a View. `view.model` is plain data (what is drawn),
`view.figure()` the static form (nbval, docs, terminals: `view.save("t.png")`), `view.widget`
the interactive form (ipywidgets; built on first use). Displaying a view in Jupyter shows the
widget; `str(view)` is a text summary. matplotlib and ipywidgets are imported only when a
figure or a widget is asked for, so `import ascendlab.viz` stays light.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from ..errors import ExtraMissingError

# optional module -> what needs it; both come with the [viz] extra (and with [lab])
EXTRA_MODULES = {"matplotlib": "static figures (view.figure(), view.save())",
                 "ipywidgets": "interactive widgets (view.widget)"}


def needs_viz_extra(fn: Callable) -> Callable:
    """Turn a missing matplotlib/ipywidgets into an error that says what to install."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ModuleNotFoundError as e:
            top = (e.name or "").split(".")[0]
            if top not in EXTRA_MODULES:
                raise
            raise ExtraMissingError(
                f"ascendlab.viz: {EXTRA_MODULES[top]} need {top}, which is not installed; "
                f"install the viz extra: python -m pip install \"ascendlab[viz]\" (in the "
                f"repository: python -m pip install -e \".[viz]\")", name=top) from e

    return wrapper


class View:
    """Base class of the ascendlab.viz views."""

    css_class: ClassVar[str] = "ascendlab-view"  # a stable class on the widget's root node

    def __init__(self) -> None:
        self._widget: Any = None
        self._cell = _CELLS.current  # the notebook cell that made this view (None outside)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("figure", "build_widget"):
            if name in cls.__dict__:
                setattr(cls, name, needs_viz_extra(cls.__dict__[name]))

    # ---- what subclasses provide ------------------------------------------------------------
    def summary(self) -> str:
        """A few lines of text: what the view shows, in numbers."""
        raise NotImplementedError

    def figure(self) -> Any:
        """The static form: a matplotlib Figure (not registered with pyplot)."""
        raise NotImplementedError

    def build_widget(self) -> Any:
        """The interactive form: an ipywidgets container."""
        raise NotImplementedError

    # ---- shared -----------------------------------------------------------------------------
    @property
    def widget(self) -> Any:
        """The interactive widget (an ipywidgets Box whose root carries `css_class`)."""
        if self._widget is None:
            w = self.build_widget()
            w.add_class("ascendlab-view")
            w.add_class(self.css_class)
            self._widget = w
            _CELLS.adopt(self)
        return self._widget

    def __getattr__(self, name: str) -> Any:
        if self.__dict__.get("_released"):
            raise AttributeError(f"this {type(self).__name__} was released when the notebook "
                                 f"cell that made it ran again (its widgets closed, its Run "
                                 f"freed); make the view again (reading .{name})")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def close(self) -> None:
        """Close the widget and every widget inside it (their comms and the callbacks that
        hold this view and its Run); the next `.widget` builds a fresh one."""
        if self._widget is not None:
            close_tree(self._widget)
            self._widget = None

    def png(self, dpi: int = 100) -> bytes:
        """The static figure as PNG bytes."""
        return figure_png(self.figure(), dpi)

    def save(self, path: str | Path, dpi: int = 100) -> Path:
        """Write the static figure (format from the suffix: .png, .svg, .pdf)."""
        path = Path(path)
        self.figure().savefig(path, dpi=dpi)
        return path

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.summary().splitlines()[0]}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        """Jupyter shows the widget; frontends without widgets show the summary, and with no
        ipywidgets installed the static figure."""
        if self.__dict__.get("_released"):
            return {"text/plain": f"<{type(self).__name__}: released when its cell ran again>"}
        bundle: dict = {}
        try:
            bundle.update(self.widget._repr_mimebundle_())
        except ImportError:  # no ipywidgets: the picture; no matplotlib either: the text
            try:
                bundle["image/png"] = self.png()
            except ImportError:
                pass
        bundle["text/plain"] = self.summary()
        return bundle


def close_tree(w: Any) -> None:
    """Close an ipywidgets widget, its children, and their Layout and Style widgets."""
    for attr in ("children", "layout", "style"):
        sub = getattr(w, attr, None)
        for child in sub if isinstance(sub, (list, tuple)) else (sub,):
            if hasattr(child, "comm") and hasattr(child, "close"):
                close_tree(child)
    w.close()


class _CellWidgets:
    """The widgets each notebook cell built, closed when that cell runs again.

    Without this, re-running a notebook in one kernel kept every earlier pass's widgets (about
    a hundred comms per pass for examples/widgets.ipynb) and, through their callbacks, their
    views and Runs. A cell is known by the id the frontend sends (JupyterLab does), else by
    its source. Only active inside IPython; a view built outside any cell is never closed.
    """

    def __init__(self) -> None:
        self.shell: Any = None
        self.current: str | None = None
        self.views: dict[str, list[View]] = {}

    def adopt(self, view: View) -> None:
        self.hook()  # no-op once hooked (the cell that imported viz is the usual place)
        if self.current is not None:
            self.views.setdefault(self.current, []).append(view)

    def hook(self) -> None:
        """Listen to the running IPython's pre_run_cell events (once per shell)."""
        import sys

        if "IPython" not in sys.modules:  # not in IPython: nothing to listen to
            return
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None and shell is not self.shell:
            shell.events.register("pre_run_cell", self.pre_run_cell)
            self.shell = shell

    def pre_run_cell(self, info: Any) -> None:
        """IPython's pre_run_cell event: close the widgets this cell built the last time it
        ran, and release the views it made then (IPython's Out history would keep them, and
        their Runs, alive)."""
        key = getattr(info, "cell_id", None) or f"source:{hash(info.raw_cell)}"
        for view in self.views.pop(key, []):
            view.close()
            if view.__dict__.get("_cell") == key:
                view.__dict__.clear()
                view.__dict__.update(_released=True, _widget=None, _cell=None)
        self.current = key


_CELLS = _CellWidgets()
_CELLS.hook()


def new_figure(width: float, height: float) -> Any:
    """A matplotlib Figure outside pyplot (no global figure list to leak into) that Jupyter
    displays as a PNG even when pyplot was never imported."""
    return _figure_class()(figsize=(width, height), layout="constrained")


@functools.cache
def _figure_class() -> type:
    from matplotlib.figure import Figure

    class StaticFigure(Figure):
        """A Figure with a PNG representation for IPython's display."""

        def _repr_png_(self) -> bytes:
            return figure_png(self)

    return StaticFigure


def figure_png(fig: Any, dpi: int = 100) -> bytes:
    """PNG bytes of a matplotlib Figure."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def image_widget(fig: Any, dpi: int = 90) -> Any:
    """An ipywidgets Image showing `fig`."""
    import ipywidgets as W

    return W.Image(value=figure_png(fig, dpi), format="png", layout=W.Layout(max_width="100%"))


def fmt_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def short_file(path: str) -> str:
    """The file name of a path."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]
