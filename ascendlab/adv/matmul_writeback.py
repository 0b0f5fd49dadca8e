"""The write-back half of a Matmul Job (matmul_engine.py): the block in L0C fixpiped to GM,
or through the register_matmul workspace into a vector core's UB, with the client's flags."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import LaunchError, OutOfBoundsError
from ..runtime import core as _core
from ..runtime.core import CoreState, access, emit, on_core
from ..runtime.memory.checks import gm_span, local_span
from ..runtime.memory.gm import GlobalAddress
from ..runtime.memory.tensor import GlobalTensor, LocalTensor
from ..runtime.trace import Sync

_new = tuple.__new__
_as_strided = np.lib.stride_tricks.as_strided


def as_global(x: Any, what: str) -> GlobalTensor:
    """A GlobalTensor for a Matmul operand given as a GlobalTensor or a GlobalAddress."""
    if isinstance(x, GlobalTensor):
        if x.alloc is None:
            raise LaunchError(f"{what}: GlobalTensor used before set_global_buffer")
        return x
    if isinstance(x, GlobalAddress):
        g = GlobalTensor()
        g.set_global_buffer(x)
        return g
    raise TypeError(f"{what}: expected a GlobalTensor or GlobalAddress, got {type(x).__name__}")


def where(frame: Any) -> str:
    """The "[core 3, file:line]" suffix for errors raised at the user's call."""
    c = _core.current
    return _core.where(c, frame) if c is not None else ""


