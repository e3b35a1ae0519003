"""Idle expiry of the Redis ledger: a session that goes on keeps what it needs, and a session id
begun again after its keys expired starts clean, on every server alike.

Expiry is real (``idle_seconds=1`` and a sleep past it): the writes of a short-lived store leave
their keys to expire while a second store, with a long expiry, keeps the session's other keys
alive, as a session does whose other files are still being read.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from leanread import Session
from leanread.ledger.redis_store import RedisLedger
from leanread.ledger.store import ViewRecord


def rec(call_id: str, path: str) -> ViewRecord:
    return ViewRecord(
        call_id=call_id, path=path, content_hash="h1", ranges=((1, 10),), size=100, mtime_ns=1, kind="read",
        instructions=(), visible=True,
    )  # fmt: skip


def seen(store: RedisLedger, path: str) -> list[tuple[str, int, bool]]:
    return [(r.call_id, r.seq, r.visible) for r in store.views_of("s", path)]


@pytest.fixture
def stores(redis_server: Any, redis_prefix: str) -> tuple[RedisLedger, RedisLedger]:
    """(brief, lasting): two stores on one Redis, keys expiring after 1 s and after the default."""
    return (
        RedisLedger(redis_server.url, prefix=redis_prefix, idle_seconds=1),
        RedisLedger(redis_server.url, prefix=redis_prefix),
    )


def test_forget_finds_a_result_whose_own_keys_expired_while_the_session_went_on(
    stores: tuple[RedisLedger, RedisLedger],
) -> None:
    brief, lasting = stores
    brief.record("s", rec("r1", "/ws/a.py"))
    lasting.record("s", rec("r2", "/ws/b.py"))  # the session goes on with another file
    time.sleep(1.2)
    assert lasting.forget("s", ["r1"]) == 1
    assert [(r.call_id, r.visible) for r in lasting.session_views("s")] == [("r1", False), ("r2", True)]


def test_a_file_whose_index_expired_is_unknown_to_a_server_that_held_it_as_to_a_new_one(
    stores: tuple[RedisLedger, RedisLedger], redis_server: Any, redis_prefix: str
) -> None:
    brief, lasting = stores
    brief.record("s", rec("r1", "/ws/a.py"))
    assert seen(lasting, "/ws/a.py") == [("r1", 1, True)]  # now held by this server
    lasting.record("s", rec("r2", "/ws/b.py"))
    time.sleep(1.2)
    newcomer = RedisLedger(redis_server.url, prefix=redis_prefix)
    assert seen(lasting, "/ws/a.py") == seen(newcomer, "/ws/a.py") == []
    lasting.record("s", rec("r3", "/ws/a.py"))
    assert seen(lasting, "/ws/a.py") == seen(newcomer, "/ws/a.py") == [("r3", 3, True)]


def test_a_session_begun_again_after_expiry_is_not_born_hidden(
    stores: tuple[RedisLedger, RedisLedger], redis_server: Any, redis_prefix: str
) -> None:
    brief, lasting = stores
    brief.record("s", rec("r1", "/ws/a.py"))
    assert lasting.forget("s", ["r1"]) == 1  # the hide renews its own keys past the records'
    time.sleep(1.2)
    assert seen(lasting, "/ws/a.py") == []
    lasting.record("s", rec("r1", "/ws/a.py"))
    newcomer = RedisLedger(redis_server.url, prefix=redis_prefix)
    assert seen(lasting, "/ws/a.py") == seen(newcomer, "/ws/a.py") == [("r1", 1, True)]


def test_an_edit_after_a_read_in_a_session_id_used_again_after_expiry_is_granted(
    tmp_path: Path, redis_server: Any, redis_prefix: str
) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 31)))
    first = Session([tmp_path], id="s", ledger=RedisLedger(redis_server.url, prefix=redis_prefix, idle_seconds=1))
    first.read("a.txt", offset=1, limit=5)
    lasting = RedisLedger(redis_server.url, prefix=redis_prefix)
    assert lasting.forget("s", ["r1"]) == 1
    time.sleep(1.2)
    again = Session([tmp_path], id="s", ledger=lasting)
    read = again.read("a.txt", offset=1, limit=5)
    assert read.text == (
        "<path>a.txt</path>\n<type>file</type>\n<content>\nline 1\nline 2\nline 3\nline 4\nline 5\n\n"
        "(Showing lines 1-5 of 30. Use offset=6 to continue.)\n</content>"
    )
    edited = again.edit("a.txt", "line 2\n", "line two\n")
    assert (edited.is_error, edited.text) == (False, "Edited line 2.")
