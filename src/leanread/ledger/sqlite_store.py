"""The SQLite ``LedgerStore``: the default store, on disk, so a session resumed later keeps its dedup.

One file holds every session of a user (or of a workspace, when the caller passes a path); it
is opened in WAL mode, so readers never block the writer; a call id is handed out by one
``INSERT … RETURNING`` and every other write that reads first (``record``, ``compact``,
``rewind``) runs in a ``BEGIN IMMEDIATE`` transaction, so several processes (two ``leanread
serve`` on one machine) can share the file without ever handing out the same call id or ``seq``
twice, and records become visible in ``seq`` order. A statement keyed by call id names its index
(``INDEXED BY records_by_call``): without statistics SQLite's planner takes the primary key for
``call_id = ? AND visible = 1`` and reads the whole session.

A call's end write (``finish_call``) and a shown version's text (``put_version``) are held until
the process is idle and then made together (``behind``, ``sqlite_file``); the store's hot reads
take the held writes in (``held``), everything else it is asked makes them first. Another
process sees them within ``behind.MAX_AGE_S``; ``flush`` makes them at once.

The file's connection, its failures and its held writes are in ``sqlite_file``, its schema and
upgrades in ``sqlite_schema``, rows to and from leanread's values in ``sqlite_rows``. Every
failure of the file (corrupt, unreadable, locked too long, newer schema) is a one-sentence
``LeanreadError`` naming the file and the next step, never a raw ``sqlite3`` traceback.
"""

from __future__ import annotations

import json
import os
import threading
import zlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace

from ..errors import LeanreadError
from ..memo import Puts
from .held import (
    HeldCall,
    HeldVersion,
    held_instructions,
    held_last,
    held_records,
    held_text,
)
from .sqlite_file import SQLiteFile
from .sqlite_rows import (
    COLUMNS,
    blob,
    count_hide,
    insert_records,
    record_row,
    row_to_record,
    text_of,
    upsert_last_path,
)
from .sqlite_schema import BUSY_TIMEOUT_MS, SCHEMA_VERSION, default_ledger_path
from .store import (
    LastPath,
    MatchLocation,
    NextWindow,
    ViewRecord,
    match_id,
    match_number,
    unknown_call,
)
from .transcript import CallRecord, SessionSummary
from .transcript_sqlite import insert_call, select_call, select_calls, select_sessions
from .viewcache import ViewCache

__all__ = ["BUSY_TIMEOUT_MS", "SCHEMA_VERSION", "SQLiteLedger", "default_ledger_path", "shared_ledger"]


#: The session's hide counter, then the file's records after a seq (none: one row of NULLs).
_FILE_RECORDS_SINCE = (
    "SELECT h.hides, "
    + ", ".join(f"r.{column}" for column in COLUMNS.split(", "))
    + " FROM (SELECT coalesce((SELECT hides FROM counters WHERE session = ?1), 0) AS hides) AS h "
    "LEFT JOIN records AS r INDEXED BY records_by_path ON r.session = ?1 AND r.path = ?2 AND r.seq > ?3 ORDER BY r.seq"
)


