"""The instruction sequence of Ascend C's SoftMax (ND, Atlas A2 / v220) as trace templates,
for adv.softmax (softmax.py computes the result; this module says what the chip would issue).

Sources (asc-devkit impl/adv_api/detail/activation/softmax/): membase/v220/softmax_impl.h
(SoftMaxNDImpl), membase/common/softmax_impl/softmax_generic_nd_impl.h (SoftMaxGenericNDImpl,
SoftMaxNDExtImpl: the chunk loop), membase/v220/softmax_common_impl/softmax_common_nd_reduce.h
(NewReduceMaxLastNDImpl / NewReduceSumLastNDImpl, BigBlockReduce*, NextBlock*Impl),
softmax_common_broadcast.h (AlignedBroadCastImpl: brcb + copy) and softmax_common_arithmetic.h
(GenericSubNDImpl / GenericDivNDImpl: by 32 B columns when k < 192, else by rows).

A template instruction is (op, reads, writes, count, dtype, repeats, sync, args); an access is
(role, byte offset, nbytes, count, stride) with role one of SRC, DST, SUM, MAX, TMP (the work
buffer), resolved against the operands' addresses by `events`. Every instruction is a PIPE_V
one; pipe_barrier(PIPE_V) sits between dependent steps as the library issues it.
"""

from __future__ import annotations

from functools import lru_cache

from ..runtime.trace import Access, Sync, event

_new = tuple.__new__
F32 = "float32"
ADV = ("adv", "softmax")
BARRIER = Sync("barrier", "V", "V", ("barrier",), False)
BARRIER_ARGS = (("pipe", "PIPE_V"), ADV)
SRC, DST, SUM, MAX, TMP = range(5)  # operand roles

# The instructions the routine issues without a pyasc-facing form (brcb, copy,
# block_reduce_*) are registered in trace.OPS by the runtime (vector/elementwise.py,
# vector/reduce.py), so a trace costs the same whether or not this module was imported.


@lru_cache(maxsize=64)
def events(key: tuple, bases: tuple, names: tuple, core: int, file: str, line: int,
           first_args: tuple) -> tuple[tuple, tuple]:
    """The Events of _program(*key) on these operands (a loop over tiles reuses the same few
    buffer slots, so this is cached), and the accesses of its last step, which stay pending for
    the implicit PIPE_V barrier before the kernel's next vector instruction."""
    prog, tail_from = _program(*key)
    out = []
    pending = []
    for i, (op, rd, wr, count, dtype, repeats, sync, args) in enumerate(prog):
        reads = tuple([_new(Access, ("UB", bases[r] + o, nb, names[r], n, st))
                       for r, o, nb, n, st in rd])
        writes = tuple([_new(Access, ("UB", bases[r] + o, nb, names[r], n, st))
                        for r, o, nb, n, st in wr])
        out.append(event(core, "V", op, reads, writes, count, dtype, repeats, file, line, sync,
                         first_args if i == 0 else args))
        if i >= tail_from:
            pending.extend(("UB", a.addr, a.end, False) for a in reads)
            pending.extend(("UB", a.addr, a.end, True) for a in writes)
    return tuple(out), tuple(pending)


class _Prog:
    """Builds an instruction template: accesses are (role, byte offset, nbytes, count,
    stride) resolved against the operands' addresses by events."""

    def __init__(self) -> None:
        self.ev: list[tuple] = []

    def op(self, op: str, reads: list, writes: list, count: int, dtype: str, repeats: int,
           step: str, *extra: tuple) -> None:
        self.ev.append((op, tuple(reads), tuple(writes), count, dtype, repeats, None,
                        (ADV, ("step", step)) + extra))

    def barrier(self) -> None:
        if not self.ev or self.ev[-1][0] != "pipe_barrier":
            self.ev.append(("pipe_barrier", (), (), 0, "", 0, BARRIER, BARRIER_ARGS))


