"""What crosses the sandbox boundary: a Run's trace and layout as JSON, read back strictly.

The submission's process writes JSON; the grader never unpickles anything from it. Reading is
validation: a closed set of ops, pipes, memory spaces and dtypes, typed fields, and caps on
every size (events, accesses per event, argument nesting and lengths, string lengths), so a
hostile file can neither smuggle objects in nor make the grader allocate without bound.

    obj = dump_run(run)                    # json-able dict (in the submission's process)
    meta, events = load_run(obj)           # RunMeta and list[Event] (in the grader)

Format (version 2): {"format": "ascendlab-run", "version": 2, "kernel", "chip", "block_num",
"core_kind", "auto_sync", "gm": [[name, base, nbytes, dtype, shape], ...], "strings": [...],
"events": [[core, pipe, op, reads, writes, count, dtype, repeats, file, line, sync, args] or k,
...]} where an integer k repeats event k, an earlier full one (the runtime shares one Event
object between the recurring instructions of a loop; the reader shares it too), reads/writes are
[[space, addr, nbytes, name, count, stride], ...], file and name index "strings", sync is null
or [kind, src, dst, key, implicit] and args [[name, value], ...] (tuples are JSON arrays; floats
may be NaN/Infinity as Python's json writes them).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..runtime.chips import CHIPS
from ..runtime.trace import PIPES as _TRACE_PIPES
from ..runtime.trace import Access, Event, GMArg, Run, Sync, event
from .replay import RECORDABLE_OPS

FORMAT = "ascendlab-run"
VERSION = 2
PIPES = frozenset(_TRACE_PIPES)
SPACES = frozenset({"GM", "UB", "L1", "L0A", "L0B", "L0C"})
DTYPES = frozenset({"", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float16", "float32", "float64"})
SYNC_KINDS = frozenset({"set", "wait", "barrier", "sync_all", "xset", "xwait"})
SYNC_ENDS = PIPES | {"ALL"}
CORE_KINDS = frozenset({"aiv", "aic", "mix"})

# Caps (generous for honest kernels, small enough to bound the grader's memory and time).
MAX_EVENTS = 2_000_000
MAX_STRINGS = 100_000
MAX_STRING = 4096
MAX_ACCESSES = 4096  # per event (fixpipe / ND2NZ record one per matrix)
MAX_ARGS = 32
MAX_ARG_LEN = 4096  # elements of one tuple argument (lanes: <= 256)
MAX_ARG_DEPTH = 4
MAX_ARG_STR = 256
MAX_INT = 1 << 128
MAX_GM_ARGS = 64
MAX_GM_BYTES = 1 << 34

_new = tuple.__new__


POISON = 0xFF  # fill of output arrays before the call (NaN / -1: unwritten elements show)


def digest(a: np.ndarray) -> str:
    """sha256 of an array's bytes (C order): how the submission reports its arrays."""
    return hashlib.sha256(np.ascontiguousarray(a).reshape(-1).view(np.uint8)).hexdigest()


