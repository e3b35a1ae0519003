"""Per-process caches of pure results keyed by content, so a file read again costs no re-parse.

Only results that depend on the content alone (an outline of some lines, the token count of a
text) are kept; each cache is bounded in entries and evicts the least recently used.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

V = TypeVar("V")


class LRU(Generic[V]):
    """A thread-safe map of at most ``size`` entries; the least recently used goes first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value kept under ``key``, or ``make()`` kept under it (made outside the lock)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            if len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def put(self, key: Hashable, value: V) -> None:
        """Keep ``value`` under ``key``."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            if len(self._items) > self._size:
                self._items.popitem(last=False)

    def get(self, key: Hashable) -> V | None:
        """The value kept under ``key``, or None."""
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def discard(self, key: Hashable) -> None:
        """Forget ``key``, if kept."""
        with self._lock:
            self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)


def lines_digest(lines: Sequence[str]) -> bytes:
    """A 20-byte digest of a list of lines (BLAKE2b over them joined by ``\\n``, lone surrogates kept)."""
    return hashlib.blake2b("\n".join(lines).encode("utf-8", "surrogatepass"), digest_size=20).digest()


class Puts:
    """Which ``(content hash, text)`` pairs this process has stored already, so a store need not
    compress and send the same text again (at most ``size`` remembered)."""

    def __init__(self, size: int = 4096) -> None:
        self._done: LRU[bytes] = LRU(size)

    def seen(self, content_hash: str, text: str) -> bool:
        """Whether this very pair was noted before; notes it."""
        digest = lines_digest((text,))
        return self._done.get_or_make(content_hash, lambda: b"") == digest or self._note(content_hash, digest)

    def _note(self, content_hash: str, digest: bytes) -> bool:
        self._done.put(content_hash, digest)
        return False


def once(build: Callable[[], V]) -> Callable[[], V]:
    """``build`` run at most once per process however many threads ask at the same time (a
    parallel burst of first calls built the tokenizer once per thread: 16 at once took 0.8 GB);
    the later calls get its result. A build that raises is tried again by the next call."""
    lock = threading.Lock()
    built: list[V] = []

    def get() -> V:
        if not built:
            with lock:
                if not built:
                    built.append(build())
        return built[0]

    get.__doc__ = build.__doc__
    get.__name__ = build.__name__
    return get
