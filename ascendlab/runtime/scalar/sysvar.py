"""The scalar unit's system registers and mode switches: what a kernel reads about the chip
(get_system_cycle, get_program_counter, get_arch_version), the contexts the framework hands it
(get_sys_workspace, set/get_hccl_context), the modes later instructions follow (set_hf32_mode,
set_hf32_trans_mode, set_mm_layout_transform, set_deq_scale, init_soc_state) and trap.

Each call is one event on the scalar pipe S (`record`), so the trace shows where a kernel set
a mode; the mode itself is held in the core's state (CoreState.lib). What each changes in the
emulated numbers:

* init_soc_state resets the core's global state (atomic mode off, mask mode normal, all mask
  lanes on), as the chip's entry code does (ADK InitSocState).
* set_deq_scale writes the DEQSCALE configuration; the vdeq form also writes the 16 packed
  uint64 parameters into the vdeq tensor (signMode << 46 | (offset & 0x1ff) << 37 | the float32
  bits of scale: ADK MakeDeqScaleConfig). No emulated instruction reads DEQSCALE yet (cast_deq
  and the int32 -> float16 cast are not emulated), so it changes no emulated number.
* set_hf32_mode / set_hf32_trans_mode: held, but the emulated mmad keeps full float32 products:
  no public source the project has gives HF32's mantissa width, so rounding to it would be a
  guess. Limitation: with HF32 on, the chip's fp32 mmad results are less precise than these.
* set_mm_layout_transform orders the cube's M/N traversal; every output element's sum is the
  same either way, so it has no effect on the numbers (it may on the chip's timing).
* get_system_cycle cannot be the chip's cycle counter (cycles are modelled after the launch,
  from the whole trace: run.cost): it returns the number of events the launch has issued so far,
  a counter that grows as the kernel runs. Use ascendlab's profile() for time.
* get_program_counter returns the kernel source line of the call (the chip: an address).
* trap stops the kernel on the chip (ADK Trap): here it raises TrapError in strict mode;
  under `ascendlab pyasc` (non-strict) it is a finding and the kernel runs on.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import ParamError, TrapError
from .. import core as _core
from ..core import emit, finding
from ..dma import atomic as _atomic
from ..trace import register_op

_getframe = sys._getframe

# register reads and writes of the scalar unit: no sync edge, no memory touched (the cycle
# model charges S events without an edge nothing: ASSUMPTION, a few scalar cycles on the chip)
OPS = ("get_arch_version", "get_program_counter", "get_system_cycle", "trap",
       "get_sys_workspace", "set_hccl_context", "get_hccl_context", "init_soc_state",
       "set_hf32_mode", "set_hf32_trans_mode", "set_mm_layout_transform", "set_deq_scale",
       "check_local_memory_ia")
for _op in OPS:
    register_op(_op, "S", "sync", replayable=False, module=__name__)

_ALL = (2**64 - 1, 2**64 - 1)


def record(op: str, frame: Any, args: tuple = (), c: Any = None) -> Any:
    """Append the S-pipe event of scalar-unit instruction `op` called from `frame`; returns the
    core."""
    c = c or _core.core()
    emit(c, "S", op, (), (), 0, "", 0, frame, None, args)
    return c


def get_arch_version(core_version: Any = 0) -> None:
    """Reads the architecture version into core_version on the chip (a C++ reference); pyasc
    returns nothing, so neither does this."""
    record("get_arch_version", _getframe(1), (("core_version", int(core_version)),))


def get_program_counter() -> int:
    """The kernel source line of this call (the chip returns the instruction address)."""
    frame = _getframe(1)
    record("get_program_counter", frame)
    return frame.f_lineno


def get_system_cycle() -> int:
    """Events issued by the launch so far (not cycles: see the module docstring)."""
    c = record("get_system_cycle", _getframe(1))
    return len(c.launch.trace)


def trap() -> None:
    """Stop the kernel (ADK Trap). Strict launches raise TrapError; non-strict ones record a
    finding and continue."""
    frame = _getframe(1)
    c = record("trap", frame)
    finding(c, "trap(): the kernel stops here on the chip (AI Core exception)", frame,
            TrapError)


def get_sys_workspace() -> Any:
    """The GM workspace given to set_sys_workspace (the chip: the framework's workspace)."""
    frame = _getframe(1)
    c = record("get_sys_workspace", frame)
    ws = c.launch.workspace
    if ws is None:
        finding(c, "get_sys_workspace(): no system workspace was set (asc.set_sys_workspace); "
                "on the chip the pointer is then null", frame)
    return ws


def set_hccl_context(index: Any, context: Any) -> None:
    """Keep GM address `context` as HCCL context `index` (read back by get_hccl_context)."""
    frame = _getframe(1)
    i = int(index)
    if i < 0:
        raise ParamError(f"set_hccl_context: index must be >= 0 (uint32), got {i}")
    c = record("set_hccl_context", frame, (("index", i),))
    c.lib[("hccl_context", i)] = context


def get_hccl_context(index: Any) -> Any:
    """The GM address set by set_hccl_context(index); None (and a finding) when none was."""
    frame = _getframe(1)
    i = int(index)
    c = record("get_hccl_context", frame, (("index", i),))
    ctx = c.lib.get(("hccl_context", i))
    if ctx is None:
        finding(c, f"get_hccl_context({i}): no HCCL context {i} was set "
                "(asc.set_hccl_context); on the chip the pointer is then null", frame)
    return ctx


def init_soc_state() -> None:
    """Reset the core's global state: no atomic mode, normal mask mode, all mask lanes on."""
    c = record("init_soc_state", _getframe(1))
    _atomic.reset(c)
    c.mask_counter = False
    c.vector_mask = _ALL


def _mode(op: str, value: Any) -> None:
    on = bool(value)
    c = record(op, _getframe(2), (("mode", on),))
    c.lib[op] = on


def set_hf32_mode(hf32_mode: Any) -> None:
    """Round fp32 L0A/L0B data to HF32 before mmad (held; not applied: module docstring)."""
    _mode("set_hf32_mode", hf32_mode)


def set_hf32_trans_mode(trans_mode: Any) -> None:
    """HF32 rounding toward zero (True) or to nearest even (False) (held; not applied)."""
    _mode("set_hf32_trans_mode", trans_mode)


def set_mm_layout_transform(mm_layout_mode: Any) -> None:
    """The cube produces results N-first (True) or M-first (False); no effect on the numbers."""
    _mode("set_mm_layout_transform", mm_layout_mode)


class VdeqInfo:
    """16 quantisation parameter triples (scale, offset, sign_mode) for set_deq_scale."""

    def __init__(self, scale: Any = None, offset: Any = None, sign_mode: Any = None) -> None:
        if scale is None or offset is None or sign_mode is None:
            raise ValueError("VdeqInfo requires scale / offset / sign_mode")
        if len(scale) != 16 or len(offset) != 16 or len(sign_mode) != 16:
            raise ValueError(f"VdeqInfo expects exactly 16 elements per field, got "
                             f"{len(scale)}, {len(offset)}, {len(sign_mode)}")
        self.scale = [float(s) for s in scale]
        self.offset = [int(o) for o in offset]
        self.sign_mode = [bool(s) for s in sign_mode]


def deq_config(scale: float, offset: int, sign_mode: bool) -> int:
    """The packed 64-bit DEQSCALE word of one (scale, offset, sign_mode) (ADK
    MakeDeqScaleConfig: sign_mode at bit 46, the low 9 bits of offset at bit 37, scale's
    float32 bits at bit 0)."""
    bits = int(np.float32(scale).view(np.uint32))
    return (int(bool(sign_mode)) << 46) | ((int(offset) & 0x1FF) << 37) | bits


def set_deq_scale(*args: Any, **kwargs: Any) -> None:
    """set_deq_scale(scale) (half), set_deq_scale(scale, offset, sign_mode) or
    set_deq_scale(vdeq, vdeq_info): set the DEQSCALE register (module docstring)."""
    frame = _getframe(1)
    from ..memory.tensor import LocalTensor

    vdeq = kwargs.pop("vdeq", args[0] if args and isinstance(args[0], LocalTensor) else None)
    if vdeq is not None:
        info = kwargs.pop("vdeq_info", args[1] if len(args) > 1 else None)
        if not isinstance(info, VdeqInfo):
            raise TypeError(f"set_deq_scale(vdeq, vdeq_info): vdeq_info must be a VdeqInfo, "
                            f"got {type(info).__name__}")
        if vdeq.dtype.name != "uint64":
            raise TypeError(f"set_deq_scale: vdeq must be a uint64 LocalTensor, got "
                            f"{vdeq.dtype.name}")
        for i in range(16):  # 16 scalar stores of the packed words (128 B)
            vdeq.set_value(i, deq_config(info.scale[i], info.offset[i], info.sign_mode[i]))
        c = record("set_deq_scale", frame, (("vdeq", vdeq.describe()),))
        c.lib["deq_scale"] = ("vdeq", vdeq.addr)
        return
    names = ("scale", "offset", "sign_mode")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    if "scale" not in bound or set(bound) - set(names) or len(bound) == 2:
        raise TypeError("set_deq_scale(scale), set_deq_scale(scale, offset, sign_mode) or "
                        "set_deq_scale(vdeq, vdeq_info)")
    if len(bound) == 1:
        value: Any = ("half", float(np.float16(bound["scale"])))
    else:
        value = ("config", deq_config(bound["scale"], bound["offset"], bound["sign_mode"]))
    c = record("set_deq_scale", frame, ((value[0], value[1]),))
    c.lib["deq_scale"] = value


class CheckLocalMemoryIAParam:
    """The UB access-check window of check_local_memory_ia (pyasc's fields and defaults)."""

    def __init__(self, enable_bit: int = 0, start_addr: int = 0, end_addr: int = 0,
                 is_scalar_read: bool = False, is_scalar_write: bool = False,
                 is_vector_read: bool = False, is_vector_write: bool = False,
                 is_mte_read: bool = False, is_mte_write: bool = False,
                 is_enable: bool = False) -> None:
        self.enable_bit = int(enable_bit)
        self.start_addr = int(start_addr)
        self.end_addr = int(end_addr)
        self.is_scalar_read, self.is_scalar_write = bool(is_scalar_read), bool(is_scalar_write)
        self.is_vector_read, self.is_vector_write = bool(is_vector_read), bool(is_vector_write)
        self.is_mte_read, self.is_mte_write = bool(is_mte_read), bool(is_mte_write)
        self.is_enable = bool(is_enable)


def check_local_memory_ia(check_params: CheckLocalMemoryIAParam) -> None:
    """Arm (is_enable=True) or reset a UB access-check window (32 B units, (start, end]).

    Limitations: the window is checked against later accesses on the chip (an access in it
    raises an AI Core exception); the emulator validates and records it but does not check
    later accesses against it (the sanitizer's memcheck covers out-of-buffer accesses)."""
    frame = _getframe(1)
    p = check_params
    if not isinstance(p, CheckLocalMemoryIAParam):
        raise TypeError(f"check_local_memory_ia: expected a CheckLocalMemoryIAParam, got "
                        f"{type(p).__name__}")
    for name, v, hi in (("enable_bit", p.enable_bit, 3), ("start_addr", p.start_addr, 65535),
                        ("end_addr", p.end_addr, 65535)):
        if not 0 <= v <= hi:
            raise ParamError(f"check_local_memory_ia: CheckLocalMemoryIAParam.{name}={v} is "
                             f"outside [0, {hi}]")
    c = record("check_local_memory_ia", frame,
               (("enable_bit", p.enable_bit), ("start_addr", p.start_addr),
                ("end_addr", p.end_addr), ("enable", p.is_enable)))
    c.lib[("local_memory_ia", p.enable_bit)] = p if p.is_enable else None
