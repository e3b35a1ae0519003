"""Rows of the SQLite ledger's tables to and from leanread's values, and the writes that several
of the store's methods share (run inside the store's transaction, on its connection).

Free-text columns hold the UTF-8 bytes of the string, ``surrogatepass`` so any Python ``str``, a
non-UTF-8 file name included, round-trips (``blob``, ``text_of``).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Sequence
from typing import Any

from .held import Held, HeldVersion
from .store import LastPath, LineRange, NextWindow, ViewRecord
from .transcript_sqlite import EncodedCall, encoded_call, insert_encoded

COLUMNS = "call_id, path, content_hash, ranges, size, mtime_ns, kind, instructions, visible, seq"


def blob(text: str) -> bytes:
    """A string as stored in a BLOB column: UTF-8, lone surrogates kept (``surrogatepass``)."""
    return text.encode("utf-8", "surrogatepass")


def text_of(data: bytes) -> str:
    """The inverse of ``blob``."""
    return data.decode("utf-8", "surrogatepass")


def compact_json(value: Any) -> str:
    """Compact JSON (ASCII only, so lone surrogates survive as ``\\udcxx`` escapes)."""
    return json.dumps(value, separators=(",", ":"))


def ranges_json(record: ViewRecord) -> list[list[int]]:
    """``[[a, b], …]``, with the origin as a third number where it differs from ``a``."""
    origins = record.origins or tuple(a for a, _ in record.ranges)
    return [[a, b] if o == a else [a, b, o] for (a, b), o in zip(record.ranges, origins, strict=True)]


def row_to_record(row: tuple[Any, ...]) -> ViewRecord:
    call_id, path, content_hash, ranges, size, mtime_ns, kind, instructions, visible, seq = row
    triples = [(int(item[0]), int(item[1]), int(item[2]) if len(item) > 2 else None) for item in json.loads(ranges)]
    spans: tuple[LineRange, ...] = tuple((a, b) for a, b, _ in triples)
    origins = tuple(a if then is None else then for a, _, then in triples)
    return ViewRecord(
        call_id=text_of(call_id),
        path=text_of(path),
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


def count_hide(conn: sqlite3.Connection, session: bytes) -> None:
    """Bump the session's hide counter, inside the transaction that hid records."""
    conn.execute(
        "INSERT INTO counters (session, hides) VALUES (?, 1) ON CONFLICT (session) DO UPDATE SET hides = hides + 1",
        (session,),
    )


_INT64 = 2**63 - 1

#: A ``ViewRecord`` as the ``records`` columns after ``session`` hold it, its ``seq`` left out.
RecordRow = tuple[bytes, bytes, str, str, int, int, str, str, int]


def record_row(record: ViewRecord) -> RecordRow:
    return (
        blob(record.call_id),
        blob(record.path),
        record.content_hash,
        compact_json(ranges_json(record)),
        min(record.size, _INT64),
        min(record.mtime_ns, _INT64),  # a date past 2262 (touch -d 2300) is more than SQLite holds
        record.kind,
        compact_json(list(record.instructions)),
        int(record.visible),
    )


def insert_records(conn: sqlite3.Connection, session: bytes, rows: Sequence[RecordRow]) -> range:
    """Append ``rows`` to the session under its next seqs, in one counter step; run inside a write
    transaction. Returns the seqs given, in order."""
    [(last,)] = conn.execute(
        "INSERT INTO counters (session, seqs) VALUES (?, ?) "
        "ON CONFLICT (session) DO UPDATE SET seqs = seqs + excluded.seqs RETURNING seqs",
        (session, len(rows)),
    ).fetchall()
    seqs = range(last - len(rows) + 1, last + 1)
    insert_numbered(conn, session, list(zip(rows, seqs, strict=True)))
    return seqs


def insert_numbered(conn: sqlite3.Connection, session: bytes, numbered: Sequence[tuple[RecordRow, int]]) -> None:
    """Insert record rows under the seqs they were given; run inside a write transaction."""
    conn.executemany(
        f"INSERT INTO records (session, {COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(session, *row, seq) for row, seq in numbered],
    )


def upsert_last_path(conn: sqlite3.Connection, session: bytes, path: str, next_window: NextWindow | None) -> None:
    line, char = next_window or (None, None)
    conn.execute(
        "INSERT INTO last_paths (session, path, next_line, next_char) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (session) DO UPDATE SET path = excluded.path, next_line = excluded.next_line, "
        "next_char = excluded.next_char",
        (session, blob(path), line, char),
    )


#: A held write as the rows it makes: a version's compressed text, or a call's session, record
#: rows, last path and transcript row (see ``held``).
HeldRows = tuple[str, bytes] | tuple[bytes, list[tuple[RecordRow, int]], LastPath | None, EncodedCall | None, int]


def held_rows(item: Held) -> HeldRows:
    """The rows ``item`` makes, encoded (compressed, JSON) before the write transaction begins."""
    if isinstance(item, HeldVersion):
        return (item.content_hash, zlib.compress(blob(item.text)))
    call = None if item.call is None else encoded_call(item.call)
    rows = [(record_row(record), record.seq) for record in item.records]
    return (blob(item.session_id), rows, item.last, call, item.hides)


def write_held(conn: sqlite3.Connection, rows: HeldRows) -> None:
    """Make one held write from its ``held_rows``; run inside a write transaction."""
    if len(rows) == 2:
        conn.execute(
            "INSERT INTO versions (hash, text) VALUES (?, ?) "
            "ON CONFLICT (hash) DO UPDATE SET text = excluded.text WHERE text IS NOT excluded.text",
            rows,
        )
        return
    session, records, last, call, hides = rows
    (now,) = conn.execute("SELECT coalesce(max(hides), 0) FROM counters WHERE session = ?", (session,)).fetchone()
    if now != hides:  # hidden since by another process, which could not know these records
        records = [((*row[:-1], 0), seq) for row, seq in records]
    insert_numbered(conn, session, records)
    if last is not None:
        upsert_last_path(conn, session, *last)
    if call is not None:
        insert_encoded(conn, session, call)
