"""What the model of each session has been shown, and whether it is still in its context window.

A store keeps, per session id, one ``ViewRecord`` per file a tool result showed lines of, in
call order, and the texts of the file versions shown (content-addressed by SHA-256, so a diff
can be made against exactly what the model saw). The in-memory store is here; the SQLite store
(the default, on disk) is ``sqlite_store`` and the Redis store (a fleet of servers sharing
sessions) ``redis_store``; all keep the ``LedgerStore`` protocol. What follows from the records
(dedup, diffs, edit grants) is worked out in ``knowledge``.

A store also keeps the ``grep`` hits of each session under short ids (``m1``, ``m2``, …, numbered
per session across calls), so ``read(match_id=…)`` can open the region around one.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ..errors import InvalidArgument
from .transcript import CallRecord, SessionSummary, TranscriptStore, normalized, summarise

LineRange = tuple[int, int]

#: Kind of a record that carries lines an earlier call showed onto a newer version of the file.
CARRY = "carry"
#: A record with no file that marks a tool call's place in the session, so that a compact or a
#: rewind may name any call, also one that showed no file (an ``ls``, a grep without matches, a
#: refusal). It is never visible: no stub, diff or grant comes from it.
CALL = "call"

#: What a match id holds: the file's realpath and the 1-based line number of the hit.
MatchLocation = tuple[str, int]

#: Where a ``read`` without a path goes on in the file read last: the 1-based line after the last
#: window and the 1-based character of it to start at (1 but after a slice of one long line).
NextWindow = tuple[int, int]

#: What ``LedgerStore.set_last_path`` keeps: the path as the model knows it, and its next window.
LastPath = tuple[str, NextWindow | None]


def match_id(number: int) -> str:
    """The id of the session's ``number``-th grep hit: ``m1``, ``m2``, …"""
    return f"m{number}"


def match_number(text: str) -> int | None:
    """The number in a match id (``m7``, ``M7`` or ``7``, spaces around ignored), or None when
    ``text`` is not one."""
    digits = text.strip()
    digits = digits[1:] if digits[:1] in ("m", "M") else digits
    return int(digits) if digits.isdigit() and digits.isascii() and int(digits) > 0 else None


@dataclass(frozen=True)
class ViewRecord:
    """What one tool result showed of one file version.

    Attributes:
        call_id: the tool call id of the result.
        path: realpath of the file.
        content_hash: SHA-256 of the file's bytes in the version shown.
        ranges: inclusive 1-based line ranges of that version the model has whole from this
            result (for an edit or write: every line it knows after its own change).
        size: bytes of that version.
        mtime_ns: its modification time in nanoseconds.
        kind: the tool that showed it: ``read``, ``outline`` (a read's outline rows),
            ``edit``, ``write``, ``grep``, ``refusal`` (an
            edit refused with the diff of an outside change), ``carry`` (lines this call
            showed, carried onto a newer version; see ``knowledge``), or ``call`` (no file: the
            call's place in the session, see ``CALL``).
        instructions: realpaths of instruction files (AGENTS.md, …) attached to this result.
        origins: for each range, the line number the model knows its first line by, when that
            differs (a carry record of lines that moved); empty: the same numbers.
        visible: False once the result left the context window (forgotten, compacted, rewound).
        seq: order within the session, given by the store when the record is added.
    """

    call_id: str
    path: str
    content_hash: str
    ranges: tuple[LineRange, ...]
    size: int
    mtime_ns: int
    kind: str = "read"
    instructions: tuple[str, ...] = ()
    visible: bool = True
    seq: int = 0
    origins: tuple[int, ...] = ()

    def known_as(self) -> dict[int, int]:
        """Each line number of ``ranges`` → the number the model knows it by."""
        starts = self.origins or tuple(a for a, _ in self.ranges)
        return {n: o + n - a for (a, b), o in zip(self.ranges, starts, strict=True) for n in range(a, b + 1)}


