"""What the model of each session has been shown, and whether it is still in its context window.

A store keeps ``ReadRecord``s per session id. The in-memory store is here; SQLite and Redis
stores implement the same ``LedgerStore`` protocol. The dedup question ("does the model still
have these lines of this version?") is answered by the pure function ``covering_calls``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

LineRange = tuple[int, int]


@dataclass(frozen=True)
class ReadRecord:
    """One tool result that showed lines of a file.

    Attributes:
        call_id: the tool call id the result answered.
        path: realpath of the file.
        ranges: inclusive 1-based line ranges shown whole.
        content_hash: SHA-256 of the file's bytes when they were shown.
        size: bytes of that version.
        mtime_ns: its modification time in nanoseconds.
        visible: False once the result left the context window (forgotten, compacted, rewound).
    """

    call_id: str
    path: str
    ranges: tuple[LineRange, ...]
    content_hash: str
    size: int
    mtime_ns: int
    visible: bool = True


class LedgerStore(Protocol):
    """Storage of read records per session; implementations must be safe across threads."""

    def new_call_id(self, session_id: str) -> str:
        """A call id not yet used in ``session_id`` (for callers that bring none)."""
        ...

    def record(self, session_id: str, record: ReadRecord) -> None:
        """Append ``record`` to the session's ledger."""
        ...

    def reads_of(self, session_id: str, path: str) -> list[ReadRecord]:
        """Every record of ``path`` in the session, oldest first, visible or not."""
        ...

    def forget(self, session_id: str, call_ids: Iterable[str]) -> int:
        """Mark the results of ``call_ids`` as out of the context window; returns how many."""
        ...


class MemoryLedger:
    """A ``LedgerStore`` in process memory; lost when the process ends."""

    def __init__(self) -> None:
        self._records: dict[str, list[ReadRecord]] = {}
        self._counters: dict[str, itertools.count[int]] = {}
        self._lock = threading.Lock()

    def new_call_id(self, session_id: str) -> str:
        with self._lock:
            counter = self._counters.setdefault(session_id, itertools.count(1))
            return f"r{next(counter)}"

    def record(self, session_id: str, record: ReadRecord) -> None:
        with self._lock:
            self._records.setdefault(session_id, []).append(record)

    def reads_of(self, session_id: str, path: str) -> list[ReadRecord]:
        with self._lock:
            return [r for r in self._records.get(session_id, []) if r.path == path]

    def forget(self, session_id: str, call_ids: Iterable[str]) -> int:
        wanted = set(call_ids)
        with self._lock:
            records = self._records.get(session_id, [])
            hits = 0
            for i, rec in enumerate(records):
                if rec.call_id in wanted and rec.visible:
                    records[i] = replace(rec, visible=False)
                    hits += 1
            return hits


def covering_calls(records: Sequence[ReadRecord], content_hash: str, first: int, last: int) -> list[str] | None:
    """The call ids whose visible ranges of version ``content_hash`` together cover every line
    ``first..last``, newest first and as few as a greedy pass finds; None if some line is not
    covered.

    Only results newer than the newest visible result of another version count: after the
    model saw version B, lines it saw of an earlier version A are not "unchanged" even if the
    file went back to A.
    """
    candidates: list[ReadRecord] = []
    for rec in reversed(records):
        if not rec.visible:
            continue
        if rec.content_hash != content_hash:
            break
        candidates.append(rec)
    needed = set(range(first, last + 1))
    chosen: list[str] = []
    for rec in candidates:
        covered = {n for a, b in rec.ranges for n in range(max(a, first), min(b, last) + 1)}
        if covered & needed:
            chosen.append(rec.call_id)
            needed -= covered
        if not needed:
            return chosen
    return None