def poisoned(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """An array of `shape`/`dtype` filled with POISON bytes (what outputs start as)."""
    a = np.empty(shape, dtype=dtype)
    a.reshape(-1).view(np.uint8).fill(POISON)
    return a


class WireError(ValueError):
    """The JSON is not a valid record (the message says which field and why)."""


@dataclass(frozen=True)
class RunMeta:
    """The launch facts that come with a trace."""

    kernel: str
    chip: str
    block_num: int
    core_kind: str
    auto_sync: bool
    gm: tuple[GMArg, ...]
    core_kinds: tuple[tuple[int, str], ...] = ()  # MIX runs: (core, "aiv" | "aic")

    def replay_options(self) -> dict:
        """The options replay() needs to re-run this launch."""
        return {"auto_sync": self.auto_sync, "core_kinds": dict(self.core_kinds)}


# ---- writing (the submission's side) -----------------------------------------------------------
def _value(v: Any, depth: int = 0) -> Any:
    """An Event.args value as JSON: None/bool/int/float/str, sequences as lists."""
    t = type(v)
    if t is int or t is str or t is float or t is bool or v is None:  # the common cases
        return v
    if isinstance(v, str):
        return str(v)
    if isinstance(v, int):
        return int(v)  # IntEnum members too
    if isinstance(v, float):
        return float(v)
    if isinstance(v, (np.generic, np.ndarray)) and np.ndim(v) == 0:
        return _value(v.item(), depth)
    if isinstance(v, (tuple, list)) and depth < MAX_ARG_DEPTH:
        return [_value(x, depth + 1) for x in v]
    raise WireError(f"cannot record argument value {v!r} ({type(v).__name__}): instruction "
                    "arguments must be numbers, strings, booleans or tuples of them")


def dump_trace(run: Run) -> dict:
    """The trace of `run` as a json-able dict (strings table + events)."""
    strings: list[str] = []
    index: dict[str, int] = {}

    def sid(s: str) -> int:
        k = index.get(s)
        if k is None:
            k = index[s] = len(strings)
            strings.append(s)
        return k

    events = []
    done: dict[tuple, list] = {}  # Access tuples repeat (tiles, buffers): convert each once
    # the runtime shares one Event object between the recurring instructions of a loop (queue
    # ops, copies of the same tile): convert each object once; the memo holds the Event, so its
    # id is not reused while the memo lives
    seen: dict[int, tuple] = {}  # id -> (Event, its index in `events`)
    args_done: dict[int, tuple] = {}  # shared argument tuples (a copy's count) too, by identity
    for e in run.trace:
        hit = seen.get(id(e))
        if hit is not None:
            events.append(hit[1])  # a back-reference: the same event again
            continue
        acc = []
        for accs in (e.reads, e.writes):
            rec = done.get(accs)
            if rec is None:
                rec = done[accs] = [[a.space, a.addr, a.nbytes, sid(a.name), a.count, a.stride]
                                    for a in accs]
            acc.append(rec)
        s = e.sync
        sync = None if s is None else [s.kind, s.src, s.dst, _value(list(s.key)), s.implicit]
        a = e.args
        hit = args_done.get(id(a))
        if hit is None:
            args = [[k, _value(v)] for k, v in a]
            args_done[id(a)] = (a, args)
        else:
            args = hit[1]
        rec = [e.core, e.pipe, e.op, acc[0], acc[1], int(e.count), e.dtype, int(e.repeats),
               sid(e.file), int(e.line), sync, args]
        seen[id(e)] = (e, len(events))
        events.append(rec)
    return {"strings": strings, "events": events}


def dump_run(run: Run) -> dict:
    """`run`'s launch facts and trace as a json-able dict (see the module docstring)."""
    out = {"format": FORMAT, "version": VERSION, "kernel": run.kernel, "chip": run.chip.name,
           "block_num": run.block_num, "core_kind": run.core_kind,
           "auto_sync": bool(run.options.get("auto_sync", True)),
           "core_kinds": [[int(k), v] for k, v in sorted(getattr(run, "core_kinds", {}).items())],
           "gm": [[g.name, g.base, g.nbytes, g.dtype, list(g.shape)] for g in run.gm.values()]}
    out.update(dump_trace(run))
    return out


# ---- reading (the grader's side) ---------------------------------------------------------------
def _int(v: Any, lo: int, hi: int, what: str) -> int:
    if type(v) is not int or not lo <= v < hi:
        raise WireError(f"{what} must be an integer in [{lo}, {hi}), got {_show(v)}")
    return v


def _str(v: Any, allowed: frozenset[str] | None, what: str, limit: int = MAX_STRING) -> str:
    if type(v) is not str or len(v) > limit:
        raise WireError(f"{what} must be a string (<= {limit} chars), got {_show(v)}")
    if allowed is not None and v not in allowed:
        raise WireError(f"{what} {v!r} is not one of {', '.join(sorted(allowed))}")
    return v


def _list(v: Any, limit: int, what: str) -> list:
    if type(v) is not list or len(v) > limit:
        raise WireError(f"{what} must be a list of at most {limit} items, got {_show(v)}")
    return v


def _show(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def _arg_value(v: Any, depth: int, what: str) -> Any:
    t = type(v)
    if v is None or t is bool:
        return v
    if t is int:
        if not -MAX_INT < v < MAX_INT:
            raise WireError(f"{what}: integer out of range")
        return v
    if t is float:
        return v
    if t is str:
        if len(v) > MAX_ARG_STR:
            raise WireError(f"{what}: string longer than {MAX_ARG_STR}")
        return v
    if t is list and depth < MAX_ARG_DEPTH:
        if len(v) > MAX_ARG_LEN:
            raise WireError(f"{what}: more than {MAX_ARG_LEN} elements")
        return tuple(_arg_value(x, depth + 1, what) for x in v)
    raise WireError(f"{what}: {_show(v)} is not a number, string, boolean or list")


def load_trace(obj: Any, *, max_events: int = MAX_EVENTS) -> list[Event]:
    """Events from dump_trace's dict, validated field by field (WireError on the first bad
    one, naming the event)."""
    if type(obj) is not dict:
        raise WireError("the trace must be a JSON object")
    strings = _list(obj.get("strings"), MAX_STRINGS, "strings")
    for s in strings:
        _str(s, None, "a string-table entry")
    n_str = len(strings)
    raw = _list(obj.get("events"), max_events, "events")
    syncs: dict[tuple, Sync] = {}
    shared_args: dict[tuple, tuple] = {}
    seen: dict[tuple, Access] = {}
    out: list[Event] = []
    append = out.append
    for i, ev in enumerate(raw):
        try:
            if type(ev) is int:  # a back-reference to an earlier full event
                if not 0 <= ev < i or type(raw[ev]) is not list:
                    raise WireError(f"a back-reference must name an earlier full event, got "
                                    f"{_show(ev)}")
                append(out[ev])
            else:
                append(_event(ev, strings, n_str, syncs, shared_args, seen))
        except WireError as exc:
            raise WireError(f"event {i}: {exc}") from None
    return out


def _accesses(v: Any, strings: list[str], n_str: int, what: str,
              seen: dict[tuple, Access]) -> tuple[Access, ...]:
    """Accesses validated field by field; `seen` holds those already validated, by their raw
    fields (an equal raw list gives the same, already validated, Access)."""
    items = _list(v, MAX_ACCESSES, what)
    out = []
    for a in items:
        if type(a) is not list or len(a) != 6:
            raise WireError(f"{what}: an access is [space, addr, nbytes, name, count, stride]")
        key = tuple(a)
        try:
            acc = seen.get(key)
        except TypeError:  # an unhashable field: not an access, say which below
            acc = None
        if acc is None:
            space, addr, nbytes, name, count, stride = a
            acc = _new(Access, (_str(space, SPACES, "access space"),
                                _int(addr, 0, 1 << 63, "access addr"),
                                _int(nbytes, 0, 1 << 40, "access nbytes"),
                                strings[_int(name, 0, n_str, "access name")],
                                _int(count, 0, 1 << 32, "access count"),
                                _int(stride, 0, 1 << 40, "access stride")))
            seen[key] = acc
        out.append(acc)
    return tuple(out)


def _key_item(k: Any) -> Any:
    """A sync key's flat item: an integer in range or a short string."""
    if type(k) is not int and type(k) is not str:
        raise WireError("sync key items are integers or strings")
    if type(k) is str:
        _str(k, None, "sync key item", 64)
    elif not -MAX_INT < k < MAX_INT:
        raise WireError("sync key integer out of range")
    return k


def _event(ev: Any, strings: list[str], n_str: int, syncs: dict, shared_args: dict,
           seen: dict) -> Event:
    if type(ev) is not list or len(ev) != 12:
        raise WireError("an event is a list of 12 fields")
    core, pipe, op, reads, writes, count, dtype, repeats, file, line, sync, args = ev
    core = _int(core, 0, 1 << 17, "core")
    pipe = _str(pipe, PIPES, "pipe")
    if type(op) is not str or op not in RECORDABLE_OPS:
        raise WireError(f"op {_show(op)} is not an instruction the grader can replay")
    r = _accesses(reads, strings, n_str, "reads", seen)
    w = _accesses(writes, strings, n_str, "writes", seen)
    count = _int(count, 0, 1 << 48, "count")
    dtype = _str(dtype, DTYPES, "dtype")
    repeats = _int(repeats, 0, 1 << 48, "repeats")
    file = strings[_int(file, 0, n_str, "file")]
    line = _int(line, 0, 10_000_000, "line")
    s = None
    if sync is not None:
        if type(sync) is not list or len(sync) != 5:
            raise WireError("sync is null or [kind, src, dst, key, implicit]")
        kind, src, dst, key, implicit = sync
        key_items = _list(key, 8, "sync key")
        for i, k in enumerate(key_items):
            if type(k) is list:  # only a cross-core flag's ("cross_core_flag", mode, id)
                if (len(k) != 3 or k[0] != "cross_core_flag" or type(k[1]) is not int
                        or type(k[2]) is not int):
                    raise WireError("sync key items are integers or strings (or a cross-core "
                                    "flag's [\"cross_core_flag\", mode, id])")
                key_items[i] = tuple(_key_item(v) for v in k)
            else:
                _key_item(k)
        if type(implicit) is not bool:
            raise WireError("sync implicit must be a boolean")
        content = (_str(kind, SYNC_KINDS, "sync kind"), _str(src, SYNC_ENDS, "sync src"),
                   _str(dst, SYNC_ENDS, "sync dst"), tuple(key_items), implicit)
        s = syncs.get(content)
        if s is None:
            s = syncs[content] = _new(Sync, content)
    pairs = _list(args, MAX_ARGS, "args")
    items = []
    for p in pairs:
        if type(p) is not list or len(p) != 2:
            raise WireError("an argument is [name, value]")
        items.append((_str(p[0], None, "argument name", 64),
                      _arg_value(p[1], 0, f"argument {p[0]!r}")))
    a = tuple(items)
    if s is not None:  # sync events share their args tuples, as the runtime's do
        a = shared_args.setdefault(a, a)
    return event(core, pipe, op, r, w, count, dtype, repeats, file, line, s, a)


def load_meta(obj: Any) -> RunMeta:
    """The launch facts of a dump_run dict, validated."""
    if type(obj) is not dict:
        raise WireError("the run record must be a JSON object")
    if obj.get("format") != FORMAT or obj.get("version") != VERSION:
        raise WireError(f"not an {FORMAT} v{VERSION} record")
    chip = _str(obj.get("chip"), frozenset(CHIPS), "chip")
    gm = []
    for i, g in enumerate(_list(obj.get("gm"), MAX_GM_ARGS, "gm")):
        if type(g) is not list or len(g) != 5:
            raise WireError(f"gm[{i}] must be [name, base, nbytes, dtype, shape]")
        name, base, nbytes, dtype, shape = g
        dims = tuple(_int(d, 0, 1 << 40, f"gm[{i}] shape") for d in _list(shape, 8, "shape"))
        nb = _int(nbytes, 0, MAX_GM_BYTES, f"gm[{i}] nbytes")
        dt = _str(dtype, DTYPES - {""}, f"gm[{i}] dtype")
        if math.prod(dims) * np.dtype(dt).itemsize != nb:
            raise WireError(f"gm[{i}] {name!r}: shape {list(dims)} of {dt} is not {nb} B")
        gm.append(GMArg(_str(name, None, f"gm[{i}] name", 64),
                        _int(base, 0, 1 << 63, f"gm[{i}] base"), nb, dt, dims))
    auto_sync = obj.get("auto_sync")
    if type(auto_sync) is not bool:
        raise WireError("auto_sync must be a boolean")
    kinds = []
    for item in _list(obj.get("core_kinds", []), 1 << 17, "core_kinds"):
        if type(item) is not list or len(item) != 2:
            raise WireError("core_kinds items are [core, kind]")
        kinds.append((_int(item[0], 0, 1 << 17, "core_kinds core"),
                      _str(item[1], frozenset({"aiv", "aic"}), "core_kinds kind")))
    return RunMeta(kernel=_str(obj.get("kernel"), None, "kernel", 128), chip=chip,
                   block_num=_int(obj.get("block_num"), 1, 65536, "block_num"),
                   core_kind=_str(obj.get("core_kind"), CORE_KINDS, "core_kind"),
                   auto_sync=auto_sync, gm=tuple(gm), core_kinds=tuple(kinds))


def load_run(obj: Any, *, max_events: int = MAX_EVENTS) -> tuple[RunMeta, list[Event]]:
    """(launch facts, events) of a dump_run dict; WireError when anything is off."""
    meta = load_meta(obj)
    return meta, load_trace(obj, max_events=max_events)


__all__ = ["POISON", "RunMeta", "WireError", "digest", "dump_run", "dump_trace", "load_meta",
           "load_run", "load_trace", "poisoned"]
