"""The index's tables, where its file is kept, and the records a refresh and a query give back.
Shared by ``store`` (which writes them) and the readers of the index."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..ledger.sqlite_store import default_ledger_path
from .facts import Definition

#: Bumped when the tables or what the extractors write change; an older file is rebuilt.
SCHEMA_VERSION = 5

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
    """CREATE TABLE IF NOT EXISTS files (
        id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, language TEXT NOT NULL, size INTEGER,
        mtime_ns INTEGER, hash BLOB, module TEXT, exports TEXT, problem TEXT)""",
    """CREATE TABLE IF NOT EXISTS definitions (
        file INTEGER NOT NULL, name TEXT NOT NULL, tail TEXT NOT NULL, kind TEXT, first INTEGER,
        last INTEGER, line INTEGER, signature TEXT, scope TEXT, bases TEXT)""",
    """CREATE TABLE IF NOT EXISTS bindings (
        file INTEGER NOT NULL, local TEXT NOT NULL, kind TEXT, module TEXT, imported TEXT, line INTEGER)""",
    """CREATE TABLE IF NOT EXISTS uses (
        file INTEGER NOT NULL, name TEXT NOT NULL, line INTEGER, col INTEGER, receiver TEXT)""",
    "CREATE TABLE IF NOT EXISTS folders (path TEXT PRIMARY KEY, mtime_ns INTEGER)",
    "CREATE TABLE IF NOT EXISTS watched (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER)",
    "CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT, size INTEGER, mtime_ns INTEGER)",
)
TABLES = ("files", "definitions", "bindings", "uses", "folders", "watched", "skipped")
INDEXES = (
    "CREATE INDEX IF NOT EXISTS definitions_tail ON definitions (tail)",
    "CREATE INDEX IF NOT EXISTS definitions_file ON definitions (file)",
    "CREATE INDEX IF NOT EXISTS bindings_local ON bindings (local)",
    "CREATE INDEX IF NOT EXISTS bindings_imported ON bindings (imported)",
    "CREATE INDEX IF NOT EXISTS bindings_file ON bindings (file)",
    "CREATE INDEX IF NOT EXISTS uses_name ON uses (name)",
    "CREATE INDEX IF NOT EXISTS uses_file ON uses (file)",
    "CREATE INDEX IF NOT EXISTS files_module ON files (module)",
)


def store_path(root: str) -> Path:
    """Where the index of ``root`` (a realpath) is kept: beside the ledger's default file."""
    digest = hashlib.blake2b(os.fsencode(root), digest_size=8).hexdigest()
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(root))[:40] or "root"
    return default_ledger_path().parent / "symbols" / f"{name}-{digest}.sqlite3"


@dataclass
class Refresh:
    """What one ``refresh`` did.

    Attributes:
        read: files parsed (new or changed).
        removed: files gone from the index.
        checked: files whose stat was compared.
        seconds: wall time it took.
        built: whether the root was listed whole (the first call, or an ignore file changed).
    """

    read: int = 0
    removed: int = 0
    checked: int = 0
    seconds: float = 0.0
    built: bool = False


@dataclass(frozen=True)
class Skipped:
    """Code files the index leaves out, counted by reason (``deny-listed``, ``over 2 MiB``,
    ``binary``, ``unreadable``, ``past 100,000 files``)."""

    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def rows_to_definitions(rows: Iterable[tuple[object, ...]]) -> Iterator[Definition]:
    """``Definition``s of rows ``(name, kind, first, last, line, signature, scope, bases)``."""
    for name, kind, first, last, line, signature, scope, bases in rows:
        numbers = int(str(first)), int(str(last)), int(str(line))
        parents = tuple(str(bases).split(",")) if bases else ()
        yield Definition(str(name), str(kind), *numbers, str(signature), str(scope), parents)
