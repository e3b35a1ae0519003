"""The transcript: every tool call as the model saw it, kept alike by the memory, SQLite and Redis stores."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import redis
from redis_server import RedisServer

from leanread import MemoryLedger, Session
from leanread.config.settings import load_settings
from leanread.errors import ConfigError, LeanreadError
from leanread.ledger.redis_store import RedisLedger
from leanread.ledger.sqlite_store import SQLiteLedger
from leanread.ledger.store import LedgerStore, ViewRecord
from leanread.ledger.transcript import HARNESS, MODEL, CallRecord, SessionSummary
from leanread.result import ImageData
from leanread.tools.registry import TOOL_NAMES


def call(call_id: str, started: float = 100.0, tokens: int = 5, full: int | None = 9, **more: object) -> CallRecord:
    base: dict[str, object] = {"arguments": {"path": "a.py"}, "text": f"text of {call_id}"}
    base.update(more)
    return CallRecord(call_id, "read", tokens=tokens, full_tokens=full, started=started, **base)  # type: ignore[arg-type]


def test_calls_are_numbered_and_kept_exactly(store: LedgerStore) -> None:
    image = ImageData("aGVsbG8=", "image/png", 3, 2)
    first = store.record_call("s", call("r1", metadata={"offset": 1, "ranges": ((1, 2),)}, images=(image,)))
    assert first.number == 1
    assert first.metadata == {"offset": 1, "ranges": [[1, 2]]}  # through JSON: tuples come back as lists
    store.record_call("s", call("r2", text="caf\u00e9 \udcff", is_error=True, duration_ms=1.5))
    store.record_call("other", call("r1"))
    got = store.calls("s")
    assert [c.number for c in got] == [1, 2]
    assert got[0] == first
    assert got[0].images == (image,)
    assert (got[1].text, got[1].is_error, got[1].duration_ms) == ("caf\u00e9 \udcff", True, 1.5)


def test_calls_page_and_leave_bodies_out(store: LedgerStore) -> None:
    for i in range(1, 6):
        store.record_call("s", call(f"r{i}", tokens=i))
    assert [c.call_id for c in store.calls("s", 2, 2)] == ["r2", "r3"]
    assert [c.call_id for c in store.calls("s", 5)] == ["r5"]
    assert store.calls("s", 6) == []
    light = store.calls("s", 1, 1, bodies=False)
    assert light == [CallRecord("r1", "read", {}, "", tokens=1, full_tokens=9, started=100.0, number=1)]


def test_find_call_gives_the_last_with_that_id(store: LedgerStore) -> None:
    store.record_call("s", call("x", text="one"))
    store.record_call("s", call("x", text="two"))
    found = store.find_call("s", "x")
    assert found is not None
    assert (found.text, found.number) == ("two", 2)
    assert store.find_call("s", "nope") is None
    assert store.find_call("t", "x") is None


def test_sessions_newest_first_with_totals(store: LedgerStore) -> None:
    assert store.sessions() == []
    store.record_call("old", call("r1", started=10.0, tokens=3, full=10))
    store.record_call("old", call("r2", started=20.0, tokens=4, full=10))
    store.record_call("new", call("r1", started=30.0, tokens=1, full=1))
    assert store.sessions() == [
        SessionSummary("new", 1, 1, 1, 30.0, 30.0),
        SessionSummary("old", 2, 7, 20, 10.0, 20.0),
    ]
    assert store.sessions()[1].saved == 1 - 7 / 20


def test_session_views_are_every_record_in_order(store: LedgerStore) -> None:
    a = store.record("s", ViewRecord("r1", "/ws/a.py", "h1", ((1, 3),), 10, 1))
    b = store.record("s", ViewRecord("r2", "/ws/b.py", "h2", ((2, 2),), 10, 1, kind="grep"))
    store.record("t", ViewRecord("r1", "/ws/a.py", "h1", ((1, 3),), 10, 1))
    assert store.session_views("s") == [a, b]


def test_session_records_every_call(root: Path) -> None:
    (root / "a.py").write_text("one\ntwo\n" + "".join(f"line {i}\n" for i in range(3, 61)))
    session = Session([root], ledger=MemoryLedger(), id="s")
    session.read("a.py", limit=2)
    session.read("a.py", offset=3)
    session.grep("two")
    session.edit("a.py", "two", "2")
    session.read("missing.py")
    session.ls()
    session.context("forget", ["r1"])
    session.call("context", {"action": "forget", "call_ids": ["r2"]}, tools=TOOL_NAMES)  # the model's, offered
    calls = session.ledger.calls("s")
    assert [(c.number, c.call_id, c.tool, c.is_error, c.caller) for c in calls] == [
        (1, "r1", "read", False, "model"),
        (2, "r2", "read", False, "model"),
        (3, "r3", "grep", False, "model"),
        (4, "r4", "edit", False, "model"),
        (5, "r5", "read", True, "model"),
        (6, "r6", "ls", False, "model"),
        (7, "", "context", False, "harness"),
        (8, "", "context", False, "model"),
    ]
    assert [c.arguments for c in calls] == [
        {"path": "a.py", "limit": 2},
        {"path": "a.py", "offset": 3},
        {"pattern": "two"},
        {"path": "a.py", "old_string": "two", "new_string": "2"},
        {"path": "missing.py"},
        {},
        {"action": "forget", "call_ids": ["r1"]},
        {"action": "forget", "call_ids": ["r2"]},
    ]
    first = calls[0]
    assert first.text == (
        "<path>a.py</path>\n<type>file</type>\n<content>\none\ntwo\n\n"
        "(Showing lines 1-2 of 60. Use offset=3 to continue.)\n</content>"
    )
    assert first.metadata["call_id"] == "r1"
    assert first.tokens == first.metadata["tokens"] == first.full_tokens
    assert calls[2].tokens == calls[2].metadata["tokens"] == calls[2].full_tokens
    assert calls[4].tokens == calls[4].full_tokens > 0  # an error has no tokens metadata: counted
    assert all(c.started > 0 and c.duration_ms >= 0 for c in calls)


def test_transcript_off_records_nothing(root: Path) -> None:
    (root / "a.py").write_text("one\n")
    session = Session([root], ledger=MemoryLedger(), id="s", transcript=False)
    session.read("a.py")
    assert session.ledger.calls("s") == []
    assert session.ledger.call_states("s") == {"r1": True}  # the ledger itself still works


def test_transcript_setting(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings(root).transcript is True
    (root / "leanread.toml").write_text("transcript = false\n")
    assert load_settings(root).transcript is False
    assert Session([root], ledger=MemoryLedger()).transcript is False
    user = tmp_path / "user.toml"
    user.write_text("transcript = false\n")
    monkeypatch.setenv("LEANREAD_CONFIG", str(user))
    (root / "leanread.toml").write_text("transcript = true\n")  # a project may only turn it off
    assert load_settings(root).transcript is False
    assert load_settings(root, {"transcript": True}).transcript is True
    user.write_text('transcript = "no"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(root)
    assert str(caught.value) == f"transcript in {user} must be true or false (got 'no')."


def test_version_2_file_is_upgraded_in_place(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as ledger:
        ledger.record("s", ViewRecord("r1", "/ws/a.py", "h1", ((1, 3),), 10, 1))
    raw = sqlite3.connect(file)
    raw.execute("DROP TABLE calls")
    raw.execute("PRAGMA user_version = 2")
    raw.commit()
    raw.close()
    with SQLiteLedger(file) as upgraded:
        assert [r.call_id for r in upgraded.session_views("s")] == ["r1"]
        assert upgraded.record_call("s", call("r1")).number == 1
    raw = sqlite3.connect(file)
    assert raw.execute("PRAGMA user_version").fetchone() == (7,)
    raw.close()


def test_damaged_call_body_is_one_sentence(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as ledger:
        ledger.record_call("s", call("r1"))
        raw = sqlite3.connect(file)
        raw.execute("UPDATE calls SET body = x'00ff'")
        raw.commit()
        raw.close()
        with pytest.raises(LeanreadError) as caught:
            ledger.calls("s")
        assert str(caught.value) == (
            f"The ledger file {file} holds a tool call's text damaged; "
            "delete the file (a new ledger is started) or pass another ledger path."
        )
        assert [c.call_id for c in ledger.calls("s", bodies=False)] == ["r1"]


def test_a_stub_records_its_tokens_and_the_full_reads(root: Path) -> None:
    (root / "a.py").write_text("".join(f"line {i}\n" for i in range(1, 61)))
    session = Session([root], ledger=MemoryLedger(), id="s")
    session.read("a.py")
    session.read("a.py")
    stub = session.ledger.calls("s")[1]
    assert stub.text == (
        "<path>a.py</path>\n<type>file</type>\n<content>\n(Lines 1-60 unchanged since you read them, still in your "
        "context. Use fresh=true to see them again.)\n\n(End of file - total 60 lines)\n</content>"
    )
    assert (stub.tokens, stub.full_tokens) == (55, 270)


def test_session_paths_and_views_of_some_calls(store: LedgerStore) -> None:
    store.record("s", ViewRecord("r1", "/ws/b.py", "h1", ((1, 3),), 10, 1))
    store.record("s", ViewRecord("r1", "", "", (), 0, 0, kind="call", visible=False))
    a = store.record("s", ViewRecord("r2", "/ws/a.py", "h2", ((2, 2),), 10, 1))
    store.record("s", ViewRecord("r3", "/ws/b.py", "h1", ((4, 4),), 10, 1))
    assert store.session_paths("s") == ["/ws/b.py", "/ws/a.py"]
    assert store.session_views("s", {"r2"}) == [a]
    assert [r.seq for r in store.session_views("s", {"r1", "r3"})] == [1, 2, 4]


def test_sessions_leave_calls_of_unknown_plain_cost_out_of_the_share(store: LedgerStore) -> None:
    store.record_call("mixed", call("r1", started=10.0, tokens=3, full=10))
    store.record_call("mixed", call("r2", started=20.0, tokens=40, full=None))
    store.record_call("mixed", call("r3", started=30.0, tokens=2, full=10))
    store.record_call("unknown", call("r1", started=40.0, tokens=7, full=None))
    assert store.sessions() == [
        SessionSummary("unknown", 1, 7, 0, 40.0, 40.0, 1, 7),
        SessionSummary("mixed", 3, 45, 20, 10.0, 30.0, 1, 40),
    ]
    unknown, mixed = store.sessions()
    assert (unknown.saved, mixed.saved, mixed.known_tokens) == (None, 1 - 5 / 20, 5)
    assert [c.full_tokens for c in store.calls("mixed", bodies=False)] == [10, None, 10]
    assert [c.full_tokens for c in store.calls("mixed")] == [10, None, 10]


def test_version_5_calls_without_a_plain_cost_become_unknown(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    focus = {"question": "q?", "kept_matches": 1, "total_matches": 9, "tokens_before": 300}
    with SQLiteLedger(file) as ledger:  # as a version 5 leanread recorded them: full_tokens = tokens
        for call_id, tool, metadata in [
            ("r1", "read", {"type": "outline", "tokens": 5}),  # an outline said no full_tokens
            ("r2", "read", {"type": "file", "tokens": 5, "full_tokens": 5}),  # a first full read
            ("r3", "grep", {"type": "grep", "tokens": 5, "focus": focus}),  # focused: its tokens_before
            ("r4", "grep", {"type": "grep", "tokens": 5}),
            ("r5", "edit", {"type": "edit", "tokens": 5}),
            ("r6", "read", {"type": "image", "tokens": 5}),
            ("r7", "read", {"type": "outline", "tokens": 5}),  # its body damaged below: not known
        ]:
            shown = '{"full_tokens": 5}' if call_id == "r6" else "t"  # a read of JSON naming the key: no matter
            ledger.record_call("s", CallRecord(call_id, tool, {}, shown, False, metadata, (), 5, 5, 100.0))
        ledger.record_call("s", CallRecord("r8", "read", {}, "t", True, {}, (), 5, 5, 100.0))
    raw = sqlite3.connect(file)
    raw.execute("UPDATE calls SET body = x'00ff' WHERE number = 7")
    raw.execute("PRAGMA user_version = 5")
    raw.commit()
    raw.close()
    with SQLiteLedger(file) as upgraded:
        light = upgraded.calls("s", bodies=False)
        assert [c.full_tokens for c in light] == [None, 5, 300, 5, 5, None, None, 5]
        assert upgraded.sessions()[0] == SessionSummary("s", 8, 40, 320, 100.0, 100.0, 3, 15)
        upgraded.record_call("s", call("r9", tokens=2, full=None))
        assert upgraded.calls("s", 9)[0].full_tokens is None
    raw = sqlite3.connect(file)
    assert raw.execute("PRAGMA user_version").fetchone() == (7,)
    assert raw.execute("SELECT full_tokens FROM calls WHERE number = 9").fetchone() == (-1,)
    raw.close()


def context_call(started: float, tokens: int, caller: str = HARNESS) -> CallRecord:
    text = "forget: 1 tool result is now out of the context window (r1)."
    return CallRecord("", "context", {"action": "forget"}, text, tokens=tokens, full_tokens=tokens,
                      started=started, caller=caller)  # fmt: skip


def test_sessions_count_the_harness_commands_apart(store: LedgerStore) -> None:
    store.record_call("s", call("r1", started=10.0, tokens=3, full=10))
    store.record_call("s", context_call(20.0, 12))
    store.record_call("s", call("r2", started=30.0, tokens=4, full=None))
    store.record_call("s", context_call(35.0, 5, MODEL))  # the model's own, its tool offered
    store.record_call("s", context_call(38.0, 13))
    store.record_call("harness only", context_call(40.0, 12))
    assert store.sessions() == [
        SessionSummary("harness only", 0, 0, 0, 40.0, 40.0, 0, 0, 1, 12),
        SessionSummary("s", 3, 12, 15, 10.0, 38.0, 1, 4, 2, 25),
    ]
    callers = ["model", "harness", "model", "model", "harness"]
    assert [c.caller for c in store.calls("s", bodies=False)] == callers
    assert [c.caller for c in store.calls("s")] == callers
    found = store.find_call("harness only", "")
    assert found is not None and (found.caller, found.text) == ("harness", context_call(0, 0).text)


def test_version_6_calls_count_as_the_models_as_they_did(tmp_path: Path) -> None:
    file = tmp_path / "l.sqlite3"
    with SQLiteLedger(file) as ledger:  # a version 6 file: calls without a caller
        ledger.record_call("s", call("r1", started=10.0, tokens=3, full=10))
        ledger.record_call("s", context_call(20.0, 12))
    raw = sqlite3.connect(file)
    raw.execute("ALTER TABLE calls DROP COLUMN caller")
    raw.execute("PRAGMA user_version = 6")
    raw.commit()
    raw.close()
    with SQLiteLedger(file) as upgraded:
        assert [c.caller for c in upgraded.calls("s")] == ["model", "model"]
        assert upgraded.sessions() == [SessionSummary("s", 2, 15, 22, 10.0, 20.0)]
        upgraded.record_call("s", context_call(30.0, 7))
        assert upgraded.sessions() == [SessionSummary("s", 2, 15, 22, 10.0, 30.0, 0, 0, 1, 7)]
    raw = sqlite3.connect(file)
    assert raw.execute("PRAGMA user_version").fetchone() == (7,)
    assert raw.execute("SELECT number, caller FROM calls").fetchall() == [(1, "model"), (2, "model"), (3, "harness")]
    raw.close()


def test_redis_calls_recorded_before_callers_count_as_the_models(redis_server: RedisServer, redis_prefix: str) -> None:
    ledger = RedisLedger(redis_server.url, prefix=redis_prefix)
    ledger.record_call("s", call("r1", started=10.0, tokens=3, full=10))
    ledger.record_call("s", context_call(20.0, 12))
    raw = redis.Redis.from_url(redis_server.url)
    tx = f"{redis_prefix}:{{s}}:tx".encode()
    for index, head in enumerate(raw.lrange(tx, 0, -1)):  # as written before: no caller in the head
        raw.lset(tx, index, json.dumps(json.loads(head)[:7]))
    raw.close()
    assert [c.caller for c in ledger.calls("s", bodies=False)] == ["model", "model"]
    assert [c.text for c in ledger.calls("s")] == ["text of r1", context_call(0, 0).text]
    ledger.close()
