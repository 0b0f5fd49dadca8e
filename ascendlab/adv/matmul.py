"""asc.adv.Matmul on the emulator: the library's cube pipeline, traced instruction by instruction.

A Matmul computes one core's block of C = A @ B (+ bias): single_core_m x single_core_n over
K = single_core_k, as base_m x base_n blocks, each accumulated over base_k slices. For every
slice the trace gets what Ascend C's Matmul issues on the cube core:

    MTE2  data_copy      GM -> L1      A and B tiles (ND -> NZ), step_ka / step_kb slices per load
    MTE1  load_data      L1 -> L0A/L0B one base_m x base_k / base_k x base_n slice
    M     mmad           L0A x L0B -> L0C (the first slice of a block starts from 0 or the bias)
    FIX   fixpipe        L0C -> GM      C (row-major), or a GM workspace when C is in UB

with the set/wait flags between the pipes (Sync key ("mm", object id, buffer, slot)) that let
L1 and L0 ping-pong as the tiling's depth_a1/depth_b1 and db_l0a/db_l0b/db_l0c allow: the cost
model overlaps GM loads, L1 -> L0 moves, the cube and the write-back only where they do. L1
tiles are cached: a tile still resident (same rows or columns and K slices) is not loaded again.

The arithmetic is done with numpy on the GM operands, slice by slice in float32 (fp16 products
are exact in float32), so the result is the one the traced instructions produce; the L1/L0
bytes themselves are not materialised (the Matmul owns those buffers; nothing else reads them).

MIX kernels (1 cube : 2 vector cores, pyasc's default for Matmul): the kernel body runs on the
vector cores; each is a client of its group's cube core, which serves its requests in the
order they arrive. A request is a cross-core flag (Sync kind "xset"/"xwait", key ("xcore",
from, to, tag)): the client's `mm_request` sets it, the cube core's `mm_serve` waits for it,
computes, and its `mm_done` (on FIX, after the write-back) releases the client's
`mm_wait_result`. C in UB (VECCALC) goes through the register_matmul workspace: the cube core
writes each block there, the client copies it into its UB tensor (MTE2) and flags MTE2 -> V.

The cube-side schedule is in matmul_engine.py and matmul_schedule.py. Not emulated (raise
NotImplementedError): transposed A or B, NZ inputs, A/B outside GM, asynchronous iterate
(sync=False), quantisation, split-K across cores. iterate_batch (NORMAL layout) is in
matmul_batch.py.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import LaunchError
from ..runtime import core as _core
from ..runtime.core import CoreState
from ..runtime.dtypes import DataType
from ..runtime.enums import CubeFormat, TPosition
from ..runtime.memory.tensor import GlobalTensor
from ..runtime.structs import TCubeTiling
from . import tiling as host_tiling
from .matmul_batch import iterate_batch
from .matmul_engine import Engine, Job, Loop, engine_for
from .matmul_writeback import as_global, where

_getframe = sys._getframe
_new = tuple.__new__
_as_strided = np.lib.stride_tricks.as_strided

_IN_TYPES = {("float16", "float16"): ("float32", "float16"),
             ("float32", "float32"): ("float32",)}
_UB_POSITIONS = frozenset({TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC})


@dataclass(frozen=True)
class MatmulType:
    """One Matmul operand: where it lives, its format and type (pyasc asc.adv.MatmulType)."""

    position: Any
    format: Any
    dtype: Any
    is_trans: bool = False
    layout: Any = None


class MatmulConfig:
    """pyasc's MatmulConfig: the emulator keeps the keywords (see Run options) but only the
    default (normal) schedule is modelled."""

    def __init__(self, **options: Any) -> None:
        self.options = options

    def __repr__(self) -> str:
        return f"MatmulConfig({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"


def _dtype(t: MatmulType, role: str) -> DataType:
    try:
        return DataType(t.dtype)
    except Exception:
        raise TypeError(f"Matmul: {role}.dtype {t.dtype!r} is not a DataType") from None


# pyasc Matmul methods (python/asc/language/adv/matmul.py) the emulator does not implement
_UNEMULATED_METHODS = frozenset({
    "async_get_tensor_c", "get_batch_tensor_c", "get_offset_c", "iterate_n_batch",
    "set_quant_scalar", "set_quant_vector", "wait_get_tensor_c", "wait_iterate_all",
})


class Matmul:
    """asc.adv.Matmul(a, b, c, bias=None, matmul_config=None, matmul_policy=0)."""

    def __init__(self, a: MatmulType, b: MatmulType, c: MatmulType, bias: MatmulType | None = None,
                 matmul_config: Any = None, matmul_policy: Any = 0) -> None:
        _core.core()
        for role, t in (("a", a), ("b", b), ("c", c), ("bias", bias)):
            if t is not None and not isinstance(t, MatmulType):
                raise TypeError(f"Matmul: {role} must be an asc.adv.MatmulType, got "
                                f"{type(t).__name__}")
        self.a_type, self.b_type, self.c_type, self.bias_type = a, b, c, bias
        at, bt, ct = _dtype(a, "a"), _dtype(b, "b"), _dtype(c, "c")
        outs = _IN_TYPES.get((at.name, bt.name))
        if outs is None or ct.name not in outs:
            combos = "; ".join(f"{x} x {y} -> {'/'.join(o)}" for (x, y), o in _IN_TYPES.items())
            raise NotImplementedError(f"Matmul: {at.name} x {bt.name} -> {ct.name} is not "
                                      f"emulated; emulated: {combos}")
        self.at, self.bt, self.ct = at, bt, ct
        for role, t in (("a", a), ("b", b)):
            if TPosition(t.position) != TPosition.GM:
                raise NotImplementedError(f"Matmul: {role} at {TPosition(t.position).name} is "
                                          "not emulated; emulated: A and B in GM")
            if CubeFormat(t.format) != CubeFormat.ND:
                raise NotImplementedError(f"Matmul: {role} in format "
                                          f"{CubeFormat(t.format).name} is not emulated (ND is)")
            if t.is_trans:
                raise NotImplementedError(f"Matmul: transposed {role} (is_trans=True) is not "
                                          "emulated yet")
        cpos = TPosition(c.position)
        if cpos != TPosition.GM and cpos not in _UB_POSITIONS:
            raise NotImplementedError(f"Matmul: c at {cpos.name} is not emulated; emulated: GM "
                                      "and VECCALC/VECIN/VECOUT (UB)")
        if CubeFormat(c.format) != CubeFormat.ND:
            raise NotImplementedError("Matmul: c in NZ format is not emulated (ND is)")
        self.c_in_ub = cpos != TPosition.GM
        self.bt_type: DataType | None = None
        if bias is not None:
            self.bt_type = _dtype(bias, "bias")
            if self.bt_type.name != "float32" or TPosition(bias.position) != TPosition.GM:
                raise NotImplementedError("Matmul: a bias must be float32 in GM")
        self.config = matmul_config
        self.policy = matmul_policy
        self.engine: Engine | None = None  # set by register_matmul / init
        self.client: CoreState | None = None
        self.server: CoreState | None = None
        self.workspace: GlobalTensor | None = None
        self.tiling: TCubeTiling | None = None
        self.a_gm: GlobalTensor | None = None
        self.b_gm: GlobalTensor | None = None
        self.bias_gm: GlobalTensor | None = None
        self.use_bias = False
        self.tail: list[int] = [-1, -1, -1]
        self.org: tuple[int, int, int, int, int] | None = None  # m, n, ka, kb, kc
        self.loop: Loop | None = None
        self.ended = False

    # ---- setup ---------------------------------------------------------------------------
    def _attach(self, workspace: Any, tiling: Any, frame: Any) -> None:
        c = _core.core()
        self.client = c
        launch = c.launch
        if c.kind == "aiv" and c.chip.layout == "separated":
            if launch.core_kind != "mix":
                raise LaunchError(f"register_matmul: this kernel runs on vector cores only "
                                  f"(kernel_type AIV_ONLY); a Matmul needs the cube cores of a "
                                  f"MIX launch {_core.where(c, frame)}")
            self.server = launch.cube_core(c.idx // 2)
        else:
            self.server = c
        if workspace is not None:
            self.workspace = as_global(workspace, "register_matmul workspace")
        elif launch.workspace is not None:
            self.workspace = as_global(launch.workspace, "set_sys_workspace")
        if tiling is not None:
            self.init(tiling, _frame=frame)

    def init(self, tiling: Any, _frame: Any = None) -> None:
        """Matmul.init(tiling): take the tiling (after register_matmul without one)."""
        frame = _frame or _getframe(1)
        if self.client is None:
            raise LaunchError("Matmul.init: call asc.adv.register_matmul(pipe, ..., mm) first")
        if not isinstance(tiling, TCubeTiling):
            raise TypeError(f"Matmul.init: tiling must be an asc.adv.TCubeTiling, got "
                            f"{type(tiling).__name__}")
        c = self.client
        max_cores = 2 * c.chip.aic_cores if c.launch.core_kind == "mix" else (
            c.chip.aic_cores if c.kind == "aic" else c.chip.aiv_cores)
        problems = host_tiling.check(tiling, c.chip, self.at.itemsize, self.bt.itemsize,
                                     self.bias_type is not None and bool(tiling.is_bias),
                                     max_cores)
        if problems:
            raise ValueError("Matmul: the tiling does not fit " + c.chip.name + ": "
                             + "; ".join(problems) + f" {_core.where(c, frame)}")
        self.tiling = tiling.copy()
        self.use_bias = bool(tiling.is_bias) and self.bias_type is not None
        self.engine = engine_for(self, frame)

    def set_tensor_a(self, gm: Any, transpose: Any = False) -> None:
        if transpose:
            raise NotImplementedError("Matmul.set_tensor_a: transposed A is not emulated yet")
        self.a_gm = as_global(gm, "Matmul.set_tensor_a")

    def set_tensor_b(self, gm: Any, transpose: Any = False) -> None:
        if transpose:
            raise NotImplementedError("Matmul.set_tensor_b: transposed B is not emulated yet")
        self.b_gm = as_global(gm, "Matmul.set_tensor_b")

    def set_bias(self, gm: Any) -> None:
        if self.bias_type is None:
            raise ValueError("Matmul.set_bias: the Matmul was built without a bias MatmulType")
        self.bias_gm = as_global(gm, "Matmul.set_bias")
        self.use_bias = True

    def disable_bias(self) -> None:
        self.use_bias = False

    def set_tail(self, tail_m: Any = -1, tail_n: Any = -1, tail_k: Any = -1) -> None:
        """This core's block shape (-1 keeps the tiling's single_core value)."""
        self.tail = [int(tail_m), int(tail_n), int(tail_k)]

    def set_single_shape(self, single_m: Any, single_n: Any, single_k: Any) -> None:
        self.set_tail(single_m, single_n, single_k)

    def set_org_shape(self, org_m: Any, org_n: Any, org_ka: Any, org_kb: Any = None,
                      org_kc: Any = 0) -> None:
        """The full shapes (leading dimensions): A is org_m x org_ka, B org_kb x org_n, C rows
        org_kc (or org_n) elements apart."""
        kb = int(org_ka) if org_kb is None else int(org_kb)
        self.org = (int(org_m), int(org_n), int(org_ka), kb, int(org_kc))

    def set_workspace(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("Matmul.set_workspace (batch workspaces) is not emulated")

    def set_hf32(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("Matmul.set_hf32 is not emulated (fp32 runs in full float32)")

    def set_self_define_data(self, data_ptr: Any) -> Any:
        """Data for the user's Matmul callback functions (Ascend C SetSelfDefineData), kept on
        the object. No effect on the emulated numbers: the emulator runs no user callbacks (a
        Matmul with MatmulCallBackFunc is not emulated)."""
        self.self_define_data = data_ptr
        return data_ptr

    def set_user_def_info(self, tiling_ptr: Any) -> Any:
        """The user's tiling pointer for the callback functions (Ascend C SetUserDefInfo), kept
        on the object; no effect on the emulated numbers, as set_self_define_data."""
        self.user_def_info = tiling_ptr
        return tiling_ptr

    # ---- compute -------------------------------------------------------------------------
    def iterate_all(self, c: Any, en_atomic: Any = 0, sync: Any = True,
                    en_wait_sync: Any = True, fake_msg: Any = False) -> None:
        """Compute this core's whole block into `c` (GM, or a UB tensor through the
        workspace)."""
        self._iterate_all(c, en_atomic, sync, _getframe(1))

    def _iterate_all(self, c: Any, en_atomic: Any, sync: Any, frame: Any) -> None:
        job = self._job("iterate_all", sync, frame)
        job.request(frame)
        last = job.blocks - 1
        for count in range(job.blocks):
            job.compute(count, frame)
            job.write(c, count, bool(int(en_atomic)), False, frame, whole=True,
                      notify=count == last)
        self.loop = None

    def iterate_batch(self, *args: Any, **kwargs: Any) -> None:
        """This core's block of every matrix of a batch (NORMAL layout; matmul_batch.py)."""
        iterate_batch(self, _getframe(1), args, kwargs)

    def wait_iterate_batch(self) -> None:
        """Wait for an asynchronous iterate_batch: none can be pending (sync=False raises)."""

    def set_batch_num(self, batch_a: Any, batch_b: Any) -> None:
        """The batch counts of A and B for the iterate_batch form that takes none."""
        self.batch_num = (int(batch_a), int(batch_b))

    def set_sparse_index(self, index_global: Any) -> None:
        """The index matrix of a sparse B (Ascend C SetSparseIndex): kept; a sparse Matmul is
        not emulated, so computing after it raises NotImplementedError."""
        self.sparse_index = as_global(index_global, "Matmul.set_sparse_index")

    def iterate(self, en_partial_sum: Any = False, sync: Any = True) -> Loop:
        """`with mm.iterate() as count:` loops over the base blocks (M fastest for
        iterate_order 0); each pass computes one block, get_tensor_c writes it out."""
        frame = _getframe(1)
        if en_partial_sum:
            raise NotImplementedError("Matmul.iterate(en_partial_sum=True) is not emulated")
        job = self._job("iterate", sync, frame)
        loop = self.loop = Loop(job, frame)
        return loop

    def get_tensor_c(self, dst: Any, en_atomic: Any = 0, en_sequential_write: Any = False,
                     sync: Any = True, optional_tensor: Any = None) -> None:
        """Write the block of the current iterate() pass into dst: a GM tensor (at the block's
        place in C, or at dst's start with en_sequential_write) or a UB tensor (row-major
        base_m x base_n, through the workspace)."""
        frame = _getframe(1)
        loop = self.loop
        if loop is None or loop.current < 0:
            raise LaunchError(f"Matmul.get_tensor_c: no block to fetch; call it inside "
                              f"`with mm.iterate() as count:` {where(frame)}")
        if not sync:
            raise NotImplementedError("Matmul.get_tensor_c(sync=False) is not emulated")
        if loop.fetched:
            raise LaunchError(f"Matmul.get_tensor_c: block {loop.current} was already fetched; "
                              f"call it once per iterate() pass {where(frame)}")
        loop.job.write(dst, loop.current, bool(int(en_atomic)), bool(en_sequential_write), frame)
        loop.fetched = True

    def __getattr__(self, name: str) -> Any:
        if name in _UNEMULATED_METHODS:
            raise NotImplementedError(f"Matmul.{name} is part of pyasc but ascendlab does not "
                                      "emulate it yet; docs/adv.md lists what is emulated")
        raise AttributeError(f"'Matmul' object has no attribute {name!r}")

    def end(self) -> None:
        """Release the Matmul (pyasc: required before another Matmul object computes)."""
        self.ended = True
        self.loop = None

    def _job(self, op: str, sync: Any, frame: Any) -> Job:
        if self.engine is None:
            raise LaunchError(f"Matmul.{op}: no tiling; pass one to register_matmul or call "
                              f"mm.init(tiling) {where(frame)}")
        if not sync:
            raise NotImplementedError(f"Matmul.{op}(sync=False) is not emulated")
        if self.a_gm is None or self.b_gm is None:
            raise LaunchError(f"Matmul.{op}: set_tensor_a and set_tensor_b first "
                              f"{where(frame)}")
        if self.use_bias and self.bias_gm is None:
            raise LaunchError(f"Matmul.{op}: the tiling has is_bias=1 but no set_bias(...) "
                              f"{where(frame)}")
        if getattr(self, "sparse_index", None) is not None:
            raise NotImplementedError(f"Matmul.{op}: a sparse Matmul (set_sparse_index) is not "
                                      f"emulated {where(frame)}")
        if self.ended:
            self.ended = False  # pyasc allows computing again after end()
        return Job(self, frame)


