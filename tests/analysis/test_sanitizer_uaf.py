"""The sanitizer's use-after-free check (analysis/sanitizer_uaf.py): a view taken before
free_tensor, which the runtime cannot see, and correct twins that report nothing."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.analysis.sanitizer import sanitize
from ascendlab.errors import SanitizerError

from ..runtime.test_tbufpool import N as POOL_N
from ..runtime.test_tbufpool import two_stages


@asc.jit
def view_after_free(x: asc.GlobalAddress, z: asc.GlobalAddress, realloc: asc.ConstExpr[bool]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, 64)
    q.enque(t)
    u = q.deque(asc.float32)
    v = u[8:]  # a view: free_tensor(u) does not release it
    q.free_tensor(u)  # FREE
    if realloc:
        w = q.alloc_tensor(asc.float32)
        asc.duplicate(w, 0.0, 64)
    asc.adds(v, v, 1.0, 32)  # USE


def test_a_view_used_after_free_is_a_memcheck_finding():
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    run = ascendlab.launch(view_after_free, 1, x, z, False, strict=False, sanitize=True)
    uaf = [f for f in run.findings if "use after free" in f.message]
    assert len(uaf) == 1 and uaf[0].kind == "memcheck"
    f = uaf[0]
    assert "adds on pipe V reads UB bytes [32, 160)" in f.message
    assert "released by free_tensor at test_sanitizer_uaf.py:" in f.message
    assert [ln.rsplit(":", 1)[0].endswith("test_sanitizer_uaf.py") for ln in f.lines] == [True,
                                                                                         True]
    with pytest.raises(SanitizerError, match="use after free"):
        ascendlab.launch(view_after_free, 1, x, z, False, sanitize=True)


def test_reallocated_slots_and_pool_stages_are_not_use_after_free():
    x = np.arange(64, dtype=np.float32)
    run = ascendlab.launch(view_after_free, 1, x, np.zeros(64, np.float32), True,
                           strict=False, sanitize=True)
    assert not [f for f in run.findings if "use after free" in f.message]
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(POOL_N, np.float32), rng.standard_normal(POOL_N, np.float32)
    run = ascendlab.launch(two_stages, 1, a, b, np.zeros(2 * POOL_N, np.float32), sanitize=True)
    assert sanitize(run) == []  # stage 2's init_buffer gives the freed bytes to new queues