def _ceil(x: int, a: int) -> int:
    return -(-x // a) * a


class WriteBack:
    """Job's methods that move a finished block out of L0C (Job sets every attribute used)."""

    mm: Any
    eng: Any
    block: tuple[int, int, int, int]
    acc: np.ndarray

    # ---- write-back --------------------------------------------------------------------
    def write(self, dst: Any, count: int, atomic: bool, sequential: bool, frame: Any,
              whole: bool = False, notify: bool = True) -> None:
        """Fixpipe the block in L0C to dst (GM), or through the workspace into dst (UB)."""
        mm, eng = self.mm, self.eng
        m0, n0, rows, cols = self.block
        ct = mm.ct
        out = self.acc.astype(ct.np) if ct.name != "float32" else self.acc
        if isinstance(dst, LocalTensor):
            self._to_ub(dst, out, rows, cols, m0, n0, whole, notify, frame)
            return
        g = as_global(dst, "Matmul output")
        if g.dtype != ct:
            raise TypeError(f"Matmul: C is {ct.name} but the output tensor is {g.dtype.name} "
                            f"{where(frame)}")
        r0, c0_ = (0, 0) if sequential else (m0, n0)
        ld = eng.plan.base_n if sequential else self.ldc
        with on_core(self.server) as sv:
            self._fixpipe(sv, g, r0, c0_, ld, out, atomic, frame)
            if notify:
                self._done(frame)

    def _fixpipe(self, sv: CoreState, g: GlobalTensor, r0: int, c0_: int, ld: int,
                 out: np.ndarray, atomic: bool, frame: Any) -> None:
        eng = self.eng
        rows, cols = out.shape
        eng.c2_ready.wait(self.cslot, frame)
        isz = g.dtype.itemsize
        start = g.offset + (r0 * ld + c0_) * isz
        end = start + ((rows - 1) * ld + cols) * isz
        if start < 0 or end > g.alloc.nbytes:
            gm_span(sv, g, start - g.offset, end - g.offset, "Matmul (fixpipe)", frame)
        a = g.alloc
        a.private()
        a.mark_written()
        view = _as_strided(a.buf[a.idx0 + start:], shape=(rows, cols * isz),
                           strides=(ld * isz, 1), writeable=True)
        data = out.view(np.uint8).reshape(rows, cols * isz) if out.flags.c_contiguous else \
            np.ascontiguousarray(out).view(np.uint8).reshape(rows, cols * isz)
        if atomic:
            cur = view.copy().view(g.dtype.np).reshape(rows, cols)
            data = (cur + out).astype(g.dtype.np).view(np.uint8).reshape(rows, cols * isz)
        view[...] = data
        c_acc = access("L0C", eng.c2[self.cslot], -(-rows // 16) * -(-cols // 16) * 1024,
                       "mm.CO1")
        reads = (c_acc,) + ((access("GM", a.base + start, cols * isz, a.name, rows, ld * isz),)
                            if atomic else ())
        emit(sv, "FIX", "fixpipe", reads,
             (access("GM", a.base + start, cols * isz, a.name, rows, ld * isz),),
             rows * cols, g.dtype.name, rows, frame, None,
             (("adv", "Matmul"), ("atomic", atomic), ("quant", "F322F16" if isz == 2 else
                                                      "NoQuant")))
        eng.c2_free.set(self.cslot, frame)

    def _to_ub(self, dst: LocalTensor, out: np.ndarray, rows: int, cols: int, m0: int, n0: int,
               whole: bool, notify: bool, frame: Any) -> None:
        """The block through the GM workspace into UB tensor dst: the cube core fixpipes it
        there, the client copies it into dst."""
        mm, eng = self.mm, self.eng
        cl = self.client
        ws = self._ub_checks(dst, frame)
        p = eng.plan
        isz = mm.ct.itemsize
        ld = p.base_n
        r0 = m0 if whole else 0
        c0_ = n0 if whole else 0
        if whole:
            ld = self.n
        slot_bytes = (self.m * self.n if whole else p.base_m * p.base_n) * isz
        slot = _ceil(slot_bytes, 512)
        base = cl.idx * slot if cl.launch.core_kind == "mix" else 0
        if ws.offset + base + slot > ws.alloc.nbytes:
            raise OutOfBoundsError(
                f"Matmul: the workspace ({ws.alloc.name}, {ws.alloc.nbytes - ws.offset} B) is too "
                f"small: vector core {cl.idx} needs bytes [{base}, {base + slot}) for its C "
                f"block {where(frame)}")
        wg = GlobalTensor()
        wg.alloc, wg.offset, wg.dtype, wg.size = ws.alloc, ws.offset + base, mm.ct, None
        with on_core(self.server) as sv:
            self._fixpipe(sv, wg, r0, c0_, ld, out, False, frame)
            if notify:
                self._done(frame)
        self._copy_in(dst, wg, r0, c0_, ld, rows, cols, frame)

    def _ub_checks(self, dst: LocalTensor, frame: Any) -> Any:
        """C in UB needs a vector core, a UB tensor of C's type and a workspace (returned)."""
        mm, cl = self.mm, self.client
        if cl.chip.layout == "separated" and cl.kind != "aiv":
            raise LaunchError(f"Matmul: C in UB needs a vector core; this is cube core "
                              f"{cl.idx} {where(frame)}")
        if dst.space != "UB":
            raise TypeError(f"Matmul: a LocalTensor output must be in UB (VECCALC/VECIN/VECOUT), "
                            f"got {dst.describe()} {where(frame)}")
        if dst.dtype != mm.ct:
            raise TypeError(f"Matmul: C is {mm.ct.name} but {dst.describe()} is "
                            f"{dst.dtype.name} {where(frame)}")
        ws = mm.workspace
        if ws is None:
            raise LaunchError(f"Matmul: C in UB goes through a GM workspace; pass one to "
                              f"register_matmul(pipe, workspace, mm, tiling) or call "
                              f"asc.set_sys_workspace(ws) {where(frame)}")
        return ws

    def _copy_in(self, dst: LocalTensor, wg: GlobalTensor, r0: int, c0_: int, ld: int,
                 rows: int, cols: int, frame: Any) -> None:
        """The client's MTE2 copy of its block from the workspace wg into dst, fenced before
        and handed to V after."""
        mm, cl = self.mm, self.client
        isz = mm.ct.itemsize
        # the client copies its block out of the workspace (MTE2), then hands it to V
        hi = ((r0 + rows - 1) * ld + c0_ + cols) * isz
        lo = (r0 * ld + c0_) * isz
        if dst.addr + hi > dst.hi:
            local_span(cl, dst, lo, hi, "Matmul.get_tensor_c", "dst", frame)
        # like the library, fence the UB tensor first: its earlier readers (MTE3 copy-out, V)
        # and writers finish before the copy overwrites it
        for src_pipe in ("MTE3", "V"):
            s_, w_, args_ = _ub_fence(src_pipe)
            emit(cl, src_pipe, "set_flag", (), (), 0, "", 0, frame, s_, args_)
            emit(cl, "MTE2", "wait_flag", (), (), 0, "", 0, frame, w_, args_)
        a = wg.alloc  # the workspace's argument
        src = _as_strided(a.buf[a.idx0 + wg.offset + lo:], shape=(rows, cols * isz),
                          strides=(ld * isz, 1), writeable=False)
        mem = cl.mem("UB")
        _as_strided(mem[dst.addr + lo:], shape=(rows, cols * isz), strides=(ld * isz, 1),
                    writeable=True)[...] = src
        emit(cl, "MTE2", "data_copy",
             (access("GM", a.base + wg.offset + lo, cols * isz, a.name, rows, ld * isz),),
             (access("UB", dst.addr + lo, cols * isz, dst.name, rows, ld * isz),),
             rows * cols, mm.ct.name, rows, frame, None, (("adv", "Matmul get_tensor_c"),))
        s, w, args = _ub_flag()
        emit(cl, "MTE2", "set_flag", (), (), 0, "", 0, frame, s, args)
        emit(cl, "V", "wait_flag", (), (), 0, "", 0, frame, w, args)
        cl.v_pending.clear()


_FLAGS: dict[str, tuple[Sync, Sync, tuple]] = {}


def _client_flag(src: str, dst: str, what: str) -> tuple[Sync, Sync, tuple]:
    """A vector core's flag around Matmul's copy of C into UB (one shared Sync per pair)."""
    f = _FLAGS.get(src + dst)
    if f is None:
        k = ("mm", -1, f"C_UB_{src}_{dst}", 0)
        f = _FLAGS[src + dst] = (_new(Sync, ("set", src, dst, k, False)),
                                 _new(Sync, ("wait", src, dst, k, False)),
                                 (("event", f"{src}_{dst}"), ("event_id", 0),
                                  ("adv", f"Matmul {what}")))
    return f


def _ub_flag() -> tuple[Sync, Sync, tuple]:
    return _client_flag("MTE2", "V", "C -> UB")


def _ub_fence(src: str) -> tuple[Sync, Sync, tuple]:
    return _client_flag(src, "MTE2", "UB fence")
