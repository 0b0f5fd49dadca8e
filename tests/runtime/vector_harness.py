"""A generic one-instruction harness for vector tests: UB tensors loaded from GM, one
instruction run on them, one tensor copied back (shared by test_vector_cast/_reduce/_cmpsel)."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc

VEC = asc.TPosition.VECCALC


class Ref:
    """A kernel-side tensor by name (with an element offset: t[off:])."""

    def __init__(self, name: str, off: int = 0) -> None:
        self.name, self.off = name, off


def _resolve(v, env):
    if isinstance(v, Ref):
        return env[v.name][v.off:] if v.off else env[v.name]
    return v


@asc.jit
def harness(g0, g1, g2, g3, spec: asc.ConstExpr):
    tensors, fn, args, kwargs, out, pre = spec
    gms = (g0, g1, g2, g3)
    env = {}
    for name, dtype, pos, addr, size, slot in tensors:
        t = asc.LocalTensor(dtype, pos, addr, size)
        if slot >= 0:
            gt = asc.GlobalTensor()
            gt.set_global_buffer(gms[slot])
            asc.data_copy(t, gt, size)
        env[name] = t
    for f in pre:
        f()
    fn(*[_resolve(a, env) for a in args], **{k: _resolve(v, env) for k, v in kwargs.items()})
    name, size, slot = out
    og = asc.GlobalTensor()
    og.set_global_buffer(gms[slot])
    asc.data_copy(og, env[name], size)


def launch(fn, tensors, args, kwargs=None, out="D", pre=(), chip=None, strict=None):
    """tensors: (name, dtype, size[, init[, pos]]) placed 32 B aligned one after another; every
    tensor with an init (and the output) is loaded from GM. Returns (output array, Run)."""
    specs, gms, addr, out_spec = [], [], 0, None
    for t in tensors:
        name, dtype, size = t[:3]
        init = t[3] if len(t) > 3 else None
        pos = t[4] if len(t) > 4 else VEC
        if name == out and init is None:
            init = np.zeros(size, dtype)
        slot = -1
        if init is not None:
            init = np.ascontiguousarray(init, dtype=dtype)
            assert init.size == size and (size * init.itemsize) % 32 == 0
            slot = len(gms)
            gms.append(init.copy())
        specs.append((name, dtype, pos, addr, size, slot))
        if name == out:
            out_spec = (name, size, slot)
        addr += -(-size * np.dtype(dtype).itemsize // 32) * 32 + 64
    while len(gms) < 4:
        gms.append(np.zeros(8, np.float32))
    spec = (tuple(specs), fn, tuple(args), dict(kwargs or {}), out_spec, tuple(pre))
    run = ascendlab.launch(harness, 1, *gms, spec, chip=chip, strict=strict)
    return gms[out_spec[2]], run


def expect(exc, words, *a, **k):
    """launch(*a, **k) raises `exc` whose message contains every word of `words`."""
    with pytest.raises(exc) as ei:
        launch(*a, **k)
    msg = str(ei.value)
    for w in words:
        assert w in msg, (w, msg)
