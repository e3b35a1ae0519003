"""A fleet: two ``leanread serve`` processes sharing one real Redis ledger.

A session's calls may land on either server; each must see what the other recorded: a read
through A makes the same read through B a stub, an edit grant earned on A is honoured on B, and
a compaction told to A is seen by B.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import text_of
from mcp import Client, StdioServerParameters

from leanread.ledger.open import open_ledger
from leanread.ledger.redis_store import RedisLedger

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def _fleet(repo: Path, url: str, session: str, count: int = 2) -> AsyncIterator[list[Client]]:
    args = ["-m", "leanread", "serve", "--root", str(repo), "--ledger", url, "--session", session]
    args.append("--expose-context-tool")  # the harness tells one server of a compaction
    env = {**os.environ}
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(Client(StdioServerParameters(command=sys.executable, args=args, env=env)))
            for _ in range(count)
        ]
        yield clients


async def test_a_read_on_one_server_is_known_to_the_other(repo: Path, redis_server: Any, redis_prefix: str) -> None:
    async with _fleet(repo, redis_server.url, redis_prefix) as (a, b):
        first = await a.call_tool("read", {"path": "app.py"})
        again = await b.call_tool("read", {"path": "app.py"})
    assert (first.meta or {})["leanread"]["mode"] == "full"
    meta = (again.meta or {})["leanread"]
    assert meta["mode"] == "stub" and meta["call_id"] == "r2" and meta["unchanged_since"] == ["r1"]
    assert text_of(again).startswith("<path>app.py</path>")


async def test_an_edit_grant_from_one_server_holds_on_the_other(
    repo: Path, redis_server: Any, redis_prefix: str
) -> None:
    async with _fleet(repo, redis_server.url, redis_prefix) as (a, b):
        await a.call_tool("read", {"path": "app.py", "offset": 3, "limit": 2})
        edited = await b.call_tool("edit", {"path": "app.py", "old_string": "return 3", "new_string": "return 33"})
        refused = await b.call_tool("edit", {"path": "app.py", "old_string": "return 9\n", "new_string": "return 99\n"})
    assert edited.is_error is False, text_of(edited)
    assert refused.is_error is True
    assert (repo / "app.py").read_text().splitlines()[2] == "def function_3(argument_one, argument_two): return 33"


async def test_a_compaction_told_to_one_server_is_seen_by_the_other(
    repo: Path, redis_server: Any, redis_prefix: str
) -> None:
    async with _fleet(repo, redis_server.url, redis_prefix) as (a, b):
        await a.call_tool("read", {"path": "app.py"})
        told = await a.call_tool("context", {"action": "compact", "call_id": "r1"})
        after = await b.call_tool("read", {"path": "app.py"})
    assert text_of(told) == "compact: 1 tool result is now out of the context window (r1)."
    assert (after.meta or {})["leanread"]["mode"] == "full"


def test_open_ledger_names_a_redis_that_does_not_answer() -> None:
    from leanread.errors import LeanreadError

    with pytest.raises(LeanreadError) as caught:
        open_ledger("redis://127.0.0.1:1/0")
    assert str(caught.value).startswith("The Redis ledger at redis://127.0.0.1:1/0 did not answer (ConnectionError: ")
    assert str(caught.value).endswith("check that the server is running, then retry the call.")


def test_a_stopped_redis_gives_clear_errors_then_recovers(redis_server: Any, redis_prefix: str) -> None:
    from leanread.errors import LeanreadError
    from leanread.ledger.store import ViewRecord

    store = RedisLedger(redis_server.url, prefix=redis_prefix)
    store.record("s", ViewRecord("r1", "/ws/a.py", "h", ((1, 3),), 10, 1))
    redis_server.stop()
    try:
        with pytest.raises(LeanreadError) as caught:
            store.views_of("s", "/ws/a.py")
        assert "did not answer" in str(caught.value)
    finally:
        redis_server.start()
    # persistence is off in the test server, so a restart starts empty; the store reconnects by itself
    assert store.views_of("s", "/ws/a.py") == []
    kept = store.record("s", ViewRecord("r2", "/ws/a.py", "h", ((1, 3),), 10, 1))
    assert [r.call_id for r in store.views_of("s", "/ws/a.py")] == ["r2"] and kept.seq == 1


def test_every_tool_answers_with_the_store_sentence_while_redis_is_away(
    repo: Path, redis_server: Any, redis_prefix: str
) -> None:
    from leanread import Session

    session = Session([repo], ledger=RedisLedger(redis_server.url, prefix=redis_prefix), id="away")
    assert session.read("app.py", limit=2).is_error is False
    redis_server.stop()
    try:
        answers = [session.read("app.py", offset=5, limit=2), session.grep("function_1"), session.ls(".")]
        answers.append(session.context("compact", call_id="r1"))
    finally:
        redis_server.start()
    for answer in answers:
        assert answer.is_error is True
        assert answer.text.startswith(f"The Redis ledger at {redis_server.url} did not answer (ConnectionError: ")
        assert answer.text.endswith("check that the server is running, then retry the call.")
    assert session.read("app.py", limit=2).is_error is False  # back (this Redis keeps nothing on disk)