class LedgerStore(TranscriptStore, Protocol):
    """Storage of view records per session, of shown file versions, and of the transcript
    (every call as the model saw it; the methods of ``transcript.TranscriptStore``).

    Implementations must be safe to call from several threads; stores that persist (SQLite,
    Redis) must give a session resumed later, under the same id, the same answers.
    """

    def new_call_id(self, session_id: str) -> str:
        """A call id not yet used in ``session_id``: ``r1``, ``r2``, …"""
        ...

    def session_views(self, session_id: str, call_ids: Collection[str] | None = None) -> list[ViewRecord]:
        """Every view record of the session (all files, the ``call`` marks too), oldest first;
        only those of ``call_ids`` when given."""
        ...

    def record(self, session_id: str, record: ViewRecord) -> ViewRecord:
        """Append ``record``; returns it with its ``seq`` set."""
        ...

    def views_of(self, session_id: str, path: str) -> list[ViewRecord]:
        """Every record of ``path`` in the session, oldest first, visible or not."""
        ...

    def visible_instructions(self, session_id: str) -> set[str]:
        """Instruction files attached to results still visible in the session."""
        ...

    def call_states(self, session_id: str) -> dict[str, bool]:
        """Every call id the session recorded, in the order of its first record → whether any
        record of it is still visible (its result is in the context window as far as leanread
        knows)."""
        ...

    def forget(self, session_id: str, call_ids: Iterable[str]) -> int:
        """Mark the results of ``call_ids`` as out of the context window; returns how many
        visible records were marked. Unknown ids are ignored."""
        ...

    def compact(self, session_id: str, up_to_call_id: str) -> int:
        """Mark every result up to and including ``up_to_call_id`` as gone (the history before
        it was summarised), with the lines carried on their behalf later (carry records of those
        calls, whatever their seq); returns how many visible records were marked.

        Raises:
            InvalidArgument: the session has no result with that call id.
        """
        ...

    def rewind(self, session_id: str, to_call_id: str) -> int:
        """Mark every result after ``to_call_id`` as gone (the conversation went back to it);
        returns how many visible records were marked.

        Raises:
            InvalidArgument: the session has no result with that call id.
        """
        ...

    def put_version(self, content_hash: str, text: str) -> None:
        """Keep the logical text (lines joined by ``\\n``) of a shown file version."""
        ...

    def get_version(self, content_hash: str) -> str | None:
        """The text kept by ``put_version``, or None."""
        ...

    def set_last_path(self, session_id: str, path: str, next_window: NextWindow | None = None) -> None:
        """Remember the file the session read last (as the model knows it) and where its next
        window starts (None: nowhere known, such as after an image)."""
        ...

    def last_path(self, session_id: str) -> str | None:
        """The path given to ``set_last_path`` last, or None."""
        ...

    def next_window(self, session_id: str) -> NextWindow | None:
        """The ``next_window`` given to ``set_last_path`` last, or None (also for a ledger written
        before it was kept)."""
        ...

    def put_matches(self, session_id: str, matches: Sequence[MatchLocation]) -> list[str]:
        """Keep grep hits ``(realpath, line)`` under new ids that go on with the session's
        numbering (``m1``, ``m2``, …; never reused, also across processes sharing a store);
        returns the ids in the order of ``matches``."""
        ...

    def get_match(self, session_id: str, match_id: str) -> MatchLocation | None:
        """The ``(realpath, line)`` kept under ``match_id`` in this session (``m7``; see
        ``match_number`` for the spellings accepted), or None."""
        ...

    def sessions_under(self, root: str) -> list[str]:
        """Ids of the sessions with a record of ``root`` or of a file inside it (``root`` a
        realpath), sorted; a client that compacts without telling leanread names its workspace
        root, not its session (see ``tools.context.compact_sessions``)."""
        ...

    def finish_call(
        self, session_id: str, records: Sequence[ViewRecord], last: LastPath | None, call: CallRecord | None
    ) -> None:
        """The writes of one tool call kept until it ended (``callwrites.CallWrites``): append
        ``records`` in order (``record``), then keep ``last`` (``set_last_path``; None: leave it),
        then ``call`` in the transcript (``record_call``; None: none). The SQLite store makes them
        one transaction; a store without transactions makes them in that order."""
        ...


