"""ascendlab.autotune: grid search of tiling parameters by modelled cycles."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import AscendlabError


@dataclass
class Trial:
    """One configuration: its cycles, or why it was skipped."""

    config: dict[str, Any]
    cycles: int | None = None
    time_us: float | None = None
    efficiency: float | None = None
    skipped: str | None = None  # "CapacityError: ..." when the configuration is invalid


@dataclass
class TuneResult:
    """The best configuration and every trial, in the order they ran."""

    best: dict[str, Any] | None
    best_cycles: int | None
    trials: list[Trial] = field(default_factory=list)

    @property
    def skipped(self) -> list[Trial]:
        return [t for t in self.trials if t.skipped]

    def table(self) -> str:
        """The trials as a text table, fastest first, skipped configurations last."""
        keys = list(self.trials[0].config) if self.trials else []
        head = " ".join(f"{k:>12}" for k in keys) + f" {'cycles':>12} {'efficiency':>10}"
        ranked = sorted(self.trials, key=lambda t: (t.cycles is None, t.cycles or 0))
        lines = [head]
        for t in ranked:
            cells = " ".join(f"{t.config[k]!s:>12}" for k in keys)
            if t.skipped:
                lines.append(f"{cells} {'skipped':>12}  {t.skipped}")
            else:
                lines.append(f"{cells} {t.cycles:>12,} {t.efficiency:>10.1%}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return f"best {self.best} at {self.best_cycles:,} cycles\n{self.table()}" \
            if self.best is not None else f"no valid configuration\n{self.table()}"


def autotune(launcher: Callable[..., Any], space: dict[str, list[Any]], *,
             check: Callable[[Any], None] | None = None, progress: bool = True) -> TuneResult:
    """Run `launcher(**config)` for every configuration of the grid `space` and rank them by
    modelled cycles.

    The launcher launches the kernel and returns its Run (or returns None: the latest Run is
    used). A configuration whose launch raises an ascendlab error (capacity, alignment,
    parameter ranges...) is skipped and reported, not fatal. `check(run)` may raise
    AssertionError to reject a configuration that computes a wrong result.
    """
    from ..runtime.launch.jit import last_run
    from .profile import remember_launch

    names = list(space)
    for k, v in space.items():
        if not isinstance(v, (list, tuple, range)) or not len(v):
            raise ValueError(f"autotune: space[{k!r}] must be a non-empty list of values, got "
                             f"{v!r}")
    grid = [dict(zip(names, values)) for values in itertools.product(*space.values())]
    bar = _progress(len(grid), progress)
    result = TuneResult(best=None, best_cycles=None)
    try:
        for config in grid:
            trial = Trial(dict(config))
            try:
                run = launcher(**config)
                run = run if run is not None else last_run()
                remember_launch(run, launcher, config)
                if check is not None:
                    check(run)
                trial.cycles = run.cycles
                trial.time_us = run.time_us
                trial.efficiency = run.efficiency
            except (AscendlabError, AssertionError) as e:
                first = str(e).splitlines()[0] if str(e) else "(no message)"
                trial.skipped = f"{type(e).__name__}: {first}"
            result.trials.append(trial)
            if trial.cycles is not None and (result.best_cycles is None
                                             or trial.cycles < result.best_cycles):
                result.best, result.best_cycles = dict(config), trial.cycles
            if bar is not None:
                bar.update(1)
                if result.best_cycles is not None:
                    bar.set_postfix(best=result.best_cycles)
    finally:
        if bar is not None:
            bar.close()
    return result


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is a dependency; stay usable without it
        return None
    return tqdm(total=total, desc="autotune", unit="config")
