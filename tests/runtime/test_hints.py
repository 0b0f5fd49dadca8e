"""Cache, barrier and profiling hints (runtime/scalar/hints.py): S-pipe events with their args, the
data_sync_barrier edge the sanitizer orders by, and the time-stamp / checkpoint prints."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import SanitizerError


@asc.jit
def through_ub(x: asc.GlobalAddress, z: asc.GlobalAddress, barrier: asc.ConstExpr[int]):
    """GM -> UB -> GM; the MTE2 write and the MTE3 read are ordered only by the barrier."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a, xg, 64)
    if barrier:
        asc.data_sync_barrier(asc.MemDsbT.ALL)
    asc.data_copy(zg, a, 64)


def test_data_sync_barrier_orders_memory_accesses():
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    run = ascendlab.launch(through_ub, 1, x, z, 1, sanitize=True)  # strict: no finding
    np.testing.assert_array_equal(z, x)
    ev = run.events(op="data_sync_barrier")[0]
    assert (ev.pipe, ev.sync.kind, ev.sync.src, dict(ev.args)) == ("S", "barrier", "ALL",
                                                                  {"mem": "ALL"})
    with pytest.raises(SanitizerError, match="racecheck"):
        ascendlab.launch(through_ub, 1, x, np.zeros(64, np.float32), 0, sanitize=True)


@asc.jit
def hints(x: asc.GlobalAddress, out: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(out)
    asc.metrics_prof_start()
    asc.icache_preload(2)
    og.set_value(0, asc.get_icache_preload_status())
    asc.data_cache_preload(src=xg, cache_offset=64)
    asc.data_cache_clean_and_invalid(entire_type=asc.CacheLine.SINGLE_CACHE_LINE,
                                     dcci_dst=asc.DcciDst.CACHELINE_OUT, dst=xg)
    asc.data_cache_clean_and_invalid(asc.CacheLine.ENTIRE_DATA_CACHE, xg)
    asc.metrics_prof_stop()
    asc.print_time_stamp(0x10001)
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a, xg, 64)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.dump_acc_chk_point(a, 5, 32, 4)
    asc.dump_acc_chk_point(xg, 6, 60, 8)


def test_hints_are_scalar_events_and_prints(capsys):
    x = np.arange(64, dtype=np.int32) * 3
    out = np.full(4, 7, np.int32)
    run = ascendlab.launch(hints, 1, x, out)
    assert out[0] == 0  # ICache preload idle
    got = [(e.op, dict(e.args)) for e in run.trace if e.pipe == "S" and e.sync is None
           and not e.reads and not e.writes]
    assert got == [
        ("metrics_prof_start", {}), ("icache_preload", {"pre_fetch_len": 2}),
        ("get_icache_preload_status", {}),
        ("data_cache_preload", {"tensor": "GM x", "cache_offset": 64}),
        ("data_cache_clean_and_invalid", {"entire_type": "SINGLE_CACHE_LINE",
                                          "tensor": "GM x", "dcci_dst": "CACHELINE_OUT"}),
        ("data_cache_clean_and_invalid", {"entire_type": "ENTIRE_DATA_CACHE",
                                          "tensor": "GM x"}),
        ("metrics_prof_stop", {}),
    ]
    text = capsys.readouterr().out
    assert "print_time_stamp desc_id=65537:" in text
    assert "dump_acc_chk_point index=5:" in text and "elements 32..35 (4 of 4)" in text
    assert "[ 96  99 102 105]" in text  # x[32:36]
    assert "elements 60..63 (4 of 8)" in text  # x ends after element 63
