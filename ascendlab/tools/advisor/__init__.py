"""The advisor: findings about a Run's bottleneck, each with evidence, a fix and its gain.

Two kinds of finding, ranked together by gain:

* trace detectors (detectors.py, on the readers of analysis/patterns.py) name a kernel change:
  single buffering at any level, GM bytes loaded again by the same core, data written to GM
  and read back across a sync_all, vector reductions serialised by implicit PIPE_V barriers or
  scalar round trips, MIX imbalance, tiles that leave the cores one iteration. Their gain is
  the model's upper bound, labelled as such.
* parameter rules (rules.py) read the run's shape (model.py): memory / scalar / vector-setup
  bound, sync stalls, small tiles, idle cores, launch overhead. (A deadlock is no finding: the
  launch raises DeadlockError, see docs/errors.md.)

None may contradict the trace (a TBuf is scratch memory, not a queue). A finding that proposes
a launcher keyword change (`change`, e.g. {"buffers": 2}; keywords `tile`, `buffers`, `cores`,
`rows`) is *measured* when the profile has the kernel's launcher (measure.py): the variant is
re-run and its modelled cycles reported; otherwise its gain is the model's estimate.
A finding whose gain is <= 0 is not advice: the profile lists it under "checked, no gain".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .detectors import detect
from .measure import measure
from .model import Advice, Shape, run_shape
from .rules import PARAMETER_RULES

# diagnoses: true of the run but no change with a gain the model can show
DIAGNOSES = ("memory-bound", "launch-overhead")

# findings that name the cause of what the generic sync-stall rule sees
_EXPLAINS_STALLS = frozenset({"single-buffer", "serial-reduction", "mix-balance",
                              "gm-round-trip"})

# ties (equal gain) go in this order
_PRIORITY = {"memory-bound": 1, "single-buffer": 2, "reuse": 3,
             "gm-round-trip": 4, "serial-reduction": 5, "mix-balance": 6, "scalar-bound": 7,
             "vector-fixed-cost": 8, "sync-stall": 9, "tile-too-large": 10,
             "tile-too-small": 11, "idle-cores": 12, "launch-overhead": 14}


def advise(run: Any, launcher: Callable[..., Any] | None = None,
           config: dict[str, Any] | None = None, shape: Shape | None = None) -> list[Advice]:
    """Every finding for `run`, largest gain first (see the module docstring); findings with
    gain <= 0 come last."""
    sh = shape if shape is not None else run_shape(run)
    out = [a for rule in PARAMETER_RULES for a in rule(run, sh)] + detect(run)
    if any(a.kind in _EXPLAINS_STALLS and a.gain > 0 for a in out):
        # the generic "flags hand the work from pipe to pipe" names no cause; these do
        out = [a for a in out if a.kind != "sync-stall"]
    if launcher is not None:
        out = [measure(a, run, launcher, config or {}) for a in out]
    return sorted(out, key=lambda a: (-a.gain, _PRIORITY.get(a.kind, 13)))


__all__ = ["DIAGNOSES", "Advice", "Shape", "advise", "run_shape"]
