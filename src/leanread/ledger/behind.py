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
for the session it belongs to and raised once by ``raise_failure`` (the store's next
``finish_call`` of that session: that call answers with the ledger's error); a process killed
within ``MAX_AGE_S`` of a result loses that call's records (the model is shown those lines again
rather than a stub; an exit that runs ``atexit`` makes them); another process sharing the file
sees a call's records up to ``MAX_AGE_S`` later. A forked child starts with nothing held and
its own writer thread: what the parent held is the parent's to write.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable
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
            in the same hold of the store's lock as its commit) and never raises; called on the
            process's writer thread when due, and by the store itself before it reads anything
            else.
    """

    def __init__(self, drain: Callable[[], object]) -> None:
        self.drain = drain
        self._lock = threading.Lock()
        self._held: list[tuple[float, Item]] = []  # (when added, the write)
        self._last = 0.0
        self._failures: dict[str, LeanreadError] = {}
        _QUEUES.add(self)

    def add(self, item: Item) -> None:
        """Hold ``item`` after every one added before it. The writer thread is woken only when
        this makes the writes due sooner than it waits for (the first held, or ``MAX_HELD``
        reached): a thread woken with every call took the GIL while the reply was on its way."""
        now = time.monotonic()
        with self._lock:
            sooner = not self._held
            self._held.append((now, item))
            self._last = now
            sooner = sooner or len(self._held) == MAX_HELD
        if sooner:
            _WRITER.wake(self)

    def pending(self) -> list[Item]:
        """The held writes, oldest first."""
        with self._lock:
            return [item for _, item in self._held]

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
            return min(self._last + IDLE_S, self._held[0][0] + MAX_AGE_S)

    def fail(self, keys: Iterable[str], failure: LeanreadError) -> None:
        """Keep ``failure`` for each of ``keys`` (sessions) that has none kept yet."""
        with self._lock:
            for key in keys:
                self._failures.setdefault(key, failure)

    def raise_failure(self, key: str) -> None:
        """Raise the first failure kept for ``key`` since it was last raised, once.

        Raises:
            LeanreadError: that write's error.
        """
        with self._lock:
            failure = self._failures.pop(key, None)
        if failure is not None:
            raise failure

    def _forked(self) -> None:
        self._lock = threading.Lock()
        self._held = []
        self._failures = {}


_QUEUES: weakref.WeakSet[WriteBehind[Any]] = weakref.WeakSet()


class _Writer:
    """The process's writer thread: makes each store's held writes when due. A store with writes
    held is kept alive here until they are made; at exit every held write is made."""

    def __init__(self) -> None:
        self._forked()
        atexit.register(self.drain_all)

    def _forked(self) -> None:
        self._cond = threading.Condition()
        self._waiting: set[WriteBehind[Any]] = set()
        self._started = False

    def wake(self, queue: WriteBehind[Any]) -> None:
        with self._cond:
            if not self._started:
                self._started = True
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
            queues = list(self._waiting)
        for queue in queues:
            _drain(queue)


def _drain(queue: WriteBehind[Any]) -> None:
    try:
        queue.drain()
    except Exception:  # a store's drain does not raise; were it to, the writer thread must live on
        _log.exception("leanread: the ledger's held writes failed")


def _after_fork_in_child() -> None:
    """A forked child holds nothing of its parent's (those writes are the parent's to make), and
    its locks and writer thread are new: the parent's thread, which may have held them, is gone."""
    _WRITER._forked()
    for queue in list(_QUEUES):
        queue._forked()


_WRITER = _Writer()


def make_held_writes() -> None:
    """Make every write any store of the process holds, now (what the exit hook does): for a
    process about to end without its exit hooks."""
    _WRITER.drain_all()


os.register_at_fork(after_in_child=_after_fork_in_child)
