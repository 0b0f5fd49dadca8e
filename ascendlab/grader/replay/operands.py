"""Replay, part 1: operands and frames. A recorded Access becomes a LocalTensor or GlobalTensor
again, and a call is issued from a frame that carries the event's file:line (so the runtime
records the same source line). Used by replay_vector.py and replay_ops.py."""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from typing import Any

from ...runtime.core import CoreState, LaunchState
from ...runtime.dtypes import DataType
from ...runtime.enums import TPosition
from ...runtime.memory.gm import _BASE0, _SPACING, GUARD, GMAlloc
from ...runtime.memory.tensor import GlobalTensor, LocalTensor
from ...runtime.trace import Access

_new_obj = object.__new__
_getframe = sys._getframe


# ---- frames that carry the event's file:line -------------------------------------------------
def _call(f, a, k): return f(*a, **k)  # noqa: E704 - one line: the call sits on the first line


def _call_frame(f, a): return f(*a, _getframe())  # noqa: E704


_TRAMPOLINES: dict[tuple[str, int, bool], Any] = {}


def trampoline(file: str, line: int, with_frame: bool) -> Any:
    """A function whose frame reports `file`:`line`, calling f(*a, **k) (or f(*a, frame))."""
    key = (file, line, with_frame)
    fn = _TRAMPOLINES.get(key)
    if fn is None:
        if len(_TRAMPOLINES) >= 4096:  # a kernel has few call sites; a forged trace may not
            _TRAMPOLINES.clear()
        tpl = _call_frame if with_frame else _call
        code = tpl.__code__.replace(co_filename=file, co_firstlineno=line, co_name="<replay>")
        fn = _TRAMPOLINES[key] = types.FunctionType(code, {"_getframe": _getframe})
    return fn


# ---- operands --------------------------------------------------------------------------------
_POS = {"UB": TPosition.VECCALC, "L1": TPosition.A1, "L0A": TPosition.A2, "L0B": TPosition.B2,
        "L0C": TPosition.CO1}


class NamedTensor(LocalTensor):
    """A LocalTensor whose describe() is the recorded label (scalar get/set_value name their
    operand by describe())."""

    __slots__ = ()

    def describe(self) -> str:
        return self.name


class Replayer:
    def __init__(self, launch: LaunchState, allocs: list[GMAlloc],
                 kinds: Mapping[int, str] | None = None) -> None:
        self.launch = launch
        self.allocs = allocs
        self.kinds = dict(kinds or {})  # MIX runs: core -> "aiv" | "aic"
        self.cores: dict[int, CoreState] = {}
        # (core, space) -> {queue id: (slot starts, slot bytes)} from init_buffer events
        self.slots: dict[tuple[int, str], dict[int, tuple[list[int], int]]] = {}
        # (core, queue, slot) -> state; (core, queue) -> (space, num, producer, consumer)
        self.qstate: dict[tuple[int, int, int], list] = {}
        self.queues: dict[tuple[int, int], list] = {}
        # local() results by their arguments: the runtime's instructions never modify their
        # operands, so one LocalTensor serves every event with the same operand (cleared when
        # an init_buffer changes the slots that decide a tensor's end)
        self._locals: dict[tuple, LocalTensor] = {}

    def core(self, idx: int) -> CoreState:
        c = self.cores.get(idx)
        if c is None:
            kind = self.kinds.get(idx)
            c = self.cores[idx] = (CoreState(idx, self.launch, kind) if kind
                                   else CoreState(idx, self.launch))
        return c

    # -- local tensors --
    def slot_end(self, c: CoreState, space: str, addr: int) -> int:
        for starts, nbytes in self.slots.get((c.idx, space), {}).values():
            for s in starts:
                if s <= addr < s + nbytes:
                    return s + nbytes
        return c.chip.capacity(space)

    def local(self, c: CoreState, a: Access, dtype: str, addr: int | None = None,
              pos: TPosition | None = None, hi: int | None = None,
              cls: type = LocalTensor) -> LocalTensor:
        """The LocalTensor starting at byte `addr` (default: the Access's) of a's space."""
        key = (c.idx, a.space, a.addr if addr is None else addr, dtype, pos, hi, cls, a.name)
        t = self._locals.get(key)
        if t is None:
            t = self._locals[key] = self._local(c, a, dtype, addr, pos, hi, cls)
        return t

    def forget_locals(self) -> None:
        """Drop the memo of local(): the buffer slots changed (init_buffer)."""
        self._locals.clear()

    def _local(self, c: CoreState, a: Access, dtype: str, addr: int | None,
               pos: TPosition | None, hi: int | None, cls: type) -> LocalTensor:
        space = a.space
        if space not in _POS:
            raise ValueError(f"expected a local memory operand, got an Access in {space}")
        dt = DataType(dtype)
        addr = a.addr if addr is None else addr
        cap = c.chip.capacity(space)
        if not 0 <= addr < cap + 1 or addr % dt.itemsize:
            raise ValueError(f"{space} address {addr} is outside the memory ({cap} B) or not "
                             f"aligned to {dt.name}")
        hi = self.slot_end(c, space, addr) if hi is None else hi
        size = max(0, (hi - addr) // dt.itemsize)
        return cls._make(c, space, pos or _POS[space], addr, dt, size, hi, None, -1, a.name)

    def glob(self, a: Access, dtype: str) -> GlobalTensor:
        """The GlobalTensor whose element 0 sits at the Access's GM address."""
        if a.space != "GM":
            raise ValueError(f"expected a GM operand, got an Access in {a.space}")
        k = (a.addr - _BASE0 + _SPACING // 2) // _SPACING
        if not 0 <= k < len(self.allocs):
            raise ValueError(f"GM address {a.addr:#x} is not in any kernel argument")
        alloc = self.allocs[k]
        off = a.addr - alloc.base
        if not -GUARD <= off <= alloc.nbytes + GUARD:
            raise ValueError(f"GM address {a.addr:#x} is far outside {alloc.name}")
        g = _new_obj(GlobalTensor)
        g.alloc = alloc
        g.offset = off
        g.dtype = DataType(dtype)
        g.size = None
        return g

    def operand(self, c: CoreState, a: Access, dtype: str, **kw: Any) -> Any:
        return self.glob(a, dtype) if a.space == "GM" else self.local(c, a, dtype, **kw)

    def dummy_local(self, c: CoreState, space: str, dtype: str,
                    pos: TPosition | None = None) -> LocalTensor:
        """An operand at address 0, for the no-op forms that record no Access."""
        return self.local(c, Access(space, 0, 0, "", 0, 0), dtype, pos=pos)


__all__ = ["NamedTensor", "Replayer", "trampoline"]
