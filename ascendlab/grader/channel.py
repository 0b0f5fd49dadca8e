"""The record channel: how the sandboxed child hands its records to the grader.

The grader creates a pipe before it starts the child and passes only the write end; the child
cannot replace it with anything else (a named pipe or a symlink in a folder, another job's
file), and nothing another process writes can enter it. Each message is one frame:

    b"ALR1" | kind (1 byte) | length (4 bytes, big-endian) | payload (length bytes)

kinds: S status (JSON), P progress (the case index, ASCII), C a case record (JSON).
The reader enforces bounds *before* anything is parsed: a frame longer than `max_record`
bytes, more than `max_total` bytes in all, more frames than expected, an unknown kind or a
broken header ends the channel and is reported as the submission's fault (`Channel.error`).
Case records are kept as bytes and parsed one at a time by the judge (`Channel.record(i)`).

Status comes from the grader: the harness sends one status frame before any submission code
runs; the first one is the one kept (`Channel.status`), later ones are dropped (a submission
cannot forge what its sandbox applied), and it is validated (a JSON object of known keys,
short strings: `valid_status`) and capped to MAX_STATUS bytes. A papermill run has one more:
the kernel's, from its first cell, before any learner cell (`Channel._status_open`).
Progress frames keep 32 ASCII bytes.

The judge's event budgets (Limits.max_events per case, Limits.max_events_total per
submission) are applied here, when a record is parsed: the events of its trace (a wire
back-reference is one event, the one it repeats, as the judge replays it) are counted, and a
record past either budget is replaced by an error record naming the budget (the judge's
RULE_VIOLATION) before the judge replays anything.
"""

from __future__ import annotations

import json
import os
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

MAGIC = b"ALR1"
_HEAD = struct.Struct(">4scI")
KINDS = {b"S": "status", b"P": "progress", b"C": "case"}


class ChannelError(ValueError):
    """A frame broke the channel's format or bounds (the submission's fault)."""


def send(fd: int, kind: str, payload: bytes) -> None:
    """Write one frame to `fd` (the child's side)."""
    code = {v: k for k, v in KINDS.items()}[kind]
    data = _HEAD.pack(MAGIC, code, len(payload)) + payload
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def send_json(fd: int, kind: str, obj: Any) -> None:
    send(fd, kind, json.dumps(obj).encode())


@dataclass
class Channel:
    """The grader's side: a thread drains the pipe while the child runs, keeping the frames
    within bounds; read them after the child has ended."""

    fd: int
    max_record: int  # bytes of one frame's payload
    max_total: int  # bytes of all payloads
    max_frames: int
    cases: list[bytes] = field(default_factory=list)
    status: Any = None  # the first valid status frame (valid_status), else None
    progress: str = ""
    error: str | None = None  # why the channel was cut (the child's fault), or None
    total: int = 0
    max_events: int | None = None  # per case record (Limits.max_events)
    max_events_total: int | None = None  # all case records (Limits.max_events_total)
    events: dict[int, int] = field(default_factory=dict)  # events per parsed record
    status_dropped: int = 0  # status frames after the first, or invalid ones

    def start(self) -> None:
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def join(self, timeout: float = 5.0) -> None:
        self._thread.join(timeout)

    def _drain(self) -> None:
        with os.fdopen(self.fd, "rb", buffering=0) as f:
            try:
                self._frames(f)
            except ChannelError as e:
                self.error = str(e)
            except OSError as e:
                self.error = f"the record channel failed: {e}"
            try:  # keep reading (and dropping) so that the child never blocks on a full pipe
                while f.read(1 << 16):
                    pass
            except OSError:
                pass

    def _frames(self, f: Any) -> None:
        n = 0
        while True:
            head = _read_exact(f, _HEAD.size)
            if head is None:
                return
            magic, code, length = _HEAD.unpack(head)
            if magic != MAGIC or code not in KINDS:
                raise ChannelError("a record frame has a broken header (something other than "
                                   "the harness wrote to the record channel)")
            n += 1
            if n > self.max_frames:
                raise ChannelError(f"more than {self.max_frames} record frames")
            if length > self.max_record:
                raise ChannelError(f"a record of {length:,} bytes exceeds the limit of "
                                   f"{self.max_record:,} bytes per record")
            if self.total + length > self.max_total:
                raise ChannelError(f"the records exceed the limit of {self.max_total:,} bytes "
                                   "per job")
            payload = _read_exact(f, length)
            if payload is None:
                raise ChannelError("the record channel ended inside a frame")
            self.total += length
            kind = KINDS[code]
            if kind == "case":
                self.cases.append(payload)
            elif kind == "progress":
                self.progress = payload[:32].decode("ascii", "replace")
            elif len(payload) <= MAX_STATUS and self._status_open():
                got = valid_status(_loads(payload))
                if got is None:
                    self.status_dropped += 1
                elif self.status is None:
                    self.status = got
                else:  # a notebook kernel's own, sent from its first cell (see _status_open)
                    self.status = {**self.status, **got, "kernel": True}
            else:  # only the first status counts: the harness sends it before user code runs
                self.status_dropped += 1

    def _status_open(self) -> bool:
        """Whether a status frame may still be taken: the first one (sent before any learner
        code runs); for a papermill run, also the kernel's, which the child forwards from the
        kernel's frame file where the kernel's first cell wrote it before any learner cell
        (so it precedes every case frame and every frame a learner cell could write)."""
        if self.status_dropped:
            return False
        if self.status is None:
            return True
        return (self.status.get("runner") == "papermill" and "kernel" not in self.status
                and not self.cases)

    def record(self, i: int) -> Any:
        """Case record `i`, parsed (None: absent; "malformed": not JSON within bounds; an
        error record naming the budget when its events break an event budget)."""
        if i >= len(self.cases):
            return None
        rec = _loads(self.cases[i])
        if self.max_events is None and self.max_events_total is None:
            return rec
        n = self.events[i] = _event_count(rec)
        if self.max_events is not None and n > self.max_events:
            return _over_budget(rec, f"the launch recorded {n:,} events; the judge replays at "
                                     f"most {self.max_events:,} per case (Limits.max_events)")
        for j in range(i):  # records are judged in order; a skipped one is counted now
            if j not in self.events:
                self.events[j] = _event_count(_loads(self.cases[j]))
        total = sum(self.events[j] for j in range(i + 1))
        if self.max_events_total is not None and total > self.max_events_total:
            return _over_budget(rec, f"the launches of cases 1 to {i + 1} recorded {total:,} "
                                     f"events together; the judge replays at most "
                                     f"{self.max_events_total:,} per submission "
                                     "(Limits.max_events_total)")
        return rec