def inside(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or lies inside it (both realpaths)."""
    base = root.rstrip("/")
    return bool(path) and (path == (base or "/") or path.startswith(base + "/"))


def unknown_call(call_id: str) -> InvalidArgument:
    """The error for a compact/rewind to a call id the session never recorded."""
    return InvalidArgument(
        f"This session has no tool result with call id {call_id!r}; pass a call_id from a result's metadata."
    )


def last_seq_of(records: Iterable[ViewRecord], call_id: str) -> int | None:
    """Where call ``call_id`` stands in the session: the highest ``seq`` among its own records
    (carry records, added later on its behalf, do not move it), or None."""
    seqs = [r.seq for r in records if r.call_id == call_id and r.kind != CARRY]
    return max(seqs) if seqs else None


def compacted(records: Sequence[ViewRecord], limit: int) -> list[ViewRecord]:
    """The records a compaction up to the call at ``limit`` (its ``last_seq_of``) hides: those up
    to it, and the lines carried later on behalf of a call that has no record after it."""
    gone = {r.call_id for r in records if r.kind != CARRY and r.seq <= limit}
    gone -= {r.call_id for r in records if r.kind != CARRY and r.seq > limit}
    return [r for r in records if r.seq <= limit or r.call_id in gone]


def rewound(records: Sequence[ViewRecord], limit: int) -> list[ViewRecord]:
    """The records a rewind to the call at ``limit`` hides: every later one."""
    return [r for r in records if r.seq > limit]


def finish_in_order(
    store: LedgerStore, session_id: str, records: Sequence[ViewRecord], last: LastPath | None, call: CallRecord | None
) -> None:
    """``finish_call`` for a store without transactions over several writes (memory, Redis): the
    records, the last path and the transcript row, each its own atomic step, in that order."""
    for record in records:
        store.record(session_id, record)
    if last is not None:
        store.set_last_path(session_id, *last)
    if call is not None:
        store.record_call(session_id, call)


class MemoryLedger:
    """A ``LedgerStore`` in process memory; lost when the process ends."""

    def __init__(self) -> None:
        self._records: dict[str, list[ViewRecord]] = {}
        self._counters: dict[str, itertools.count[int]] = {}
        self._seqs: dict[str, itertools.count[int]] = {}
        self._versions: dict[str, str] = {}
        self._last_paths: dict[str, tuple[str, NextWindow | None]] = {}
        self._matches: dict[str, list[MatchLocation]] = {}
        self._calls: dict[str, list[CallRecord]] = {}
        self._by_path: dict[tuple[str, str], list[int]] = {}  # where each file's records stand
        self._with_instructions: dict[str, list[int]] = {}  # where records naming instruction files stand
        self._lock = threading.Lock()

    def new_call_id(self, session_id: str) -> str:
        with self._lock:
            counter = self._counters.setdefault(session_id, itertools.count(1))
            return f"r{next(counter)}"

    def record(self, session_id: str, record: ViewRecord) -> ViewRecord:
        with self._lock:
            seq = next(self._seqs.setdefault(session_id, itertools.count(1)))
            stored = replace(record, seq=seq)
            records = self._records.setdefault(session_id, [])
            self._by_path.setdefault((session_id, record.path), []).append(len(records))
            if record.instructions:
                self._with_instructions.setdefault(session_id, []).append(len(records))
            records.append(stored)
            return stored

    def views_of(self, session_id: str, path: str) -> list[ViewRecord]:
        with self._lock:
            records = self._records.get(session_id, [])
            return [records[i] for i in self._by_path.get((session_id, path), [])]

    def visible_instructions(self, session_id: str) -> set[str]:
        with self._lock:
            records = self._records.get(session_id, [])
            held = (records[i] for i in self._with_instructions.get(session_id, []))
            return {f for r in held if r.visible for f in r.instructions}

    def call_states(self, session_id: str) -> dict[str, bool]:
        with self._lock:
            states: dict[str, bool] = {}
            for r in self._records.get(session_id, []):
                states[r.call_id] = states.get(r.call_id, False) or r.visible
            return states

    def _hide(self, session_id: str, hidden: Iterable[int]) -> int:
        wanted = set(hidden)
        records = self._records.get(session_id, [])
        hits = 0
        for i, rec in enumerate(records):
            if rec.seq in wanted and rec.visible:
                records[i] = replace(rec, visible=False)
                hits += 1
        return hits

    def forget(self, session_id: str, call_ids: Iterable[str]) -> int:
        ids = set(call_ids)
        with self._lock:
            return self._hide(session_id, [r.seq for r in self._records.get(session_id, []) if r.call_id in ids])

    def compact(self, session_id: str, up_to_call_id: str) -> int:
        with self._lock:
            records = self._records.get(session_id, [])
            limit = last_seq_of(records, up_to_call_id)
            if limit is None:
                raise unknown_call(up_to_call_id)
            return self._hide(session_id, [r.seq for r in compacted(records, limit)])

    def rewind(self, session_id: str, to_call_id: str) -> int:
        with self._lock:
            records = self._records.get(session_id, [])
            limit = last_seq_of(records, to_call_id)
            if limit is None:
                raise unknown_call(to_call_id)
            return self._hide(session_id, [r.seq for r in rewound(records, limit)])

    def put_version(self, content_hash: str, text: str) -> None:
        with self._lock:
            self._versions[content_hash] = text

    def get_version(self, content_hash: str) -> str | None:
        with self._lock:
            return self._versions.get(content_hash)

    def set_last_path(self, session_id: str, path: str, next_window: NextWindow | None = None) -> None:
        with self._lock:
            self._last_paths[session_id] = (path, next_window)

    def last_path(self, session_id: str) -> str | None:
        with self._lock:
            last = self._last_paths.get(session_id)
        return None if last is None else last[0]

    def next_window(self, session_id: str) -> NextWindow | None:
        with self._lock:
            last = self._last_paths.get(session_id)
        return None if last is None else last[1]

    def put_matches(self, session_id: str, matches: Sequence[MatchLocation]) -> list[str]:
        with self._lock:
            kept = self._matches.setdefault(session_id, [])
            start = len(kept)
            kept.extend((path, line) for path, line in matches)
            return [match_id(start + i + 1) for i in range(len(matches))]

    def sessions_under(self, root: str) -> list[str]:
        with self._lock:
            return sorted(sid for sid, records in self._records.items() if any(inside(r.path, root) for r in records))

    def get_match(self, session_id: str, match_id: str) -> MatchLocation | None:
        number = match_number(match_id)
        with self._lock:
            kept = self._matches.get(session_id, [])
            return kept[number - 1] if number is not None and number <= len(kept) else None

    def finish_call(
        self, session_id: str, records: Sequence[ViewRecord], last: LastPath | None, call: CallRecord | None
    ) -> None:
        finish_in_order(self, session_id, records, last, call)

    def record_call(self, session_id: str, call: CallRecord) -> CallRecord:
        with self._lock:
            kept = self._calls.setdefault(session_id, [])
            stored = replace(normalized(call), number=len(kept) + 1)
            kept.append(stored)
            return stored

    def calls(
        self, session_id: str, first: int = 1, limit: int | None = None, *, bodies: bool = True
    ) -> list[CallRecord]:
        with self._lock:
            kept = self._calls.get(session_id, [])
            start = max(first, 1) - 1
            chosen = kept[start : None if limit is None else start + max(limit, 0)]
        if bodies:
            return chosen
        return [replace(c, arguments={}, text="", metadata={}, images=()) for c in chosen]

    def find_call(self, session_id: str, call_id: str) -> CallRecord | None:
        with self._lock:
            return next((c for c in reversed(self._calls.get(session_id, [])) if c.call_id == call_id), None)

    def sessions(self) -> list[SessionSummary]:
        with self._lock:
            summaries = [summarise(session, kept) for session, kept in self._calls.items() if kept]
        return sorted(summaries, key=lambda s: (-s.last, s.session))

    def session_paths(self, session_id: str) -> list[str]:
        with self._lock:
            return list(dict.fromkeys(r.path for r in self._records.get(session_id, []) if r.kind != CALL))

    def session_views(self, session_id: str, call_ids: Collection[str] | None = None) -> list[ViewRecord]:
        with self._lock:
            records = self._records.get(session_id, [])
            return list(records) if call_ids is None else [r for r in records if r.call_id in call_ids]
