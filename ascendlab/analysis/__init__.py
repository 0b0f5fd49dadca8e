"""Readers of the trace: the cycle model (cost.py, cost_memory.py, cost_schedule.py), the
matched sync edges (deps.py), the critical path and its phases (critical_path.py), the
patterns the advisor's detectors read (patterns.py: buffer levels, reloads, GM round trips,
vector gaps) and the sanitizer (sanitizer.py, sanitizer_hb.py, sanitizer_findings.py).

They read `ascendlab.runtime.trace` (and `runtime.chips` for the numbers) and nothing else of
the runtime; the runtime imports none of them, and they import nothing of ascendlab/tools/.
Importing this package registers the readers that `Run`'s convenience properties call
(`run.cost`, sanitize=True); ascendlab/tools/ registers `run.to_chrome_trace` likewise.
"""

from __future__ import annotations

from ..runtime.trace import register_reader
from .cost import MODEL_VERSION, CostResult, simulate
from .deps import match_syncs
from .sanitizer import SanitizerReport, sanitize
from .sanitizer_findings import by_cause

register_reader("cost", simulate)
register_reader("sanitize", sanitize)
register_reader("by_cause", by_cause)

__all__ = ["MODEL_VERSION", "CostResult", "SanitizerReport", "match_syncs", "sanitize",
           "simulate"]
