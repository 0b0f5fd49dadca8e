"""Small buggy kernels for the sanitizer battery, each with its correct twin (bug=0).

Every kernel takes `bug: asc.ConstExpr[int]`; bug=0 is the correct kernel, another value
switches one bug on. The line a finding must point at carries a `# @tag` comment; LINES maps
each tag to its line number (tests/runtime/test_sanitizer.py reads them).
"""

from __future__ import annotations

import re
from pathlib import Path

import ascendlab.asc as asc

N = 256  # float32 elements per tile (1 KiB)
FILE = Path(__file__).name
LINES = {m.group(1): k for k, line in enumerate(Path(__file__).read_text().splitlines(), 1)
         if (m := re.search(r"  # @(\w+)$", line))}


# ---- racecheck: cross-pipe, static tensors and flags ------------------------------------------
@asc.jit
def flags_pipeline(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int,
                   bug: asc.ConstExpr[int]):
    """z = x + 1 tile by tile through one static UB buffer each way, ordered by flags.
    bug 1: no MTE2_V (add reads before the copy lands); bug 2: no V_MTE3 (copy-out reads before
    the add wrote); bug 3: no MTE3_MTE2 (the next copy-in overwrites what add still reads).
    bug -1 (correct too): pipe_barrier(PIPE_ALL) in place of every flag pair."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 4, N)
    for i in range(tiles):
        asc.data_copy(xl, xg[i * N:], N)  # @copy_in
        if bug == -1:
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        elif bug != 1:
            asc.set_flag(asc.HardEvent.MTE2_V, 0)
            asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.adds(zl, xl, 1.0, N)  # @compute
        if bug == -1:
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        elif bug != 2:
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(zg[i * N:], zl, N)  # @copy_out
        if bug == -1:
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        elif bug != 3:
            asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


# ---- racecheck: same pipe without auto-sync; vector result read by the scalar unit ------------
@asc.jit(auto_sync=False)
def vector_chain(x: asc.GlobalAddress, z: asc.GlobalAddress, bug: asc.ConstExpr[int]):
    """z = (x + 1) * 2 with auto_sync off. bug 4: no pipe_barrier(PIPE_V) between the two
    dependent vector instructions."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, N * 4, N)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 8, N)
    asc.data_copy(a, xg, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(b, a, 1.0, N)  # @v_first
    if bug != 4:
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.muls(c, b, 2.0, N)  # @v_second
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, N)


