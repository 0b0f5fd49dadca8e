"""Instructions that change no emulated number but do something on the chip: cache maintenance
and preloads, the data synchronization barrier, msProf's range markers, and the time-stamp and
checkpoint dumps.

Each cache/profiling instruction is one event on the scalar pipe S with what it would do in
its args, so the trace (and the Chrome timeline) shows it where the chip would execute it:

* data_cache_clean_and_invalid / data_cache_preload / icache_preload: the emulated GM has no
  data cache and there is no instruction fetch, so GM stays coherent and nothing is fetched.
  get_icache_preload_status() is always 0 ("idle": ADK GetICachePreloadStatus, 0 idle, 1 busy).
* metrics_prof_start / metrics_prof_stop: the range msProf profiles on the chip (ADK
  MetricsProfStart); the events mark it in the trace.
* data_sync_barrier(MemDsbT): every earlier memory access completes before any later
  instruction starts (ADK DataSyncBarrier). Recorded as a PIPE_ALL-like barrier edge, so the
  cost model and the sanitizer order by it. Limitation: DDR and UB are treated as ALL (the chip
  waits only for GM, resp. UB, accesses), which can hide a race the narrower barrier misses.

print_time_stamp and dump_acc_chk_point print like asc.printf / asc.dump_tensor (scalar/debug.py):
printing is not an instruction of the trace.
"""

from __future__ import annotations

import sys
from enum import IntEnum
from typing import Any

from ...errors import ParamError
from .. import core as _core
from ..core import emit
from ..memory.tensor import GlobalTensor
from ..trace import Sync, register_op
from .debug import _elements, _where
from .sysvar import record

_getframe = sys._getframe

for _op in ("data_cache_clean_and_invalid", "data_cache_preload", "icache_preload",
            "get_icache_preload_status", "metrics_prof_start", "metrics_prof_stop"):
    register_op(_op, "S", "sync", replayable=False, module=__name__)
register_op("data_sync_barrier", "S", "sync", replayable=False, module=__name__)


class MemDsbT(IntEnum):
    """Which memory accesses data_sync_barrier waits for (pyasc asc.MemDsbT)."""

    ALL = 0
    DDR = 1
    UB = 2
    SEQ = 3


class CacheLine(IntEnum):
    """data_cache_clean_and_invalid's scope (pyasc asc.CacheLine)."""

    SINGLE_CACHE_LINE = 0
    ENTIRE_DATA_CACHE = 1


class DcciDst(IntEnum):
    """What the data cache is made coherent with (pyasc asc.DcciDst)."""

    CACHELINE_ALL = 0
    CACHELINE_UB = 1
    CACHELINE_OUT = 2
    CACHELINE_ATOMIC = 3


_DSB: dict[int, tuple[Sync, tuple]] = {}


def data_sync_barrier(arg0: Any) -> None:
    """Wait until every earlier memory access (of MemDsbT arg0) is done (module docstring)."""
    frame = _getframe(1)
    c = _core.core()
    try:
        kind = MemDsbT(int(arg0))
    except ValueError:
        raise ParamError(f"data_sync_barrier: {arg0!r} is not a MemDsbT (ALL, DDR, UB, SEQ)"
                         ) from None
    if kind == MemDsbT.SEQ:
        raise NotImplementedError("data_sync_barrier(MemDsbT.SEQ) is reserved on the chip "
                                  "(ADK: 预留参数) and not emulated")
    edge = _DSB.get(kind)
    if edge is None:  # one shared Sync per kind: readers may key on its identity
        edge = _DSB[kind] = (Sync("barrier", "ALL", "ALL", ("dsb",), False),
                             (("mem", kind.name),))
    emit(c, "S", "data_sync_barrier", (), (), 0, "", 0, frame, *edge)
    c.v_pending.clear()  # orders earlier vector work too (core.check_vector_order)


