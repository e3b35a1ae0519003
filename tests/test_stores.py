"""The ``LedgerStore`` contract, kept alike by the memory and the SQLite store.

One suite runs over both stores with exact expected values; a state machine drives both with
random sequences of operations (SQLite reopened in between) and demands identical answers; the
SQLite store alone is checked for restarts, two processes sharing one file, its schema, its
errors (corrupt, foreign, newer, unusable files) and its default XDG path.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from collections.abc import Callable
from operator import methodcaller
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

import leanread.ledger.sqlite_store
from leanread.errors import InvalidArgument, LeanreadError
from leanread.ledger.redis_store import RedisLedger
from leanread.ledger.sqlite_store import SCHEMA_VERSION, SQLiteLedger, default_ledger_path
from leanread.ledger.store import LedgerStore, MemoryLedger, ViewRecord, unknown_call

SRC = str(Path(leanread.ledger.sqlite_store.__file__).resolve().parents[1])


def rec(
    call_id: str,
    path: str = "/ws/a.py",
    ranges: tuple[tuple[int, int], ...] = ((1, 10),),
    digest: str = "h1",
    kind: str = "read",
    instructions: tuple[str, ...] = (),
    visible: bool = True,
    seq: int = 0,
) -> ViewRecord:
    return ViewRecord(
        call_id=call_id,
        path=path,
        content_hash=digest,
        ranges=ranges,
        size=100,
        mtime_ns=1_700_000_000_123_456_789,
        kind=kind,
        instructions=instructions,
        visible=visible,
        seq=seq,
    )


def visibility(store: LedgerStore, session: str, path: str = "/ws/a.py") -> list[tuple[str, int, bool]]:
    return [(r.call_id, r.seq, r.visible) for r in store.views_of(session, path)]


# --- the contract, both stores ------------------------------------------------------------


def test_call_ids_count_per_session(store: LedgerStore) -> None:
    assert [store.new_call_id("s1") for _ in range(3)] == ["r1", "r2", "r3"]
    assert store.new_call_id("s2") == "r1"
    store.record("s1", rec("r3"))  # recording does not use up call ids
    assert store.new_call_id("s1") == "r4"
    assert store.new_call_id("s2") == "r2"


def test_record_assigns_seq_per_session_and_keeps_every_field(store: LedgerStore) -> None:
    first = rec("r1", ranges=((1, 40), (61, 80)), instructions=("/ws/AGENTS.md", "/ws/src/CLAUDE.md"), seq=99)
    stored = store.record("s", first)
    assert stored == rec("r1", ranges=((1, 40), (61, 80)), instructions=("/ws/AGENTS.md", "/ws/src/CLAUDE.md"), seq=1)
    assert store.record("s", rec("r2", kind="edit", visible=False)).seq == 2
    assert store.record("other", rec("r1")).seq == 1
    assert store.record("s", rec("r3", path="/ws/b.py", kind="grep", ranges=())).seq == 3
    assert store.views_of("s", "/ws/a.py") == [
        rec("r1", ranges=((1, 40), (61, 80)), instructions=("/ws/AGENTS.md", "/ws/src/CLAUDE.md"), seq=1),
        rec("r2", kind="edit", visible=False, seq=2),
    ]
    assert store.views_of("s", "/ws/b.py") == [rec("r3", path="/ws/b.py", kind="grep", ranges=(), seq=3)]


def test_views_of_filters_by_session_and_path_oldest_first(store: LedgerStore) -> None:
    for call_id, path in [("r1", "/ws/a.py"), ("r2", "/ws/b.py"), ("r3", "/ws/a.py"), ("r4", "/ws/a.py")]:
        store.record("s", rec(call_id, path=path))
    store.record("t", rec("r1"))
    assert [(r.call_id, r.seq) for r in store.views_of("s", "/ws/a.py")] == [("r1", 1), ("r3", 3), ("r4", 4)]
    assert [(r.call_id, r.seq) for r in store.views_of("t", "/ws/a.py")] == [("r1", 1)]
    assert store.views_of("s", "/ws/none.py") == []
    assert store.views_of("nobody", "/ws/a.py") == []


def test_strings_round_trip_exactly(store: LedgerStore) -> None:
    odd = "/ws/caf\udce9 \u00e9\u4e2d\U0001f600 'q\"\n.py"  # a non-UTF-8 name (surrogateescape) and more
    record = rec("call-\u00e9", path=odd, instructions=(odd + ".md",), digest="f" * 64)
    assert store.record("sess\udcff", record) == rec(
        "call-\u00e9", path=odd, instructions=(odd + ".md",), digest="f" * 64, seq=1
    )
    assert store.views_of("sess\udcff", odd) == [
        rec("call-\u00e9", path=odd, instructions=(odd + ".md",), digest="f" * 64, seq=1)
    ]
    assert store.visible_instructions("sess\udcff") == {odd + ".md"}
    store.set_last_path("sess\udcff", odd)
    assert store.last_path("sess\udcff") == odd
    store.put_version("v", "x\udce9y")
    assert store.get_version("v") == "x\udce9y"


def test_visible_instructions_follow_visibility(store: LedgerStore) -> None:
    assert store.visible_instructions("s") == set()
    store.record("s", rec("r1", instructions=("/ws/AGENTS.md",)))
    store.record("s", rec("r2", instructions=("/ws/AGENTS.md", "/ws/src/AGENTS.md")))
    store.record("s", rec("r3", instructions=("/ws/lib/CLAUDE.md",), visible=False))
    store.record("t", rec("r1", instructions=("/ws/other/AGENTS.md",)))
    assert store.visible_instructions("s") == {"/ws/AGENTS.md", "/ws/src/AGENTS.md"}
    assert store.forget("s", ["r2"]) == 1
    assert store.visible_instructions("s") == {"/ws/AGENTS.md"}
    assert store.forget("s", ["r1"]) == 1
    assert store.visible_instructions("s") == set()
    assert store.visible_instructions("t") == {"/ws/other/AGENTS.md"}


def test_forget(store: LedgerStore) -> None:
    store.record("s", rec("r1"))
    store.record("s", rec("r2"))
    store.record("s", rec("r2", path="/ws/b.py"))  # one call, two records
    store.record("s", rec("r3"))
    store.record("t", rec("r1"))
    assert store.forget("s", []) == 0
    assert store.forget("s", ["r9"]) == 0
    assert store.forget("s", iter(["r2", "r9", "r2"])) == 2
    assert visibility(store, "s") == [("r1", 1, True), ("r2", 2, False), ("r3", 4, True)]
    assert visibility(store, "s", "/ws/b.py") == [("r2", 3, False)]
    assert store.forget("s", ["r2"]) == 0  # forgetting twice hides nothing more
    assert store.forget("s", ("r1", "r3")) == 2
    assert store.forget("nobody", ["r1"]) == 0
    assert visibility(store, "t") == [("r1", 1, True)]


def test_forget_does_not_count_records_stored_hidden(store: LedgerStore) -> None:
    store.record("s", rec("r1", visible=False))
    store.record("s", rec("r1", path="/ws/b.py"))
    assert store.forget("s", ["r1"]) == 1


def _interleaved(store: LedgerStore) -> None:
    """seq 1 r1, 2 r2, 3 r1 (b.py), 4 r3, 5 r4 (a.py unless noted)."""
    store.record("s", rec("r1"))
    store.record("s", rec("r2"))
    store.record("s", rec("r1", path="/ws/b.py"))
    store.record("s", rec("r3"))
    store.record("s", rec("r4"))


def test_compact_hides_up_to_the_calls_last_record(store: LedgerStore) -> None:
    _interleaved(store)
    assert store.compact("s", "r1") == 3  # seq <= 3, r2 included since it lies before r1's last record
    assert visibility(store, "s") == [("r1", 1, False), ("r2", 2, False), ("r3", 4, True), ("r4", 5, True)]
    assert visibility(store, "s", "/ws/b.py") == [("r1", 3, False)]
    assert store.compact("s", "r1") == 0
    assert store.compact("s", "r2") == 0
    assert store.compact("s", "r3") == 1
    assert store.compact("s", "r4") == 1
    assert visibility(store, "s") == [("r1", 1, False), ("r2", 2, False), ("r3", 4, False), ("r4", 5, False)]


def test_compact_counts_only_visible(store: LedgerStore) -> None:
    _interleaved(store)
    assert store.forget("s", ["r2", "r3"]) == 2
    assert store.compact("s", "r4") == 3


def test_rewind_hides_after_the_calls_last_record(store: LedgerStore) -> None:
    _interleaved(store)
    assert store.rewind("s", "r4") == 0  # nothing after the last call
    assert store.rewind("s", "r1") == 2  # seq 4 and 5
    assert visibility(store, "s") == [("r1", 1, True), ("r2", 2, True), ("r3", 4, False), ("r4", 5, False)]
    assert store.rewind("s", "r1") == 0
    # records hidden by a rewind stay known: compact/rewind to them still work
    assert store.rewind("s", "r3") == 0
    assert store.new_call_id("s") == "r1"  # call id counter is not touched by records
    assert store.record("s", rec("r5")).seq == 6  # nor is seq by a rewind
    assert store.rewind("s", "r2") == 2  # seq 3 (r1 in b.py) and 6
    assert visibility(store, "s", "/ws/b.py") == [("r1", 3, False)]
    assert visibility(store, "s")[-1] == ("r5", 6, False)


def test_compact_and_rewind_of_unknown_call_raise(store: LedgerStore) -> None:
    store.record("s", rec("r1"))
    store.record("t", rec("r2"))
    for method in (store.compact, store.rewind):
        for session, call_id in [("s", "r9"), ("s", "r2"), ("nobody", "r1")]:
            with pytest.raises(InvalidArgument) as caught:
                method(session, call_id)
            assert str(caught.value) == str(unknown_call(call_id))
            assert str(caught.value) == (
                f"This session has no tool result with call id {call_id!r}; pass a call_id from a result's metadata."
            )
    assert visibility(store, "s") == [("r1", 1, True)]
    assert store.record("s", rec("r3")).seq == 2  # a failed compact leaves the store usable


def test_sessions_are_isolated(store: LedgerStore) -> None:
    store.record("a", rec("r1", instructions=("/ws/AGENTS.md",)))
    store.record("b", rec("r1", instructions=("/ws/AGENTS.md",)))
    assert store.compact("a", "r1") == 1
    assert visibility(store, "a") == [("r1", 1, False)]
    assert visibility(store, "b") == [("r1", 1, True)]
    assert store.visible_instructions("a") == set()
    assert store.visible_instructions("b") == {"/ws/AGENTS.md"}
    store.set_last_path("a", "/ws/a.py")
    assert store.last_path("b") is None


def test_versions_are_shared_and_overwritten(store: LedgerStore) -> None:
    assert store.get_version("h1") is None
    store.put_version("h1", "alpha\nbeta")
    store.put_version("h2", "")
    store.put_version("h3", "\u4e2d\u6587\n" * 10_000)
    assert store.get_version("h1") == "alpha\nbeta"
    assert store.get_version("h2") == ""
    assert store.get_version("h3") == "\u4e2d\u6587\n" * 10_000
    store.put_version("h1", "alpha\nbeta")
    store.put_version("h1", "other")
    assert store.get_version("h1") == "other"
    assert store.get_version("h4") is None


def test_last_path(store: LedgerStore) -> None:
    assert store.last_path("s") is None
    store.set_last_path("s", "/ws/a.py")
    store.set_last_path("t", "b.py")
    store.set_last_path("s", "src/c.py")
    assert store.last_path("s") == "src/c.py"
    assert store.last_path("t") == "b.py"


def test_next_window_goes_with_the_last_path(store: LedgerStore) -> None:
    assert store.next_window("s") is None
    store.set_last_path("s", "a.py", (41, 1))
    store.set_last_path("t", "b.py", (7, 2001))
    assert [(store.last_path(n), store.next_window(n)) for n in ("s", "t")] == [("a.py", (41, 1)), ("b.py", (7, 2001))]
    store.set_last_path("s", "img.png")  # a read with no window of lines: nowhere known
    assert (store.last_path("s"), store.next_window("s")) == ("img.png", None)


def test_matches_are_numbered_per_session_across_calls(store: LedgerStore) -> None:
    assert store.get_match("s", "m1") is None
    assert store.put_matches("s", []) == []
    assert store.put_matches("s", [("/ws/a.py", 12), ("/ws/b\udce9.py", 3)]) == ["m1", "m2"]
    assert store.put_matches("t", [("/ws/c.py", 1)]) == ["m1"]
    assert store.put_matches("s", [("/ws/a.py", 40)]) == ["m3"]
    assert store.get_match("s", "m1") == ("/ws/a.py", 12)
    assert store.get_match("s", "m2") == ("/ws/b\udce9.py", 3)
    assert store.get_match("s", " M3 ") == ("/ws/a.py", 40)
    assert store.get_match("s", "3") == ("/ws/a.py", 40)
    assert store.get_match("t", "m1") == ("/ws/c.py", 1)
    for unknown in ("m4", "m0", "m-1", "x1", "", "m", "m1.5", "m\u0661"):
        assert store.get_match("s", unknown) is None, unknown
    assert store.get_match("nobody", "m1") is None
    assert store.put_matches("s", [("/ws/d.py", 7)]) == ["m4"]


def test_a_call_that_began_first_but_ended_last_is_seen_and_ordered_last(store: LedgerStore) -> None:
    # Two calls of one session at once (an MCP client's parallel tool calls): the later view of
    # the file is the one that ended later, and a store that already read the file's records
    # must still see it. Numbering records when their call began gave the late record a seq
    # below one the store held, so it was never fetched: a stale "unchanged" stub followed.
    slow, quick = store.new_call_id("s"), store.new_call_id("s")
    store.finish_call("s", [rec(quick, digest="v1")], None, None)
    assert [r.call_id for r in store.views_of("s", "/ws/a.py")] == [quick]
    store.finish_call("s", [rec(slow, digest="v2")], None, None)
    for _ in range(2):  # held, then made
        assert [(r.call_id, r.content_hash) for r in store.views_of("s", "/ws/a.py")] == [(quick, "v1"), (slow, "v2")]
        if isinstance(store, SQLiteLedger):
            store.flush()


def test_threads_get_distinct_call_ids_and_seqs(store: LedgerStore) -> None:
    got: list[tuple[str, int]] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(25):
            call_id = store.new_call_id("s")
            seq = store.record("s", rec(call_id)).seq
            with lock:
                got.append((call_id, seq))

    workers = [threading.Thread(target=work) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(int(c[1:]) for c, _ in got) == list(range(1, 201))
    assert sorted(s for _, s in got) == list(range(1, 201))
    assert [r.seq for r in store.views_of("s", "/ws/a.py")] == list(range(1, 201))


# --- SQLite and memory answer alike ------------------------------------------------------

SESSIONS = st.sampled_from(["s1", "s2"])
CALLS = st.sampled_from(["r1", "r2", "r3", "r4", "x"])
PATHS = ["/ws/a.py", "/ws/b.py", "/ws/c\udce9.py"]
FILES = st.sampled_from(["/ws/AGENTS.md", "/ws/src/AGENTS.md", "/ws/CLAUDE.md"])
HASHES = st.sampled_from(["h1", "h2", "h3"])


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        return ("ok", call())
    except InvalidArgument as exc:
        return ("error", str(exc))


class SameAnswers(RuleBasedStateMachine):
    """Random operations on both stores; every answer must match, also after reopening SQLite.

    Each persistent store is opened twice (two SQLite connections to one file, two Redis clients
    on one prefix), as two server processes would; the operations go through one of the two,
    switched at random, and the state is read through both, so what one process holds of the
    records (``viewcache``) can never hide what the other wrote.
    """

    #: The Redis server's URL, when the test runs with one (``test_redis_gives_the_same_answers``).
    redis_url: str | None = None

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.file = Path(self.folder.name) / "l.sqlite3"
        self.memory = MemoryLedger()
        self.sqlites = [SQLiteLedger(self.file), SQLiteLedger(self.file)]
        prefix = uuid.uuid4().hex
        url = self.redis_url
        self.redises = [] if url is None else [RedisLedger(url, prefix=prefix) for _ in range(2)]
        self.turn = 0

    def both(self, op: Callable[[LedgerStore], Any], *, through: int | None = None) -> Any:
        turn = self.turn if through is None else through
        expected = _outcome(lambda: op(self.memory))
        assert _outcome(lambda: op(self.sqlites[turn])) == expected
        if self.redises:
            redis = self.redises[turn]
            assert _outcome(lambda: op(redis)) == expected
        return expected

    @rule()
    def switch(self) -> None:
        self.sqlites[self.turn].flush()  # held writes reach the other process once made (``ledger.behind``)
        self.turn = 1 - self.turn

    @rule(session=SESSIONS)
    def new_call_id(self, session: str) -> None:
        self.both(lambda s: s.new_call_id(session))

    @rule(
        session=SESSIONS,
        call_id=CALLS,
        path=st.sampled_from(PATHS),
        ranges=st.lists(st.tuples(st.integers(1, 500), st.integers(1, 500)), max_size=3).map(tuple),
        digest=HASHES,
        kind=st.sampled_from(["read", "edit", "write", "grep", "refusal"]),
        instructions=st.lists(FILES, max_size=2, unique=True).map(tuple),
        visible=st.booleans(),
    )
    def record(
        self,
        session: str,
        call_id: str,
        path: str,
        ranges: tuple[tuple[int, int], ...],
        digest: str,
        kind: str,
        instructions: tuple[str, ...],
        visible: bool,
    ) -> None:
        made = ViewRecord(call_id, path, digest, ranges, len(ranges), 7, kind, instructions, visible)
        self.both(lambda s: s.record(session, made))

    @rule(session=SESSIONS, call_ids=st.lists(CALLS, max_size=3))
    def forget(self, session: str, call_ids: list[str]) -> None:
        self.both(lambda s: s.forget(session, call_ids))

    @rule(session=SESSIONS, call_id=CALLS)
    def compact(self, session: str, call_id: str) -> None:
        self.both(lambda s: s.compact(session, call_id))

    @rule(session=SESSIONS, call_id=CALLS)
    def rewind(self, session: str, call_id: str) -> None:
        self.both(lambda s: s.rewind(session, call_id))

    @rule(digest=HASHES, text=st.text(max_size=20))
    def put_version(self, digest: str, text: str) -> None:
        # through one process only: a real digest names one text, so two processes never put
        # different texts under one digest (each keeps a memo of what it put)
        self.both(lambda s: s.put_version(digest, text), through=0)
        if self.turn != 0:  # read through the other process: once the held write is made
            self.sqlites[0].flush()

    @rule(
        session=SESSIONS,
        path=st.sampled_from(PATHS),
        window=st.none() | st.tuples(st.integers(1, 10**9), st.integers(1, 10**6)),
    )
    def set_last_path(self, session: str, path: str, window: tuple[int, int] | None) -> None:
        self.both(lambda s: s.set_last_path(session, path, window))

    @rule(session=SESSIONS, path=st.sampled_from(PATHS), lines=st.lists(st.integers(1, 9), max_size=3))
    def put_matches(self, session: str, path: str, lines: list[int]) -> None:
        self.both(lambda s: s.put_matches(session, [(path, n) for n in lines]))

    @rule()
    def reopen(self) -> None:
        self.sqlites[self.turn].close()
        self.sqlites[self.turn] = SQLiteLedger(self.file)

    @invariant()
    def same_state(self) -> None:
        for session in ["s1", "s2"]:  # first through the store written to, its held writes held still
            for path in PATHS:
                self.both(methodcaller("views_of", session, path))
            self.both(methodcaller("visible_instructions", session))
            self.both(methodcaller("last_path", session))
            self.both(methodcaller("next_window", session))
        for digest in ["h1", "h2", "h3"]:
            self.both(methodcaller("get_version", digest))
        for session in ["s1", "s2"]:
            self.both(methodcaller("call_states", session))  # makes the held writes
            for path in PATHS:
                self.both(methodcaller("views_of", session, path), through=1 - self.turn)
        for session in ["s1", "s2"]:
            for number in range(1, 8):
                self.both(methodcaller("get_match", session, f"m{number}"))

    def teardown(self) -> None:
        for store in (*self.sqlites, *self.redises):
            store.close()
        self.folder.cleanup()


SameAnswers.TestCase.settings = settings(
    max_examples=40, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestSameAnswers = SameAnswers.TestCase


def test_redis_gives_the_same_answers(redis_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SameAnswers, "redis_url", redis_server.url)
    run_state_machine_as_test(SameAnswers, settings=SameAnswers.TestCase.settings)


def test_redis_session_begun_again_after_its_idle_expiry(redis_server: Any) -> None:
    prefix = uuid.uuid4().hex
    one = RedisLedger(redis_server.url, prefix=prefix, idle_seconds=1)
    two = RedisLedger(redis_server.url, prefix=prefix, idle_seconds=1)
    try:
        for call in ("r1", "r2", "r3"):
            one.record("s", rec(call))
        assert visibility(two, "s") == [("r1", 1, True), ("r2", 2, True), ("r3", 3, True)]
        time.sleep(1.5)  # every key of the session expires
        assert visibility(one, "s") == []
        for call in ("r1", "r2", "r3", "r4"):
            one.record("s", rec(call, digest="h2"))
        assert [(r.seq, r.content_hash) for r in two.views_of("s", "/ws/a.py")] == [(n, "h2") for n in range(1, 5)]
    finally:
        one.close()
        two.close()


# --- SQLite only: restarts, processes, schema, errors, default path ----------------------


def test_restart_keeps_everything(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as first:
        for _ in range(3):
            first.new_call_id("s")
        first.new_call_id("t")
        first.record("s", rec("r1", instructions=("/ws/AGENTS.md",)))
        first.record("s", rec("r2", ranges=((1, 5), (9, 12))))
        first.record("s", rec("r3", path="/ws/b.py"))
        first.record("t", rec("r1"))
        first.forget("s", ["r2"])
        first.put_version("h1", "alpha\nbeta\n")
        first.set_last_path("s", "src/a.py")
        before = first.views_of("s", "/ws/a.py")
    with SQLiteLedger(file) as second:
        assert second.views_of("s", "/ws/a.py") == before
        assert before == [
            rec("r1", instructions=("/ws/AGENTS.md",), seq=1),
            rec("r2", ranges=((1, 5), (9, 12)), visible=False, seq=2),
        ]
        assert second.views_of("s", "/ws/b.py") == [rec("r3", path="/ws/b.py", seq=3)]
        assert second.visible_instructions("s") == {"/ws/AGENTS.md"}
        assert second.get_version("h1") == "alpha\nbeta\n"
        assert second.last_path("s") == "src/a.py"
        assert second.last_path("t") is None
        assert second.new_call_id("s") == "r4"
        assert second.new_call_id("t") == "r2"
        assert second.new_call_id("u") == "r1"
        assert second.record("s", rec("r4")).seq == 4
        assert second.record("t", rec("r2")).seq == 2
        assert second.rewind("s", "r1") == 2  # r3 (b.py) and r4; r2 was already forgotten


_WRITER = """
import os, sys, time
from pathlib import Path
from leanread.ledger.store import ViewRecord
from leanread.ledger.sqlite_store import SQLiteLedger

