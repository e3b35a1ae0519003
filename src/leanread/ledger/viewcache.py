"""A process's copy of the view records it fetched, so that a read costs the records added since
the last one, not every record of its file.

The shared stores (SQLite, Redis) keep a session's records for every server process. A read needs
all records of its file (``LedgerStore.views_of``); fetching and decoding them all made a call's
cost grow with the session (about 300 records of a much-read file at call 10,000). A record never
changes once appended except that it may be hidden (forget, compact, rewind), and every hide bumps
the session's hide counter. So a store asks only for the records after the last seq it holds,
with the session's hide counter and era; when the counter moved it asks which of the held
records are hidden now (no record is read again), and in another era (a Redis session that
expired and was begun again under the same id) it starts over.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace

from .store import ViewRecord

#: Records held per process before the least recently read files are dropped (about 300 bytes each).
MAX_RECORDS = 200_000

Era = Hashable
"""What names one life of a session in the store (Redis: its birth mark, and whether the file's
index still holds what was fetched): another era means the held records are void."""

Fetch = Callable[[int], tuple[Era, int, list[ViewRecord]]]
"""``fetch(after_seq)`` → the session's era, its hide counter, and the file's records with
``seq > after_seq``, oldest first, read as one consistent view of the store."""

Hidden = Callable[[list[int]], set[int]]
"""``hidden(seqs)`` → those of the file's ``seqs`` that are hidden now."""


@dataclass
class _Entry:
    era: Era
    hides: int
    records: list[ViewRecord]


class ViewCache:
    """Records per (session, file), refreshed incrementally; safe to use from several threads.

    Args:
        max_records: records kept in all before the least recently read files are dropped.
    """

    def __init__(self, max_records: int = MAX_RECORDS) -> None:
        self._entries: OrderedDict[tuple[str, str], _Entry] = OrderedDict()
        self._held = 0
        self._max = max_records
        self._lock = threading.Lock()

    def views(self, session_id: str, path: str, fetch: Fetch, hidden: Hidden) -> list[ViewRecord]:
        """Every record of ``path`` in the session, oldest first: the held ones plus what
        ``fetch`` gives after the last held seq. When the hide counter moved, the held records
        that were visible are checked with ``hidden`` (a hide only ever turns a record
        invisible); in another era, all of ``fetch(0)``.

        Raises:
            Whatever ``fetch`` or ``hidden`` raises; the held records are then left as they were.
        """
        key = (session_id, path)
        with self._lock:
            entry = self._entries.get(key)
        after = entry.records[-1].seq if entry is not None and entry.records else 0
        era, hides, new = fetch(after)
        if entry is None or entry.era != era:
            if after:
                era, hides, new = fetch(0)
            records = new
        else:
            held = entry.records
            if entry.hides != hides:
                gone = hidden([r.seq for r in held if r.visible])
                held = [replace(r, visible=False) if r.seq in gone else r for r in held] if gone else held
            records = held + new if new else held
        self._keep(key, _Entry(era, hides, records))
        return list(records)

    def _keep(self, key: tuple[str, str], entry: _Entry) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            self._held += len(entry.records) - (len(old.records) if old is not None else 0)
            self._entries[key] = entry
            while self._held > self._max and len(self._entries) > 1:
                _, dropped = self._entries.popitem(last=False)
                self._held -= len(dropped.records)
