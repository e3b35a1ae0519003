"""The SQLite ledger's file: its schema, its upgrades in place, and where it lives by default.

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
``hides`` counter), version 4 files (no ``next_line``/``next_char``), version 5 files (calls
whose plain full read's cost is not known counted as if nothing was saved; see
``transcript_sqlite.mark_unknown_costs``) and version 6 files (no ``caller`` of a call: each
counts as the model's, as it did) are upgraded in place when opened.

Opening a file: ``switch_to_wal`` (waiting for other processes that hold a new file), then
``create_or_upgrade`` inside a write transaction; the store (``sqlite_store``) does both.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from ..errors import LeanreadError
from .transcript_sqlite import CALLER_COLUMN, SCHEMA_V3, mark_unknown_costs

__all__ = ["BUSY_TIMEOUT_MS", "SCHEMA_VERSION", "create_or_upgrade", "default_ledger_path", "switch_to_wal"]

SCHEMA_VERSION = 7
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


def switch_to_wal(conn: sqlite3.Connection) -> None:
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


def create_or_upgrade(conn: sqlite3.Connection, path: Path) -> None:
    """Create the schema in a new file, or bring an older leanread ledger up to ``SCHEMA_VERSION``;
    run inside a write transaction, after reading a version other than ``SCHEMA_VERSION``.

    Raises:
        LeanreadError: the file was written by a newer leanread, or is a SQLite database that is not
            a leanread ledger.
    """
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise LeanreadError(
            f"The ledger file {path} was written by a newer leanread (schema version {version}, "
            f"this one reads up to {SCHEMA_VERSION}); upgrade leanread or pass another ledger path."
        )
    if version == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchone()
        if tables[0]:
            raise LeanreadError(
                f"The file {path} is a SQLite database but not a leanread ledger; pass another ledger path."
            )
        for statement in _SCHEMA:
            conn.execute(statement)
    for statement in (*_SCHEMA_V2, *SCHEMA_V3):  # a new file, or an older one upgraded in place
        conn.execute(statement)
    if not _has_column(conn, "counters", "hides"):
        conn.execute(_HIDES_COLUMN)
    if not _has_column(conn, "last_paths", "next_line"):
        for statement in _NEXT_WINDOW_COLUMNS:
            conn.execute(statement)
    if not _has_column(conn, "calls", "caller"):
        conn.execute(CALLER_COLUMN)
    conn.execute(_INSTRUCTIONS_INDEX)
    if 3 <= version < 6:
        mark_unknown_costs(conn)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return column in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
