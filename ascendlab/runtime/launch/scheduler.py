"""The order in which a launch's cores run on the host.

Sequential runs core 0 to the end, then core 1, ... (the default: fastest, deterministic).
Lockstep is used when a kernel calls sync_all: each core runs in its own thread but only one
holds the baton at a time, in core order, so execution stays sequential and deterministic;
at sync_all a core hands the baton on, and once every live core has arrived, core 0 resumes
with phase 2. A cross_core_wait_flag whose flag is not set yet hands the baton to the next core
that can run (block_until); when no core can, the kernel would hang and DeadlockError says so.
Threads are only the means to suspend a core in the middle of its Python stack.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ...errors import DeadlockError, SyncError
from .. import core as _core


class Sequential:
    """Cores one after another; a sync_all here means the launcher did not expect one."""

    def run(self, n: int, body: Callable[[int], None]) -> None:
        for i in range(n):
            body(i)

    def started(self, state: Any) -> None:
        """Nothing to do: a Ctrl-C reaches the only running core directly."""

    def barrier(self, c: Any) -> None:
        raise SyncError("sync_all was called but the kernel's source does not mention it, so "
                        "the cores were not started in lockstep; call asc.sync_all by name")

    def block_until(self, c: Any, ready: Callable[[], bool], what: Any) -> None:
        """A core waits for another: here no other core can run in between. `what` (a str, or
        a callable returning one) describes the wait."""
        if not ready():
            raise SyncError(f"{_said(what)}, but the cores run one after another (the "
                            "kernel's source does not name cross_core_wait_flag, so they were "
                            "not started in lockstep); call asc.cross_core_wait_flag by name")


def _said(what: Any) -> str:
    """A wait's description: a str, or a callable building it when the error is raised (so it
    names what the other cores did in the meantime)."""
    return what() if callable(what) else what


_UNWIND_S = 10.0  # how long an interrupted launch waits for each core thread to unwind


class _Abort(BaseException):
    """Unwinds the other cores when one core failed."""


def _stop(event: Any) -> None:
    """A stopped core's trace append: unwinds the core at its next instruction."""
    raise _Abort()


class Lockstep:
    """Cores in lockstep threads, handing a baton on at each sync_all."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.cv = threading.Condition()
        self.turn = 0
        self.alive = set(range(n))
        # the cores a sync_all waits for: all of them, or (a hand-written MIX kernel, where
        # SyncAll's default is_aiv_only=True) the vector cores; set by the launcher
        self.members = set(range(n))
        self.arrived: set[int] = set()
        self.phase = [0] * n  # barriers passed by each core
        self.error: BaseException | None = None
        self.states: list[Any] = []  # the CoreStates of the cores started so far
        # cores held by a cross-core wait: index -> (ready(), what it waits for)
        self.blocked: dict[int, tuple[Callable[[], bool], Any]] = {}

    def _next_after(self, i: int) -> int:
        """The next live core after i that has not arrived at the current barrier."""
        for k in range(1, self.n + 1):
            j = (i + k) % self.n
            if j in self.alive and j not in self.arrived:
                return j
        return -1

    def _runnable_after(self, i: int) -> int:
        """The next live core after i that can go on: not at a barrier, and not held by a
        cross-core wait that is still unsatisfied; -1 if none."""
        for k in range(1, self.n + 1):
            j = (i + k) % self.n
            if j in self.alive and j not in self.arrived:
                held = self.blocked.get(j)
                if held is None or held[0]():
                    return j
        return -1

    def block_until(self, c: Any, ready: Callable[[], bool], what: Any) -> None:
        """Hold core c (a cross_core_wait_flag) until ready(): hand the baton to the next core
        that can run. When none can, the chip would hang: DeadlockError naming every held core."""
        i = c.idx
        with self.cv:
            while not ready():
                self.blocked[i] = (ready, what)
                nxt = self._runnable_after(i)
                if nxt < 0 or nxt == i:
                    held = "; ".join(_said(w) for _, w in
                                     (self.blocked[k] for k in sorted(self.blocked)))
                    ended = sorted(set(range(self.n)) - self.alive)
                    del self.blocked[i]  # (a compile-only launch skips the wait and goes on)
                    raise DeadlockError(f"deadlock: {held}; no core can set those flags any more "
                                    f"(finished: {ended or 'none'}, at sync_all: "
                                    f"{sorted(self.arrived) or 'none'}): the chip would hang")
                self.turn = nxt
                self.cv.notify_all()
                self._wait_turn(i, c)
            self.blocked.pop(i, None)

    def _release_if_all_arrived(self) -> None:
        if self.alive and self.arrived >= self.alive & self.members:
            self.arrived.clear()
            self.turn = min(self.alive)

    def started(self, state: Any) -> None:
        """Register a core's state (so that an interrupted launch can stop it)."""
        self.states.append(state)

    def _wait_turn(self, i: int, state: Any) -> None:
        while self.turn != i and self.error is None:
            self.cv.wait()
        if self.error is not None:
            raise _Abort()
        _core.current = state

    def run(self, n: int, body: Callable[[int], None]) -> None:
        threads = [threading.Thread(target=self._main, args=(i, body), daemon=True,
                                    name=f"ascendlab-core-{i}") for i in range(n)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        except BaseException as exc:  # Ctrl-C in the launching thread: stop every core
            with self.cv:
                if self.error is None:
                    self.error = exc
                self.cv.notify_all()
            for c in self.states:  # a running core stops at its next instruction
                c.append = _stop
            for t in threads:  # waiting cores unwind now
                t.join(timeout=_UNWIND_S)
            _core.current = None
            raise
        if self.error is not None:
            raise self.error

    def _main(self, i: int, body: Callable[[int], None]) -> None:
        with self.cv:
            while self.turn != i and self.error is None:
                self.cv.wait()
            if self.error is not None:
                return
        try:
            body(i)
        except _Abort:
            pass
        except BaseException as exc:  # noqa: BLE001 - re-raised in the launching thread
            with self.cv:
                if self.error is None:
                    self.error = exc
                self.cv.notify_all()
            return
        with self.cv:
            self.alive.discard(i)
            if self.arrived and i in self.members and self.error is None:
                waiting = ", ".join(str(k) for k in sorted(self.arrived))
                self.error = SyncError(f"core {i} finished without reaching the sync_all that "
                                       f"cores {waiting} wait at: the chip would hang")
            else:
                nxt = self._next_after(i)
                self.turn = nxt if nxt >= 0 else self.turn
                self._release_if_all_arrived()
            self.cv.notify_all()

    def barrier(self, c: Any) -> None:
        i = c.idx
        with self.cv:
            if i not in self.members:
                raise SyncError(f"sync_all on core {i}, a cube (AIC) core of a hand-written MIX "
                                "kernel: sync_all (is_aiv_only=True) synchronises the vector "
                                "cores; order the AIC with cross-core flags")
            self.arrived.add(i)
            self.phase[i] += 1
            if self.arrived >= self.alive & self.members:
                self._release_if_all_arrived()
            else:
                self.turn = self._next_after(i)
            self.cv.notify_all()
            self._wait_turn(i, c)
