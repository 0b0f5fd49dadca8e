"""`swish` is day 1 of the 7-day challenge now: challenges/day1-swish. This folder keeps the old
name resolving (same spec object, same cases and seeds, so earlier submissions keep their
verdicts and leaderboard rows) until the grader resolves aliases itself."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parent.parent / "day1-swish" / "spec.py"
_NAME = "ascendlab_challenge_day1_swish_alias"
if _NAME not in sys.modules:
    _s = importlib.util.spec_from_file_location(_NAME, _PATH)
    _m = importlib.util.module_from_spec(_s)
    sys.modules[_NAME] = _m
    _s.loader.exec_module(_m)
SPEC = sys.modules[_NAME].SPEC
