"""The ledger writes of one tool call, kept until the call ends and then made as one.

A read leaves four things in the ledger: the lines it showed (its view records), the file a read
without a path goes on with (``set_last_path``), the call's place in the session, and its
transcript row. Made one by one they were four transactions on the SQLite ledger, and each
commit writes every page it changed to the WAL (the counters, the records table and its
indexes, the transcript), so a repeated read of a 6 KB file spent more time in the ledger than
in the read. ``CallWrites`` stands in for the store while the tool runs, keeps those writes,
and ``finish`` hands them to ``LedgerStore.finish_call`` at once: one transaction on SQLite,
which holds it until the process is idle (``behind``: after the result has left, with the
writes of other calls of a burst), and reads it from there until it is made.

What each write is for, and why keeping it until the end loses none of it:

- the view records: dedup stubs, diffs and edit grants of later calls; ``forget``, ``compact``
  and ``rewind`` hide them; ``inspect`` shows them. The memory and Redis stores have them before
  the model can have the result; the SQLite store within ``behind.MAX_AGE_S`` after (a kill -9
  in between loses them: the model is shown those lines again rather than a stub). A tool reads
  its own kept records back: ``views_of`` and ``visible_instructions`` add
  them, ``last_path`` and ``next_window`` answer with the kept last path.
- the last path: where ``read`` without a path goes on; written in the same step.
- the call's place (a ``CALL`` record): lets ``compact``/``rewind`` name a call that showed no
  file. A call that recorded a record of its own (not a carry) already has its place there, so
  the mark is added only for the others.
- the transcript row: ``inspect``'s copy of what the model saw. Before, a crash between the
  writes could leave a view without its row; in one transaction a call is there whole or not at
  all.

A tool that changes the workspace (``edit``, ``write``) keeps its own records immediate: it
writes the file first, and its result must say when the ledger failed to record the change
(``tools.common.remember_written``); its mark and transcript row still go as one write.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace

from .store import CALL, CARRY, LastPath, LedgerStore, MatchLocation, NextWindow, ViewRecord
from .transcript import CallRecord, SessionSummary

__all__ = ["CallWrites"]


class CallWrites:
    """A ``LedgerStore`` for one tool call of one session: what the call records is kept (or,
    with ``defer=False``, passed on at once) and made by ``finish``; everything else is the
    store's.

    Args:
        store: the session's store.
        session_id: the session of the call.
        call_id: the call's id: ``finish`` marks its place unless it recorded a record of its own.
        defer: keep ``record`` and ``set_last_path`` until ``finish`` (False: pass them on).

    Not shared between threads: one call runs in one thread.
    """

    def __init__(self, store: LedgerStore, session_id: str, call_id: str, *, defer: bool = True) -> None:
        self.store = store
        self._session = session_id
        self._call_id = call_id
        self._defer = defer
        self._kept: list[ViewRecord] = []
        self._last: LastPath | None = None
        self._placed = False
        self._fetched: dict[tuple[str, str], list[ViewRecord]] = {}

    def finish(self, call: CallRecord | None) -> None:
        """Make the kept writes, the call's place (when it has none) and ``call``'s transcript
        row (None: none) as one ``finish_call``; nothing is kept afterwards.

        Raises:
            LeanreadError: the store failed; then none of it was written (SQLite).
        """
        records = list(self._kept)
        if not self._placed:
            records.append(ViewRecord(self._call_id, "", "", (), 0, 0, kind=CALL, visible=False))
        last, self._kept, self._last = self._last, [], None
        self.store.finish_call(self._session, records, last, call)

    def _mine(self, session_id: str, record: ViewRecord) -> None:
        if session_id == self._session and record.call_id == self._call_id and record.kind != CARRY:
            self._placed = True

    def _kept_of(self, session_id: str, path: str | None = None) -> list[ViewRecord]:
        if session_id != self._session:
            return []
        return [r for r in self._kept if path is None or r.path == path]

    # --- what the call writes ----------------------------------------------------------------

    def record(self, session_id: str, record: ViewRecord) -> ViewRecord:
        """Keep ``record`` (its ``seq`` is given at ``finish``; until then it reads as 0)."""
        self._mine(session_id, record)
        if not self._defer or session_id != self._session:
            self._fetched.pop((session_id, record.path), None)
            return self.store.record(session_id, record)
        self._kept.append(record)
        return record

    def set_last_path(self, session_id: str, path: str, next_window: NextWindow | None = None) -> None:
        """Keep the last path until ``finish``."""
        if not self._defer or session_id != self._session:
            self.store.set_last_path(session_id, path, next_window)
            return
        self._last = (path, next_window)

    # --- what the call reads: the store's, with what it kept -------------------------------------

    def views_of(self, session_id: str, path: str) -> list[ViewRecord]:
        """The store's records of ``path``, then those kept, numbered after them in order. The
        store is asked once per file and call (a grep looks at each file it shows twice: whether
        the model has seen it, then what it knows of it); a hide made through this call asks again.
        A call that changes the workspace (``defer=False``) asks every time: under the file's lock
        it must see what a parallel edit of the session has just recorded."""
        stored = self._fetched.get((session_id, path)) if self._defer else None
        if stored is None:
            stored = self.store.views_of(session_id, path)
            if self._defer:
                self._fetched[(session_id, path)] = stored
        kept = self._kept_of(session_id, path)
        if not kept:
            return list(stored)
        top = max((r.seq for r in stored), default=0)
        return [*stored, *(replace(r, seq=top + i) for i, r in enumerate(kept, 1))]

    def visible_instructions(self, session_id: str) -> set[str]:
        """The store's, and those of the kept records."""
        held = self.store.visible_instructions(session_id)
        return held.union(*(r.instructions for r in self._kept_of(session_id) if r.visible))

    def last_path(self, session_id: str) -> str | None:
        if self._last is not None and session_id == self._session:
            return self._last[0]
        return self.store.last_path(session_id)

    def next_window(self, session_id: str) -> NextWindow | None:
        if self._last is not None and session_id == self._session:
            return self._last[1]
        return self.store.next_window(session_id)

    # --- the rest is the store's ----------------------------------------------------------------

    def new_call_id(self, session_id: str) -> str:
        return self.store.new_call_id(session_id)

    def session_views(self, session_id: str, call_ids: Collection[str] | None = None) -> list[ViewRecord]:
        return self.store.session_views(session_id, call_ids)

    def call_states(self, session_id: str) -> dict[str, bool]:
        return self.store.call_states(session_id)

    def forget(self, session_id: str, call_ids: Iterable[str]) -> int:
        self._fetched.clear()
        return self.store.forget(session_id, call_ids)

    def compact(self, session_id: str, up_to_call_id: str) -> int:
        self._fetched.clear()
        return self.store.compact(session_id, up_to_call_id)

    def rewind(self, session_id: str, to_call_id: str) -> int:
        self._fetched.clear()
        return self.store.rewind(session_id, to_call_id)

    def put_version(self, content_hash: str, text: str) -> None:
        self.store.put_version(content_hash, text)

    def get_version(self, content_hash: str) -> str | None:
        return self.store.get_version(content_hash)

    def put_matches(self, session_id: str, matches: Sequence[MatchLocation]) -> list[str]:
        return self.store.put_matches(session_id, matches)

    def get_match(self, session_id: str, match_id: str) -> MatchLocation | None:
        return self.store.get_match(session_id, match_id)

    def sessions_under(self, root: str) -> list[str]:
        return self.store.sessions_under(root)

    def finish_call(
        self, session_id: str, records: Sequence[ViewRecord], last: LastPath | None, call: CallRecord | None
    ) -> None:
        self.store.finish_call(session_id, records, last, call)

    def record_call(self, session_id: str, call: CallRecord) -> CallRecord:
        return self.store.record_call(session_id, call)

    def calls(
        self, session_id: str, first: int = 1, limit: int | None = None, *, bodies: bool = True
    ) -> list[CallRecord]:
        return self.store.calls(session_id, first, limit, bodies=bodies)

    def find_call(self, session_id: str, call_id: str) -> CallRecord | None:
        return self.store.find_call(session_id, call_id)

    def sessions(self) -> list[SessionSummary]:
        return self.store.sessions()

    def session_paths(self, session_id: str) -> list[str]:
        return self.store.session_paths(session_id)
