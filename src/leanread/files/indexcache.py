"""Indexes of recently read big files, one per path, reused while the file is the same version
(``LineIndexCache``); ``textfile.LINE_INDEXES`` is the one every session of a process shares."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable

from ..errors import FileMissing, PathError
from .fileversion import StaleIndex, stale_message, version_of
from .lineindex import DEFAULT_STRIDE, LineIndex
from .safeopen import open_regular


class LineIndexCache:
    """Indexes of recently read files, one per path, reused while the file is the same version:
    same size, mtime, inode and ctime (see ``version_of``).

    Thread-safe: a lock guards the table, and each path is built by one thread at a time
    (others asking for the same version wait for it instead of building it twice). Building
    runs outside the table lock, so a big file does not hold up reads of other files.

    Args:
        max_entries: paths kept (least recently used dropped first), 1 or more.
        stride: checkpoint distance in bytes passed to ``LineIndex.build``.
    """

    def __init__(self, max_entries: int = 64, stride: int = DEFAULT_STRIDE) -> None:
        if max_entries < 1:
            raise ValueError("LineIndexCache.max_entries must be at least 1.")
        self.max_entries = max_entries
        self.stride = stride
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, LineIndex] = OrderedDict()
        self._building: dict[str, threading.Lock] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _lookup(self, real_path: str, version: tuple[int, int, int, int]) -> LineIndex | None:
        """The cached index of that version, or None (caller holds ``_lock``)."""
        index = self._entries.get(real_path)
        if index is not None and index.version == version:
            self._entries.move_to_end(real_path)
            return index
        return None

    @staticmethod
    def _stat(real_path: str, name: str) -> tuple[int, int, int, int]:
        try:
            return version_of(os.stat(real_path))
        except FileNotFoundError:
            raise FileMissing(f"{name} no longer exists; check the path and read it again.") from None
        except OSError as exc:
            raise PathError(f"Cannot stat {name}: {exc.strerror}.") from None

    def _require_version(self, real_path: str, version: tuple[int, int, int, int], name: str) -> None:
        now = self._stat(real_path, name)
        if now != version:
            raise StaleIndex(stale_message(name, "it was stat-ed", version, now))

    def get(
        self,
        real_path: str,
        size: int,
        mtime_ns: int,
        *,
        ino: int | None = None,
        ctime_ns: int | None = None,
        name: str | None = None,
    ) -> LineIndex:
        """The index of ``real_path`` as of the caller's ``stat``.

        A hit returns the very same object; any other size, mtime, inode or ctime rebuilds it
        and replaces the older version of that path.

        Args:
            real_path: absolute realpath (the cache key; no resolution is done here).
            size: bytes, from ``stat``.
            mtime_ns: modification time in nanoseconds, from ``stat``.
            ino: inode number from the same ``stat``. None: taken from a ``stat`` made now, after
                checking that it still shows ``size`` and ``mtime_ns`` (one more system call).
            ctime_ns: inode change time in nanoseconds from the same ``stat``; None as for ``ino``.
            name: the file's name in messages (default ``real_path``).

        Raises:
            FileMissing: the file is gone.
            NotAFile, PathError: as for ``LineIndex.build``.
            StaleIndex: the file on disk is no longer that version (``stat`` again); checked
                before the pass, so a stale ``stat`` costs no rebuild.
        """
        shown = name or real_path
        if ino is None or ctime_ns is None:
            now = self._stat(real_path, shown)
            if now[:2] != (size, mtime_ns):
                raise StaleIndex(stale_message(shown, "it was stat-ed", (size, mtime_ns, now[2], now[3]), now))
            ino = now[2] if ino is None else ino
            ctime_ns = now[3] if ctime_ns is None else ctime_ns
        version = (size, mtime_ns, ino, ctime_ns)

        def build() -> LineIndex:
            self._require_version(real_path, version, shown)  # no full pass for a stale stat
            index = LineIndex.build(real_path, stride=self.stride, name=shown)
            self._store(real_path, index)  # kept even when newer than asked: the next stat hits it
            if index.version != version:
                raise StaleIndex(stale_message(shown, "it was stat-ed", version, index.version))
            return index

        return self._once(real_path, version, build)

    def _once(self, real_path: str, version: tuple[int, int, int, int], build: Callable[[], LineIndex]) -> LineIndex:
        """The cached index of ``real_path`` at ``version``, else ``build()``'s, with one build
        of a file at a time: a caller that waited for another's build takes its index."""
        with self._lock:
            hit = self._lookup(real_path, version)
            if hit is not None:
                return hit
            building = self._building.setdefault(real_path, threading.Lock())
        try:
            with building:
                with self._lock:
                    hit = self._lookup(real_path, version)
                return hit if hit is not None else build()
        finally:
            with self._lock:
                if self._building.get(real_path) is building and not building.locked():
                    del self._building[real_path]

    def current(self, real_path: str, *, name: str | None = None) -> LineIndex:
        """The index of the file at ``real_path`` as it is now: the cached one while the file is
        that version, else one built now from the same open file (of the bytes it has when the
        pass starts; ``growing`` when it grows meanwhile, as a log does).

        Args:
            real_path: absolute realpath (the cache key).
            name: the file's name in messages (default ``real_path``).

        Raises:
            FileMissing: the file is gone.
            NotAFile, PathError: as for ``LineIndex.build``.
            StaleIndex: the file shrank, was replaced or rewritten during the pass.
        """
        shown = name or real_path
        fd = open_regular(real_path, shown)  # never through a link, never blocking on a FIFO
        try:
            version = version_of(os.fstat(fd))

            def build() -> LineIndex:
                index = LineIndex.build(fd, stride=self.stride, name=shown)
                self._store(real_path, index)
                return index

            return self._once(real_path, version, build)
        finally:
            os.close(fd)

    def _store(self, real_path: str, index: LineIndex) -> None:
        with self._lock:
            self._entries[real_path] = index
            self._entries.move_to_end(real_path)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget every index."""
        with self._lock:
            self._entries.clear()
