"""Measuring a finding's proposed change: re-run the launcher with the changed keywords."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .model import Advice


def _apply(value: Any, old: Any) -> Any:
    if isinstance(value, str) and value[:1] in "x/" and isinstance(old, int):
        k = int(value[1:])
        return old * k if value[0] == "x" else max(1, old // k)
    return value


def measure(a: Advice, run: Any, launcher: Callable[..., Any],
             config: dict[str, Any]) -> Advice:
    if not a.change:
        return a
    try:
        params = inspect.signature(launcher).parameters
    except (TypeError, ValueError):
        params = {}
    missing = [k for k in a.change if k not in params and not any(
        p.kind is p.VAR_KEYWORD for p in params.values())]
    if missing:
        return replace(a, note=f"the launcher takes no {missing[0]!r} keyword: not re-run")
    new = dict(config)
    for k, v in a.change.items():
        if isinstance(v, str) and k not in config:
            return replace(a, note=f"no current value of {k!r} in config: not re-run")
        new[k] = _apply(v, config.get(k))
    from ...errors import AscendlabError
    from ...runtime.launch.jit import last_run

    try:
        got = launcher(**new)
        got = got if got is not None else last_run()
    except AscendlabError as e:
        return replace(a, gain=0.0, note=f"variant {new} is invalid: {str(e).splitlines()[0]}")
    after = got.cycles
    return replace(a, change={k: new[k] for k in a.change}, gain=float(run.cycles - after),
                   measured=True, cycles_after=after, estimate=a.gain or None)



__all__ = ["measure"]
