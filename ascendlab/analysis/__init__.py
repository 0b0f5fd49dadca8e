"""Readers of the trace: the cycle model (cost.py, cost_memory.py, cost_schedule.py), the
matched sync edges (deps.py), the critical path (critical_path.py) and the sanitizer
(sanitizer.py, sanitizer_hb.py, sanitizer_findings.py).

They read `ascendlab.runtime.trace` (and `runtime.chips` for the numbers) and nothing else of
the runtime; the runtime imports none of them. Importing this package registers the readers
that `Run`'s convenience properties call (`run.cost`, `run.to_chrome_trace`, sanitize=True).
"""

from __future__ import annotations

from ..runtime.trace import register_reader
from ..tools.chrome_trace import chrome_trace
from .cost import MODEL_VERSION, CostResult, simulate
from .deps import match_syncs
from .sanitizer import SanitizerReport, sanitize

register_reader("cost", simulate)
register_reader("sanitize", sanitize)
register_reader("chrome_trace", chrome_trace)

__all__ = ["MODEL_VERSION", "CostResult", "SanitizerReport", "match_syncs", "sanitize",
           "simulate"]