class SQLiteLedger(SQLiteFile):
    """A ``LedgerStore`` in a SQLite file; survives restarts and can be shared by processes.

    Args:
        path: the database file; created (with its folders) when missing. Default:
            ``default_ledger_path()``. A new file is made readable by its owner only, since
            it keeps the texts of the file versions shown.

    Raises:
        LeanreadError: the file (or its folder) cannot be created or opened, is not a leanread
            ledger, is corrupt, or was written by a newer leanread (schema version above
            ``SCHEMA_VERSION``). Every method raises it too when the file fails later (disk
            full, locked by another process for more than ``BUSY_TIMEOUT_MS``, closed store).

    Usable as a context manager; ``close()`` releases the file.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(path)
        self._puts = Puts()
        self._views = ViewCache()

    def __repr__(self) -> str:
        return f"SQLiteLedger({str(self.path)!r})"

    # --- LedgerStore -----------------------------------------------------------------------

    def new_call_id(self, session_id: str) -> str:
        """A call id not yet used in ``session_id``: ``r1``, ``r2``, …, unique across processes."""
        with self._locked() as conn:  # one statement: atomic on its own, across processes too
            [(number,)] = conn.execute(
                "INSERT INTO counters (session, calls) VALUES (?, 1) "
                "ON CONFLICT (session) DO UPDATE SET calls = calls + 1 RETURNING calls",
                (blob(session_id),),
            ).fetchall()
        return f"r{number}"

    def record(self, session_id: str, record: ViewRecord) -> ViewRecord:
        """Append ``record``; returns it with its ``seq`` set (1, 2, … per session)."""
        session = blob(session_id)
        row = record_row(record)
        with self._guard(), self._transaction() as conn:
            [first] = insert_records(conn, session, [row])
        return replace(record, seq=first)

    def finish_call(
        self, session_id: str, records: Sequence[ViewRecord], last: LastPath | None, call: CallRecord | None
    ) -> None:
        """One call's kept writes (see ``LedgerStore.finish_call``), held until the process is idle
        (``behind``) and then made in one write transaction with the other held ones. The records
        take their seqs now (one counter step), so the session's order is the order its calls
        ended, whichever process makes its writes first; they are held with the session's hide
        counter, and a write that finds it moved (another process hid records meanwhile, which
        that hide could not know of) makes them as gone (``sqlite_rows.write_held``).

        Raises:
            LeanreadError: the store is closed, or a held write of this session failed since its
                last call (this call's writes are then not kept: the result it answers with is
                that error).
        """
        self._check_open()
        self._behind.raise_failure(session_id)
        if not records:  # nothing to number: a call whose own records were written as it went
            self._behind.add(HeldCall(session_id, (), last, call, 0))
            return
        with self._locked() as conn:  # its place in the session now, in the order calls end
            [(top, hides)] = conn.execute(
                "INSERT INTO counters (session, seqs) VALUES (?, ?) "
                "ON CONFLICT (session) DO UPDATE SET seqs = seqs + excluded.seqs RETURNING seqs, hides",
                (blob(session_id), len(records)),
            ).fetchall()
            first = top - len(records) + 1
            numbered = tuple(replace(record, seq=first + i) for i, record in enumerate(records))
            # held before the lock is let go: a later call's seqs, made and read by this process
            # first, would move its view of the file past these, which then were never read
            self._behind.add(HeldCall(session_id, numbered, last, call, hides))

    def views_of(self, session_id: str, path: str) -> list[ViewRecord]:
        """Every record of ``path`` in the session, oldest first, visible or not, the held ones
        too; only those added since this process last asked are read from the file (see
        ``viewcache``)."""
        session, file = blob(session_id), blob(path)

        held: list[ViewRecord] = []

        def fetch(after: int) -> tuple[None, int, list[ViewRecord]]:
            with self._locked() as conn:
                held[:] = held_records(self._behind.pending(), session_id, path)
                rows = conn.execute(_FILE_RECORDS_SINCE, (session, file, after)).fetchall()
            # one statement, one snapshot: the hide counter on every row, alone when no record is new
            return None, rows[0][0], [row_to_record(row[1:]) for row in rows if row[1] is not None]

        def hidden(seqs: list[int]) -> set[int]:
            gone: set[int] = set()
            with self._locked() as conn:
                for start in range(0, len(seqs), 500):  # the held records still visible: few, looked up by key
                    chunk = seqs[start : start + 500]
                    marks = ", ".join("?" * len(chunk))
                    rows = conn.execute(
                        f"SELECT seq FROM records WHERE session = ? AND seq IN ({marks}) AND visible = 0",
                        (session, *chunk),
                    ).fetchall()
                    gone.update(seq for (seq,) in rows)
            return gone

        stored = self._views.views(session_id, path, fetch, hidden)
        if not held:
            return stored
        held.sort(key=lambda r: r.seq)  # two threads' calls may be held in the other order than numbered
        if not stored or stored[-1].seq < held[0].seq:  # the usual order: this process's are the newest
            return [*stored, *held]
        return sorted([*stored, *held], key=lambda r: r.seq)

    def visible_instructions(self, session_id: str) -> set[str]:
        """Instruction files attached to results still visible in the session (held ones too)."""
        with self._locked() as conn:
            rows = conn.execute(
                "SELECT instructions FROM records INDEXED BY records_with_instructions "
                "WHERE session = ? AND visible = 1 AND instructions != '[]'",
                (blob(session_id),),
            ).fetchall()
            held = held_instructions(self._behind.pending(), session_id)
        return held.union(name for (files,) in rows for name in json.loads(files))

    def call_states(self, session_id: str) -> dict[str, bool]:
        """Every call id of the session → whether any record of it is still visible."""
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT call_id, max(visible) FROM records WHERE session = ? GROUP BY call_id ORDER BY min(seq)",
                (blob(session_id),),
            ).fetchall()
        return {text_of(call_id): bool(visible) for call_id, visible in rows}

    def forget(self, session_id: str, call_ids: Iterable[str]) -> int:
        """Mark the results of ``call_ids`` as gone; returns how many visible records were marked.
        Unknown ids are ignored; the session's hide counter moves all the same (none given too),
        so what another process holds of the session is written as gone (``held.HeldCall``)."""
        session = blob(session_id)
        ids = [(session, blob(call_id)) for call_id in set(call_ids)]
        with self._guard(), self._transaction() as conn:
            cursor = conn.executemany(
                "UPDATE records INDEXED BY records_by_call SET visible = 0 "
                "WHERE session = ? AND call_id = ? AND visible = 1",
                ids,
            )
            count_hide(conn, session)
            return max(cursor.rowcount, 0)

    def compact(self, session_id: str, up_to_call_id: str) -> int:
        """Mark every result up to and including ``up_to_call_id`` as gone, with the lines carried
        on their behalf later; returns how many visible records were marked.

        Raises:
            InvalidArgument: the session has no result with that call id.
        """
        owners = (
            "seq <= ? OR call_id IN (SELECT call_id FROM records WHERE session = ? AND kind != 'carry' "
            "GROUP BY call_id HAVING max(seq) <= ?)"
        )
        return self._hide_around(session_id, up_to_call_id, owners, uses=3)

    def rewind(self, session_id: str, to_call_id: str) -> int:
        """Mark every result after ``to_call_id`` (and every record made after it) as gone;
        returns how many visible records were marked.

        Raises:
            InvalidArgument: the session has no result with that call id.
        """
        return self._hide_around(session_id, to_call_id, "seq > ?", uses=1)

    def _hide_around(self, session_id: str, call_id: str, condition: str, *, uses: int) -> int:
        """Hide the visible records matching ``condition``, whose ``?`` marks stand for the call's
        place (its last own record) and, between them, the session."""
        session = blob(session_id)
        with self._guard(), self._transaction() as conn:
            (limit,) = conn.execute(
                "SELECT max(seq) FROM records INDEXED BY records_by_call "
                "WHERE session = ? AND call_id = ? AND kind != 'carry'",
                (session, blob(call_id)),
            ).fetchone()
            if limit is None:
                raise unknown_call(call_id)
            params: list[object] = [session]
            params += [limit, session, limit] if uses == 3 else [limit]
            cursor = conn.execute(
                f"UPDATE records SET visible = 0 WHERE session = ? AND visible = 1 AND ({condition})", params
            )
            count_hide(conn, session)
            return cursor.rowcount

    def put_version(self, content_hash: str, text: str) -> None:
        """Keep the logical text of a shown file version (shared by every session of the file),
        held until the process is idle (``behind``).

        Raises:
            LeanreadError: the store is closed.
        """
        self._check_open()
        if not self._puts.seen(content_hash, text):
            self._behind.add(HeldVersion(content_hash, text))

    def get_version(self, content_hash: str) -> str | None:
        """The text kept by ``put_version``, or None."""
        with self._locked() as conn:
            held = held_text(self._behind.pending(), content_hash)
            if held is not None:
                return held
            row = conn.execute("SELECT text FROM versions WHERE hash = ?", (content_hash,)).fetchone()
        if row is None:
            return None
        try:
            return text_of(zlib.decompress(row[0]))
        except (zlib.error, UnicodeDecodeError, TypeError) as exc:
            raise LeanreadError(
                f"The ledger file {self.path} holds a damaged text for version {content_hash}; "
                "delete the file (a new ledger is started) or pass another ledger path."
            ) from exc

    def set_last_path(self, session_id: str, path: str, next_window: NextWindow | None = None) -> None:
        """Remember the file the session read last (as the model knows it) and where its next
        window starts, in one row."""
        with self._guard() as conn:
            upsert_last_path(conn, blob(session_id), path, next_window)

    def last_path(self, session_id: str) -> str | None:
        """The path given to ``set_last_path`` last, or None."""
        with self._locked() as conn:
            if (held := held_last(self._behind.pending(), session_id)) is not None:
                return held[0]
            row = conn.execute("SELECT path FROM last_paths WHERE session = ?", (blob(session_id),)).fetchone()
        return None if row is None else text_of(row[0])

    def next_window(self, session_id: str) -> NextWindow | None:
        """The ``next_window`` given to ``set_last_path`` last, or None (also for a row of a version 4 file)."""
        with self._locked() as conn:
            if (held := held_last(self._behind.pending(), session_id)) is not None:
                return held[1]
            row = conn.execute(
                "SELECT next_line, next_char FROM last_paths WHERE session = ?", (blob(session_id),)
            ).fetchone()
        return None if row is None or row[0] is None else (int(row[0]), int(row[1]))

    def sessions_under(self, root: str) -> list[str]:
        """Ids of the sessions with a record of ``root`` or of a file inside it, sorted."""
        base = root.rstrip("/")
        prefix = blob(base + "/")
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT DISTINCT session FROM records WHERE path = ? OR substr(path, 1, ?) = ?",
                (blob(base or "/"), len(prefix), prefix),
            ).fetchall()
        return sorted(text_of(session) for (session,) in rows)

    def put_matches(self, session_id: str, matches: Sequence[MatchLocation]) -> list[str]:
        """Keep grep hits ``(realpath, line)`` under the session's next ids ``m<n>``, numbered in
        one write transaction, so two processes never hand out the same id; returns the ids."""
        if not matches:
            return []
        session = blob(session_id)
        with self._locked(), self._transaction() as conn:
            (last,) = conn.execute(
                "SELECT coalesce(max(number), 0) FROM matches WHERE session = ?", (session,)
            ).fetchone()
            conn.executemany(
                "INSERT INTO matches (session, number, path, line) VALUES (?, ?, ?, ?)",
                [(session, last + i + 1, blob(path), line) for i, (path, line) in enumerate(matches)],
            )
        return [match_id(last + i + 1) for i in range(len(matches))]

    def get_match(self, session_id: str, match_id: str) -> MatchLocation | None:
        """The ``(realpath, line)`` kept under ``match_id`` in this session, or None."""
        number = match_number(match_id)
        if number is None:
            return None
        with self._locked() as conn:
            row = conn.execute(
                "SELECT path, line FROM matches WHERE session = ? AND number = ?", (blob(session_id), number)
            ).fetchone()
        return None if row is None else (text_of(row[0]), int(row[1]))

    # --- TranscriptStore -------------------------------------------------------------------

    def record_call(self, session_id: str, call: CallRecord) -> CallRecord:
        """Append ``call`` to the session's transcript (one insert); returns it numbered."""
        with self._guard(), self._transaction() as conn:
            return insert_call(conn, session_id, call)

    def calls(
        self, session_id: str, first: int = 1, limit: int | None = None, *, bodies: bool = True
    ) -> list[CallRecord]:
        """The session's calls numbered ``first`` on, at most ``limit``; see ``TranscriptStore``."""
        with self._guard() as conn:
            try:
                return select_calls(conn, session_id, first, limit, bodies)
            except ValueError as exc:
                raise self._damaged("a tool call's text") from exc

    def find_call(self, session_id: str, call_id: str) -> CallRecord | None:
        """The last call of the session with ``call_id``, or None."""
        with self._guard() as conn:
            try:
                return select_call(conn, session_id, call_id)
            except ValueError as exc:
                raise self._damaged(f"the text of call {call_id}") from exc

    def sessions(self) -> list[SessionSummary]:
        """Every session with a transcript, the most recently active first."""
        with self._guard() as conn:
            return select_sessions(conn)

    def session_paths(self, session_id: str) -> list[str]:
        """The files the session showed lines of, in the order first shown."""
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT path FROM records WHERE session = ? AND kind != 'call' GROUP BY path ORDER BY min(seq)",
                (blob(session_id),),
            ).fetchall()
        return [text_of(path) for (path,) in rows]

    def session_views(self, session_id: str, call_ids: Collection[str] | None = None) -> list[ViewRecord]:
        """Every view record of the session, oldest first; only those of ``call_ids`` when given."""
        session = blob(session_id)
        with self._guard() as conn:
            if call_ids is None:
                rows = conn.execute(f"SELECT {COLUMNS} FROM records WHERE session = ? ORDER BY seq", (session,))
                return [row_to_record(row) for row in rows.fetchall()]
            found = [
                row
                for call_id in set(call_ids)
                for row in conn.execute(
                    f"SELECT {COLUMNS} FROM records INDEXED BY records_by_call WHERE session = ? AND call_id = ?",
                    (session, blob(call_id)),
                ).fetchall()
            ]
        return sorted((row_to_record(row) for row in found), key=lambda r: r.seq)

    def _damaged(self, what: str) -> LeanreadError:
        return LeanreadError(
            f"The ledger file {self.path} holds {what} damaged; "
            "delete the file (a new ledger is started) or pass another ledger path."
        )


_SHARED: dict[str, SQLiteLedger] = {}
_SHARED_LOCK = threading.Lock()


def shared_ledger(path: str | os.PathLike[str] | None = None) -> SQLiteLedger:
    """One ``SQLiteLedger`` per file for the whole process (default ``default_ledger_path()``),
    so every ``Session`` of a process shares one connection to it.

    Raises:
        LeanreadError: the file cannot be opened or is not a leanread ledger.
    """
    key = os.path.realpath(path if path is not None else default_ledger_path())
    with _SHARED_LOCK:
        store = _SHARED.get(key)
        if store is None:
            store = _SHARED[key] = SQLiteLedger(key)
        return store
