"""The Redis ledger store: sessions shared by a fleet of leanread servers.

Every server of a fleet points at one Redis (``--ledger redis://host:6379/0``); a session's
calls may land on any of them and each sees what the others recorded. The store keeps the
``LedgerStore`` protocol of ``store`` exactly (the same suite runs over memory, SQLite and
Redis), with these keys, all under one prefix (default ``leanread``) and, per session, one hash
tag so that a Redis Cluster keeps a session's keys in one slot::

    P:{S}:calls     counter of call ids (INCR)        P:{S}:seq      counter of record seqs
    P:{S}:rec       hash seq → record (JSON)           P:{S}:hidden   set of seqs out of the window
    P:{S}:path:<p>  set of seqs of file <p>           P:{S}:bycall   hash call id → its seqs ("3,4")
    P:{S}:instr     set of seqs carrying instructions  P:{S}:last     the path read last
    P:{S}:matches   list of grep hits (JSON)           P:v:<hash>     a shown version (zlib)
    P:{S}:tx        the transcript: call heads (JSON)  P:{S}:txb      hash number → call body (zlib)
    P:{S}:txid      hash call id → its last number     P:{S}:txsum    hash of the session's totals
    P:sessions      sorted set of sessions with a transcript, scored by their last call's time
    P:{S}:paths     set of the files the session has records of   P:all-sessions  set of every session
    P:{S}:hides     counter of hides (forget, compact, rewind)    P:{S}:born     a random mark set by
                                                                                  the first record
    P:{S}:next      where a read without a path goes on in the file ``last`` names (``line:char``)

A session whose records expired and that is begun again under the same id starts with a new
birth mark, and its first record drops the ``hidden`` set a late hide may have kept alive, so the
new records (numbered from 1 again) are not born hidden nor taken for a forgotten call's.

Why updates never lose a record when two servers write one session: a record is appended by one
Lua script (the seq counter, the record and its indexes in one atomic step); call ids and match
ids come from atomic counters (``INCR``, ``RPUSH``'s new length); and visibility only ever goes
one way, by adding seqs to the ``hidden`` set, so concurrent hides commute. ``compact`` and
``rewind``, which read the session before they hide, run under ``WATCH`` of the seq counter and
retry when a record was appended in between. Each server holds the records it fetched
(``viewcache``) and asks only for newer ones while ``hides`` and ``born`` stay the same.

Every key of a session expires after ``idle_seconds`` without a write to it (default 7 days);
versions expire the same way after their last write or read. A file's ``path`` set is written only
when that file is recorded, so in a session that goes on it can expire alone: the file's records
are then unknown to every server alike (a server that held them starts over), and ``forget``
finds a call's records in ``bycall``, which every record renews, so it lives as long as the session.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from typing import Any, cast

from ..errors import LeanreadError
from .redis_base import IDLE_SECONDS, WatchError, as_bytes, as_text
from .redis_transcript import RedisTranscript
from .store import (
    CALL,
    CARRY,
    LastPath,
    LineRange,
    MatchLocation,
    NextWindow,
    ViewRecord,
    compacted,
    finish_in_order,
    inside,
    match_id,
    match_number,
    rewound,
    unknown_call,
)
from .transcript import CallRecord
from .viewcache import ViewCache

#: Times compact/rewind retry when another server appended to the session meanwhile.
RETRIES = 50

_APPEND = """
if redis.call('SET', KEYS[8], ARGV[7], 'NX') then redis.call('DEL', KEYS[5], KEYS[10]) end
local seq = redis.call('INCR', KEYS[1])
redis.call('HSET', KEYS[2], seq, ARGV[1])
redis.call('SADD', KEYS[3], seq)
if ARGV[3] == '1' then redis.call('SADD', KEYS[4], seq) end
if ARGV[4] == '0' then redis.call('SADD', KEYS[5], seq) end
if ARGV[5] ~= '' then redis.call('SADD', KEYS[6], ARGV[5]) end
local held = redis.call('HGET', KEYS[10], ARGV[8])
redis.call('HSET', KEYS[10], ARGV[8], held and (held .. ',' .. seq) or seq)
for i = 1, 10 do if i ~= 7 then redis.call('EXPIRE', KEYS[i], ARGV[2]) end end
redis.call('SADD', KEYS[7], ARGV[6])
return seq
"""


def _encode(record: ViewRecord) -> bytes:
    """A record without its seq (the hash field holds it) as compact ASCII JSON."""
    origins = record.origins or tuple(a for a, _ in record.ranges)
    ranges = [[a, b] if o == a else [a, b, o] for (a, b), o in zip(record.ranges, origins, strict=True)]
    body = [record.call_id, record.path, record.content_hash, ranges, record.size, record.mtime_ns, record.kind]
    return json.dumps([*body, list(record.instructions)], separators=(",", ":")).encode()


def _decode(seq: int, data: bytes, visible: bool) -> ViewRecord:
    call_id, path, content_hash, ranges, size, mtime_ns, kind, instructions = json.loads(data)
    spans: tuple[LineRange, ...] = tuple((int(r[0]), int(r[1])) for r in ranges)
    origins = tuple(int(r[2]) if len(r) > 2 else int(r[0]) for r in ranges)
    return ViewRecord(
        call_id=call_id,
        path=path,
        content_hash=content_hash,
        ranges=spans,
        origins=origins if any(o != a for o, (a, _) in zip(origins, spans, strict=True)) else (),
        size=int(size),
        mtime_ns=int(mtime_ns),
        kind=kind,
        instructions=tuple(instructions),
        visible=visible,
        seq=seq,
    )


class RedisLedger(RedisTranscript):
    """A ``LedgerStore`` in Redis, shared by every server process pointed at it.

    Args:
        url: ``redis://[:password@]host[:port][/db]`` (or ``rediss://``, ``unix://``), as the
            ``redis`` client library takes it.
        prefix: the first part of every key.
        idle_seconds: a session's keys expire this long after its last write.

    Raises:
        LeanreadError: the URL is not a Redis URL, or the server does not answer ``PING``.
    """

    def __init__(self, url: str, *, prefix: str = "leanread", idle_seconds: int = IDLE_SECONDS) -> None:
        super().__init__(url, prefix=prefix, idle_seconds=idle_seconds)
        self._views = ViewCache()
        self._append = self._redis.register_script(_APPEND)

    # --- LedgerStore -----------------------------------------------------------------------

    def new_call_id(self, session_id: str) -> str:
        """A call id not yet used in ``session_id``: ``r1``, ``r2``, …, unique across servers."""
        key = self._key(session_id, "calls")
        pipe = self._redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, self.idle_seconds)
        number, _ = self._call(pipe.execute)
        return f"r{number}"

    def record(self, session_id: str, record: ViewRecord) -> ViewRecord:
        """Append ``record`` atomically; returns it with its ``seq`` set (1, 2, … per session)."""
        keys = [
            self._key(session_id, "seq"),
            self._key(session_id, "rec"),
            self._key(session_id, "path", record.path),
            self._key(session_id, "instr"),
            self._key(session_id, "hidden"),
            self._key(session_id, "paths"),
            self._all_sessions,
            self._key(session_id, "born"),
            self._key(session_id, "hides"),
            self._key(session_id, "bycall"),
        ]
        args = [
            _encode(record), self.idle_seconds, "1" if record.instructions else "0", "1" if record.visible else "0",
            as_bytes(record.path), as_bytes(session_id), os.urandom(8).hex(), as_bytes(record.call_id),
        ]  # fmt: skip
        seq = self._call(self._append, keys=keys, args=args)
        return replace(record, seq=int(seq))

    def _records(self, session_id: str, seqs: Sequence[int]) -> list[ViewRecord]:
        """The records of ``seqs`` (sorted), with their visibility."""
        if not seqs:
            return []
        ordered = sorted(seqs)
        pipe = self._redis.pipeline(transaction=False)
        pipe.hmget(self._key(session_id, "rec"), ordered)
        pipe.smismember(self._key(session_id, "hidden"), ordered)
        bodies, hidden = self._call(pipe.execute)
        return [_decode(seq, body, not gone) for seq, body, gone in zip(ordered, bodies, hidden, strict=True) if body]

    def _seqs(self, key: bytes) -> list[int]:
        return [int(member) for member in self._call(self._redis.smembers, key)]

    def views_of(self, session_id: str, path: str) -> list[ViewRecord]:
        """Every record of ``path`` in the session, oldest first, visible or not; only those
        added since this process last asked are fetched and decoded (see ``viewcache``)."""

        def fetch(after: int) -> tuple[tuple[bytes | None, bool], int, list[ViewRecord]]:
            pipe = self._redis.pipeline()  # MULTI: the counter, the mark and the file's seqs as one view
            pipe.get(self._key(session_id, "hides"))
            pipe.get(self._key(session_id, "born"))
            pipe.smembers(self._key(session_id, "path", path))
            hides, born, members = self._call(pipe.execute)
            seqs = set(map(int, members))
            # a held record missing from the set means the set expired: another era, so the held
            # records are dropped as a server that never held them would not know them
            kept = after == 0 or after in seqs
            return (born, kept), int(hides or 0), self._records(session_id, [seq for seq in seqs if seq > after])

        def hidden(seqs: list[int]) -> set[int]:
            if not seqs:
                return set()
            flags = self._call(self._redis.smismember, self._key(session_id, "hidden"), seqs)
            return {seq for seq, gone in zip(seqs, flags, strict=True) if gone}

        return self._views.views(session_id, path, fetch, hidden)

    def visible_instructions(self, session_id: str) -> set[str]:
        """Instruction files attached to results still visible in the session."""
        records = self._records(session_id, self._seqs(self._key(session_id, "instr")))
        return {name for r in records if r.visible for name in r.instructions}

    def _all(self, session_id: str) -> list[ViewRecord]:
        pipe = self._redis.pipeline(transaction=False)
        pipe.hgetall(self._key(session_id, "rec"))
        pipe.smembers(self._key(session_id, "hidden"))
        bodies, hidden = self._call(pipe.execute)
        gone = {int(seq) for seq in hidden}
        return sorted((_decode(int(seq), body, int(seq) not in gone) for seq, body in bodies.items()), key=_seq)

    def call_states(self, session_id: str) -> dict[str, bool]:
        """Every call id of the session → whether any record of it is still visible."""
        states: dict[str, bool] = {}
        for r in self._all(session_id):
            states[r.call_id] = states.get(r.call_id, False) or r.visible
        return states

    def sessions_under(self, root: str) -> list[str]:
        """Ids of the sessions with a record of ``root`` or of a file inside it, sorted; sessions
        that expired are dropped from the index."""
        names = sorted(
            as_text(name) for name in cast("set[bytes]", self._call(self._redis.smembers, self._all_sessions))
        )
        pipe = self._redis.pipeline(transaction=False)
        for name in names:
            pipe.smembers(self._key(name, "paths"))
        found: list[str] = []
        for name, paths in zip(names, self._call(pipe.execute), strict=True):
            if not paths:
                self._call(self._redis.srem, self._all_sessions, as_bytes(name))
            elif any(inside(as_text(path), root) for path in paths):
                found.append(name)
        return found

    def _hide(self, session_id: str, seqs: Iterable[int]) -> int:
        """Add ``seqs`` to the hidden set; returns how many were not hidden yet."""
        wanted = sorted(set(seqs))
        if not wanted:
            return 0
        key = self._key(session_id, "hidden")
        pipe = self._redis.pipeline()
        pipe.sadd(key, *wanted)
        pipe.expire(key, self.idle_seconds)
        self._count_hide(pipe, session_id)
        added, *_ = self._call(pipe.execute)
        return int(added)

    def _count_hide(self, pipe: Any, session_id: str) -> None:
        """Queue the bump of the session's hide counter in ``pipe``, beside the hide itself."""
        counter = self._key(session_id, "hides")
        pipe.incr(counter)
        pipe.expire(counter, self.idle_seconds)

    def forget(self, session_id: str, call_ids: Iterable[str]) -> int:
        """Mark the results of ``call_ids`` as gone; returns how many visible records were marked.
        Unknown ids are ignored."""
        ids = sorted(set(call_ids))
        if not ids:
            return 0
        # one index of every call, renewed with each record: a key per call would expire on its
        # own while the session goes on, and a forgotten result would then still get stubs
        found = cast(
            "list[bytes | None]",
            self._call(self._redis.hmget, self._key(session_id, "bycall"), [as_bytes(c) for c in ids]),
        )
        return self._hide(session_id, (int(seq) for held in found if held for seq in held.split(b",")))

    def _hide_around(
        self, session_id: str, call_id: str, pick: Callable[[list[ViewRecord], int], list[ViewRecord]]
    ) -> int:
        """Hide what ``pick(records, the call's place)`` names, as one step against appends."""
        counter = self._key(session_id, "seq")
        hidden = self._key(session_id, "hidden")
        for _ in range(RETRIES):
            with self._redis.pipeline() as pipe:
                try:
                    self._call(pipe.watch, counter)
                    records = self._all(session_id)
                    own = [r.seq for r in records if r.call_id == call_id and r.kind != CARRY]
                    if not own:
                        raise unknown_call(call_id)
                    seqs = [r.seq for r in pick(records, max(own)) if r.visible]
                    pipe.multi()
                    if seqs:
                        pipe.sadd(hidden, *seqs)
                        pipe.expire(hidden, self.idle_seconds)
                        self._count_hide(pipe, session_id)
                    self._call(pipe.execute)
                    return len(seqs)
                except WatchError:
                    continue
        raise LeanreadError(
            f"The Redis ledger's session {session_id!r} kept changing while {call_id} was being applied; retry."
        )

    def compact(self, session_id: str, up_to_call_id: str) -> int:
        """Mark every result up to and including ``up_to_call_id`` as gone, with the lines carried
        on their behalf later; returns how many visible records were marked.

        Raises:
            InvalidArgument: the session has no result with that call id.
        """
        return self._hide_around(session_id, up_to_call_id, compacted)

    def rewind(self, session_id: str, to_call_id: str) -> int:
        """Mark every result after ``to_call_id`` as gone; returns how many visible records were
        marked.

        Raises:
            InvalidArgument: the session has no result with that call id.
        """
        return self._hide_around(session_id, to_call_id, rewound)

    def set_last_path(self, session_id: str, path: str, next_window: NextWindow | None = None) -> None:
        """Remember the file the session read last (as the model knows it) and where its next
        window starts; both keys in one ``MULTI``, so they always name the same read."""
        pipe = self._redis.pipeline()
        pipe.set(self._key(session_id, "last"), as_bytes(path), ex=self.idle_seconds)
        if next_window is None:
            pipe.delete(self._key(session_id, "next"))
        else:
            pipe.set(self._key(session_id, "next"), f"{next_window[0]}:{next_window[1]}", ex=self.idle_seconds)
        self._call(pipe.execute)

    def last_path(self, session_id: str) -> str | None:
        """The path given to ``set_last_path`` last, or None."""
        value = cast("bytes | None", self._call(self._redis.get, self._key(session_id, "last")))
        return None if value is None else as_text(value)

    def next_window(self, session_id: str) -> NextWindow | None:
        """The ``next_window`` given to ``set_last_path`` last, or None."""
        value = cast("bytes | None", self._call(self._redis.get, self._key(session_id, "next")))
        if value is None:
            return None
        line, _, char = value.partition(b":")
        return int(line), int(char)

    def put_matches(self, session_id: str, matches: Sequence[MatchLocation]) -> list[str]:
        """Keep grep hits under the session's next ids ``m<n>``: one ``RPUSH`` numbers them, so two
        servers never hand out the same id; returns the ids."""
        if not matches:
            return []
        key = self._key(session_id, "matches")
        rows = [json.dumps([path, line]).encode() for path, line in matches]
        pipe = self._redis.pipeline()
        pipe.rpush(key, *rows)
        pipe.expire(key, self.idle_seconds)
        length, _ = self._call(pipe.execute)
        first = int(length) - len(rows) + 1
        return [match_id(first + i) for i in range(len(rows))]

    def get_match(self, session_id: str, match_id: str) -> MatchLocation | None:
        """The ``(realpath, line)`` kept under ``match_id`` in this session, or None."""
        number = match_number(match_id)
        if number is None:
            return None
        row = self._call(self._redis.lindex, self._key(session_id, "matches"), number - 1)
        if row is None:
            return None
        path, line = json.loads(row)
        return str(path), int(line)

    def finish_call(
        self, session_id: str, records: Sequence[ViewRecord], last: LastPath | None, call: CallRecord | None
    ) -> None:
        """One call's kept writes (see ``LedgerStore.finish_call``), each its own atomic step, in order."""
        finish_in_order(self, session_id, records, last, call)

    def session_paths(self, session_id: str) -> list[str]:
        """The files the session showed lines of, in the order first shown."""
        return list(dict.fromkeys(r.path for r in self._all(session_id) if r.kind != CALL))

    def session_views(self, session_id: str, call_ids: Collection[str] | None = None) -> list[ViewRecord]:
        """Every view record of the session, oldest first; only those of ``call_ids`` when given."""
        records = self._all(session_id)
        return records if call_ids is None else [r for r in records if r.call_id in call_ids]


def _seq(record: ViewRecord) -> int:
    return record.seq
