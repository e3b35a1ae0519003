"""The transcript tables of the SQLite ledger (schema version 3) and the queries over them.

    calls(session, number, call_id, tool, started, duration_ms, is_error, tokens, full_tokens, body,
          caller)
        one row per ``CallRecord``; primary key (session, number), numbers 1, 2, … per session;
        ``full_tokens`` -1 when not known (``CallRecord.full_tokens`` None; since version 6);
        ``caller`` ``model`` or ``harness`` (``CallRecord.caller``; since version 7, the rows of
        older files ``model``);
        ``body`` the zlib-compressed JSON of arguments, text, metadata and images
        (``transcript.encode_body``); index (session, call_id, number)

The functions take an open connection; ``SQLiteLedger`` holds the lock and the transaction.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import replace
from typing import Any

from .transcript import MODEL, CallRecord, SessionSummary, decode_body, encode_body, normalized, plain_cost

#: What version 3 added to version 2: the transcript.
SCHEMA_V3 = (
    """CREATE TABLE IF NOT EXISTS calls (
        session BLOB NOT NULL,
        number INTEGER NOT NULL,
        call_id BLOB NOT NULL,
        tool TEXT NOT NULL,
        started REAL NOT NULL,
        duration_ms REAL NOT NULL,
        is_error INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        full_tokens INTEGER NOT NULL,
        body BLOB NOT NULL,
        PRIMARY KEY (session, number)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS calls_by_id ON calls (session, call_id, number)",
)

#: What version 7 added to version 6: who made each call (a row written before: the model).
CALLER_COLUMN = f"ALTER TABLE calls ADD COLUMN caller TEXT NOT NULL DEFAULT '{MODEL}'"

_HEAD = "number, call_id, tool, started, duration_ms, is_error, tokens, full_tokens, caller"

#: ``full_tokens`` of a call whose plain full read's cost is not known.
UNKNOWN = -1


