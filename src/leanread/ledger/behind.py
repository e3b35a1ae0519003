"""Ledger writes made when the process is idle: a tool call's end write, batched and made after
its result has left.

A repeated read over MCP spent as long in its end-of-call SQLite transaction (the transcript row
compressed, the records, the last path, a commit to the WAL) as in the read itself, and nothing
in its result depends on that write. Made on another thread right away it still competed with
the reply for the two cores the client and the server share, so ``WriteBehind`` holds the
writes (``add``) and has them made (``drain``, one transaction for all held) once no write came
for ``IDLE_S``, or the oldest is ``MAX_AGE_S`` old, or ``MAX_HELD`` are held: when a model
thinks between calls, each call's write follows its result by a few milliseconds; in a burst of
calls, one commit serves many.

Until made, what is held is read from here (the store's ``pending``): a store answers its hot
reads (the records of a file, the visible instruction files, the last path, a shown version's
text) from the file and the held writes together, and makes them (``drain`` in the caller's
thread) before anything else it is asked, so this process never reads around a held write.

What it gives up: a write that fails fails after its result was shown, so the failure is kept
and raised once by ``raise_failure`` (the store's next ``new_call_id``: that call answers with the
ledger's error); a process killed within ``MAX_AGE_S`` of a result loses that call's records (the
model is shown those lines again rather than a stub; an exit that runs ``atexit`` makes them);
another process sharing the file sees a call's records up to ``MAX_AGE_S`` later.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ..errors import LeanreadError

__all__ = ["IDLE_S", "MAX_AGE_S", "MAX_HELD", "WriteBehind"]

IDLE_S = 0.03
"""Seconds without a new write after which the held ones are made."""
MAX_AGE_S = 0.2
"""Seconds the oldest held write may wait."""
MAX_HELD = 64
"""Writes held at most; the next one has them made."""

_log = logging.getLogger("leanread.ledger")

Item = TypeVar("Item")


class WriteBehind(Generic[Item]):
    """The writes a store holds, in the order added, and when they are due.

    Args:
        drain: makes every held write (reading them with ``pending``, then ``remove``-ing them
            in the same hold of the store's lock as its commit); called on the process's writer
            thread when due, and by the store itself before it reads anything else.
    """

    def __init__(self, drain: Callable[[], None]) -> None:
        self.drain = drain
        self._lock = threading.Lock()
        self._held: list[Item] = []
        self._first = self._last = 0.0
        self._failure: LeanreadError | None = None

    def add(self, item: Item) -> None:
        """Hold ``item`` after every one added before it."""
        now = time.monotonic()
        with self._lock:
            if not self._held:
                self._first = now
            self._held.append(item)
            self._last = now
        _WRITER.wake(self)

    def pending(self) -> list[Item]:
        """The held writes, oldest first."""
        with self._lock:
            return list(self._held)

    def remove(self, count: int) -> None:
        """Forget the ``count`` oldest held writes (made, or failed)."""
        with self._lock:
            del self._held[:count]

    def due(self) -> float | None:
        """When the held writes are to be made (``time.monotonic``), None when none is held."""
        with self._lock:
            if not self._held:
                return None
            if len(self._held) >= MAX_HELD:
                return self._last
            return min(self._last + IDLE_S, self._first + MAX_AGE_S)

    def fail(self, failure: LeanreadError) -> None:
        """Keep ``failure`` for ``raise_failure`` (the first one since it was last raised)."""
        with self._lock:
            self._failure = self._failure or failure

    def raise_failure(self) -> None:
        """Raise the first failure of a held write since the last call, once.

        Raises:
            LeanreadError: that write's error.
        """
        with self._lock:
            failure, self._failure = self._failure, None
        if failure is not None:
            raise failure


class _Writer:
    """The process's writer thread: makes each store's held writes when due. A store with writes
    held is kept alive here until they are made; at exit every held write is made."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._waiting: set[WriteBehind[Any]] = set()
        self._pid = 0
        atexit.register(self.drain_all)

    def wake(self, queue: WriteBehind[Any]) -> None:
        with self._cond:
            if self._pid != os.getpid():  # first use, or a forked child: the parent's thread is not here
                self._pid = os.getpid()
                self._waiting = set()
                threading.Thread(target=self._run, name="leanread-ledger-writer", daemon=True).start()
            self._waiting.add(queue)
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                ready = self._ready()
                while not ready:
                    dues = [due for queue in self._waiting if (due := queue.due()) is not None]
                    self._cond.wait(None if not dues else max(0.0, min(dues) - time.monotonic()))
                    ready = self._ready()
            for queue in ready:
                _drain(queue)

    def _ready(self) -> list[WriteBehind[Any]]:
        """The stores whose writes are due (called holding the condition); those with none held
        are let go."""
        now = time.monotonic()
        ready: list[WriteBehind[Any]] = []
        for queue in list(self._waiting):
            due = queue.due()
            if due is None:
                self._waiting.discard(queue)
            elif due <= now:
                ready.append(queue)
        return ready

    def drain_all(self) -> None:
        """Make every held write now (at exit)."""
        with self._cond:
            queues = list(self._waiting) if self._pid == os.getpid() else []
        for queue in queues:
            _drain(queue)


def _drain(queue: WriteBehind[Any]) -> None:
    try:
        queue.drain()
    except Exception:  # never let the writer thread die: the store keeps its own failure
        _log.exception("leanread: the ledger's held writes failed")
        queue.remove(len(queue.pending()))


_WRITER = _Writer()
