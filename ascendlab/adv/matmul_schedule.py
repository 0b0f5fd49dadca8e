"""The per-block half of a Matmul Job (matmul_engine.py): one base block's K slices through
L1 and L0A/L0B into L0C (GM -> L1 ND2NZ loads with the tile cache, load_data, mmad, the flags
between MTE2, MTE1, M and FIX) and the float32 arithmetic they stand for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..runtime.core import CoreState, access, emit, on_core
from ..runtime.cube.mmad import _MMAD_RATE, FRACTAL
from ..runtime.dtypes import DataType
from ..runtime.framework.tpipe import reserve_top
from ..runtime.memory.tensor import GlobalTensor
from .matmul_writeback import _ceil

if TYPE_CHECKING:
    from .matmul_engine import Operand


class Schedule:
    """Job's methods that compute one block (Job sets every attribute used and provides
    coords(count))."""

    mm: Any
    eng: Any
    server: CoreState
    operands: tuple
    bias: bool
    m: int
    n: int
    k: int
    lda: int
    ldb: int
    k_iter: int
    cslot: int
    serial: int
    acc: np.ndarray | None
    block: tuple[int, int, int, int]

    def compute(self, count: int, frame: Any) -> None:
        """Block `count` into L0C: its K slices through L1 and L0 (cube core)."""
        eng = self.eng
        p = eng.plan
        mi, ni = self.coords(count)
        m0, n0 = mi * p.base_m, ni * p.base_n
        rows = min(p.base_m, self.m - m0)
        cols = min(p.base_n, self.n - n0)
        A, B = eng.A, eng.B
        with on_core(self.server) as sv:
            cs = eng.next_c2
            eng.next_c2 = (cs + 1) % p.db_l0c
            if eng.used_c2[cs]:
                eng.c2_free.wait(cs, frame)
            eng.used_c2[cs] = True
            self.cslot = cs
            # the operands' float32 values (fp16 products are exact in float32), converted
            # once per launch and per content of their GM argument
            a, b = _f32(*self.operands[0][:4]), _f32(*self.operands[1][:4])
            a, b = a[m0:m0 + rows], b[:, n0:n0 + cols]  # this block's rows and columns
            acc = np.zeros((rows, cols), np.float32)
            if self.bias:
                self._load_bias(n0, cols, frame)
                acc += _f32(*self.operands[2][:4])[0, n0:n0 + cols]
            base_k, k = p.base_k, self.k
            for kk in range(self.k_iter):
                k0 = kk * base_k
                kl = min(base_k, k - k0)
                sa = self._l1(A, mi, kk, frame)
                sb = self._l1(B, ni, kk, frame)
                pa = self._l0(sv, A, sa, mi, kk, rows, kl, frame)
                pb = self._l0(sv, B, sb, ni, kk, kl, cols, frame)
                A.l0_ready.wait(pa, frame)
                B.l0_ready.wait(pb, frame)
                acc += a[:, k0:k0 + kl] @ b[k0:k0 + kl]
                self._mmad(sv, pa, pb, cs, rows, cols, kl, kk == 0, frame)
                A.l0_free.set(pa, frame)
                B.l0_free.set(pb, frame)
                self._release_l1(kk, mi, ni, frame)
            eng.c2_ready.set(cs, frame)
        self.acc = acc
        self.block = (m0, n0, rows, cols)

    def _load_bias(self, n0: int, cols: int, frame: Any) -> None:
        eng = self.eng
        sv = self.server
        if eng.bias_used:
            eng.bias_free.wait(0, frame)
        eng.bias_used = True
        if eng.bias1 < 0:
            eng.bias1 = reserve_top(sv, "L1", eng.bias_bytes, eng.what, 64)
        g = self.mm.bias_gm
        a = g.alloc
        emit(sv, "MTE2", "data_copy", (access("GM", a.base + g.offset + n0 * 4, cols * 4,
                                              a.name),),
             (access("L1", eng.bias1, _ceil(cols * 4, 32), "mm.bias"),), cols, "float32", 1,
             frame, None, (("adv", "Matmul bias"),))
        eng.bias_ready.set(0, frame)
        eng.bias_ready.wait(0, frame)

    def _l1(self, op: Operand, i: int, kk: int, frame: Any) -> int:
        """The L1 slot holding op's (A or B) tile of block row (A) or column (B) i for K slice
        kk: reused while resident, else loaded (GM -> L1, ND -> NZ) into the next slot once
        MTE1 has released it."""
        p = self.eng.plan
        is_a = op.which == "A"
        step, step_k = (p.step_m, p.step_ka) if is_a else (p.step_n, p.step_kb)
        key = (self.serial, i // step, kk // step_k)
        res, used = op.res, op.used1
        if key in res:  # still resident: reuse it
            s = res.index(key)
            if used[s]:  # its slot was released after an earlier use: take it back
                op.l1_free.wait(s, frame)
                used[s] = False
            return s
        s = op.next1
        op.next1 = (s + 1) % len(res)
        if used[s]:
            op.l1_free.wait(s, frame)
            used[s] = False
        res[s] = key
        base, extent = (p.base_m, self.m) if is_a else (p.base_n, self.n)
        g0 = (i // step) * step * base
        k0 = (kk // step_k) * step_k * p.base_k
        span = min(step * base, extent - g0)
        kl = min(step_k * p.base_k, self.k - k0)
        mm = self.mm
        if is_a:  # rows g0.. of A (m x k)
            self._nd2nz(mm.a_gm, self.lda, g0, k0, span, kl, mm.at, op, s, frame)
        else:  # columns g0.. of B (k x n)
            self._nd2nz(mm.b_gm, self.ldb, k0, g0, kl, span, mm.bt, op, s, frame)
        op.l1_ready.set(s, frame)
        op.pending[s] = True
        return s

    def _nd2nz(self, g: GlobalTensor, ld: int, r0: int, c0_: int, rows: int, cols: int,
               dt: DataType, op: Operand, slot: int, frame: Any) -> None:
        """The GM -> L1 (ND -> NZ) copy of a rows x cols tile starting at (r0, c0_) into op's
        L1 slot: it fills the whole L1 tile (NZ fractals padded with zeros)."""
        isz = dt.itemsize
        a = g.alloc
        start = g.offset + (r0 * ld + c0_) * isz
        emit(self.server, "MTE2", "data_copy",
             (access("GM", a.base + start, cols * isz, a.name, rows, ld * isz),),
             (access("L1", op.l1[slot], op.l1_bytes, op.l1_name),), rows * cols, dt.name,
             rows, frame, None, (("adv", "Matmul ND2NZ"), ("rows", rows), ("cols", cols)))

    def _l0(self, sv: CoreState, op: Operand, s1: int, i: int, kk: int, rows: int, cols: int,
            frame: Any) -> int:
        """load_data of one slice from op's L1 slot s1 into its next L0A/L0B slot."""
        p = self.eng.plan
        slot = op.next2
        op.next2 = (slot + 1) % len(op.l0)
        # the slice's place in the NZ tile: column blocks of c0 elements (32 B per row), each
        # as tall as the tile's rows rounded up to 16
        if op.which == "A":
            dt = self.mm.at
            c0 = 32 // dt.itemsize
            frac = -(-rows // 16) * -(-cols // c0)
            tall = _ceil(p.step_m * p.base_m, 16)
            sub = (kk % p.step_ka) * (p.base_k // c0) * tall * 32 + (i % p.step_m) * p.base_m * 32
        else:
            dt = self.mm.bt
            c0 = 32 // dt.itemsize
            frac = -(-rows // c0) * -(-cols // 16)
            tall = _ceil(p.step_kb * p.base_k, 16)
            sub = (i % p.step_n) * (p.base_n // c0) * tall * 32 + (kk % p.step_kb) * p.base_k * 32
        if op.used2[slot]:
            op.l0_free.wait(slot, frame)
        op.used2[slot] = True
        if op.pending[s1]:
            op.l1_ready.wait(s1, frame)
            op.pending[s1] = False
        nbytes = frac * FRACTAL
        emit(sv, "MTE1", "load_data",
             (access("L1", op.l1[s1] + sub, _ceil(rows, 16) * 32, op.l1_name, -(-cols // c0),
                     tall * 32),),
             (access(op.space, op.l0[slot], nbytes, op.l0_name),), nbytes // dt.itemsize,
             dt.name, frac, frame, None, (("adv", "Matmul"), ("fractals", frac)))
        op.l0_ready.set(slot, frame)
        return slot

    def _mmad(self, sv: CoreState, pa: int, pb: int, cs: int, m: int, n: int, k: int,
              first: bool, frame: Any) -> None:
        eng = self.eng
        at = self.mm.at
        c0 = 32 // at.itemsize
        m1, n1, k1 = -(-m // 16), -(-n // 16), -(-k // c0)
        a_bytes, b_bytes = m1 * k1 * FRACTAL, k1 * n1 * FRACTAL
        c_acc = access("L0C", eng.c2[cs], m1 * n1 * 1024, "mm.CO1")
        reads = (access("L0A", eng.A.l0[pa], a_bytes, "mm.A2"),
                 access("L0B", eng.B.l0[pb], b_bytes, "mm.B2"))
        bias_first = first and self.bias
        if bias_first:
            reads += (access("L1", eng.bias1, _ceil(n * 4, 32), "mm.bias"),)
        elif not first:
            reads += (c_acc,)
        emit(sv, "M", "mmad", reads, (c_acc,), m * n * k, at.name, m1 * n1 * k1, frame, None,
             (("m", m), ("n", n), ("k", k), ("init", first), ("rate", _MMAD_RATE[at.name]),
              ("adv", "Matmul")))
        if bias_first:
            eng.bias_free.set(0, frame)

    def _release_l1(self, kk: int, mi: int, ni: int, frame: Any) -> None:
        """After the last slice of an L1 tile for this block, let MTE2 reuse its slot (the
        tile stays cached until the slot is taken)."""
        eng, p = self.eng, self.eng.plan
        last_k = kk == self.k_iter - 1
        for op, i, step, step_k in ((eng.A, mi, p.step_m, p.step_ka),
                                    (eng.B, ni, p.step_n, p.step_kb)):
            if last_k or (kk + 1) % step_k == 0:
                s = op.res.index((self.serial, i // step, kk // step_k))
                if not op.used1[s]:
                    op.l1_free.set(s, frame)
                    op.used1[s] = True


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
