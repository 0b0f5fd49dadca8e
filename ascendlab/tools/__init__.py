"""Tools built on the trace's readers: Chrome-trace export, profile() with its advisor and the
hot-lines table, autotune(). Importing this package registers the Chrome-trace export as the
reader behind `Run.to_chrome_trace` (ascendlab/__init__.py imports it)."""

from ..runtime.trace import register_reader
from .chrome_trace import chrome_trace

register_reader("chrome_trace", chrome_trace)
