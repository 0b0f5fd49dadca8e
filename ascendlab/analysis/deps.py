"""Sync edges of a trace, matched: which set each wait consumes, which sync_all calls meet.

A reader of the trace (the cost model, the sanitizer) needs the same answer to "what does
this wait wait for": the n-th wait on a flag of one core consumes the n-th set of that flag on
that core (flags count; a wait may come before its set in program order, as on the chip, where
the waiting pipe blocks until another pipe issues the set). A flag is (src pipe, dst pipe, key)
of Sync. The k-th sync_all of every core forms the k-th cross-core barrier. Cross-core flags
(xset/xwait, MIX kernels) match the same way, by key alone: the n-th xwait of a key consumes
its n-th xset, whichever core issued them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from ..runtime.trace import Event


class SyncMatch(NamedTuple):
    """The matched sync structure of one trace (indices into Run.trace)."""

    set_of: dict[int, int]  # wait event index -> the set event index it consumes
    unmatched_waits: list[int]  # waits no set ever satisfies (the chip would hang)
    unmatched_sets: list[int]  # sets no wait consumes (they leak into the next kernel)
    barriers: list[list[int]]  # k -> sync_all event indices of the k-th cross-core barrier
    xset_of: dict[int, int] = {}  # xwait event index -> the xset event index it consumes


def match_syncs(trace: list[Event]) -> SyncMatch:
    """Match every wait of `trace` to its set, and group sync_all events by occurrence."""
    sets: dict[tuple, list[int]] = defaultdict(list)
    waits: dict[tuple, list[int]] = defaultdict(list)
    per_core_all: dict[int, list[int]] = defaultdict(list)
    xsets: dict[tuple, list[int]] = defaultdict(list)
    xwaits: dict[tuple, list[int]] = defaultdict(list)
    for i, e in enumerate(trace):
        s = e.sync
        if s is None:
            continue
        kind = s.kind
        if kind == "set":
            sets[(e.core, s.src, s.dst, s.key)].append(i)
        elif kind == "wait":
            waits[(e.core, s.src, s.dst, s.key)].append(i)
        elif kind == "sync_all":
            per_core_all[e.core].append(i)
        elif kind == "xset":
            xsets[s.key].append(i)
        elif kind == "xwait":
            xwaits[s.key].append(i)
    set_of: dict[int, int] = {}
    unmatched_waits: list[int] = []
    unmatched_sets: list[int] = []
    for flag, ws in waits.items():
        ss = sets.get(flag, [])
        set_of.update(zip(ws, ss))
        unmatched_waits.extend(ws[len(ss):])
    for flag, ss in sets.items():
        unmatched_sets.extend(ss[len(waits.get(flag, [])):])
    xset_of: dict[int, int] = {}
    for key, ws in xwaits.items():
        ss = xsets.get(key, [])
        xset_of.update(zip(ws, ss))
        unmatched_waits.extend(ws[len(ss):])
    depth = max((len(v) for v in per_core_all.values()), default=0)
    barriers = [[v[k] for v in per_core_all.values() if k < len(v)] for k in range(depth)]
    unmatched_waits.sort()
    unmatched_sets.sort()
    return SyncMatch(set_of, unmatched_waits, unmatched_sets, barriers, xset_of)