MAX_STATUS = 4096  # bytes of the status frame (the harness's is ~100)
_STATUS_KEYS = {"privileges": str, "pid": int, "limits_not_set": list, "loopback": (str, bool),
                "runner": str}  # (+ "kernel": set by the channel when a kernel's status is merged)


def valid_status(obj: Any) -> dict | None:
    """The child's status as the harness writes it (known keys, short strings), else None."""
    if type(obj) is not dict or not set(obj) <= set(_STATUS_KEYS):
        return None
    for k, v in obj.items():
        if not isinstance(v, _STATUS_KEYS[k]) or isinstance(v, str) and len(v) > 200:
            return None
        if k == "limits_not_set" and (len(v) > 16 or not all(type(x) is str and len(x) <= 200
                                                             for x in v)):
            return None
    return obj


def _event_count(rec: Any) -> int:
    """Events of a parsed record's trace, as the judge replays them (0 when it has none)."""
    if type(rec) is not dict:
        return 0
    run = rec.get("run")
    events = run.get("events") if type(run) is dict else None
    return len(events) if type(events) is list else 0


def _over_budget(rec: Any, message: str) -> dict:
    """The record the judge gets for a case past an event budget (its RULE_VIOLATION)."""
    return {"error": {"type": "ReplayBudget", "message": message + ". Replaying is the "
                      "judge's work; a kernel this long is outside what the challenge grades "
                      "(the largest honest case records far fewer).", "where": "",
                      "phase": "record", "memory": False},
            "launches": 1, "mapping": [], "hashes": {}, "run": None,
            "case": rec.get("case") if type(rec) is dict else None, "elapsed_s": 0.0}


# JSON values a record may hold before it is parsed: json.loads builds one Python object per
# value (tens of bytes each), so the count, not the byte length, bounds the parser's memory.
# An honest record of the largest vector case holds ~0.1 M; a cube trace a few times that.
MAX_VALUES = 4_000_000


def _loads(data: bytes) -> Any:
    if data.count(b",") + data.count(b"[") + data.count(b"{") > MAX_VALUES:
        return "malformed"
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return "malformed"


def _read_exact(f: Any, n: int) -> bytes | None:
    """n bytes, or None at a clean end of stream before the first byte."""
    chunks = []
    got = 0
    while got < n:
        b = f.read(n - got)
        if not b:
            if got == 0:
                return None
            raise ChannelError("the record channel ended inside a frame")
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


__all__ = ["MAX_STATUS", "Channel", "ChannelError", "send", "send_json", "valid_status"]
