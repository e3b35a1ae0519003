"""The SQLite ledger's file: its connection, its failures said in one sentence, and the writes
it holds until the process is idle (``behind``), made in one transaction and read by this
process in the meantime (``held``); ``sqlite_store.SQLiteLedger`` is the ``LedgerStore`` over it.

Within a process one connection serves every thread, guarded by a lock. A write the file cannot
take loses only itself: the batch is made again one write at a time (not when the file was busy:
each write would wait out the lock again). Stores of one file in one process make each other's
held writes before they read; a forked child gets new locks (a thread of the parent's that held
one is not in the child).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Self

from ..errors import LeanreadError
from .behind import WriteBehind
from .held import Held, HeldCall
from .sqlite_rows import HeldRows, held_rows, write_held
from .sqlite_schema import BUSY_TIMEOUT_MS, SCHEMA_VERSION, create_or_upgrade, default_ledger_path, switch_to_wal

__all__ = ["SQLiteFile"]

_log = logging.getLogger("leanread.ledger")


class SQLiteFile:
    """A leanread ledger file opened (see ``sqlite_store.SQLiteLedger`` for its arguments and
    failures), with the writes held for it."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(os.fspath(path)) if path is not None else default_ledger_path()
        self._real = os.path.realpath(self.path)  # the file, however its path is spelled
        self._lock = threading.Lock()
        self._closed = False
        self._behind: WriteBehind[Held] = WriteBehind(self._drain)
        self._draining = threading.Lock()
        _STORES.add(self)
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
        switch_to_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        if created:
            with contextlib.suppress(OSError):  # best effort: a file system without modes keeps the default
                os.chmod(self.path, 0o600)
        if self._schema_version() == SCHEMA_VERSION:
            return
        with self._transaction():
            create_or_upgrade(conn, self.path)

    def _schema_version(self) -> int:
        row = self._conn.execute("PRAGMA user_version").fetchone()
        return int(row[0])

    def _error(self, exc: sqlite3.Error) -> LeanreadError:
        """One sentence for a failure of the file: what happened to which file, and what to do."""
        name = getattr(exc, "sqlite_errorname", "")
        reason = str(exc) or name or type(exc).__name__
        if _busy(exc):
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
        """Make the held writes (see ``behind``), hold the lock and turn every ``sqlite3``
        failure into a ``LeanreadError``."""
        self._drain()
        with self._locked() as conn:
            yield conn

    @contextlib.contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """``_guard`` without making this store's held writes: for the reads that take them into
        account (``views_of``, ``visible_instructions``, ``last_path``, ``next_window``,
        ``get_version``) and the writes that need not follow them (a call id, grep's match ids).
        Another store of this process on the same file makes its held writes first."""
        for peer in _peers(self):
            peer._drain()
        with self._lock:
            self._check_open()
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

    def flush(self) -> None:
        """Make the held writes (``finish_call``, ``put_version``; see ``behind``) now, so another
        process reading the file sees them.

        Raises:
            LeanreadError: a held write could not be made (also kept for its session's next call).
        """
        failures = self._drain()
        if failures:
            raise failures[0]

    def _drain(self) -> list[LeanreadError]:
        """Make every held write, in one transaction, or one by one when that fails, so a write
        that cannot be made loses only itself; returns the failures (each also kept for its
        session, ``behind.WriteBehind.fail``). The writes are encoded first, outside the lock (a
        read of this process waits only for the commit), and leave ``pending`` in the same hold
        of the lock as the commit, so a read under the lock finds each in one place."""
        with self._draining:  # one drain at a time: the held writes it encoded stay the oldest
            held = self._behind.pending()
            if not held:
                return []
            failures: list[tuple[Held, LeanreadError]] = []
            encoded: list[tuple[Held, HeldRows]] = []
            for item in held:
                try:
                    encoded.append((item, held_rows(item)))
                except Exception as exc:  # a value the file cannot take
                    failures.append((item, self._failed(exc)))
            with self._lock:
                try:
                    failures += self._write_held(encoded)
                finally:
                    self._behind.remove(len(held))
        for item, failure in failures:
            if isinstance(item, HeldCall):
                said = f"The ledger did not record an earlier tool call of this session: {failure}"
                self._behind.fail([item.session_id], LeanreadError(said))
            else:  # a later change of the file is then shown whole rather than as a diff
                _log.info("leanread: a shown version's text was not kept: %s", failure)
        return [failure for _, failure in failures]

    def _write_held(self, encoded: list[tuple[Held, HeldRows]]) -> list[tuple[Held, LeanreadError]]:
        """Write ``encoded`` in one transaction, or each on its own when that fails; called holding
        the lock. Returns the writes that could not be made, with why."""
        if self._closed:
            closed = LeanreadError(f"The ledger store of {self.path} was closed before it recorded a call.")
            return [(item, closed) for item, _ in encoded]
        try:
            with self._transaction() as conn:
                for _, rows in encoded:
                    write_held(conn, rows)
            return []
        except Exception as exc:
            if len(encoded) == 1 or _busy(exc):  # each write would wait out the lock again
                return [(item, self._failed(exc)) for item, _ in encoded]
        failures: list[tuple[Held, LeanreadError]] = []
        for item, rows in encoded:
            try:
                with self._transaction() as conn:
                    write_held(conn, rows)
            except Exception as exc:
                failures.append((item, self._failed(exc)))
        return failures

    def _failed(self, exc: Exception) -> LeanreadError:
        """What a held write's failure ``exc`` is said as."""
        if isinstance(exc, LeanreadError):
            return exc
        if isinstance(exc, sqlite3.Error):
            return self._error(exc)
        return LeanreadError(
            f"The ledger file {self.path} could not record a tool call ({type(exc).__name__}: {exc}); "
            "its result counts as not shown, so the lines it showed are shown again."
        )

    def _check_open(self) -> None:
        if self._closed:
            raise LeanreadError(f"The ledger store of {self.path} is closed; open a new SQLiteLedger.")

    def close(self) -> None:
        """Make the held writes, then close the connection (idempotent); later calls raise
        ``LeanreadError``.

        Raises:
            LeanreadError: a held write could not be made (the store is closed all the same).
        """
        failures = self._drain()
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()
        if failures:
            raise failures[0]

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


_STORES: weakref.WeakSet[SQLiteFile] = weakref.WeakSet()


def _peers(store: SQLiteFile) -> list[SQLiteFile]:
    """The other open stores of this process on ``store``'s file (a harness that opens one per
    conversation turn): what they hold is made before ``store`` reads."""
    if len(_STORES) < 2:  # the usual process: one store (a WeakSet's iteration costs more than the read)
        return []
    return [
        peer for peer in list(_STORES) if peer is not store and peer._real == store._real and peer._behind.pending()
    ]


def _after_fork_in_child() -> None:
    """A forked child's stores get new locks: a thread of the parent's that held one is not in the
    child. Their connections are left alone (one the parent's writer was using may hold SQLite's
    own mutex, and a child that never uses the ledger, a parsing worker, must not wait on it)."""
    for store in list(_STORES):
        store._lock = threading.Lock()
        store._draining = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def _busy(exc: Exception) -> bool:
    """Whether ``exc`` is SQLite's: another process held the file longer than the busy timeout."""
    name = getattr(exc, "sqlite_errorname", "")
    return isinstance(exc, sqlite3.Error) and (name in ("SQLITE_BUSY", "SQLITE_LOCKED") or "locked" in str(exc))
