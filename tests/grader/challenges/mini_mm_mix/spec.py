"""mini_mm as a MIX challenge: the same C = A @ B, launched on groups of one cube and two
vector cores (asc.adv.Matmul driven from the vector cores), with a GM workspace allowed."""

from __future__ import annotations

import runpy
from dataclasses import replace
from pathlib import Path

_BASE = runpy.run_path(str(Path(__file__).resolve().parent.parent / "mini_mm" / "spec.py"))
SPEC = replace(_BASE["SPEC"], name="mini_mm_mix", aliases=(),
               rules=replace(_BASE["SPEC"].rules, core_kind="mix", workspace_bytes=1 << 20))
