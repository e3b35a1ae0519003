"""The SQLite ``LedgerStore``: the default store, on disk, so a session resumed later keeps its dedup.

One file holds every session of a user (or of a workspace, when the caller passes a path); it
is opened in WAL mode, so readers never block the writer; a call id is handed out by one
``INSERT … RETURNING`` and every other write that reads first (``record``, ``compact``,
``rewind``) runs in a ``BEGIN IMMEDIATE`` transaction, so several processes (two ``leanread
serve`` on one machine) can share the file without ever handing out the same call id or ``seq``
twice, and records become visible in ``seq`` order. A statement keyed by call id names its index
(``INDEXED BY records_by_call``): without statistics SQLite's planner takes the primary key for
``call_id = ? AND visible = 1`` and reads the whole session. Within a process one connection
serves every thread, guarded by a lock.

Schema (``PRAGMA user_version`` = ``SCHEMA_VERSION``; free-text columns hold the UTF-8 bytes of
the string, ``surrogatepass`` so any Python ``str``, a non-UTF-8 file name included, round-trips):

    records(session, seq, call_id, path, content_hash, ranges, size, mtime_ns, kind,
            instructions, visible)        one row per ``ViewRecord``; primary key (session, seq);
                                          ``ranges`` compact JSON ``[[1,40],[61,80]]`` (a third
                                          number: the range's origin),
                                          ``instructions`` compact JSON ``["/ws/AGENTS.md"]``,
                                          ``visible`` 0 or 1; indexes (session, path, seq) and
                                          (session, call_id, seq)
    counters(session, calls, seqs, hides) the last call id number and the last seq handed out,
                                          and how many hides (forget, compact, rewind) were made
    versions(hash, text)                  SHA-256 hex → zlib-compressed UTF-8 text, shared by sessions
    last_paths(session, path, next_line, next_char)
                                          the file each session read last and where a read
                                          without a path goes on in it (NULL: nowhere known)
    matches(session, number, path, line)  grep hits kept under the ids ``m<number>``; primary key
                                          (session, number), numbers 1, 2, … per session

    calls(…)                              the transcript: one row per tool call (see
                                          ``transcript_sqlite``)

Version 1 files (no ``matches`` table), version 2 files (no ``calls`` table), version 3 files (no
``hides`` counter), version 4 files (no ``next_line``/``next_char``) and version 5 files (calls
whose plain full read's cost is not known counted as if nothing was saved; see
``transcript_sqlite.mark_unknown_costs``) are upgraded in place when opened.

Every failure of the file (corrupt, unreadable, locked too long, newer schema) is a one-sentence
``LeanreadError`` naming the file and the next step, never a raw ``sqlite3`` traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

from ..errors import LeanreadError
from ..memo import Puts
from .store import (
    LastPath,
    LineRange,
    MatchLocation,
    NextWindow,
    ViewRecord,
    match_id,
    match_number,
    unknown_call,
)
from .transcript import CallRecord, SessionSummary
from .transcript_sqlite import (
    SCHEMA_V3,
    encoded_call,
    insert_call,
    insert_encoded,
    mark_unknown_costs,
    select_call,
    select_calls,
    select_sessions,
)
from .viewcache import ViewCache

__all__ = ["BUSY_TIMEOUT_MS", "SCHEMA_VERSION", "SQLiteLedger", "default_ledger_path"]

SCHEMA_VERSION = 6
"""The schema this module writes (``PRAGMA user_version``); files of a higher version are refused."""

BUSY_TIMEOUT_MS = 30000
"""How long a call waits for another process's write transaction before giving up, in milliseconds
(30 s: several agents on one machine share the default file; one saw a 5 s wait run out under load)."""

_SCHEMA = (
    """CREATE TABLE records (
        session BLOB NOT NULL,
        seq INTEGER NOT NULL,
        call_id BLOB NOT NULL,
        path BLOB NOT NULL,
        content_hash TEXT NOT NULL,
        ranges TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        kind TEXT NOT NULL,
        instructions TEXT NOT NULL,
        visible INTEGER NOT NULL,
        PRIMARY KEY (session, seq)
    ) WITHOUT ROWID""",
    "CREATE INDEX records_by_path ON records (session, path, seq)",
    "CREATE INDEX records_by_call ON records (session, call_id, seq)",
    """CREATE TABLE counters (
        session BLOB PRIMARY KEY,
        calls INTEGER NOT NULL DEFAULT 0,
        seqs INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID""",
    "CREATE TABLE versions (hash TEXT PRIMARY KEY, text BLOB NOT NULL) WITHOUT ROWID",
    "CREATE TABLE last_paths (session BLOB PRIMARY KEY, path BLOB NOT NULL) WITHOUT ROWID",
)

#: What version 5 added to version 4: where a read without a path goes on (``ledger.NextWindow``).
_NEXT_WINDOW_COLUMNS = (
    "ALTER TABLE last_paths ADD COLUMN next_line INTEGER",
    "ALTER TABLE last_paths ADD COLUMN next_char INTEGER",
)

#: What version 2 added to version 1: the grep hits behind match ids.
_SCHEMA_V2 = (
    """CREATE TABLE IF NOT EXISTS matches (
        session BLOB NOT NULL,
        number INTEGER NOT NULL,
        path BLOB NOT NULL,
        line INTEGER NOT NULL,
        PRIMARY KEY (session, number)
    ) WITHOUT ROWID""",
)

#: What version 4 added to version 3: a session's hide counter (see ``viewcache``), and an index of
#: the records that attached instruction files, so that looking them up no longer reads the session.
_HIDES_COLUMN = "ALTER TABLE counters ADD COLUMN hides INTEGER NOT NULL DEFAULT 0"
_INSTRUCTIONS_INDEX = (
    "CREATE INDEX IF NOT EXISTS records_with_instructions ON records (session, seq) WHERE instructions != '[]'"
)

_COLUMNS = "call_id, path, content_hash, ranges, size, mtime_ns, kind, instructions, visible, seq"


def default_ledger_path() -> Path:
    """Where the ledger lives when no path is given.

    Returns:
        ``$XDG_STATE_HOME/leanread/ledger.sqlite3`` when ``XDG_STATE_HOME`` is set to an absolute
        path (the XDG spec ignores relative ones), else ``~/.local/state/leanread/ledger.sqlite3``.
        The folders are not created here; ``SQLiteLedger`` creates them.
    """
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if state and os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "leanread" / "ledger.sqlite3"


def _b(text: str) -> bytes:
    """A string as stored in a BLOB column: UTF-8, lone surrogates kept (``surrogatepass``)."""
    return text.encode("utf-8", "surrogatepass")


def _s(data: bytes) -> str:
    """The inverse of ``_b``."""
    return data.decode("utf-8", "surrogatepass")


def _json(value: Any) -> str:
    """Compact JSON (ASCII only, so lone surrogates survive as ``\\udcxx`` escapes)."""
    return json.dumps(value, separators=(",", ":"))


def _ranges_json(record: ViewRecord) -> list[list[int]]:
    """``[[a, b], …]``, with the origin as a third number where it differs from ``a``."""
    origins = record.origins or tuple(a for a, _ in record.ranges)
    return [[a, b] if o == a else [a, b, o] for (a, b), o in zip(record.ranges, origins, strict=True)]


def _row_to_record(row: tuple[Any, ...]) -> ViewRecord:
    call_id, path, content_hash, ranges, size, mtime_ns, kind, instructions, visible, seq = row
    triples = [(int(item[0]), int(item[1]), int(item[2]) if len(item) > 2 else None) for item in json.loads(ranges)]
    spans: tuple[LineRange, ...] = tuple((a, b) for a, b, _ in triples)
    origins = tuple(a if then is None else then for a, _, then in triples)
    return ViewRecord(
        call_id=_s(call_id),
        path=_s(path),
        content_hash=content_hash,
        ranges=spans,
        origins=origins if any(o != a for o, (a, _) in zip(origins, spans, strict=True)) else (),
        size=size,
        mtime_ns=mtime_ns,
        kind=kind,
        instructions=tuple(json.loads(instructions)),
        visible=bool(visible),
        seq=seq,
    )


def _switch_to_wal(conn: sqlite3.Connection) -> None:
    """Put the file in WAL mode, waiting up to ``BUSY_TIMEOUT_MS`` for other processes.

    Changing the journal mode of a new file needs it to itself, and SQLite answers ``SQLITE_BUSY``
    at once, without its busy handler, while another process holds it (several CLI calls opening a
    new ledger at the same moment), so the wait is this loop's: 1 ms, doubling up to 50 ms.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorname", "").startswith("SQLITE_BUSY") or "locked" in str(exc)
            if not busy or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _count_hide(conn: sqlite3.Connection, session: bytes) -> None:
    """Bump the session's hide counter, inside the transaction that hid records."""
    conn.execute(
        "INSERT INTO counters (session, hides) VALUES (?, 1) ON CONFLICT (session) DO UPDATE SET hides = hides + 1",
        (session,),
    )


#: A ``ViewRecord`` as the ``records`` columns after ``session`` hold it, its ``seq`` left out.
_RecordRow = tuple[bytes, bytes, str, str, int, int, str, str, int]


def _record_row(record: ViewRecord) -> _RecordRow:
    return (
        _b(record.call_id),
        _b(record.path),
        record.content_hash,
        _json(_ranges_json(record)),
        record.size,
        record.mtime_ns,
        record.kind,
        _json(list(record.instructions)),
        int(record.visible),
    )


def _insert_records(conn: sqlite3.Connection, session: bytes, rows: Sequence[_RecordRow]) -> range:
    """Append ``rows`` to the session under its next seqs, in one counter step; run inside a write
    transaction. Returns the seqs given, in order."""
    [(last,)] = conn.execute(
        "INSERT INTO counters (session, seqs) VALUES (?, ?) "
        "ON CONFLICT (session) DO UPDATE SET seqs = seqs + excluded.seqs RETURNING seqs",
        (session, len(rows)),
    ).fetchall()
    seqs = range(last - len(rows) + 1, last + 1)
    conn.executemany(
        f"INSERT INTO records (session, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(session, *row, seq) for row, seq in zip(rows, seqs, strict=True)],
    )
    return seqs


def _upsert_last_path(conn: sqlite3.Connection, session: bytes, path: str, next_window: NextWindow | None) -> None:
    line, char = next_window or (None, None)
    conn.execute(
        "INSERT INTO last_paths (session, path, next_line, next_char) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (session) DO UPDATE SET path = excluded.path, next_line = excluded.next_line, "
        "next_char = excluded.next_char",
        (session, _b(path), line, char),
    )


class SQLiteLedger:
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
        self.path = Path(os.fspath(path)) if path is not None else default_ledger_path()
        self._lock = threading.Lock()
        self._closed = False
        self._puts = Puts()
        self._views = ViewCache()
        created = self._prepare_folder()
        try:
            self._conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            self._open(created)
        except sqlite3.Error as exc:
            self._conn.close()
            raise self._error(exc) from exc
        except BaseException:
            self._conn.close()
            raise

    # --- opening ---------------------------------------------------------------------------

    def _prepare_folder(self) -> bool:
        """Create the file's folder; returns whether the file is new."""
        folder = self.path.parent
        try:
            if not folder.is_dir():
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            return not self.path.exists()
        except OSError as exc:
            raise LeanreadError(
                f"Cannot create the folder {folder} for the leanread ledger ({exc.strerror or exc}); "
                "pass another ledger path."
            ) from exc

    def _open(self, created: bool) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _switch_to_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        if created:
            with contextlib.suppress(OSError):  # best effort: a file system without modes keeps the default
                os.chmod(self.path, 0o600)
        if self._schema_version() == SCHEMA_VERSION:
            return
        with self._transaction():
            version = self._schema_version()
            if version > SCHEMA_VERSION:
                raise LeanreadError(
                    f"The ledger file {self.path} was written by a newer leanread (schema version {version}, "
                    f"this one reads up to {SCHEMA_VERSION}); upgrade leanread or pass another ledger path."
                )
            if version == 0:
                tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchone()
                if tables[0]:
                    raise LeanreadError(
                        f"The file {self.path} is a SQLite database but not a leanread ledger; "
                        "pass another ledger path."
                    )
                for statement in _SCHEMA:
                    conn.execute(statement)
            for statement in (*_SCHEMA_V2, *SCHEMA_V3):  # a new file, or an older one upgraded in place
                conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(counters)")}
            if "hides" not in columns:
                conn.execute(_HIDES_COLUMN)
            if "next_line" not in {row[1] for row in conn.execute("PRAGMA table_info(last_paths)")}:
                for statement in _NEXT_WINDOW_COLUMNS:
                    conn.execute(statement)
            conn.execute(_INSTRUCTIONS_INDEX)
            if 3 <= version < 6:
                mark_unknown_costs(conn)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _schema_version(self) -> int:
        row = self._conn.execute("PRAGMA user_version").fetchone()
        return int(row[0])

    def _error(self, exc: sqlite3.Error) -> LeanreadError:
        """One sentence for a failure of the file: what happened to which file, and what to do."""
        name = getattr(exc, "sqlite_errorname", "")
        reason = str(exc) or name or type(exc).__name__
        if name in ("SQLITE_BUSY", "SQLITE_LOCKED") or "locked" in reason:
            return LeanreadError(
                f"The ledger file {self.path} stayed locked by another process for more than "
                f"{BUSY_TIMEOUT_MS // 1000} s; retry, or give each server its own ledger path."
            )
        if name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or "not a database" in reason or "malformed" in reason:
            return LeanreadError(
                f"The ledger file {self.path} is corrupt or not a leanread ledger ({reason}); "
                "delete it (a new ledger is started) or pass another ledger path."
            )
        return LeanreadError(
            f"Cannot use the ledger file {self.path} ({reason}); make sure it is a readable and writable "
            "file on a local disk with space left, or pass another ledger path."
        )

    # --- plumbing --------------------------------------------------------------------------

    @contextlib.contextmanager
    def _guard(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and turn every ``sqlite3`` failure into a ``LeanreadError``."""
        with self._lock:
            if self._closed:
                raise LeanreadError(f"The ledger store of {self.path} is closed; open a new SQLiteLedger.")
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise self._error(exc) from exc

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction taken up front (``BEGIN IMMEDIATE``); rolled back on any error."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close the connection (idempotent); later calls raise ``LeanreadError``."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __enter__(self) -> SQLiteLedger:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteLedger({str(self.path)!r})"

    # --- LedgerStore -----------------------------------------------------------------------

    def new_call_id(self, session_id: str) -> str:
        """A call id not yet used in ``session_id``: ``r1``, ``r2``, …, unique across processes."""
        with self._guard() as conn:  # one statement: atomic on its own, across processes too
            [(number,)] = conn.execute(
                "INSERT INTO counters (session, calls) VALUES (?, 1) "
                "ON CONFLICT (session) DO UPDATE SET calls = calls + 1 RETURNING calls",
                (_b(session_id),),
            ).fetchall()
        return f"r{number}"

    def record(self, session_id: str, record: ViewRecord) -> ViewRecord:
        """Append ``record``; returns it with its ``seq`` set (1, 2, … per session)."""
        session = _b(session_id)
        row = _record_row(record)
        with self._guard(), self._transaction() as conn:
            [first] = _insert_records(conn, session, [row])
        return replace(record, seq=first)

    def finish_call(
        self, session_id: str, records: Sequence[ViewRecord], last: LastPath | None, call: CallRecord | None
    ) -> None:
        """One call's kept writes (see ``LedgerStore.finish_call``) in one write transaction; the
        rows and the transcript body are encoded before it begins."""
        session = _b(session_id)
        rows = [_record_row(record) for record in records]
        body = None if call is None else encoded_call(call)
        with self._guard(), self._transaction() as conn:
            if rows:
                _insert_records(conn, session, rows)
            if last is not None:
                _upsert_last_path(conn, session, *last)
            if body is not None:
                insert_encoded(conn, session, body)

    def views_of(self, session_id: str, path: str) -> list[ViewRecord]:
        """Every record of ``path`` in the session, oldest first, visible or not; only those
        added since this process last asked are read from the file (see ``viewcache``)."""
        session, file = _b(session_id), _b(path)

        def fetch(after: int) -> tuple[None, int, list[ViewRecord]]:
            with self._guard() as conn:
                conn.execute("BEGIN")  # one snapshot for the counter and the rows
                try:
                    counter = conn.execute("SELECT hides FROM counters WHERE session = ?", (session,)).fetchone()
                    rows = conn.execute(
                        f"SELECT {_COLUMNS} FROM records WHERE session = ? AND path = ? AND seq > ? ORDER BY seq",
                        (session, file, after),
                    ).fetchall()
                finally:
                    if conn.in_transaction:
                        conn.execute("COMMIT")
            return None, (counter[0] if counter else 0), [_row_to_record(row) for row in rows]

        def hidden(seqs: list[int]) -> set[int]:
            gone: set[int] = set()
            with self._guard() as conn:
                for start in range(0, len(seqs), 500):  # the held records still visible: few, looked up by key
                    chunk = seqs[start : start + 500]
                    marks = ", ".join("?" * len(chunk))
                    rows = conn.execute(
                        f"SELECT seq FROM records WHERE session = ? AND seq IN ({marks}) AND visible = 0",
                        (session, *chunk),
                    ).fetchall()
                    gone.update(seq for (seq,) in rows)
            return gone

        return self._views.views(session_id, path, fetch, hidden)

    def visible_instructions(self, session_id: str) -> set[str]:
        """Instruction files attached to results still visible in the session."""
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT instructions FROM records INDEXED BY records_with_instructions "
                "WHERE session = ? AND visible = 1 AND instructions != '[]'",
                (_b(session_id),),
            ).fetchall()
        return {name for (files,) in rows for name in json.loads(files)}

    def call_states(self, session_id: str) -> dict[str, bool]:
        """Every call id of the session → whether any record of it is still visible."""
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT call_id, max(visible) FROM records WHERE session = ? GROUP BY call_id ORDER BY min(seq)",
                (_b(session_id),),
            ).fetchall()
        return {_s(call_id): bool(visible) for call_id, visible in rows}

    def forget(self, session_id: str, call_ids: Iterable[str]) -> int:
        """Mark the results of ``call_ids`` as gone; returns how many visible records were marked.
        Unknown ids are ignored."""
        session = _b(session_id)
        ids = [(session, _b(call_id)) for call_id in set(call_ids)]
        with self._guard() as conn:
            if not ids:
                return 0
        with self._guard(), self._transaction() as conn:
            cursor = conn.executemany(
                "UPDATE records INDEXED BY records_by_call SET visible = 0 "
                "WHERE session = ? AND call_id = ? AND visible = 1",
                ids,
            )
            _count_hide(conn, session)
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
        session = _b(session_id)
        with self._guard(), self._transaction() as conn:
            (limit,) = conn.execute(
                "SELECT max(seq) FROM records INDEXED BY records_by_call "
                "WHERE session = ? AND call_id = ? AND kind != 'carry'",
                (session, _b(call_id)),
            ).fetchone()
            if limit is None:
                raise unknown_call(call_id)
            params: list[object] = [session]
            params += [limit, session, limit] if uses == 3 else [limit]
            cursor = conn.execute(
                f"UPDATE records SET visible = 0 WHERE session = ? AND visible = 1 AND ({condition})", params
            )
            _count_hide(conn, session)
            return cursor.rowcount

    def put_version(self, content_hash: str, text: str) -> None:
        """Keep the logical text of a shown file version (shared by every session of the file)."""
        if self._puts.seen(content_hash, text):
            return
        blob = zlib.compress(_b(text))
        with self._guard() as conn:
            conn.execute(
                "INSERT INTO versions (hash, text) VALUES (?, ?) "
                "ON CONFLICT (hash) DO UPDATE SET text = excluded.text WHERE text IS NOT excluded.text",
                (content_hash, blob),
            )

    def get_version(self, content_hash: str) -> str | None:
        """The text kept by ``put_version``, or None."""
        with self._guard() as conn:
            row = conn.execute("SELECT text FROM versions WHERE hash = ?", (content_hash,)).fetchone()
        if row is None:
            return None
        try:
            return _s(zlib.decompress(row[0]))
        except (zlib.error, UnicodeDecodeError, TypeError) as exc:
            raise LeanreadError(
                f"The ledger file {self.path} holds a damaged text for version {content_hash}; "
                "delete the file (a new ledger is started) or pass another ledger path."
            ) from exc

    def set_last_path(self, session_id: str, path: str, next_window: NextWindow | None = None) -> None:
        """Remember the file the session read last (as the model knows it) and where its next
        window starts, in one row."""
        with self._guard() as conn:
            _upsert_last_path(conn, _b(session_id), path, next_window)

    def last_path(self, session_id: str) -> str | None:
        """The path given to ``set_last_path`` last, or None."""
        with self._guard() as conn:
            row = conn.execute("SELECT path FROM last_paths WHERE session = ?", (_b(session_id),)).fetchone()
        return None if row is None else _s(row[0])

    def next_window(self, session_id: str) -> NextWindow | None:
        """The ``next_window`` given to ``set_last_path`` last, or None (also for a row of a version 4 file)."""
        with self._guard() as conn:
            row = conn.execute(
                "SELECT next_line, next_char FROM last_paths WHERE session = ?", (_b(session_id),)
            ).fetchone()
        return None if row is None or row[0] is None else (int(row[0]), int(row[1]))

    def sessions_under(self, root: str) -> list[str]:
        """Ids of the sessions with a record of ``root`` or of a file inside it, sorted."""
        base = root.rstrip("/")
        prefix = _b(base + "/")
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT DISTINCT session FROM records WHERE path = ? OR substr(path, 1, ?) = ?",
                (_b(base or "/"), len(prefix), prefix),
            ).fetchall()
        return sorted(_s(session) for (session,) in rows)

    def put_matches(self, session_id: str, matches: Sequence[MatchLocation]) -> list[str]:
        """Keep grep hits ``(realpath, line)`` under the session's next ids ``m<n>``, numbered in
        one write transaction, so two processes never hand out the same id; returns the ids."""
        if not matches:
            return []
        session = _b(session_id)
        with self._guard(), self._transaction() as conn:
            (last,) = conn.execute(
                "SELECT coalesce(max(number), 0) FROM matches WHERE session = ?", (session,)
            ).fetchone()
            conn.executemany(
                "INSERT INTO matches (session, number, path, line) VALUES (?, ?, ?, ?)",
                [(session, last + i + 1, _b(path), line) for i, (path, line) in enumerate(matches)],
            )
        return [match_id(last + i + 1) for i in range(len(matches))]

    def get_match(self, session_id: str, match_id: str) -> MatchLocation | None:
        """The ``(realpath, line)`` kept under ``match_id`` in this session, or None."""
        number = match_number(match_id)
        if number is None:
            return None
        with self._guard() as conn:
            row = conn.execute(
                "SELECT path, line FROM matches WHERE session = ? AND number = ?", (_b(session_id), number)
            ).fetchone()
        return None if row is None else (_s(row[0]), int(row[1]))

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
                (_b(session_id),),
            ).fetchall()
        return [_s(path) for (path,) in rows]

    def session_views(self, session_id: str, call_ids: Collection[str] | None = None) -> list[ViewRecord]:
        """Every view record of the session, oldest first; only those of ``call_ids`` when given."""
        session = _b(session_id)
        with self._guard() as conn:
            if call_ids is None:
                rows = conn.execute(f"SELECT {_COLUMNS} FROM records WHERE session = ? ORDER BY seq", (session,))
                return [_row_to_record(row) for row in rows.fetchall()]
            found = [
                row
                for call_id in set(call_ids)
                for row in conn.execute(
                    f"SELECT {_COLUMNS} FROM records INDEXED BY records_by_call WHERE session = ? AND call_id = ?",
                    (session, _b(call_id)),
                ).fetchall()
            ]
        return sorted((_row_to_record(row) for row in found), key=lambda r: r.seq)

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
