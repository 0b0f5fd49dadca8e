"""A pyasc-style pytest file: the framework (TPipe/TQue) vector add over backends and sizes."""

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config

BUFFER_NUM = 2


@asc.jit
def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block: int,
         tile: asc.ConstExpr[int]):
    start = asc.get_block_idx() * block
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    zg.set_global_buffer(z + start)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qy = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(qx, BUFFER_NUM, tile * x.dtype.sizeof())
    pipe.init_buffer(qy, BUFFER_NUM, tile * y.dtype.sizeof())
    pipe.init_buffer(qz, BUFFER_NUM, tile * z.dtype.sizeof())
    for i in range(block // tile):
        xl = qx.alloc_tensor(x.dtype)
        yl = qy.alloc_tensor(y.dtype)
        asc.data_copy(xl, xg[i * tile:], tile)
        asc.data_copy(yl, yg[i * tile:], tile)
        qx.enque(xl)
        qy.enque(yl)
        xl = qx.deque(x.dtype)
        yl = qy.deque(y.dtype)
        zl = qz.alloc_tensor(z.dtype)
        asc.add(zl, xl, yl, tile)
        qz.enque(zl)
        qx.free_tensor(xl)
        qy.free_tensor(yl)
        zl = qz.deque(z.dtype)
        asc.data_copy(zg[i * tile:], zl, tile)
        qz.free_tensor(zl)


BACKENDS = [config.Backend.Model]
PLATFORMS = [p for p in config.Platform if p.value in ("Ascend910B1", "Ascend910B2")]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32])
@pytest.mark.parametrize("size", [2048, 8 * 2048])
def test_vadd(backend, platform, dtype, size):
    config.set_platform(backend, platform)
    cores = 8
    rng = np.random.default_rng(size)
    x = (rng.random(size) * 100).astype(dtype)
    y = (rng.random(size) * 100).astype(dtype)
    z = np.zeros_like(x)
    vadd[cores, rt.current_stream()](x, y, z, size // cores, 128)
    assert np.array_equal(z, x + y)


def test_backend_names():
    assert config.Backend("Model") == config.Backend.Model
    assert "NPU" in config.Backend.__members__
