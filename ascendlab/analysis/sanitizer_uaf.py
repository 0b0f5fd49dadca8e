"""memcheck: a use after free, found on the trace.

A queue slot's bytes belong to nobody from its free_tensor until the next alloc_tensor of that
slot (or until an init_buffer gives the bytes to a buffer again, e.g. a TBufPool's next stage).
An instruction that reads or writes them in between uses freed memory: on the chip the producer
may already be refilling the slot. The runtime already reports a use through the freed handle
itself (queue.release makes it an out-of-bounds access); this pass also sees views taken before
the free (`v = t[8:]`) and anything else that touches the bytes.

Cost: O(events x freed slots per core and memory), freed slots being few at any time.
"""

from __future__ import annotations

from ..runtime.trace import Event, Finding, Run
from .sanitizer_hb import at, short

_FRAMEWORK = frozenset({"init_buffer", "alloc_tensor", "enque", "deque", "free_tensor"})


def use_after_free(run: Run, out: list[Finding], seen: set) -> None:
    """Append a memcheck finding (one per source line) for each access to freed slot bytes."""
    slots: dict[tuple[int, int], tuple[str, int, int]] = {}  # (core, queue) -> space, addr, len
    # (core, space) -> {(queue, slot): (lo, hi, index of the free_tensor event)}
    freed: dict[tuple[int, str], dict[tuple[int, int], tuple[int, int, int]]] = {}
    reported = {f.lines[-1] for f in run.findings if "use after free" in f.message}
    for i, e in enumerate(run.trace):
        if e.op in _FRAMEWORK:
            _framework(e, i, slots, freed)
            continue
        live = [(a, w) for w, accs in ((False, e.reads), (True, e.writes)) for a in accs
                if (e.core, a.space) in freed]
        for a, write in live:
            for lo, hi, f in freed[(e.core, a.space)].values():
                if a.addr < hi and lo < a.end and at(e) not in reported:
                    _report(run, e, i, a, write, lo, hi, run.trace[f], out, seen)
                    break


def _framework(e: Event, i: int, slots: dict, freed: dict) -> None:
    args = dict(e.args)
    q = args["queue"]
    if e.op == "init_buffer":
        space, addr, num, n = args["space"], args["addr"], args["num"], args["len"]
        slots[(e.core, q)] = (space, addr, n)
        mine = freed.get((e.core, space), {})
        for key, (lo, hi, _f) in list(mine.items()):  # bytes given to a buffer again
            if key[0] == q or (lo < addr + num * n and addr < hi):
                del mine[key]
        return
    where = slots.get((e.core, q))
    if where is None:
        return
    space, addr, n = where
    key = (q, args["slot"])
    if e.op == "free_tensor":
        lo = addr + key[1] * n
        freed.setdefault((e.core, space), {})[key] = (lo, lo + n, i)
    elif e.op == "alloc_tensor":
        freed.get((e.core, space), {}).pop(key, None)


def _report(run: Run, e: Event, i: int, a: object, write: bool, lo: int, hi: int,
            free: Event, out: list[Finding], seen: set) -> None:
    key = ("uaf", e.file, e.line)
    if key in seen:
        return
    seen.add(key)
    verb = "writes" if write else "reads"
    fl = f"{short(free.file)}:{free.line}"
    msg = (f"memcheck: use after free: {e.op} on pipe {e.pipe} {verb} {a.space} bytes "
           f"[{max(a.addr, lo)}, {min(a.end, hi)}) of {a.name}, a queue slot released by "
           f"free_tensor at {fl} and not allocated again [core {e.core}, "
           f"{short(e.file)}:{e.line}]. Fix: finish every use of the tensor (and of its views) "
           f"before free_tensor, or alloc_tensor the slot again")
    out.append(Finding("memcheck", msg, e.core, (at(free), at(e)), i))
