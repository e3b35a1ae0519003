"""The symbol index of one workspace root, on disk: an SQLite file beside the ledger's
(``<ledger folder>/symbols/<root name>-<hash of the root>.sqlite3``), one per root, holding each
code file's facts (``facts.FileFacts``) with the size, mtime and content hash they were read from.

Kept true cheaply (``SymbolStore.refresh``, run before every answer):

- the first call lists the root with ripgrep (its ignore rules; the deny list applied to every
  name of each path, the files it refuses counted) and reads every code file;
- later calls ``stat`` the folders the walk entered (every one, not only those holding code: a code
  file made among docs is seen) and the files the index holds: a folder whose mtime moved is listed
  again (new and removed files; a new subfolder listed whole unless ignore files leave it out), a
  file whose size or mtime moved is hashed and read again only when its bytes changed; an ignore
  file (``.gitignore``, ``.ignore``, ``.rgignore``) that changed lists the root again. Nothing is
  parsed again that did not change, and nothing depends on the question asked.

Bounded: a file is read, parsed and written before the next (``BATCH_FILES`` a transaction); files
over ``MAX_FILE_BYTES``, binary files and files past ``MAX_FILES`` are not indexed and are counted.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..config.policy import Policy
from ..ledger.sqlite_store import BUSY_TIMEOUT_MS
from .extract import python_module
from .facts import Binding, Definition, FileFacts, Use
from .listing import Listed, list_code
from .parse import MAX_FILE_BYTES, Job, Parsed, parse_files
from .tables import INDEXES, SCHEMA, SCHEMA_VERSION, TABLES, Refresh, Skipped, rows_to_definitions, store_path

#: Code files indexed per root at most; the rest are counted as skipped.
MAX_FILES = 100_000
#: Files written per transaction while building.
BATCH_FILES = 200


class SymbolStore:
    """The on-disk index of one root (see the module docstring). Thread-safe: one lock guards the
    connection. Paths are relative to the root, ``/``-separated."""

    def __init__(self, root: str, policy: Policy | None = None, path: Path | None = None) -> None:
        self.root = os.path.realpath(root)
        self.policy = policy or Policy()
        self.path = path or store_path(self.root)
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock = threading.RLock()
        self._writes = 0  # bumped by every transaction begun here: the rows kept in memory are stale
        self._rows: tuple[int, list[tuple[str, int]], list[tuple[str, int, int]]] | None = None
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        with contextlib.suppress(sqlite3.OperationalError):
            self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._prepare()

    def _begin(self) -> None:
        self._writes += 1
        self._db.execute("BEGIN IMMEDIATE")

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def _prepare(self) -> None:
        """Make the tables; a file made by another schema, root or deny list is emptied and its
        tables made anew (an older leanread's columns differ)."""
        with self._lock:
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            wanted = json.dumps({"schema": SCHEMA_VERSION, "root": self.root, "deny": list(self.policy.deny)})
            self._begin()
            try:
                if row is None or row[0] != wanted:
                    for table in TABLES:
                        self._db.execute(f"DROP TABLE IF EXISTS {table}")
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (wanted,))
                for statement in (*SCHEMA, *INDEXES):
                    self._db.execute(statement)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # --- keeping it true ----------------------------------------------------------------------

    def refresh(self) -> Refresh:
        """Bring the index up to date with the files on disk (see the module docstring).

        Raises:
            LeanreadError: ripgrep is missing or fails while listing.
        """
        started = time.perf_counter()
        with self._lock:
            done = Refresh()
            if self._db.execute("SELECT 1 FROM folders LIMIT 1").fetchone() is None or self._ignores_moved():
                self._build(done)
            else:
                self._update(done)
            done.seconds = time.perf_counter() - started
            return done

    def _build(self, done: Refresh) -> None:
        """List the root whole and read every file that is new or changed."""
        done.built = True
        listed = list_code(self.root, self.policy, "")
        code, ignores, refused = listed.code, listed.ignores, listed.refused
        self._begin()
        try:
            self._db.execute("DELETE FROM skipped")
            self._db.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, NULL, NULL)", refused.items())
            if len(code) > MAX_FILES:
                code.sort()
                self._db.executemany(
                    "INSERT OR REPLACE INTO skipped VALUES (?, ?, NULL, NULL)",
                    ((p, f"past {MAX_FILES:,} files") for p in code[MAX_FILES:]),
                )
                code = code[:MAX_FILES]
            known = {p for (p,) in self._db.execute("SELECT path FROM files")}
            wanted = set(code)
            done.removed += self._remove(sorted(known - wanted))
            self._set_folders(listed.folders)
            self._db.execute("DELETE FROM watched")
            self._watch(ignores)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        if known:
            self._read_changed(code, done)
            return
        for statement in INDEXES:  # a first build writes its rows faster without them
            self._db.execute(f"DROP INDEX IF EXISTS {statement.split()[5]}")
        try:
            self._read_changed(code, done)
        finally:
            for statement in INDEXES:
                self._db.execute(statement)

    def _set_folders(self, folders: Iterable[str]) -> None:
        """The folders to stat: every folder the listings entered, not only those holding a code
        file (a code file created in a folder of docs would be missed), each with its mtime now."""
        self._db.execute("DELETE FROM folders")
        self._put_folders(folders)

    def _put_folders(self, folders: Iterable[str]) -> None:
        """Each of ``folders`` with its mtime now (one gone since it was listed is left out); the
        other rows stay as they are (a refresh has just seen that their folders did not move)."""
        rows = [(f, self._mtime(f)) for f in sorted(set(folders))]
        self._db.executemany("INSERT OR REPLACE INTO folders VALUES (?, ?)", [r for r in rows if r[1] is not None])
        self._db.executemany("DELETE FROM folders WHERE path = ?", [(f,) for f, mtime in rows if mtime is None])

    def _mtime(self, rel: str) -> int | None:
        try:
            return os.stat(os.path.join(self.root, rel)).st_mtime_ns
        except OSError:
            return None

    def _watch(self, ignores: Iterable[str]) -> None:
        rows = []
        for rel in ignores:
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(self.root, rel))
                rows.append((rel, st.st_size, st.st_mtime_ns))
        self._db.executemany("INSERT OR REPLACE INTO watched VALUES (?, ?, ?)", rows)

    def _ignores_moved(self) -> bool:
        """Whether an ignore file the last listing met changed or went away."""
        for rel, size, mtime in self._db.execute("SELECT path, size, mtime_ns FROM watched").fetchall():
            try:
                st = os.stat(os.path.join(self.root, rel))
            except OSError:
                return True
            if (st.st_size, st.st_mtime_ns) != (size, mtime):
                return True
        return False

    def _update(self, done: Refresh) -> None:
        """Relist folders whose mtime moved; read files whose size or mtime moved."""
        folders, files = self._stat_rows()
        prefix = self.root + os.sep
        moved = [rel for rel, mtime in folders if _mtime_of(prefix + rel if rel else self.root) != mtime]
        if moved:
            self._relist(moved, done)
            folders, files = self._stat_rows()
        changed = []
        for rel, size, mtime in files:
            try:
                st = os.stat(prefix + rel)
            except OSError:
                changed.append(rel)
                continue
            if st.st_mtime_ns != mtime or st.st_size != size:
                changed.append(rel)
        done.checked += len(files)
        if changed:
            self._read_changed(changed, done, count=False)

    def _stat_rows(self) -> tuple[list[tuple[str, int]], list[tuple[str, int, int]]]:
        """The folders (path, mtime_ns) and files (path, size, mtime_ns) the index holds, kept in
        memory between refreshes while nothing is written (a call's refresh reads no table then)."""
        if self._rows is None or self._rows[0] != self._writes:
            folders = self._db.execute("SELECT path, mtime_ns FROM folders").fetchall()
            files = self._db.execute("SELECT path, size, mtime_ns FROM files").fetchall()
            self._rows = (self._writes, folders, files)
        return self._rows[1], self._rows[2]

    def _relist(self, moved: Sequence[str], done: Refresh) -> None:
        """List again the folders in ``moved`` (one level; a new or re-included subfolder whole,
        a subfolder ignore files leave out not at all)."""
        known_folders = {p for (p,) in self._db.execute("SELECT path FROM folders")}
        listings: list[Listed] = []
        gone: list[str] = []
        for folder in moved:
            if not os.path.isdir(os.path.join(self.root, folder)):
                gone.append(folder)
                continue
            listings.append(list_code(self.root, self.policy, folder, depth=1))
            new = [sub for sub in listings[-1].folders[1:] if sub not in known_folders]
            listings += [list_code(self.root, self.policy, sub) for sub in new]
        found = [path for listed in listings for path in listed.code]
        ignores = [path for listed in listings for path in listed.ignores]
        refused = {path: why for listed in listings for path, why in listed.refused.items()}
        dropped = [f for f in known_folders if any(f == g or f.startswith(g + "/") for g in gone)]
        self._begin()
        try:
            in_moved = self._files_in(moved, gone)
            done.removed += self._remove(sorted(in_moved - set(found)))
            self._db.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, NULL, NULL)", refused.items())
            self._db.executemany("DELETE FROM folders WHERE path = ?", [(f,) for f in dropped])
            self._put_folders(path for listed in listings for path in listed.folders)
            self._watch(ignores)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._read_changed(found, done)

    def _files_in(self, moved: Sequence[str], gone: Sequence[str]) -> set[str]:
        """Indexed files directly in the folders ``moved``, and all below the folders ``gone``."""
        paths = [p for (p,) in self._db.execute("SELECT path FROM files")]
        direct = set(moved)
        result = {p for p in paths if (p.rsplit("/", 1)[0] if "/" in p else "") in direct}
        for folder in gone:
            prefix = folder + "/"
            result |= {p for p in paths if p.startswith(prefix)}
        return result

    def _remove(self, paths: Sequence[str]) -> int:
        for path in paths:
            row = self._db.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
            if row is not None:
                self._clear(row[0])
                self._db.execute("DELETE FROM files WHERE id = ?", (row[0],))
        return len(paths)

    def _clear(self, file_id: int) -> None:
        for table in ("definitions", "bindings", "uses"):
            self._db.execute(f"DELETE FROM {table} WHERE file = ?", (file_id,))

    def _read_changed(self, paths: Sequence[str], done: Refresh, count: bool = True) -> None:
        """Read each of ``paths`` whose size or mtime differs from the index's, when its bytes
        changed (or it is new; in worker processes when there are many, ``parse.parse_files``);
        write ``BATCH_FILES`` files a transaction."""
        known = self._known(paths)
        jobs: list[Job] = []
        self._begin()
        try:
            for rel in paths:
                done.checked += count
                try:
                    st = os.stat(os.path.join(self.root, rel))
                except OSError:
                    done.removed += self._remove([rel])
                    continue
                entry = known.get(rel)
                if entry is None or (entry[1], entry[2]) != (st.st_size, st.st_mtime_ns):
                    jobs.append(Job(self.root, rel, st.st_size, st.st_mtime_ns, entry[3] if entry else None))
            for pending, parsed in enumerate(parse_files(jobs), start=1):
                done.read += self._apply(parsed, known.get(parsed.job.rel))
                if pending % BATCH_FILES == 0:
                    self._db.execute("COMMIT")
                    self._begin()
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def _known(self, paths: Sequence[str]) -> dict[str, tuple[int, int, int, bytes]]:
        """What the index holds of ``paths``: path → (id, size, mtime_ns, hash)."""
        rows = (
            self._db.execute("SELECT id, path, size, mtime_ns, hash FROM files")
            if len(paths) > 64
            else (
                row
                for path in paths
                for row in self._db.execute("SELECT id, path, size, mtime_ns, hash FROM files WHERE path = ?", (path,))
            )
        )
        return {path: (file_id, size, mtime, digest) for file_id, path, size, mtime, digest in rows}

    def _apply(self, parsed: Parsed, entry: tuple[int, int, int, bytes] | None) -> bool:
        """Write what reading one file gave; True when its facts were written anew."""
        job = parsed.job
        if parsed.skipped == "not code":
            return False
        if parsed.skipped:
            if entry is not None:
                self._remove([job.rel])
            self._db.execute(
                "INSERT OR REPLACE INTO skipped VALUES (?, ?, ?, ?)", (job.rel, parsed.skipped, job.size, job.mtime_ns)
            )
            return False
        self._db.execute("DELETE FROM skipped WHERE path = ?", (job.rel,))
        if parsed.facts is None and entry is not None:  # touched, not changed
            self._db.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (job.size, job.mtime_ns, entry[0]))
            return False
        if parsed.facts is None:
            return False
        self._write(job, parsed.facts, parsed.digest, entry[0] if entry is not None else None)
        return True

    def _write(self, job: Job, facts: FileFacts, digest: bytes, file_id: int | None) -> None:
        module = python_module(job.rel) if facts.language == "python" else ""
        exports = json.dumps(facts.exports) if facts.exports is not None else None
        row = (job.rel, facts.language, job.size, job.mtime_ns, digest, module, exports, facts.problem)
        if file_id is None:
            file_id = self._db.execute(
                "INSERT INTO files (path, language, size, mtime_ns, hash, module, exports, problem) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                row,
            ).fetchone()[0]
        else:
            self._clear(file_id)
            self._db.execute(
                "UPDATE files SET path = ?, language = ?, size = ?, mtime_ns = ?, hash = ?, module = ?, "
                "exports = ?, problem = ? WHERE id = ?",
                (*row, file_id),
            )
        self._db.executemany(
            "INSERT INTO definitions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (file_id, d.name, d.tail, d.kind, d.first, d.last, d.line, d.signature, d.scope, ",".join(d.bases))
                for d in facts.definitions
            ],
        )
        self._db.executemany(
            "INSERT INTO bindings VALUES (?, ?, ?, ?, ?, ?)",
            [(file_id, b.local, b.kind, b.module, b.imported, b.line) for b in facts.bindings],
        )
        self._db.executemany("INSERT INTO uses VALUES (?, ?, ?, ?, ?)", [(file_id, *u) for u in facts.uses])

    # --- reading it ---------------------------------------------------------------------------

    def query(self, sql: str, args: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Rows of a read-only ``sql`` over the tables (see ``SCHEMA``)."""
        with self._lock:
            return list(self._db.execute(sql, args))

    def skipped(self) -> Skipped:
        """The code files left out, counted by reason."""
        counts: dict[str, int] = {}
        for reason, count in self.query("SELECT reason, COUNT(*) FROM skipped GROUP BY reason ORDER BY reason"):
            counts[str(reason)] = int(str(count))
        return Skipped(counts)

    def file_count(self) -> int:
        """Files in the index."""
        return int(str(self.query("SELECT COUNT(*) FROM files")[0][0]))


def _mtime_of(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


__all__ = [
    "MAX_FILE_BYTES",
    "Binding",
    "Definition",
    "Refresh",
    "Skipped",
    "SymbolStore",
    "Use",
    "rows_to_definitions",
    "store_path",
]