def _b(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _s(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


#: A ``CallRecord`` as the ``calls`` columns after ``session`` and ``number`` hold it.
EncodedCall = tuple[bytes, str, float, float, int, int, int, str, bytes]


def encoded_call(call: CallRecord) -> EncodedCall:
    """``call``'s columns, its body compressed (``transcript.encode_body``); made before the write
    transaction begins, so the file is held only for the insert. The body is the JSON of the call
    as given: the same text as that of ``normalized(call)``, which is only JSON through JSON."""
    return (
        _b(call.call_id),
        call.tool,
        call.started,
        call.duration_ms,
        int(call.is_error),
        call.tokens,
        UNKNOWN if call.full_tokens is None else call.full_tokens,
        call.caller,
        encode_body(call),
    )


def insert_encoded(conn: sqlite3.Connection, session: bytes, encoded: EncodedCall) -> int:
    """Append an ``encoded_call`` under the session's next number, returned; run inside a write
    transaction."""
    (last,) = conn.execute("SELECT coalesce(max(number), 0) FROM calls WHERE session = ?", (session,)).fetchone()
    conn.execute(
        f"INSERT INTO calls (session, {_HEAD}, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (session, last + 1, *encoded),
    )
    return int(last) + 1


def insert_call(conn: sqlite3.Connection, session_id: str, call: CallRecord) -> CallRecord:
    """Append ``call`` under the session's next number; run inside a write transaction."""
    stored = normalized(call)
    number = insert_encoded(conn, _b(session_id), encoded_call(stored))
    return replace(stored, number=number)


def _row(row: tuple[Any, ...], bodies: bool) -> CallRecord:
    number, call_id, tool, started, duration_ms, is_error, tokens, full_tokens, caller = row[:9]
    call = CallRecord(
        call_id=_s(call_id),
        tool=tool,
        arguments={},
        text="",
        is_error=bool(is_error),
        tokens=tokens,
        full_tokens=None if full_tokens < 0 else full_tokens,
        started=started,
        duration_ms=duration_ms,
        number=number,
        caller=caller,
    )
    return decode_body(call, row[9]) if bodies else call


def select_calls(
    conn: sqlite3.Connection, session_id: str, first: int, limit: int | None, bodies: bool
) -> list[CallRecord]:
    """The session's calls numbered ``first`` on, at most ``limit`` (None: all).

    Raises:
        ValueError: a body is damaged.
    """
    columns = f"{_HEAD}, body" if bodies else _HEAD
    rows = conn.execute(
        f"SELECT {columns} FROM calls WHERE session = ? AND number >= ? ORDER BY number LIMIT ?",
        (_b(session_id), first, -1 if limit is None else max(limit, 0)),
    ).fetchall()
    return [_row(row, bodies) for row in rows]


def select_call(conn: sqlite3.Connection, session_id: str, call_id: str) -> CallRecord | None:
    """The last call of the session with ``call_id``, or None.

    Raises:
        ValueError: its body is damaged.
    """
    row = conn.execute(
        f"SELECT {_HEAD}, body FROM calls INDEXED BY calls_by_id WHERE session = ? AND call_id = ? "
        "ORDER BY number DESC LIMIT 1",
        (_b(session_id), _b(call_id)),
    ).fetchone()
    return None if row is None else _row(row, True)


def select_sessions(conn: sqlite3.Connection) -> list[SessionSummary]:
    """Every session with calls, the most recently active first: the totals of the model's calls
    (``m`` 1), and the harness's (``m`` 0) apart."""
    rows = conn.execute(
        "SELECT session, sum(m), sum(m * tokens), sum(m * max(full_tokens, 0)), min(started), max(started), "
        "sum(m * (full_tokens < 0)), sum(m * (full_tokens < 0) * tokens), sum(1 - m), sum((1 - m) * tokens) "
        f"FROM (SELECT session, tokens, full_tokens, started, caller = '{MODEL}' AS m FROM calls) "
        "GROUP BY session ORDER BY max(started) DESC, session"
    ).fetchall()
    return [SessionSummary(_s(row[0]), *row[1:]) for row in rows]


def mark_unknown_costs(conn: sqlite3.Connection) -> int:
    """Version 6: the calls recorded before every result said its plain full read's cost get
    ``transcript.plain_cost`` of their stored metadata (a read that does not say it: ``UNKNOWN``;
    a focused grep: its ``tokens_before``) instead of their own tokens. Only rows that could be
    such (reads and greps, not refused, ``full_tokens`` = ``tokens``) are looked at, and a body
    whose JSON has a ``"full_tokens":`` key (a string's quotes are escaped, so only a key reads so)
    is not parsed; a damaged body is not known. Run inside the upgrade's write transaction;
    returns the rows changed."""
    candidates = conn.execute(
        "SELECT session, number, tool, tokens, body FROM calls "
        "WHERE is_error = 0 AND tool IN ('read', 'grep') AND full_tokens = tokens"
    )
    changes: list[tuple[int, bytes, int]] = []
    for session, number, tool, tokens, body in candidates:
        cost = _stored_cost(tool, tokens, body)
        if cost != tokens:
            changes.append((UNKNOWN if cost is None else cost, session, number))
    conn.executemany("UPDATE calls SET full_tokens = ? WHERE session = ? AND number = ?", changes)
    return len(changes)


def _stored_cost(tool: str, tokens: int, body: bytes) -> int | None:
    """``plain_cost`` of a stored call from its compressed body (None: damaged, or not known)."""
    try:
        raw = zlib.decompress(body)
        if b'"full_tokens":' in raw:
            return tokens  # the result said it: the row already holds it
        metadata = json.loads(raw)["m"] if tool == "grep" else {}
    except (zlib.error, ValueError, KeyError, TypeError):
        return None
    return plain_cost(tool, False, metadata if isinstance(metadata, dict) else {}, tokens)
