"""A pytest plugin (-p replay_plugin): every successful launch is replayed with
ascendlab.grader.replay and must give the same trace and outputs. Used by
test_replay.py::test_every_launch_of_the_runtime_suite_replays."""

from __future__ import annotations

import numpy as np

import ascendlab.runtime.launch.jit as L
from ascendlab.grader.replay import replay
from ascendlab.runtime.trace import OPS

_real = L.run_kernel
_stats = {"ok": 0, "failed": 0}
_failures: list[str] = []


def _run_kernel(kernel, block_num, args, kwargs, opts, run_opts):
    try:
        bound = kernel.signature.bind(*args, **kwargs).arguments
        start = {n: np.array(L._host_array(v), copy=True) for n, v in bound.items()
                 if L._host_array(v) is not None}
    except Exception:  # noqa: BLE001 - the launch reports its own binding errors
        start = None
    run = _real(kernel, block_num, args, kwargs, opts, run_opts)
    if start is not None and _refused(run):
        start = None  # a hand-written op registered replayable=False: the grader refuses it
    if start is not None and run.error is None:
        try:
            with np.errstate(all="ignore"):
                rep = replay(run.trace, run.gm, start, run.chip, run.block_num, run.core_kind,
                             dict(run.options, core_kinds=run.core_kinds))
            if rep.trace != run.trace:
                raise AssertionError("trace differs")
            for n, a in run.outputs.items():
                if not np.array_equal(a.reshape(-1).view(np.uint8),
                                      rep.outputs[n].reshape(-1).view(np.uint8)):
                    raise AssertionError(f"output {n} differs")
            _stats["ok"] += 1
        except Exception as e:  # noqa: BLE001 - collected and reported at the end
            _stats["failed"] += 1
            _failures.append(f"{kernel.__name__}: {type(e).__name__}: {e}"[:300])
    return run


def _refused(run) -> bool:
    """Does the run use an op registered replayable=False outside the asc.adv library (whose
    events, labelled ("adv", ...), replay within their library call)?"""
    for e in run.trace:
        info = OPS.get(e.op)
        if info is not None and not info.replayable and not any(k == "adv" for k, _ in e.args):
            return True
    return False


L.run_kernel = _run_kernel


def pytest_sessionfinish(session, exitstatus):
    print(f"\nREPLAY {_stats['ok']} {_stats['failed']}")
    for f in _failures[:20]:
        print("  ", f)
