"""The cube-side engine of asc.adv.Matmul (matmul.py): one tiling's L1/L0 buffers, tile
cache and pipe flags on a cube core (Engine), and one iterate_all / iterate sequence of a
client (Job): per block, the traced GM -> L1 -> L0A/L0B -> mmad -> L0C schedule and the
cross-core messages of MIX kernels; the write-back (fixpipe, the copy of C into UB) is Job's
WriteBack half in matmul_writeback.py. docs/adv.md has the rules.
"""

from __future__ import annotations

from itertools import count as _count
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import LaunchError
from ..runtime.core import CoreState, access, emit, on_core
from ..runtime.cube import _MMAD_RATE, FRACTAL
from ..runtime.dma import _gm_span
from ..runtime.dtypes import DataType
from ..runtime.queue import reserve_top
from ..runtime.tensor import GlobalTensor
from ..runtime.trace import Sync
from . import tiling as host_tiling
from .matmul_writeback import WriteBack, _ceil, where

if TYPE_CHECKING:
    from .matmul import Matmul

_new = tuple.__new__
# tile-cache owner of each Job: id(job) would be reused once a finished job is freed, and the next
# job (a second iterate_all) would then find the first one's tiles resident
_JOB_IDS = _count()
_as_strided = np.lib.stride_tricks.as_strided


# ---- the cube-side engine: buffers, flags, one block ----------------------------------------
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
        self.a1 = [reserve_top(server, "L1", _ceil(a1, FRACTAL), what, FRACTAL)
                   for _ in range(p.l1_buffers_a)]
        self.b1 = [reserve_top(server, "L1", _ceil(b1, FRACTAL), what, FRACTAL)
                   for _ in range(p.l1_buffers_b)]
        self.bias1 = -1  # the bias row in L1, taken when a job first has a bias
        self.bias_bytes = _ceil(p.base_n * 4 * p.step_n, 64)
        self.what = what
        self.a2 = [reserve_top(server, "L0A", _ceil(a2, FRACTAL), what, FRACTAL)
                   for _ in range(p.db_l0a)]
        self.b2 = [reserve_top(server, "L0B", _ceil(b2, FRACTAL), what, FRACTAL)
                   for _ in range(p.db_l0b)]
        self.c2 = [reserve_top(server, "L0C", _ceil(c2, 1024), what, 1024)
                   for _ in range(p.db_l0c)]
        self.sizes = {"A1": a1, "B1": b1, "A2": a2, "B2": b2, "CO1": c2}
        # tile caches: slot -> key of the resident tile; round-robin victims
        self.res_a: list[Any] = [None] * p.l1_buffers_a
        self.res_b: list[Any] = [None] * p.l1_buffers_b
        self.next_l1 = {"A": 0, "B": 0}  # the next L1 slot to load into
        self.pending_a = [False] * p.l1_buffers_a  # a load's RAW flag not yet consumed by MTE1
        self.pending_b = [False] * p.l1_buffers_b
        self.used_a1 = [False] * p.l1_buffers_a  # a WAR flag to wait on before reloading
        self.used_b1 = [False] * p.l1_buffers_b
        self.next_a2 = self.next_b2 = self.next_c2 = 0
        self.used_a2 = [False] * p.db_l0a
        self.used_b2 = [False] * p.db_l0b
        self.used_c2 = [False] * p.db_l0c
        self.bias_used = False
        self.flags: dict[tuple, tuple[Sync, Sync, tuple]] = {}

    # ---- flags ---------------------------------------------------------------------------
    def _flag(self, src: str, dst: str, buf: str, slot: int) -> tuple[Sync, Sync, tuple]:
        key = (src, dst, buf, slot)
        f = self.flags.get(key)
        if f is None:
            k = ("mm", self.uid, buf, slot)
            f = self.flags[key] = (_new(Sync, ("set", src, dst, k, False)),
                                   _new(Sync, ("wait", src, dst, k, False)),
                                   (("event", f"{src}_{dst}"), ("event_id", slot),
                                    ("adv", f"Matmul {buf}")))
        return f

    def set(self, src: str, dst: str, buf: str, slot: int, frame: Any) -> None:
        s, _w, args = self._flag(src, dst, buf, slot)
        emit(self.c, src, "set_flag", (), (), 0, "", 0, frame, s, args)

    def wait(self, src: str, dst: str, buf: str, slot: int, frame: Any) -> None:
        _s, w, args = self._flag(src, dst, buf, slot)
        emit(self.c, dst, "wait_flag", (), (), 0, "", 0, frame, w, args)


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


