"""Printing and stopping inside a kernel: asc.printf, asc.dump_tensor, breakpoint()."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import KernelSyntaxError
from ascendlab.runtime.scalar.debug import format_c

N = 256


@asc.jit
def shout(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n)
    zg.set_global_buffer(z + asc.get_block_idx() * n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(a, xg, n)
    asc.printf("block %d of %d: n=%d\\n", asc.get_block_idx(), asc.get_block_num(), n)  # @p
    asc.set_flag(asc.HardEvent.MTE2_S, 0)
    asc.wait_flag(asc.HardEvent.MTE2_S, 0)
    asc.printf("first %.2f, hex %x", a.get_value(0), 255)
    asc.dump_tensor(a, 7, 4)
    asc.dump_tensor(xg, 8, 3)
    asc.set_flag(asc.HardEvent.S_MTE3, 0)
    asc.wait_flag(asc.HardEvent.S_MTE3, 0)
    asc.data_copy(zg, a, n)


def test_printf_and_dump_tensor_name_core_unit_and_line(capsys):
    x = np.arange(2 * N, dtype=np.float32)
    z = np.zeros_like(x)
    ascendlab.launch(shout, 2, x, z, N)
    out = capsys.readouterr().out.splitlines()
    line = next(i for i, t in enumerate(open(__file__).read().splitlines(), 1) if "# @p" in t)
    assert out[0] == f"[core 0 S test_debug.py:{line}] block 0 of 2: n=256"
    assert out[1] == f"[core 0 S test_debug.py:{line + 3}] first 0.00, hex ff"
    assert "dump_tensor desc=7: VECIN tensor float32[256]" in out[2] and "4 of 4" in out[2]
    assert out[3] == "[0. 1. 2. 3.]"
    assert "desc=8: GM x[0:] float32, 3 of 3" in out[4] and out[5] == "[0. 1. 2.]"
    assert any(t.startswith("[core 1 S") and "block 1 of 2" in t for t in out)
    assert (z == x).all()


def test_format_c_conversions():
    assert format_c("%5d|%-4s|%05.1f|%c|%%|%u", (42, "ab", 3.14159, 65, 7)) == \
        "   42|ab  |003.1|A|%|7"
    assert format_c("%lld %x %X %e", (np.int64(-3), 255, 255, 1.5)) == \
        "-3 ff FF 1.500000e+00"
    assert format_c("%*d", (4, 7)) == "   7"
    with pytest.raises(TypeError, match="has no argument"):
        format_c("%d %d", (1,))
    with pytest.raises(TypeError, match="2 arguments for 1 conversions"):
        format_c("%d", (1, 2))
    with pytest.raises(TypeError, match="cannot print"):
        format_c("%d", ("x",))


@asc.jit
def stop_here(x: asc.GlobalAddress, n: int):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    breakpoint()  # @bp
    xg.set_value(0, n)


def test_breakpoint_stops_in_the_kernel_source(monkeypatch):
    """breakpoint() inside a kernel reaches the debugger (pdb in a terminal, ipdb in Jupyter)
    with the kernel's own frame: its file, line and locals."""
    seen = []
    def hook() -> None:  # what pdb.set_trace() would get: the caller's live frame
        f = sys._getframe(1)
        seen.append((f.f_code.co_filename, f.f_lineno, dict(f.f_locals)))

    monkeypatch.setattr(sys, "breakpointhook", hook)
    x = np.zeros(8, np.int32)
    ascendlab.launch(stop_here, 1, x, 5)
    line = next(i for i, t in enumerate(open(__file__).read().splitlines(), 1) if "# @bp" in t)
    assert len(seen) == 1
    filename, lineno, local_vars = seen[0]
    assert (filename, lineno) == (__file__, line)
    assert local_vars["n"] == 5 and "xg" in local_vars
    assert x[0] == 5


def test_a_kernel_with_yield_is_rejected():
    with pytest.raises(KernelSyntaxError, match="yield"):
        @asc.jit
        def gen(x: asc.GlobalAddress):
            yield 1

        gen[1, asc.lib.runtime.current_stream()](np.zeros(8, np.float32))
