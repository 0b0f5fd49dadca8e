"""The cube-side engine of asc.adv.Matmul (matmul.py): one tiling's L1/L0 buffers, tile
cache and pipe flags on a cube core (Engine; A's and B's state in an Operand each, every flag's
set/wait events built once in a Flag), and one iterate_all / iterate sequence of a
client (Job) with the cross-core messages of MIX kernels. Per block, the traced GM -> L1 ->
L0A/L0B -> mmad -> L0C schedule is Job's Schedule half in matmul_schedule.py; the write-back
(fixpipe, the copy of C into UB) its WriteBack half in matmul_writeback.py. docs/adv.md has
the rules.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import LaunchError
from ..runtime.core import CoreState, emit, on_core
from ..runtime.cube.mmad import FRACTAL
from ..runtime.framework.tpipe import reserve_top
from ..runtime.memory.checks import gm_span
from ..runtime.memory.tensor import GlobalTensor
from ..runtime.trace import Sync
from . import tiling as host_tiling
from .matmul_schedule import Schedule, _f32  # noqa: F401  (_f32: the tests use it here)
from .matmul_writeback import WriteBack, _ceil, where

if TYPE_CHECKING:
    from .matmul import Matmul

_new = tuple.__new__


# ---- the cube-side engine: buffers, flags, one block ----------------------------------------
_SERIALS = itertools.count()  # Job serial numbers

class Flag:
    """One Matmul buffer's flag from pipe `src` to pipe `dst`: its set_flag and wait_flag
    events per slot (Sync key ("mm", engine uid, buffer, slot)), built once."""

    __slots__ = ("c", "src", "dst", "sets", "waits", "args")

    def __init__(self, c: CoreState, uid: int, src: str, dst: str, buf: str,
                 slots: int) -> None:
        self.c, self.src, self.dst = c, src, dst
        keys = [("mm", uid, buf, s) for s in range(slots)]
        self.sets = [_new(Sync, ("set", src, dst, k, False)) for k in keys]
        self.waits = [_new(Sync, ("wait", src, dst, k, False)) for k in keys]
        self.args = [(("event", f"{src}_{dst}"), ("event_id", s), ("adv", f"Matmul {buf}"))
                     for s in range(slots)]

    def set(self, slot: int, frame: Any) -> None:
        emit(self.c, self.src, "set_flag", (), (), 0, "", 0, frame, self.sets[slot],
             self.args[slot])

    def wait(self, slot: int, frame: Any) -> None:
        emit(self.c, self.dst, "wait_flag", (), (), 0, "", 0, frame, self.waits[slot],
             self.args[slot])


class Operand:
    """A or B on one engine: its L1 slots (a round-robin tile cache) and L0A/L0B slots, the
    state of each and the flags between MTE2, MTE1 and M that guard them."""

    def __init__(self, c: CoreState, uid: int, which: str, l1: list[int], l1_bytes: int,
                 l0: list[int]) -> None:
        self.which = which
        self.l1, self.l1_bytes, self.l0 = l1, l1_bytes, l0
        self.l1_name, self.l0_name, self.space = f"mm.{which}1", f"mm.{which}2", f"L0{which}"
        self.res: list[Any] = [None] * len(l1)  # slot -> key of the resident tile
        self.next1 = 0  # the next L1 slot to load into
        self.pending = [False] * len(l1)  # a load's RAW flag not yet consumed by MTE1
        self.used1 = [False] * len(l1)  # a WAR flag to wait on before reloading
        self.next2 = 0
        self.used2 = [False] * len(l0)
        self.l1_ready = Flag(c, uid, "MTE2", "MTE1", which + "1", len(l1))
        self.l1_free = Flag(c, uid, "MTE1", "MTE2", which + "1", len(l1))
        self.l0_ready = Flag(c, uid, "MTE1", "M", which + "2", len(l0))
        self.l0_free = Flag(c, uid, "M", "MTE1", which + "2", len(l0))


class Engine:
    """One Matmul configuration on one cube core: its L1/L0 buffers, tile cache and flags."""

    def __init__(self, mm: Matmul, server: CoreState, uid: int) -> None:
        t = mm.tiling
        # the values the engine uses (defaults for hand-filled zero fields applied)
        self.plan = p = host_tiling.effective(t, mm.at.itemsize, mm.bt.itemsize, server.chip)
        self.c = server
        self.uid = uid  # tells this engine's flags apart from another Matmul's
        ai, bi = mm.at.itemsize, mm.bt.itemsize
        c0a, c0b = 32 // ai, 32 // bi
        a1 = _ceil(p.step_m * p.base_m, 16) * _ceil(p.step_ka * p.base_k, c0a) * ai
        b1 = _ceil(p.step_kb * p.base_k, 16) * _ceil(p.step_n * p.base_n, c0b) * bi
        a2 = _ceil(p.base_m, 16) * _ceil(p.base_k, c0a) * ai
        b2 = _ceil(p.base_k, c0b) * _ceil(p.base_n, 16) * bi
        c2 = _ceil(p.base_m, 16) * _ceil(p.base_n, 16) * 4
        what = f"asc.adv.Matmul buffers on cube core {server.idx}"
        a1s = [reserve_top(server, "L1", _ceil(a1, FRACTAL), what, FRACTAL)
               for _ in range(p.l1_buffers_a)]
        b1s = [reserve_top(server, "L1", _ceil(b1, FRACTAL), what, FRACTAL)
               for _ in range(p.l1_buffers_b)]
        self.bias1 = -1  # the bias row in L1, taken when a job first has a bias
        self.bias_bytes = _ceil(p.base_n * 4 * p.step_n, 64)
        self.what = what
        a2s = [reserve_top(server, "L0A", _ceil(a2, FRACTAL), what, FRACTAL)
               for _ in range(p.db_l0a)]
        b2s = [reserve_top(server, "L0B", _ceil(b2, FRACTAL), what, FRACTAL)
               for _ in range(p.db_l0b)]
        self.c2 = [reserve_top(server, "L0C", _ceil(c2, 1024), what, 1024)
                   for _ in range(p.db_l0c)]
        self.A = Operand(server, uid, "A", a1s, a1, a2s)
        self.B = Operand(server, uid, "B", b1s, b1, b2s)
        self.next_c2 = 0
        self.used_c2 = [False] * p.db_l0c
        self.c2_ready = Flag(server, uid, "M", "FIX", "CO1", p.db_l0c)
        self.c2_free = Flag(server, uid, "FIX", "M", "CO1", p.db_l0c)
        self.bias_used = False
        self.bias_ready = Flag(server, uid, "MTE2", "M", "BIAS", 1)
        self.bias_free = Flag(server, uid, "M", "MTE2", "BIAS", 1)


def engine_for(mm: Matmul, frame: Any) -> Engine:
    """The server's engine for this tiling (shared by the two vector cores of a group)."""
    server = mm.server
    t = mm.tiling
    key = ("mm", int(t.base_m), int(t.base_n), int(t.base_k), int(t.depth_a1),
           int(t.depth_b1), int(t.step_m), int(t.step_n), int(t.step_k_a), int(t.step_k_b),
           int(t.db_l0a), int(t.db_l0b), int(t.db_l0c), mm.at.name, mm.bt.name)
    lib = server.lib
    eng = lib.get(key)
    if eng is None:
        with on_core(server):
            eng = lib[key] = Engine(mm, server, sum(k[0] == "mm" for k in lib))
    return eng


