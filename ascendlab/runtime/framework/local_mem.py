"""LocalMemAllocator: static-tensor programming without TPipe (pyasc asc.LocalMemAllocator,
Ascend C LocalMemAllocator<hard>).

    allocator = asc.LocalMemAllocator(asc.Hardware.UB)     # the default memory is UB
    x = allocator.alloc(asc.TPosition.VECIN, asc.float32, 1024)   # at UB+0
    y = allocator.alloc(asc.TPosition.VECIN, asc.float32, 1024)   # at UB+4096
    allocator.get_cur_addr()                                # 8192: the next tensor's address

Each alloc places a static LocalTensor (as LocalTensor(dtype, pos, addr, tile_size) would) at
the allocator's current address and moves it on by tile_size elements. The placement checks are
LocalTensor's: the tensor must fit the memory (CapacityError), start aligned (AlignmentError)
and live on this core type (CoreTypeError); its position must be in the allocator's memory.

Limitations: Ascend C's documentation does not say that Alloc rounds sizes, so ascendlab does
not: a size that is not a multiple of the alignment leaves the next address unaligned and the
next alloc raises AlignmentError. BIAS and FIXBUF are not emulated. pyasc forbids mixing the
allocator with TPipe; ascendlab does not check it (the sanitizer's racecheck and the queues'
own checks see the overlapping bytes).
"""

from __future__ import annotations

import sys
from typing import Any

from ...errors import AlignmentError, CapacityError, PositionError
from .. import core as _core
from ..dtypes import DataType
from ..enums import HARDWARE_SPACE, SPACE_OF, Hardware, TPosition
from ..memory.tensor import LocalTensor, check_core_kind

_getframe = sys._getframe


class LocalMemAllocator:
    """A bump allocator of static LocalTensors in one local memory (UB by default)."""

    def __init__(self, hard: Any = Hardware.UB) -> None:
        self.c = _core.core()
        self.hard = Hardware(hard)
        space = HARDWARE_SPACE.get(self.hard)
        if space is None:
            raise NotImplementedError(f"LocalMemAllocator({self.hard.name}): only "
                                      + ", ".join(Hardware(h).name for h in HARDWARE_SPACE)
                                      + " are emulated")
        self.space = space
        self.addr = 0  # bytes: where the next tensor goes

    def get_cur_addr(self) -> int:
        """The byte address the next alloc places its tensor at."""
        return self.addr

    def alloc(self, pos: Any, data_type: Any, tile_size: Any) -> LocalTensor:
        """A `tile_size`-element LocalTensor of `data_type` in position `pos` at the current
        address; the address then moves past it."""
        frame = _getframe(1)
        c = self.c
        pos = TPosition(pos)
        if SPACE_OF.get(pos) != self.space:
            raise PositionError(f"LocalMemAllocator({self.hard.name}).alloc: position "
                                f"{pos.name} is not in {self.space} {_core.where(c, frame)}")
        dt = data_type if type(data_type) is DataType else DataType(data_type)
        n = int(tile_size)
        addr, nbytes = self.addr, n * dt.itemsize
        cap = c.chip.capacity(self.space)
        if n < 0 or addr + nbytes > cap:
            raise CapacityError(f"LocalMemAllocator({self.hard.name}).alloc: {n} x {dt.name} at "
                                f"{self.space}+{addr} need bytes up to {addr + nbytes}, but "
                                f"{c.chip.name} has {cap} B {_core.where(c, frame)}")
        align = c.chip.align(self.space)
        if addr % align:
            raise AlignmentError(f"LocalMemAllocator({self.hard.name}).alloc: the current "
                                 f"address {self.space}+{addr} is not {align} B aligned (the "
                                 f"sizes allocated before are not multiples of {align} B) "
                                 f"{_core.where(c, frame)}")
        check_core_kind(c, self.space, "LocalMemAllocator.alloc", frame)
        self.addr = addr + nbytes
        return LocalTensor._make(c, self.space, pos, addr, dt, n, addr + nbytes, None, -1,
                                 f"{pos.name}@{self.space}+{addr:#x}")

    def __repr__(self) -> str:
        return f"<LocalMemAllocator({self.hard.name}) at {self.space}+{self.addr}>"


__all__ = ["LocalMemAllocator"]