file, name = sys.argv[1], sys.argv[2]
folder = Path(file).parent
with SQLiteLedger(file) as ledger:
    (folder / ("ready-" + name)).touch()
    go = str(folder / "go")
    while not os.path.exists(go):  # spin, so both start within microseconds of each other
        pass
    for i in range(50):
        call_id = ledger.new_call_id("shared")
        ledger.record("shared", ViewRecord(call_id, "/ws/" + name, "h", ((1, i + 1),), 1, 1))
        time.sleep(0.0005)  # let the other process in between our writes
"""


def test_two_processes_share_one_file(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(file), name], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for name in ("a", "b")
    ]
    try:
        deadline = time.monotonic() + 20
        while not all((tmp_path / f"ready-{n}").exists() for n in "ab"):
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            assert time.monotonic() < deadline
            time.sleep(0.005)
        (tmp_path / "go").touch()
        outputs = [p.communicate(timeout=30) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    assert [p.returncode for p in procs] == [0, 0], outputs
    with SQLiteLedger(file) as ledger:
        records = ledger.views_of("shared", "/ws/a") + ledger.views_of("shared", "/ws/b")
        assert len(records) == 100
        assert sorted(r.seq for r in records) == list(range(1, 101))
        assert sorted(int(r.call_id[1:]) for r in records) == list(range(1, 101))
        for name in "ab":  # each process's own records are in its own order
            mine = ledger.views_of("shared", f"/ws/{name}")
            assert [r.ranges for r in mine] == [((1, i),) for i in range(1, 51)]
        assert ledger.new_call_id("shared") == "r101"


def test_two_connections_in_one_process(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as one, SQLiteLedger(file) as two:
        ids = [(one if i % 2 else two).new_call_id("s") for i in range(10)]
        seqs = [(two if i % 3 else one).record("s", rec(f"r{i}")).seq for i in range(10)]
        assert ids == [f"r{i}" for i in range(1, 11)]
        assert seqs == list(range(1, 11))
        one.forget("s", ["r0"])
        assert [r.visible for r in two.views_of("s", "/ws/a.py")][:2] == [False, True]


def test_opening_a_new_file_waits_for_another_process_that_holds_it(tmp_path: Path) -> None:
    # A new file is not yet in WAL mode; while another process holds its write lock, SQLite
    # refuses the journal-mode switch at once (no busy handler), as when six CLI calls open a
    # new ledger at the same moment. The open must wait, not fail.
    file = tmp_path / "l.sqlite3"
    other = sqlite3.connect(file, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    releaser = threading.Timer(0.3, other.execute, ("COMMIT",))
    releaser.start()
    started = time.monotonic()
    try:
        with SQLiteLedger(file) as store:
            assert store.new_call_id("s") == "r1"
        assert time.monotonic() - started >= 0.25
    finally:
        releaser.join()
        other.close()


def test_file_layout(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as ledger:
        ledger.record("s", rec("r1", ranges=((1, 40), (61, 80)), instructions=("/ws/AGENTS.md",)))
        ledger.put_version("h1", "alpha\nbeta")
        ledger.flush()  # written behind; another connection reads the file
        raw = sqlite3.connect(file)
        try:
            assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            assert raw.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
            names = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")}
            assert names == {
                "records",
                "records_by_path",
                "records_by_call",
                "counters",
                "versions",
                "last_paths",
                "matches",
                "calls",
                "calls_by_id",
                "records_with_instructions",
            }
            assert raw.execute(
                "SELECT session, call_id, path, ranges, instructions, visible FROM records"
            ).fetchall() == [(b"s", b"r1", b"/ws/a.py", "[[1,40],[61,80]]", '["/ws/AGENTS.md"]', 1)]
            assert raw.execute("SELECT session, calls, seqs, hides FROM counters").fetchall() == [(b"s", 0, 1, 0)]
            (blob,) = raw.execute("SELECT text FROM versions WHERE hash = 'h1'").fetchone()
            assert zlib.decompress(blob) == b"alpha\nbeta"
        finally:
            raw.close()
    assert stat.S_IMODE(file.stat().st_mode) == 0o600


def test_version_1_file_is_upgraded_in_place(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as ledger:
        ledger.record("s", rec("r1"))
        ledger.put_version("h1", "alpha")
    raw = sqlite3.connect(file)
    raw.execute("DROP TABLE matches")
    raw.execute("PRAGMA user_version = 1")
    raw.commit()
    raw.close()
    with SQLiteLedger(file) as upgraded:
        assert upgraded.views_of("s", "/ws/a.py") == [rec("r1", seq=1)]
        assert upgraded.get_version("h1") == "alpha"
        assert upgraded.put_matches("s", [("/ws/a.py", 5)]) == ["m1"]
        assert upgraded.get_match("s", "m1") == ("/ws/a.py", 5)
    raw = sqlite3.connect(file)
    assert raw.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (7,)
    assert raw.execute("SELECT session, number, path, line FROM matches").fetchall() == [(b"s", 1, b"/ws/a.py", 5)]
    raw.close()


def test_version_3_file_is_upgraded_in_place(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as ledger:
        ledger.record("s", rec("r1", instructions=("/ws/AGENTS.md",)))
        ledger.record("s", rec("r2"))
    raw = sqlite3.connect(file)
    raw.execute("DROP INDEX records_with_instructions")
    raw.execute("ALTER TABLE counters DROP COLUMN hides")
    raw.execute("PRAGMA user_version = 3")
    raw.commit()
    raw.close()
    with SQLiteLedger(file) as upgraded:
        assert visibility(upgraded, "s") == [("r1", 1, True), ("r2", 2, True)]
        assert upgraded.forget("s", ["r1"]) == 1
        assert visibility(upgraded, "s") == [("r1", 1, False), ("r2", 2, True)]
        assert upgraded.visible_instructions("s") == set()
    raw = sqlite3.connect(file)
    assert raw.execute("PRAGMA user_version").fetchone() == (7,)
    assert raw.execute("SELECT session, seqs, hides FROM counters").fetchall() == [(b"s", 2, 1)]
    raw.close()


def test_version_4_file_is_upgraded_in_place_and_keeps_its_last_paths(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    SQLiteLedger(file).close()
    raw = sqlite3.connect(file)  # a version 4 file: last_paths without the next window
    raw.execute("DROP TABLE last_paths")
    raw.execute("CREATE TABLE last_paths (session BLOB PRIMARY KEY, path BLOB NOT NULL) WITHOUT ROWID")
    raw.execute("INSERT INTO last_paths VALUES (x'73', x'612e7079')")
    raw.execute("PRAGMA user_version = 4")
    raw.commit()
    raw.close()
    with SQLiteLedger(file) as upgraded:
        assert (upgraded.last_path("s"), upgraded.next_window("s")) == ("a.py", None)
        upgraded.set_last_path("s", "b.py", (41, 1))
        assert (upgraded.last_path("s"), upgraded.next_window("s")) == ("b.py", (41, 1))
    raw = sqlite3.connect(file)
    assert raw.execute("PRAGMA user_version").fetchone() == (7,)
    assert raw.execute("SELECT * FROM last_paths").fetchall() == [(b"s", b"b.py", 41, 1)]
    raw.close()


def test_a_hide_by_another_connection_is_seen_by_one_that_read_before(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as one, SQLiteLedger(file) as two:
        one.record("s", rec("r1"))
        assert visibility(two, "s") == [("r1", 1, True)]
        one.record("s", rec("r2"))
        one.compact("s", "r1")
        assert visibility(two, "s") == [("r1", 1, False), ("r2", 2, True)]
        two.record("s", rec("r3"))
        one.rewind("s", "r2")
        assert visibility(one, "s") == visibility(two, "s") == [("r1", 1, False), ("r2", 2, True), ("r3", 3, False)]


def test_match_ids_are_unique_across_two_connections(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as one, SQLiteLedger(file) as two:
        ids = [(one if i % 2 else two).put_matches("s", [("/ws/a.py", i)])[0] for i in range(6)]
        assert ids == ["m1", "m2", "m3", "m4", "m5", "m6"]
        assert two.get_match("s", "m2") == ("/ws/a.py", 1)


def _message(call: Callable[[], object]) -> str:
    with pytest.raises(LeanreadError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message
    assert "Traceback" not in message
    return message


def test_corrupt_file(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    file.write_bytes(b"this is not a SQLite file at all \x00\xff\x13" * 200)
    assert _message(lambda: SQLiteLedger(file)) == (
        f"The ledger file {file} is corrupt or not a leanread ledger (file is not a database); "
        "delete it (a new ledger is started) or pass another ledger path."
    )
    file.write_bytes(b"junk")
    assert "is corrupt or not a leanread ledger" in _message(lambda: SQLiteLedger(file))


def test_damaged_version_text(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as ledger:
        ledger.put_version("h1", "text")
        ledger.flush()
        raw = sqlite3.connect(file)
        raw.execute("UPDATE versions SET text = x'00ff'")
        raw.commit()
        raw.close()
        assert _message(lambda: ledger.get_version("h1")) == (
            f"The ledger file {file} holds a damaged text for version h1; "
            "delete the file (a new ledger is started) or pass another ledger path."
        )


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    SQLiteLedger(file).close()
    raw = sqlite3.connect(file)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    assert _message(lambda: SQLiteLedger(file)) == (
        f"The ledger file {file} was written by a newer leanread (schema version {SCHEMA_VERSION + 1}, "
        f"this one reads up to {SCHEMA_VERSION}); upgrade leanread or pass another ledger path."
    )


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "app.db"
    raw = sqlite3.connect(file)
    raw.execute("CREATE TABLE users (name TEXT)")
    raw.commit()
    raw.close()
    assert _message(lambda: SQLiteLedger(file)) == (
        f"The file {file} is a SQLite database but not a leanread ledger; pass another ledger path."
    )
    raw = sqlite3.connect(file)
    assert raw.execute("SELECT name FROM sqlite_master").fetchall() == [("users",)]  # left untouched
    raw.close()


def test_unusable_path(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert _message(lambda: SQLiteLedger(folder)) == (
        f"Cannot use the ledger file {folder} (unable to open database file); make sure it is a readable and "
        "writable file on a local disk with space left, or pass another ledger path."
    )
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    message = _message(lambda: SQLiteLedger(blocker / "sub" / "l.sqlite3"))
    assert message.startswith(f"Cannot create the folder {blocker / 'sub'} for the leanread ledger (")
    assert message.endswith("); pass another ledger path.")


def test_closed_store(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    ledger = SQLiteLedger(file)
    with ledger as entered:
        assert entered is ledger
    ledger.close()  # idempotent
    assert _message(lambda: ledger.new_call_id("s")) == (
        f"The ledger store of {file} is closed; open a new SQLiteLedger."
    )


def test_default_path_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    expected = tmp_path / "state" / "leanread" / "ledger.sqlite3"
    assert default_ledger_path() == expected
    with SQLiteLedger() as ledger:
        assert ledger.path == expected
        assert ledger.new_call_id("s") == "r1"
    assert expected.is_file()
    assert stat.S_IMODE(expected.parent.stat().st_mode) == 0o700
    with SQLiteLedger() as again:
        assert again.new_call_id("s") == "r2"


@pytest.mark.parametrize("xdg", [None, "", "relative/state"])
def test_default_path_falls_back_to_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, xdg: str | None) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_STATE_HOME", xdg)
    assert default_ledger_path() == tmp_path / ".local" / "state" / "leanread" / "ledger.sqlite3"


def test_sessions_under_a_root(store: LedgerStore) -> None:
    store.record("a", rec("r1", path="/ws/src/a.py"))
    store.record("b", rec("r1", path="/ws"))
    store.record("c", rec("r1", path="/wsx/a.py"))  # a sibling whose name starts the same
    store.record("d", rec("r1", path=""))  # a call that showed no file
    store.record("e", rec("r1", path="/other/ws/a.py"))
    assert store.sessions_under("/ws") == ["a", "b"]
    assert store.sessions_under("/ws/") == ["a", "b"]
    assert store.sessions_under("/nowhere") == []


def test_the_statements_of_every_read_look_up_by_key_never_scan_the_session(tmp_path: Path) -> None:
    # Without statistics SQLite's planner picked the primary key (session=?) for "call_id = ? AND
    # visible = 1": every forget of a read past the 40th call read the whole session. A rewind's
    # lookup of its call is checked too; its hiding of what follows is a key range.
    with SQLiteLedger(tmp_path / "l.sqlite3") as store:
        for n in range(1, 301):
            call_id = store.new_call_id("s")
            store.record("s", rec(call_id, path=f"/ws/f{n % 7}.py", instructions=("/ws/AGENTS.md",) * (n % 2)))
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        for path in ("/ws/f1.py", "/ws/f2.py"):
            store.views_of("s", path)
        store.forget("s", ["r5", "r6"])
        store.visible_instructions("s")
        store.record("s", rec(store.new_call_id("s")))
        store.rewind("s", "r300")
        store._conn.set_trace_callback(None)
        plans = {
            sql: [row[3] for row in store._conn.execute(f"EXPLAIN QUERY PLAN {sql}")]
            for sql in statements
            if " records" in sql and not sql.startswith(("BEGIN", "COMMIT"))
        }
    assert len(plans) >= 4
    scans = {
        sql: steps
        for sql, steps in plans.items()
        # a scan of the records (aliased r in views_of's one statement), or a search by session alone
        if any(step.split()[:2] in (["SCAN", "records"], ["SCAN", "r"]) for step in steps)
        or any(step.startswith(("SEARCH records", "SEARCH r ")) and step.endswith("KEY (session=?)") for step in steps)
    }
    assert scans == {}