class Loop:
    """`with mm.iterate() as count:` (rewritten by the kernel compiler into a for loop)."""

    def __init__(self, job: Job, frame: Any) -> None:
        self.job = job
        self.frame = frame
        self.current = -1
        self.fetched = True

    def __iter__(self) -> Any:
        job = self.job
        for count in range(job.blocks):
            if not self.fetched:
                raise LaunchError(f"Matmul.iterate: block {self.current} was computed but never "
                                  f"fetched; call mm.get_tensor_c(...) in every pass "
                                  f"{where(self.frame)}")
            job.request(self.frame)
            job.compute(count, self.frame)
            self.current = count
            self.fetched = False
            yield count
        if not self.fetched:
            raise LaunchError(f"Matmul.iterate: the last block was never fetched; call "
                              f"mm.get_tensor_c(...) in every pass {where(self.frame)}")
        self.current = -1

    def __enter__(self) -> Any:
        raise LaunchError("`with mm.iterate() as count:` loops only inside an @asc.jit kernel "
                          "(the kernel compiler turns it into a loop over the blocks)")

    def __exit__(self, *exc: Any) -> None:
        return None


class Job(Schedule, WriteBack):
    """One iterate_all / iterate pass sequence of a Matmul on this core."""

    def __init__(self, mm: Matmul, frame: Any) -> None:
        self.mm = mm
        self.eng = eng = mm.engine
        t = mm.tiling
        p = eng.plan
        sm, sn, sk = int(t.single_core_m), int(t.single_core_n), int(t.single_core_k)
        tm, tn, tk = mm.tail
        self.m = tm if tm > 0 else sm
        self.n = tn if tn > 0 else sn
        self.k = tk if tk > 0 else sk
        org = mm.org or (int(t.m), int(t.n), int(t.k_a), int(t.k_b), 0)
        self.lda = org[2]  # A row stride (elements)
        self.ldb = org[1]  # B row stride
        self.ldc = org[4] or org[1]  # C row stride
        self.m_iter = -(-self.m // p.base_m)
        self.n_iter = -(-self.n // p.base_n)
        self.k_iter = -(-self.k // p.base_k)
        self.blocks = self.m_iter * self.n_iter
        self.client = mm.client
        self.server = eng.c
        self.remote = self.server is not self.client
        self.cslot = -1
        self.serial = next(_SERIALS)  # names its L1 tiles (an id() could be reused)
        self.acc: np.ndarray | None = None
        self.block = (0, 0, 0, 0)  # m0, n0, rows, cols of the block in L0C
        self.operands = ((mm.a_gm, self.m, self.k, self.lda, "A"),
                         (mm.b_gm, self.k, self.n, self.ldb, "B"))
        if mm.use_bias:
            self.operands += ((mm.bias_gm, 1, self.n, self.n, "bias"),)
        self.bias = mm.use_bias
        with on_core(self.server):
            for op in self.operands:
                _check_operand(self.server, *op, frame)
        self.requests = 0

    # ---- cross-core messages ------------------------------------------------------------
    def request(self, frame: Any) -> None:
        """The client asks its cube core for the next block (MIX only)."""
        if not self.remote:
            return
        cl, sv = self.client, self.server
        key = ("xcore", cl.idx, sv.idx, "request")
        # after a block was copied out of the workspace, the request waits for that copy
        pipe = "MTE2" if self.requests and self.mm.c_in_ub else "S"
        emit(cl, pipe, "mm_request", (), (), 0, "", 0, frame,
             _new(Sync, ("xset", pipe, "S", key, False)), (("adv", "Matmul"), ("to", sv.idx)))
        emit(sv, "S", "mm_serve", (), (), 0, "", 0, frame,
             _new(Sync, ("xwait", pipe, "S", key, False)), (("adv", "Matmul"), ("from", cl.idx)))
        self.requests += 1

    def _done(self, frame: Any) -> None:
        """The cube core's write-back is done: release the client (MIX only)."""
        if not self.remote:
            return
        cl, sv = self.client, self.server
        key = ("xcore", sv.idx, cl.idx, "done")
        emit(sv, "FIX", "mm_done", (), (), 0, "", 0, frame,
             _new(Sync, ("xset", "FIX", "S", key, False)), (("adv", "Matmul"), ("to", cl.idx)))
        emit(cl, "S", "mm_wait_result", (), (), 0, "", 0, frame,
             _new(Sync, ("xwait", "FIX", "S", key, False)), (("adv", "Matmul"), ("from", sv.idx)))

    # ---- one block -----------------------------------------------------------------------
    def coords(self, count: int) -> tuple[int, int]:
        if self.eng.plan.iterate_order == 1:
            return count // self.n_iter, count % self.n_iter
        return count % self.m_iter, count // self.m_iter


def _check_operand(c: CoreState, g: GlobalTensor, rows: int, cols: int, ld: int, what: str,
                   frame: Any) -> None:
    """An operand that runs past its argument is a memcheck finding (strict: an error), as a
    data_copy's would be."""
    if rows <= 0 or cols <= 0:
        raise ValueError(f"Matmul: {what} is {rows} x {cols}: the block shape (tiling or "
                         f"set_tail) must be positive {where(frame)}")
    end = ((rows - 1) * ld + cols) * g.dtype.itemsize
    if g.offset < 0 or g.offset + end > g.alloc.nbytes:
        gm_span(c, g, 0, end, f"Matmul ({what})", frame)