@asc.jit
def scalar_read(x: asc.GlobalAddress, z: asc.GlobalAddress, bug: asc.ConstExpr[int]):
    """z[0] = x[0] + 1 computed by the vector unit, read back by the scalar unit; then a scalar
    store copied out by MTE3. bug 5: no V_S flag before get_value; bug 19: no S_MTE3 flag
    between set_value and the data_copy that reads it."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, N * 4, N)
    asc.data_copy(a, xg, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(b, a, 1.0, N)  # @s_write
    if bug != 5:
        asc.set_flag(asc.HardEvent.V_S, 0)
        asc.wait_flag(asc.HardEvent.V_S, 0)
    zg.set_value(0, b.get_value(0))  # @s_read
    b.set_value(1, 7.0)  # @s_store
    if bug != 19:
        asc.set_flag(asc.HardEvent.S_MTE3, 0)
        asc.wait_flag(asc.HardEvent.S_MTE3, 0)
    asc.data_copy(zg[8:], b, 8)  # @s_copy


# ---- initcheck and memcheck leaks: the TPipe/TQue framework -----------------------------------
@asc.jit
def framework_add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                  bug: asc.ConstExpr[int]):
    """z = x + y through VECIN/VECOUT queues, one tile. bug 6: x copied only half way;
    bug 7: y never copied; bug 8: x never freed; bug 9: z enqueued, never dequeued."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, N * 4)
    pipe.init_buffer(qy, 1, N * 4)
    pipe.init_buffer(qz, 1, N * 4)
    xl = qx.alloc_tensor(asc.float32)  # @x_alloc
    yl = qy.alloc_tensor(asc.float32)
    asc.data_copy(xl, xg, N // 2 if bug == 6 else N)  # @x_copy
    if bug != 7:
        asc.data_copy(yl, yg, N)
    qx.enque(xl)
    qy.enque(yl)
    xd = qx.deque(asc.float32)  # @x_deque
    yd = qy.deque(asc.float32)
    zl = qz.alloc_tensor(asc.float32)  # @z_alloc
    asc.add(zl, xd, yd, N)  # @add_reads
    qz.enque(zl)  # @z_enque
    if bug != 8:
        qx.free_tensor(xd)
    qy.free_tensor(yd)
    if bug != 9:
        zo = qz.deque(asc.float32)
        asc.data_copy(zg, zo, N)
        qz.free_tensor(zo)


@asc.jit
def masked_read(x: asc.GlobalAddress, z: asc.GlobalAddress, bug: asc.ConstExpr[int]):
    """A strided copy fills UB blocks 0, 2, 4, 6; a masked vector instruction with source block
    stride 2 reads exactly those (its trace footprint spans the gaps: no initcheck finding).
    bug 16: the copy fills only blocks 0 and 2, and the instruction still reads block 6."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 256, 64)
    asc.data_copy(a, xg, asc.DataCopyParams(2 if bug == 16 else 4, 1, 0, 1))  # @masked_copy
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(c, a, 1.0, 32, 1, asc.UnaryRepeatParams(1, 2, 8, 8))  # @masked_adds
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, 32)


# ---- across cores -----------------------------------------------------------------------------
@asc.jit
def per_core_slices(x: asc.GlobalAddress, z: asc.GlobalAddress, bug: asc.ConstExpr[int]):
    """Each core writes x + 1 into its own N-element slice of z. bug 10: the slices are offset
    by N / 2 per core, so neighbouring cores write overlapping bytes."""
    idx = asc.get_block_idx()
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + idx * N)
    zg.set_global_buffer(z + idx * (N // 2 if bug == 10 else N))
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, N * 4)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, N)
    q.enque(t)
    u = q.deque(asc.float32)
    asc.adds(u, u, 1.0, N)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, u, N)  # @slice_out
    q.free_tensor(u)


@asc.jit
def neighbours(x: asc.GlobalAddress, out: asc.GlobalAddress, bug: asc.ConstExpr[int]):
    """Each core publishes a value, then reads its right neighbour's. bug 11: no sync_all."""
    i = asc.get_block_idx()
    n = asc.get_block_num()
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(out)
    xg.set_value(i, i + 100)  # @publish
    if bug != 11:
        asc.sync_all()
    og.set_value(i, xg.get_value((i + 1) % n))  # @read_neighbour


# ---- synccheck ----------------------------------------------------------------------------------
@asc.jit
def flag_pairs(x: asc.GlobalAddress, z: asc.GlobalAddress, bug: asc.ConstExpr[int]):
    """One tile of z = x + 1 with flags. bug 12: an extra set_flag nobody waits for; bug 13: a
    wait_flag nobody sets; bug 14: the MTE3_MTE2 set comes after the wait it should release
    (the chip deadlocks); bug 15: the same flag set twice before its waits."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 4, N)
    if bug != 14:
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
    asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)  # @wait_first
    asc.data_copy(xl, xg, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)  # @set_first
    if bug == 15:
        asc.set_flag(asc.HardEvent.MTE2_V, 0)  # @set_again
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if bug == 12:
        asc.set_flag(asc.HardEvent.MTE2_V, 1)  # @set_unwaited
    asc.adds(zl, xl, 1.0, N)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    if bug == 13:
        asc.wait_flag(asc.HardEvent.V_MTE3, 1)  # @wait_unset
    asc.data_copy(zg, zl, N)
    if bug == 14:
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)  # @set_late


@asc.jit
def early_wait(x: asc.GlobalAddress, z: asc.GlobalAddress, bug: asc.ConstExpr[int]):
    """Legal on the chip: the vector pipe's wait_flag is issued before the set_flag it waits
    for (the V pipe blocks until MTE2 sets it). Judged on the dependency graph, not on program
    order: no finding. bug 18: the set also comes after the vector instruction it should
    release, which itself waits on the vector pipe: a deadlock."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 4, N)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)  # @early_wait
    if bug != 18:
        asc.data_copy(xl, xg, N)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(zl, xl, 1.0, N)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, zl, N)
    if bug == 18:
        asc.set_flag(asc.HardEvent.V_MTE2, 1)
        asc.wait_flag(asc.HardEvent.V_MTE2, 1)
        asc.data_copy(xl, xg, N)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)  # @late_set


# ---- what the runtime itself raises on (memcheck and synccheck classes) ----------------------
@asc.jit
def runtime_checks(x: asc.GlobalAddress, z: asc.GlobalAddress, bug: asc.ConstExpr[int]):
    """bug 20: GM read past x; 21: UB overrun past the buffer slot; 22: init_buffer beyond UB;
    23: data_copy of 24 B (not a 32 B multiple); 24: double free; 25: free into the wrong queue;
    26: event id 8; 27: deque on a queue nobody enqueued."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    q2 = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, (200 * 1024) if bug == 22 else N * 4)  # @init_buffer
    pipe.init_buffer(q2, 1, N * 4)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg[N if bug == 20 else 0:], 6 if bug == 23 else N)  # @copy_gm
    q.enque(t)
    if bug == 27:
        q2.deque(asc.float32)  # @deque_empty
    u = q.deque(asc.float32)
    asc.adds(u, u, 1.0, 2 * N if bug == 21 else N)  # @ub_overrun
    asc.set_flag(asc.HardEvent.V_MTE3, 8 if bug == 26 else 0)  # @flag_id
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, u, N)
    if bug == 25:
        q2.free_tensor(u)  # @wrong_queue
    q.free_tensor(u)
    if bug == 24:
        q.free_tensor(u)  # @double_free


@asc.jit
def cube_tile(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
              bug: asc.ConstExpr[int]):
    """One 16x16x16 fractal product GM -> L0A/L0B -> L0C -> GM, ordered by flags.
    bug 28: the L0A (A2) tensor at a 256 B address (L0A/L0B need 512 B); bug 17: no M_FIX flag
    (fixpipe reads L0C before mmad wrote it)."""
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 256 if bug == 28 else 512, 256)  # @l0
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
    co1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
    asc.load_data(a2, ag, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))
    asc.load_data(b2, bg, asc.LoadData2DParams(0, 1, 1, 0, 0, False, 0))
    asc.set_flag(asc.HardEvent.MTE2_M, 0)
    asc.wait_flag(asc.HardEvent.MTE2_M, 0)
    asc.mmad(co1, a2, b2, asc.MmadParams(16, 16, 16))  # @mmad
    if bug != 17:
        asc.set_flag(asc.HardEvent.M_FIX, 0)
        asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(cg, co1, asc.FixpipeParamsV220(16, 16, 16, 16))  # @fixpipe