class Job(WriteBack):
    """One iterate_all / iterate pass sequence of a Matmul on this core."""

    def __init__(self, mm: Matmul, frame: Any) -> None:
        self.mm = mm
        self.owner = next(_JOB_IDS)
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

    def compute(self, count: int, frame: Any) -> None:
        """Block `count` into L0C: its K slices through L1 and L0 (cube core)."""
        eng = self.eng
        p = eng.plan
        mi, ni = self.coords(count)
        m0, n0 = mi * p.base_m, ni * p.base_n
        rows = min(p.base_m, self.m - m0)
        cols = min(p.base_n, self.n - n0)
        with on_core(self.server) as sv:
            cs = eng.next_c2
            eng.next_c2 = (cs + 1) % p.db_l0c
            if eng.used_c2[cs]:
                eng.wait("FIX", "M", "CO1", cs, frame)
            eng.used_c2[cs] = True
            self.cslot = cs
            # the operands' float32 values (fp16 products are exact in float32), converted
            # once per launch and per content of their GM argument
            a, b = _f32(*self.operands[0][:4]), _f32(*self.operands[1][:4])
            acc = np.zeros((rows, cols), np.float32)
            if self.bias:
                self._load_bias(n0, cols, frame)
                acc += _f32(*self.operands[2][:4])[0, n0:n0 + cols]
            for kk in range(self.k_iter):
                k0 = kk * p.base_k
                kl = min(p.base_k, self.k - k0)
                sa = self._l1("A", mi, kk, frame)
                sb = self._l1("B", ni, kk, frame)
                pa = self._l0(sv, "A", sa, mi, kk, rows, kl, frame)
                pb = self._l0(sv, "B", sb, ni, kk, kl, cols, frame)
                eng.wait("MTE1", "M", "A2", pa, frame)
                eng.wait("MTE1", "M", "B2", pb, frame)
                acc += a[m0:m0 + rows, k0:k0 + kl] @ b[k0:k0 + kl, n0:n0 + cols]
                self._mmad(sv, pa, pb, cs, rows, cols, kl, kk == 0, frame)
                eng.set("M", "MTE1", "A2", pa, frame)
                eng.set("M", "MTE1", "B2", pb, frame)
                self._release_l1(kk, mi, ni, frame)
            eng.set("M", "FIX", "CO1", cs, frame)
        self.acc = acc
        self.block = (m0, n0, rows, cols)

    def _load_bias(self, n0: int, cols: int, frame: Any) -> None:
        eng = self.eng
        sv = self.server
        if eng.bias_used:
            eng.wait("M", "MTE2", "BIAS", 0, frame)
        eng.bias_used = True
        if eng.bias1 < 0:
            eng.bias1 = reserve_top(sv, "L1", eng.bias_bytes, eng.what, 64)
        g = self.mm.bias_gm
        a = g.alloc
        emit(sv, "MTE2", "data_copy", (access("GM", a.base + g.offset + n0 * 4, cols * 4,
                                              a.name),),
             (access("L1", eng.bias1, _ceil(cols * 4, 32), "mm.bias"),), cols, "float32", 1,
             frame, None, (("adv", "Matmul bias"),))
        eng.set("MTE2", "M", "BIAS", 0, frame)
        eng.wait("MTE2", "M", "BIAS", 0, frame)

    def _l1(self, which: str, i: int, kk: int, frame: Any) -> int:
        """The L1 slot holding the `which` ("A" or "B") tile of block row (A) or column (B) i
        for K slice kk: reused while resident, else loaded (GM -> L1, ND -> NZ) into the next
        slot once MTE1 has released it."""
        eng, p, mm = self.eng, self.eng.plan, self.mm
        if which == "A":
            step, base, step_k, extent = p.step_m, p.base_m, p.step_ka, self.m
            res, used, pending, bufs = eng.res_a, eng.used_a1, eng.pending_a, eng.a1
        else:
            step, base, step_k, extent = p.step_n, p.base_n, p.step_kb, self.n
            res, used, pending, bufs = eng.res_b, eng.used_b1, eng.pending_b, eng.b1
        key = (self.owner, i // step, kk // step_k)
        if key in res:  # still resident: reuse it
            s = res.index(key)
            if used[s]:  # its slot was released after an earlier use: take it back
                eng.wait("MTE1", "MTE2", which + "1", s, frame)
                used[s] = False
            return s
        s = eng.next_l1[which]
        eng.next_l1[which] = (s + 1) % len(res)
        if used[s]:
            eng.wait("MTE1", "MTE2", which + "1", s, frame)
            used[s] = False
        res[s] = key
        g0 = (i // step) * step * base
        k0 = (kk // step_k) * step_k * p.base_k
        span = min(step * base, extent - g0)
        kl = min(step_k * p.base_k, self.k - k0)
        if which == "A":  # rows g0.. of A (m x k)
            self._nd2nz(mm.a_gm, self.lda, g0, k0, span, kl, mm.at, bufs[s], eng.sizes["A1"],
                        "mm.A1", frame)
        else:  # columns g0.. of B (k x n)
            self._nd2nz(mm.b_gm, self.ldb, k0, g0, kl, span, mm.bt, bufs[s], eng.sizes["B1"],
                        "mm.B1", frame)
        eng.set("MTE2", "MTE1", which + "1", s, frame)
        pending[s] = True
        return s

    def _nd2nz(self, g: GlobalTensor, ld: int, r0: int, c0_: int, rows: int, cols: int,
               dt: DataType, addr: int, nbytes: int, name: str, frame: Any) -> None:
        """The GM -> L1 (ND -> NZ) copy of a rows x cols tile starting at (r0, c0_): it fills
        the whole L1 tile (NZ fractals padded with zeros)."""
        isz = dt.itemsize
        a = g.alloc
        start = g.offset + (r0 * ld + c0_) * isz
        emit(self.server, "MTE2", "data_copy",
             (access("GM", a.base + start, cols * isz, a.name, rows, ld * isz),),
             (access("L1", addr, nbytes, name),), rows * cols, dt.name, rows, frame, None,
             (("adv", "Matmul ND2NZ"), ("rows", rows), ("cols", cols)))

    def _l0(self, sv: CoreState, which: str, s1: int, i: int, kk: int, rows: int, cols: int,
            frame: Any) -> int:
        """load_data of one slice from L1 slot s1 into the next L0A/L0B slot."""
        eng, p = self.eng, self.eng.plan
        # the slice's place in the NZ tile: column blocks of c0 elements (32 B per row), each
        # as tall as the tile's rows rounded up to 16
        if which == "A":
            slot = eng.next_a2
            eng.next_a2 = (slot + 1) % p.db_l0a
            used, pend, l0, l1 = eng.used_a2, eng.pending_a, eng.a2, eng.a1
            dt, space, c0 = self.mm.at, "L0A", 32 // self.mm.at.itemsize
            frac = -(-rows // 16) * -(-cols // c0)
            tall = _ceil(p.step_m * p.base_m, 16)
            sub = (kk % p.step_ka) * (p.base_k // c0) * tall * 32 + (i % p.step_m) * p.base_m * 32
            src = (l1[s1] + sub, _ceil(rows, 16) * 32, -(-cols // c0), tall * 32)
        else:
            slot = eng.next_b2
            eng.next_b2 = (slot + 1) % p.db_l0b
            used, pend, l0, l1 = eng.used_b2, eng.pending_b, eng.b2, eng.b1
            dt, space, c0 = self.mm.bt, "L0B", 32 // self.mm.bt.itemsize
            frac = -(-rows // c0) * -(-cols // 16)
            tall = _ceil(p.step_kb * p.base_k, 16)
            sub = (i % p.step_n) * (p.base_n // c0) * tall * 32 + (kk % p.step_kb) * p.base_k * 32
            src = (l1[s1] + sub, _ceil(rows, 16) * 32, -(-cols // c0), tall * 32)
        buf = which + "2"
        if used[slot]:
            eng.wait("M", "MTE1", buf, slot, frame)
        used[slot] = True
        if pend[s1]:
            eng.wait("MTE2", "MTE1", which + "1", s1, frame)
            pend[s1] = False
        nbytes = frac * FRACTAL
        emit(sv, "MTE1", "load_data",
             (access("L1", src[0], src[1], f"mm.{which}1", src[2], src[3]),),
             (access(space, l0[slot], nbytes, f"mm.{buf}"),), nbytes // dt.itemsize, dt.name,
             frac, frame, None, (("adv", "Matmul"), ("fractals", frac)))
        eng.set("MTE1", "M", buf, slot, frame)
        return slot

    def _mmad(self, sv: CoreState, pa: int, pb: int, cs: int, m: int, n: int, k: int,
              first: bool, frame: Any) -> None:
        eng = self.eng
        at = self.mm.at
        c0 = 32 // at.itemsize
        m1, n1, k1 = -(-m // 16), -(-n // 16), -(-k // c0)
        a_bytes, b_bytes = m1 * k1 * FRACTAL, k1 * n1 * FRACTAL
        c_acc = access("L0C", eng.c2[cs], m1 * n1 * 1024, "mm.CO1")
        reads = (access("L0A", eng.a2[pa], a_bytes, "mm.A2"),
                 access("L0B", eng.b2[pb], b_bytes, "mm.B2"))
        bias_first = first and self.bias
        if bias_first:
            reads += (access("L1", eng.bias1, _ceil(n * 4, 32), "mm.bias"),)
        elif not first:
            reads += (c_acc,)
        emit(sv, "M", "mmad", reads, (c_acc,), m * n * k, at.name, m1 * n1 * k1, frame, None,
             (("m", m), ("n", n), ("k", k), ("init", first), ("rate", _MMAD_RATE[at.name]),
              ("adv", "Matmul")))
        if bias_first:
            eng.set("M", "MTE2", "BIAS", 0, frame)

    def _release_l1(self, kk: int, mi: int, ni: int, frame: Any) -> None:
        """After the last slice of an L1 tile for this block, let MTE2 reuse its slot (the
        tile stays cached until the slot is taken)."""
        eng, p = self.eng, self.eng.plan
        last_k = kk == self.k_iter - 1
        if last_k or (kk + 1) % p.step_ka == 0:
            s = eng.res_a.index((self.owner, mi // p.step_m, kk // p.step_ka))
            if not eng.used_a1[s]:
                eng.set("MTE1", "MTE2", "A1", s, frame)
                eng.used_a1[s] = True
        if last_k or (kk + 1) % p.step_kb == 0:
            s = eng.res_b.index((self.owner, ni // p.step_n, kk // p.step_kb))
            if not eng.used_b1[s]:
                eng.set("MTE1", "MTE2", "B1", s, frame)
                eng.used_b1[s] = True


def _check_operand(c: CoreState, g: GlobalTensor, rows: int, cols: int, ld: int, what: str,
                   frame: Any) -> None:
    """An operand that runs past its argument is a memcheck finding (strict: an error), as a
    data_copy's would be."""
    if rows <= 0 or cols <= 0:
        raise ValueError(f"Matmul: {what} is {rows} x {cols}: the block shape (tiling or "
                         f"set_tail) must be positive {where(frame)}")
    end = ((rows - 1) * ld + cols) * g.dtype.itemsize
    if g.offset < 0 or g.offset + end > g.alloc.nbytes:
        _gm_span(c, g, 0, end, f"Matmul ({what})", frame)


def _gm_matrix(g: GlobalTensor, rows: int, cols: int, ld: int) -> np.ndarray:
    """A rows x cols (row stride ld elements) view of a GM operand as it is now."""
    a = g.alloc
    isz = g.dtype.itemsize
    return np.ndarray((rows, cols), g.dtype.np, a.buf, a.idx0 + g.offset, (ld * isz, isz))


def _f32(g: GlobalTensor, rows: int, cols: int, ld: int) -> np.ndarray:
    """A float32 copy of _gm_matrix(g, rows, cols, ld), made once per content of g's argument:
    it is kept in GMAlloc.derived and remade after any write into the argument (its version)."""
    a = g.alloc
    key = ("f32", g.offset, rows, cols, ld, g.dtype.name)
    got = a.derived.get(key)
    if got is None or got[0] != a.version:
        got = a.derived[key] = (a.version, _gm_matrix(g, rows, cols, ld).astype(np.float32))
    return got[1]
