"""Tiling structs (ascendlab/runtime/structs.py): nested StructField members."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc
from ascendlab.runtime.structs import Field, Struct, StructField


class Tile(Struct):
    length = Field(asc.int32, 0)
    num = Field(asc.int32, 1)


class Config(Struct):
    block = Field(asc.int32, 0)
    tile = StructField(Tile)


def test_nested_struct_defaults_copies_and_dict():
    a, b = Config(), Config()
    a.tile.length = 64
    assert b.tile.length == 0  # each instance has its own nested default
    c = a.copy()
    c.tile.num = 9
    assert a.tile.num == 1 and c.as_dict() == {"block": 0, "tile": {"length": 64, "num": 9}}
    assert Config(tile=Tile(length=3)).tile == Tile(length=3)
    with pytest.raises(TypeError, match="Config.tile is a Tile; got int"):
        Config(tile=5)
    with pytest.raises(TypeError, match="needs a Struct subclass"):
        StructField(int)


def test_kernel_reads_nested_fields():
    @asc.jit
    def fill(out: asc.GlobalAddress, cfg: Config):
        g = asc.GlobalTensor()
        g.set_global_buffer(out, 8)
        for i in range(cfg.tile.num):
            g.set_value(i, cfg.tile.length + cfg.block)
        cfg.tile.num = 0  # the kernel's copy: the caller's struct is unchanged

    cfg = Config(block=1, tile=Tile(length=5, num=3))
    out = np.zeros(8, np.int32)
    fill[1](out, cfg)
    assert out.tolist() == [6, 6, 6, 0, 0, 0, 0, 0]
    assert cfg.tile.num == 3