def _groups(m: int) -> list[tuple[int, int]]:
    """(first row, rows) in runs of at most 255 repeats."""
    return [(r, min(255, m - r)) for r in range(0, m, 255)]


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@lru_cache(maxsize=256)
def _program(kind: str, k: int, k0: int, split_m: int, range_m: int,
             tail_m: int) -> tuple[tuple, int]:
    """The routine's instructions for one call, and where its last step starts."""
    b = _Prog()
    b.barrier()
    chunks = [(i * split_m, split_m) for i in range(range_m)]
    if tail_m:
        chunks.append((range_m * split_m, tail_m))
    per_row = 16 if kind == "f16" else 8  # float32 row values in the work / sum tensors
    ss, rs = 4 * split_m * k, 4 * split_m * per_row  # bytes of tmp0 and tmp2 (float16)
    last = 0
    for row0, m in chunks:
        b.barrier()
        if kind == "f32":
            xo, ro = row0 * k * 4, row0 * 32
            _reduce(b, "max", m, k, k0, (SRC, xo), (MAX, ro), 8, (TMP, 0))
            b.barrier()
            _rowwise(b, "sub", m, k, (DST, xo), (SRC, xo), (MAX, ro), 8)
            _exp(b, m * k, (DST, xo))
            _reduce(b, "sum", m, k, k0, (DST, xo), (SUM, ro), 8, (TMP, 0))
            b.barrier()
            last = len(b.ev)
            _rowwise(b, "div", m, k, (DST, xo), (DST, xo), (SUM, ro), 8)
            continue
        xo, ro = row0 * k * 2, row0 * 32
        _cast(b, m * k, (TMP, 0), F32, (SRC, xo), "float16", "CAST_NONE")
        b.barrier()
        if kind == "f16":  # row values in tmp2 (16 float32 per row), cast to sum / max
            red, t = (TMP, ss), (TMP, ss + rs)
            _reduce(b, "max", m, k, k0, (TMP, 0), red, 16, t)
            b.barrier()
            _cast(b, m * 16, (MAX, ro), "float16", red, F32, "CAST_ROUND")
        else:
            red, t = (MAX, ro), (TMP, ss)
            _reduce(b, "max", m, k, k0, (TMP, 0), red, 8, t)
        b.barrier()
        _rowwise(b, "sub", m, k, (TMP, 0), (TMP, 0), red, per_row)
        _exp(b, m * k, (TMP, 0))
        if kind == "f16":
            _reduce(b, "sum", m, k, k0, (TMP, 0), red, 16, t)
            b.barrier()
            _cast(b, m * 16, (SUM, ro), "float16", red, F32, "CAST_ROUND")
        else:
            red = (SUM, ro)
            _reduce(b, "sum", m, k, k0, (TMP, 0), red, 8, t)
        b.barrier()
        _rowwise(b, "div", m, k, (TMP, 0), (TMP, 0), red, per_row)
        b.barrier()
        last = len(b.ev)
        _cast(b, m * k, (DST, xo), "float16", (TMP, 0), F32, "CAST_ROUND")
    return tuple(b.ev), last


def _exp(b: _Prog, n: int, x: tuple) -> None:
    b.barrier()
    acc = (x[0], x[1], 4 * n, 1, 0)
    b.op("exp", [acc], [acc], n, F32, _cdiv(n, 64), "exp", ("count", n))
    b.barrier()


def _cast(b: _Prog, n: int, d: tuple, dt: str, s: tuple, st: str, mode: str) -> None:
    dsz, ssz = (2 if dt == "float16" else 4), (2 if st == "float16" else 4)
    b.op("cast", [(s[0], s[1], n * ssz, 1, 0)], [(d[0], d[1], n * dsz, 1, 0)], n, dt,
         _cdiv(n, 64), "cast", ("count", n), ("round_mode", mode), ("src_dtype", st))


