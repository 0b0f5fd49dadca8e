"""Export a Run's modelled timeline as Chrome trace-event JSON (the format msprof's simulator
writes as trace.json): loads in Perfetto (ui.perfetto.dev) and chrome://tracing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..runtime.trace import PIPES


def chrome_trace(run: Any, path: str | Path | None = None) -> dict:
    """Trace-event JSON of `run`: process = core, thread = pipe, one complete ("X") event per
    instruction, flow arrows from each set to the wait it satisfies. Times in microseconds."""
    cost = run.cost
    mhz = run.chip.clock_mhz
    events: list[dict] = []
    cores = sorted({e.core for e in run.trace})
    for core in cores:
        events.append({"ph": "M", "name": "process_name", "pid": core, "tid": 0,
                       "args": {"name": f"{run.core_kind.upper()} core {core}"}})
        for t, pipe in enumerate(PIPES):
            events.append({"ph": "M", "name": "thread_name", "pid": core, "tid": t,
                           "args": {"name": pipe}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": core, "tid": t,
                           "args": {"sort_index": t}})
    tid = {p: t for t, p in enumerate(PIPES)}
    for i, e in enumerate(run.trace):
        start = cost.start[i]
        dur = max(cost.end[i] - start, 0.0)
        args = {"line": f"{e.file.rsplit('/', 1)[-1]}:{e.line}", "count": e.count,
                "dtype": e.dtype, "repeats": e.repeats, "cycles": round(dur, 1)}
        if e.writes:
            args["writes"] = [f"{a.space}+{a.addr:#x} {a.total_bytes} B {a.name}"
                              for a in e.writes]
        if e.reads:
            args["reads"] = [f"{a.space}+{a.addr:#x} {a.total_bytes} B {a.name}"
                             for a in e.reads]
        events.append({"ph": "X", "name": e.op, "cat": e.pipe, "pid": e.core,
                        "tid": tid[e.pipe], "ts": start / mhz, "dur": dur / mhz, "args": args})
    from ..analysis.deps import match_syncs

    for n, (w, s) in enumerate(sorted(match_syncs(run.trace).set_of.items())):
        ew, es = run.trace[w], run.trace[s]
        events.append({"ph": "s", "id": n, "name": "sync", "cat": "sync", "pid": es.core,
                       "tid": tid[es.pipe], "ts": cost.start[s] / mhz})
        events.append({"ph": "f", "bp": "e", "id": n, "name": "sync", "cat": "sync",
                       "pid": ew.core, "tid": tid[ew.pipe], "ts": cost.start[w] / mhz})
    doc = {"traceEvents": events, "displayTimeUnit": "ns",
           "otherData": {"kernel": run.kernel, "chip": run.chip.name,
                         "cycles": cost.cycles, "model_version": cost.model_version}}
    if path is not None:
        Path(path).write_text(json.dumps(doc))
    return doc
