"""A process's copy of the view records it fetched, so that a read costs the records added since
the last one, not every record of its file.

The shared stores (SQLite, Redis) keep a session's records for every server process. A read needs
all records of its file (``LedgerStore.views_of``); fetching and decoding them all made a call's
cost grow with the session (about 300 records of a much-read file at call 10,000). A record never
changes once appended except that it may be hidden (forget, compact, rewind), and every hide bumps
the session's hide counter. So a store asks only for the records after the last seq it holds,
along with the session's stamp — its hide counter and birth mark — and starts over when the stamp
moved (a hide, or a session that expired and was begun again under the same id).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from .ledger import ViewRecord

#: Records held per process before the least recently read files are dropped (about 300 bytes each).
MAX_RECORDS = 200_000

Stamp = Hashable
"""What a store says of a session besides its records: equal stamps mean nothing was hidden."""

Fetch = Callable[[int], tuple[Stamp, list[ViewRecord]]]
"""``fetch(after_seq)`` → the session's stamp and the file's records with ``seq > after_seq``, oldest
first, read as one consistent view of the store."""


@dataclass
class _Entry:
    stamp: Stamp
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

    def views(self, session_id: str, path: str, fetch: Fetch) -> list[ViewRecord]:
        """Every record of ``path`` in the session, oldest first: the held ones plus what
        ``fetch`` gives after the last held seq, or all of ``fetch(0)`` when the stamp moved.

        Raises:
            Whatever ``fetch`` raises; the held records are then left as they were.
        """
        key = (session_id, path)
        with self._lock:
            entry = self._entries.get(key)
        after = entry.records[-1].seq if entry is not None and entry.records else 0
        stamp, new = fetch(after)
        if entry is None or entry.stamp != stamp:
            if after:
                stamp, new = fetch(0)
            records = new
        else:
            records = entry.records + new if new else entry.records
        self._keep(key, _Entry(stamp, records))
        return list(records)

    def _keep(self, key: tuple[str, str], entry: _Entry) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            self._held += len(entry.records) - (len(old.records) if old is not None else 0)
            self._entries[key] = entry
            while self._held > self._max and len(self._entries) > 1:
                _, dropped = self._entries.popitem(last=False)
                self._held -= len(dropped.records)
