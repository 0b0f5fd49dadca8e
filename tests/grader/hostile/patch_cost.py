# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: an honest kernel that patches the cost model to claim 1 cycle.
import ascendlab.analysis.cost as cost
import ascendlab.runtime.trace as trace

trace.Run.cycles = property(lambda self: 1)
trace.Run.bound_cycles = property(lambda self: 1)
_real = cost._simulate


def _fake(run, table):
    r = _real(run, table)
    r.cycles = 1
    return r


cost._simulate = _fake


def launch(x, y, z, core_num):
    run(x, y, z)