def _rowwise(b: _Prog, op: str, m: int, k: int, d: tuple, s0: tuple, s1: tuple,
             red_k: int) -> None:
    """GenericSubNDImpl / GenericDivNDImpl: float32 rows (pitch k) minus / over their row
    value (red_k float32 per row): by 32 B columns when k < 192, else row by row."""
    p, rp = 4 * k, 4 * red_k
    if k < 192:
        for j in range(k // 8):
            b.op(op, [(s0[0], s0[1] + 32 * j, 32, m, p), (s1[0], s1[1], 32, m, rp)],
                 [(d[0], d[1] + 32 * j, 32, m, p)], m * 8, F32, _cdiv(m, 8), op)
        return
    for r in range(m):
        b.op(op, [(s0[0], s0[1] + r * p, p, 1, 0), (s1[0], s1[1] + r * rp, 32, 1, 0)],
             [(d[0], d[1] + r * p, p, 1, 0)], k, F32, _cdiv(k, 64), op)


def _reduce(b: _Prog, kind: str, m: int, k: int, k0: int, x: tuple, d: tuple, dst_k: int,
            t: tuple) -> None:
    """NewReduceMaxLastNDImpl / NewReduceSumLastNDImpl: the row max (sum) of x's first k0
    columns (float32, pitch k) into d, broadcast to dst_k float32 per row; t is the work area
    (m x 64 float32)."""
    fold, step = ("max" if kind == "max" else "add"), f"reduce_{kind}"
    whole, block = f"whole_reduce_{kind}", f"block_reduce_{kind}"
    (xr, xo), (dr, do), (tr, to) = x, d, t
    p = 4 * k
    blocks, tail = divmod(k0, 64)
    if k0 < 64:
        for r0, n in _groups(m):
            b.op(whole, [(xr, xo + r0 * p, 4 * k0, n, p)], [(dr, do + 4 * r0, 4 * n, 1, 0)],
                 n * k0, F32, n, step, ("mask", k0), ("src_rep_stride", k // 8))
    else:
        if k0 >= 512:  # BigBlockReduce: 8-element blocks of the first 512, then the rest
            for r in range(m):
                b.op(block, [(xr, xo + r * p, 2048, 1, 0)], [(tr, to + 256 * r, 256, 1, 0)],
                     512, F32, 8, step)
            if blocks > 8:
                b.barrier()
                for r in range(m):
                    acc = (tr, to + 256 * r, 256, 1, 0)
                    b.op(fold, [(xr, xo + r * p + 2048, 256, blocks - 8, 256), acc], [acc],
                         64 * (blocks - 8), F32, blocks - 8, step)
        elif k0 >= 128:
            for r0, n in _groups(m):
                b.op(fold, [(xr, xo + r0 * p, 256, n, p), (xr, xo + r0 * p + 256, 256, n, p)],
                     [(tr, to + 256 * r0, 256 * n, 1, 0)], 64 * n, F32, n, step)
            if blocks > 2 and m > blocks:  # NextBlock*Impl: column by column
                for j in range(2, blocks):
                    b.barrier()
                    for r0, n in _groups(m):
                        acc = (tr, to + 256 * r0, 256 * n, 1, 0)
                        b.op(fold, [acc, (xr, xo + r0 * p + 256 * j, 256, n, p)], [acc],
                             64 * n, F32, n, step)
            elif blocks > 2:  # or row by row
                b.barrier()
                for r in range(m):
                    acc = (tr, to + 256 * r, 256, 1, 0)
                    b.op(fold, [(xr, xo + r * p + 512, 256, blocks - 2, 256), acc], [acc],
                         64 * (blocks - 2), F32, blocks - 2, step)
        else:
            for r0, n in _groups(m):
                b.op("copy", [(xr, xo + r0 * p, 256, n, p)], [(tr, to + 256 * r0, 256 * n, 1, 0)],
                     64 * n, F32, n, step)
        if tail:
            b.barrier()
            for r0, n in _groups(m):
                acc = (tr, to + 256 * r0, 4 * tail, n, 256)
                b.op(fold, [acc, (xr, xo + r0 * p + 256 * blocks, 4 * tail, n, p)], [acc],
                     n * tail, F32, n, step, ("mask", tail))
        b.barrier()
        if m == 1:  # 8 repeats of the same 64 lanes: the row value already broadcast
            b.op(whole, [(tr, to, 256, 1, 0)], [(dr, do, 32, 1, 0)], 512, F32, 8, step)
            if dst_k == 16:
                b.barrier()
                b.op("copy", [(dr, do, 32, 1, 0)], [(dr, do + 32, 32, 1, 0)], 8, F32, 1, step)
        else:
            b.op(block, [(tr, to, 256 * m, 1, 0)], [(tr, to, 32 * m, 1, 0)], 64 * m, F32, m,
                 step)
            b.barrier()
            b.op(block, [(tr, to, 32 * m, 1, 0)], [(dr, do, 4 * m, 1, 0)], 8 * m, F32,
                 _cdiv(m, 8), step)
    if m != 1 or k0 <= 64:  # AlignedBroadCastImpl: brcb into t, then copy to d
        b.barrier()
        vals, reps = (dr, do, 4 * m, 1, 0), _cdiv(m, 8)
        if dst_k == 16 and m != 1:
            b.op("brcb", [vals], [(tr, to, 32, m, 64)], 8 * m, F32, reps, "broadcast")
            b.op("brcb", [vals], [(tr, to + 32, 32, m, 64)], 8 * m, F32, reps, "broadcast")
        else:
            b.op("brcb", [vals], [(tr, to, 32 * m, 1, 0)], 8 * m, F32, reps, "broadcast")
            if dst_k == 16:
                b.barrier()
                b.op("copy", [(tr, to, 32, 1, 0)], [(tr, to + 32, 32, 1, 0)], 8, F32, 1,
                     "broadcast")
        b.barrier()
        n = m * dst_k
        b.op("copy", [(tr, to, 4 * n, 1, 0)], [(dr, do, 4 * n, 1, 0)], n, F32, _cdiv(n, 64),
             "broadcast")


__all__ = ["ADV", "BARRIER_ARGS", "events"]
