"""The mistakes of tests/errors/test_battery.py: one kernel for the mini challenge's z = x + y
(float16), with static UB tiles ordered by explicit flags, and a compile-time `bug` that turns
one mistake on. Lines the battery names carry a `# @tag` comment (LINES)."""

from __future__ import annotations

import re
from pathlib import Path

import ascendlab.asc as asc

FILE = Path(__file__).name
LINES = {m.group(1): n for n, line in enumerate(Path(__file__).read_text().splitlines(), 1)
         if (m := re.search(r"# @(\w+)", line))}
T = 256  # float16 elements per tile
E = asc.HardEvent
BASE = 8192  # static tiles start here: a TQue's buffers (bug "leak_race") sit below


@asc.jit
def flags_add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int,
              bug: asc.ConstExpr[str]):
    start = asc.get_block_idx() * tiles * T
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    zg.set_global_buffer(z + start)
    if bug == "leak_race" or bug == "ub_overflow":
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 200 * 1024 if bug == "ub_overflow" else 64)  # @init_buffer
        q.alloc_tensor(asc.float16)  # @leaked_alloc
    xl = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, BASE, 2 * T)
    yl = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, BASE + 4 * T, 2 * T)
    zl = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, BASE + 8 * T, 2 * T)
    if bug != "no_first_set":
        asc.set_flag(E.MTE3_MTE2, 0)  # @first_set
    for i in range(tiles):
        b = i % 2
        asc.wait_flag(E.MTE3_MTE2, 0)  # @wait_out_done
        asc.data_copy(xl[b * T:], xg[i * T:], T)
        asc.data_copy(yl[b * T:], yg[i * T:], T)
        if bug != "missing_set" or b == 0:
            asc.set_flag(E.MTE2_V, b)  # @set_in
        asc.wait_flag(E.MTE2_V, b)  # @wait_in
        asc.add(zl[b * T:], xl[b * T:], yl[b * T:], T)  # @add
        if bug == "nan":
            asc.muls(zl[b * T:], zl[b * T:], float("nan"), T)
        if bug == "tanh":
            asc.adv.tanh(zl[b * T:], xl[b * T:], T)  # @tanh
        if bug != "leak_race":
            asc.set_flag(E.V_MTE3, 0)
            asc.wait_flag(E.V_MTE3, 0)
        asc.data_copy(zg[i * T:], zl[b * T:], T)  # @copy_out
        asc.set_flag(E.MTE3_MTE2, 0)  # @set_out_done
    asc.wait_flag(E.MTE3_MTE2, 0)


def launcher(bug: str):
    """The mini challenge's entry, launch(x, y, z, core_num), with `bug` on (2 cores)."""

    def launch(x, y, z, core_num):
        flags_add[2, asc.lib.runtime.current_stream()](x, y, z, x.size // 2 // T, bug)

    return launch
