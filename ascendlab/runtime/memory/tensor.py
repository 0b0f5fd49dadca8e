"""LocalTensor (a typed view at a byte address of one core's UB, L1, L0A, L0B or L0C), with
pyasc's methods, and the checks of instructions that take one. GlobalTensor (a typed window
on GM) is in memory/global_tensor.py and importable from here."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import AlignmentError, CapacityError, CoreTypeError, EmptyHandleError, PositionError
from .. import core as _core
from ..core import CoreState, access, emit, finding
from ..dtypes import DataType
from ..enums import SPACE_OF, VECTOR_POSITIONS, TPosition
from ..trace import register_op
from .global_tensor import (
    GlobalTensor,
    _as_int,
    _unemulated_method,
    call_view,
    check_shape_info,
    require_global,
)
from .shapeinfo import ShapeInfo

# Scalar element access (GlobalTensor / LocalTensor get_value, set_value) on the scalar unit
register_op("get_value", "S", "scalar", module=__name__)
register_op("set_value", "S", "scalar", module=__name__)

_getframe = sys._getframe
_new_obj = object.__new__
__all__ = ["GlobalTensor", "LocalTensor", "check_core_kind", "require_global",
           "require_local"]
_UNSET: Any = object()  # marks LocalTensor arguments the caller did not pass
_EMPTY_SHAPE = ShapeInfo()


class LocalTensor:
    """A typed view at a byte address of one core's local memory (pyasc `asc.LocalTensor`).

    pyasc forms: `LocalTensor(dtype, pos, addr, tile_size)` places a tensor by byte address
    (tile_size in elements); `LocalTensor(dtype)` / `LocalTensor()` are empty handles filled by
    `que.alloc_tensor(t)` / `que.deque(t)`. Queues and TBufs create the others.
    """

    __slots__ = ("c", "space", "pos", "addr", "dtype", "size", "hi", "owner", "slot", "arr",
                 "e0", "tag", "name", "shape_info", "freed")

    def __init__(self, dtype: Any = None, pos: Any = _UNSET, addr: Any = _UNSET,
                 tile_size: Any = _UNSET) -> None:
        self.c = None
        self.dtype = DataType(dtype) if dtype is not None else None
        self.owner = None
        self.slot = -1
        self.tag = 0
        self.shape_info: ShapeInfo | None = None  # set_shape_info's ShapeInfo
        # (file, line, code) of the free_tensor that released this handle's buffer, or ""
        self.freed: Any = ""
        if dtype is None or (pos is _UNSET and addr is _UNSET and tile_size is _UNSET):
            self.space = None  # an empty handle
            return
        c = _core.core()
        pos = TPosition(TPosition.VECIN if pos is _UNSET else pos)
        addr = 0 if addr is _UNSET else addr
        tile_size = 0 if tile_size is _UNSET else tile_size
        space = SPACE_OF.get(pos)
        if space is None or space == "GM":
            raise PositionError(f"LocalTensor: position {pos.name} has no emulated local "
                                f"memory; use VECIN/VECOUT/VECCALC, A1/B1/C1, A2, B2 or CO1")
        addr = _as_int(addr, "LocalTensor addr")
        size = _as_int(tile_size, "LocalTensor tile_size")
        cap = c.chip.capacity(space)
        nbytes = size * self.dtype.itemsize
        frame = _getframe(1)
        if addr < 0 or addr + nbytes > cap:
            raise CapacityError(f"LocalTensor({self.dtype.name}, {pos.name}, addr={addr}, "
                                f"tile_size={size}): bytes [{addr}, {addr + nbytes}) exceed "
                                f"{space} ({cap} B) {_core.where(c, frame)}")
        align = c.chip.align(space)
        if addr % align:
            raise AlignmentError(f"LocalTensor({self.dtype.name}, {pos.name}, addr={addr}): "
                                 f"{space} addresses must be {align} B aligned "
                                 f"{_core.where(c, frame)}")
        check_core_kind(c, space, "LocalTensor", frame)
        self._bind(c, space, pos, addr, size, addr + nbytes if size else cap, None, -1,
                   f"{pos.name}@{space}+{addr:#x}")

    def _bind(self, c: CoreState, space: str, pos: TPosition, addr: int, size: int, hi: int,
              owner: Any, slot: int, name: str) -> None:
        dt = self.dtype
        if addr % dt.itemsize:
            raise AlignmentError(f"{dt.name} tensor at {space}+{addr} is not aligned to its "
                                 f"element size {dt.itemsize} B")
        self.c = c
        self.space = space
        self.pos = pos
        self.addr = addr  # bytes from the start of `space`
        self.size = size  # elements
        self.hi = hi  # end (bytes) of the buffer slot this tensor lives in
        self.owner = owner  # the TQue/TBuf that handed it out, None for static tensors
        self.slot = slot
        self.name = name  # short label for trace Accesses ("que0[1]", "VECIN@UB+0x2000")
        self.freed = ""
        self.arr = c.typed_mem(space, dt)  # the whole space as dt elements
        self.e0 = addr // dt.itemsize  # this tensor's first element in `arr`

    @classmethod
    def _make(cls, c: CoreState, space: str, pos: TPosition, addr: int, dtype: DataType,
              size: int, hi: int, owner: Any, slot: int, name: str) -> LocalTensor:
        t = _new_obj(cls)
        t.dtype = dtype
        t.tag = 0
        t.shape_info = None
        t._bind(c, space, pos, addr, size, hi, owner, slot, name)
        return t

    def _require(self) -> None:
        if self.space is None:
            raise EmptyHandleError("LocalTensor handle used before it was filled "
                                   "(alloc_tensor / deque / TBuf.get)")

    # ---- views -------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> LocalTensor:
        if type(key) is slice:
            if key.stop is not None or key.step is not None:
                raise RuntimeError("Slice operation with provided stop and step is not "
                                   "supported for LocalTensor (pyasc): use t[start:]")
            key = 0 if key.start is None else key.start
        i = key.__index__()
        if self.space is None:
            self._require()
        return self._view(i)

    def _view(self, i: int) -> LocalTensor:
        """A view starting i elements in (same buffer slot, same name)."""
        t = _new_obj(LocalTensor)
        t.c = self.c
        t.space = self.space
        t.pos = self.pos
        t.dtype = self.dtype
        t.addr = self.addr + i * self.dtype.itemsize
        t.size = self.size - i
        t.hi = self.hi
        t.owner = self.owner
        t.slot = self.slot
        t.arr = self.arr
        t.e0 = self.e0 + i
        t.tag = self.tag
        t.name = self.name
        t.shape_info = self.shape_info  # a view keeps the tensor's ShapeInfo (a C++ copy does)
        t.freed = self.freed
        return t

    def reinterpret_cast(self, dtype: Any) -> LocalTensor:
        """The same bytes seen as `dtype`: the element count scales with the size ratio."""
        dtype = DataType(dtype)
        if not dtype.is_numeric():
            raise RuntimeError("ReinterpretCast dtype must be integer or float")
        self._require()
        if dtype == self.dtype:
            return self
        size = self.size * self.dtype.itemsize // dtype.itemsize
        return LocalTensor._make(self.c, self.space, self.pos, self.addr, dtype, size, self.hi,
                                 self.owner, self.slot, self.name)

    def set_addr_with_offset(self, src: LocalTensor, offset: Any) -> None:
        """Point this tensor at `src` + offset elements of src's type (keeping this dtype)."""
        src._require()
        dtype = self.dtype or src.dtype
        self.dtype = dtype
        addr = src.addr + _as_int(offset, "offset") * src.dtype.itemsize
        size = (src.hi - addr) // dtype.itemsize
        self._bind(src.c, src.space, src.pos, addr, size, src.hi, src.owner, src.slot, src.name)

    # ---- queries -----------------------------------------------------------------------
    def get_size(self) -> int:
        self._require()
        return self.size

    def get_length(self) -> int:
        """Bytes."""
        self._require()
        return self.size * self.dtype.itemsize

    def set_size(self, size: Any = 0) -> None:
        self._require()
        self.size = _as_int(size, "set_size")

    def set_buffer_len(self, data_len: Any) -> None:
        self._require()
        self.size = _as_int(data_len, "set_buffer_len") // self.dtype.itemsize

    def get_phy_addr(self, offset: Any = 0) -> int:
        """Byte address in the tensor's local memory (plus `offset` elements)."""
        self._require()
        addr = self.addr + _as_int(offset, "offset") * self.dtype.itemsize
        # remembered per core so that trans_data_to_5hd's address-list forms know the element
        # type, as pyasc infers it from the tensor the address came from
        self.c.lib[("phy_addr", self.space, addr)] = self.dtype
        return addr

    def get_position(self) -> int:
        self._require()
        return int(self.pos)

    def set_user_tag(self, tag: Any = 0) -> None:
        self.tag = _as_int(tag, "tag")

    def get_user_tag(self) -> int:
        return self.tag

    def set_shape_info(self, shape_info: Any) -> None:
        """Attach a ShapeInfo (the logical shape library routines such as adv.softmax read)."""
        self.shape_info = check_shape_info(shape_info, "LocalTensor")

    def __call__(self, index: Any) -> LocalTensor:
        """t(i): pyasc's call operator, the same tensor from element i on (like t[i:])."""
        return call_view(self, index)

    def get_shape_info(self) -> ShapeInfo:
        """The ShapeInfo set on this tensor; an empty ShapeInfo() (shape_dim 0) if none was."""
        return self.shape_info if self.shape_info is not None else _EMPTY_SHAPE

    # ---- scalar access (scalar pipe) ---------------------------------------------------
    def _scalar_index(self, index: Any, op: str, frame: Any) -> int:
        self._require()
        c = self.c
        if self.pos not in VECTOR_POSITIONS:
            raise PositionError(f"LocalTensor.{op}: only VECIN/VECOUT/VECCALC tensors allow "
                                f"scalar access, this one is in {self.pos.name} "
                                f"{_core.where(c, frame)}")
        i = _as_int(index, f"LocalTensor.{op} index")
        isz = self.dtype.itemsize
        if i < 0 or self.addr + (i + 1) * isz > self.hi:
            finding(c, f"LocalTensor.{op}: element {i} is outside {self.describe()}", frame)
            if self.addr + (i + 1) * isz > c.chip.capacity(self.space) or self.addr + i * isz < 0:
                raise IndexError(f"LocalTensor.{op}: element {i} is outside {self.space} "
                                 f"{_core.where(c, frame)}")
        return i

    def get_value(self, index: Any) -> Any:
        frame = _getframe(1)
        i = self._scalar_index(index, "get_value", frame)
        isz = self.dtype.itemsize
        emit(self.c, "S", "get_value",
             (access(self.space, self.addr + i * isz, isz, self.describe()),), (), 1,
             self.dtype.name, 0, frame)
        value = self.arr[self.e0 + i]
        return value.item() if self.dtype.is_int() else value

    def set_value(self, index: Any, value: Any) -> None:
        frame = _getframe(1)
        i = self._scalar_index(index, "set_value", frame)
        isz = self.dtype.itemsize
        self.arr[self.e0 + i] = np.asarray(value).astype(self.dtype.np)
        emit(self.c, "S", "set_value", (),
             (access(self.space, self.addr + i * isz, isz, self.describe()),), 1,
             self.dtype.name, 0, frame, args=(("value", value),))

    # ---- messages ----------------------------------------------------------------------
    def describe(self) -> str:
        """'VECIN tensor float16[4096] at UB+0x2000 (queue 0 slot 1)'."""
        if self.space is None:
            return "LocalTensor(<empty handle>)"
        if self.owner is None:  # a static tensor, or LocalTensorAuto's (slot 0, name auto@LINE)
            where = "static" if self.slot < 0 else f"LocalTensorAuto {self.name}"
        else:
            where = f"queue {self.owner.qid} slot {self.slot}" if self.slot >= 0 else "TBuf"
        if self.freed:
            file, line = self.freed[0].rsplit("/", 1)[-1], self.freed[1]
            where += f", released by free_tensor at {file}:{line}: a use after free"
        return (f"{self.pos.name} tensor {self.dtype.name}[{self.size}] at "
                f"{self.space}+0x{self.addr:x} ({where})")

    def __getattr__(self, name: str) -> Any:
        return _unemulated_method("LocalTensor", name)

    def __repr__(self) -> str:
        return f"LocalTensor({self.describe()})"


def check_core_kind(c: CoreState, space: str, what: str, frame: Any) -> None:
    """On separated chips (910B) UB lives on vector cores and L1/L0 on cube cores."""
    if c.chip.layout != "separated":
        return
    if (space == "UB") != (c.kind == "aiv"):
        side = "vector (AIV)" if space == "UB" else "cube (AIC)"
        raise CoreTypeError(f"{what}: {space} exists only on {side} cores of {c.chip.name}, "
                            f"but this kernel runs on {c.kind.upper()} cores "
                            f"{_core.where(c, frame)}")


def require_local(op: str, t: Any, role: str) -> LocalTensor:
    if not isinstance(t, LocalTensor):
        raise TypeError(f"{op}: {role} must be a LocalTensor, got {type(t).__name__}")
    if t.space is None:
        raise EmptyHandleError(f"{op}: {role} is an empty LocalTensor handle")
    return t