def register_matmul(pipe: Any, *args: Any, **kwargs: Any) -> None:
    """register_matmul(pipe, workspace, mm, tiling=None) or register_matmul(pipe, mm[, tiling]):
    bind the Matmul to this core's cube core (and the workspace used for C in UB)."""
    frame = _getframe(1)
    names = ("workspace", "matmul", "tiling")
    vals: dict[str, Any] = {}
    rest = list(args)
    if rest and isinstance(rest[0], Matmul):
        rest.insert(0, None)
    for n, v in zip(names, rest):
        vals[n] = v
    for k, v in kwargs.items():
        if k not in names or k in vals and vals[k] is not None:
            raise TypeError(f"register_matmul() got an unexpected or repeated argument {k!r}")
        vals[k] = v
    mm = vals.get("matmul")
    if not isinstance(mm, Matmul):
        raise TypeError(f"register_matmul: expected an asc.adv.Matmul, got "
                        f"{type(mm).__name__}")
    mm._attach(vals.get("workspace"), vals.get("tiling"), frame)


def set_sys_workspace(workspace: Any) -> None:
    """asc.set_sys_workspace(ws): the GM scratch that Matmul objects registered without a
    workspace use."""
    c = _core.core()
    c.launch.workspace = workspace


__all__ = ["Matmul", "MatmulType", "MatmulConfig", "register_matmul", "set_sys_workspace"]