def data_cache_clean_and_invalid(*args: Any, **kwargs: Any) -> None:
    """data_cache_clean_and_invalid(entire_type, dcci_dst, dst) or (entire_type, dst): write
    back and drop dst's data-cache lines (no effect here: module docstring)."""
    frame = _getframe(1)
    if len(args) == 3:
        entire, dcci, dst = args
    else:
        bound = dict(zip(("entire_type", "dst"), args))
        bound.update(kwargs)
        entire, dst = bound.get("entire_type"), bound.get("dst")
        dcci = bound.get("dcci_dst")
        if entire is None or dst is None or set(bound) - {"entire_type", "dst", "dcci_dst"}:
            raise TypeError("data_cache_clean_and_invalid(entire_type, dcci_dst, dst) or "
                            "data_cache_clean_and_invalid(entire_type, dst)")
    try:
        line = CacheLine(int(entire))
        dst_kind = DcciDst(int(dcci)) if dcci is not None else None
    except ValueError:
        raise ParamError(f"data_cache_clean_and_invalid: entire_type={entire!r} must be a "
                         f"CacheLine, dcci_dst={dcci!r} a DcciDst") from None
    args_out: tuple = (("entire_type", line.name), ("tensor", _name(dst)))
    if dst_kind is not None:
        args_out += (("dcci_dst", dst_kind.name),)
    record("data_cache_clean_and_invalid", frame, args_out)


def _name(t: Any) -> str:
    describe = getattr(t, "describe", None)
    if describe is not None:
        return describe()
    alloc = getattr(t, "alloc", None)
    return f"GM {alloc.name}" if alloc is not None else type(t).__name__


def data_cache_preload(src: Any, cache_offset: Any) -> None:
    """Prefetch the GM line at src + cache_offset bytes into the data cache (no effect here)."""
    frame = _getframe(1)
    if not isinstance(src, GlobalTensor):
        raise TypeError(f"data_cache_preload: src must be a GlobalTensor, got "
                        f"{type(src).__name__}")
    record("data_cache_preload", frame, (("tensor", _name(src)),
                                         ("cache_offset", int(cache_offset))))


def icache_preload(pre_fetch_len: Any) -> None:
    """Preload instructions into the ICache (no effect here: nothing is fetched)."""
    n = int(pre_fetch_len)
    if n < 0:
        raise ParamError(f"icache_preload: pre_fetch_len must be >= 0, got {n}")
    record("icache_preload", _getframe(1), (("pre_fetch_len", n),))


def get_icache_preload_status() -> int:
    """0 (idle): no preload is ever in flight here (1 would be busy)."""
    record("get_icache_preload_status", _getframe(1))
    return 0


def metrics_prof_start() -> None:
    """Start of the code range msProf profiles on the chip (an S event here)."""
    record("metrics_prof_start", _getframe(1))


def metrics_prof_stop() -> None:
    """End of the code range msProf profiles on the chip (an S event here)."""
    record("metrics_prof_stop", _getframe(1))


def print_time_stamp(desc_id: Any) -> None:
    """Print a time-stamp line: desc_id, the events the launch issued so far (not cycles: see
    sysvar.get_system_cycle) and the source line (the chip prints its pc)."""
    frame = _getframe(1)
    c = _core.core()
    sys.stdout.write(f"{_where(frame)} print_time_stamp desc_id={int(desc_id)}: "
                     f"{len(c.launch.trace)} events so far, line {frame.f_lineno}\n")


def dump_acc_chk_point(tensor: Any, index: Any, count_off: Any, dump_size: Any) -> None:
    """Print dump_size elements of tensor from element count_off on, headed by checkpoint
    `index` (ADK DumpAccChkPoint(src, 5, 32, len): desc 5, from element 32)."""
    frame = _getframe(1)
    off, n = int(count_off), int(dump_size)
    if off < 0 or n < 0:
        raise ValueError(f"dump_acc_chk_point: count_off={off} and dump_size={n} must be >= 0 "
                         f"{_where(frame)}")
    values, what = _elements(tensor, off + n)
    values = values[off:]
    sys.stdout.write(f"{_where(frame)} dump_acc_chk_point index={int(index)}: {what}, elements "
                     f"{off}..{off + len(values) - 1} ({len(values)} of {n})\n{values}\n")
