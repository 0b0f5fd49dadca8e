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
    status: Any = None
    progress: str = ""
    error: str | None = None  # why the channel was cut (the child's fault), or None
    total: int = 0

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
            else:
                self.status = _loads(payload)

    def record(self, i: int) -> Any:
        """Case record `i`, parsed (None: absent; "malformed": not JSON within bounds)."""
        if i >= len(self.cases):
            return None
        return _loads(self.cases[i])


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


__all__ = ["Channel", "ChannelError", "send", "send_json"]
