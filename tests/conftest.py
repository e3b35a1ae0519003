"""Shared fixtures: a workspace folder in tmp_path and a session bound to it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis_server import redis_prefix, redis_server  # noqa: F401  (fixtures)

from leanread import MemoryLedger, Session
from leanread.ledger.redis_store import RedisLedger
from leanread.ledger.sqlite_store import SQLiteLedger
from leanread.ledger.store import LedgerStore


@pytest.fixture(autouse=True)
def _private_state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the default SQLite ledger of every test out of the user's state folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The workspace root: a fresh folder of real files."""
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def session(root: Path) -> Session:
    """A session with default limits and an in-memory ledger, rooted at ``root``."""
    return Session([root], ledger=MemoryLedger())


@pytest.fixture(autouse=True)
def _private_config_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the user's own leanread config file out of every test (an empty config folder)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("LEANREAD_CONFIG", raising=False)


@pytest.fixture(params=["memory", "sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LedgerStore]:
    """Each ledger store in turn, empty: in memory, a SQLite file, and a real Redis server."""
    if request.param == "memory":
        yield MemoryLedger()
        return
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        shared = RedisLedger(server.url, prefix=request.getfixturevalue("redis_prefix"))
        yield shared
        shared.close()
        return
    ledger = SQLiteLedger(tmp_path / "l.sqlite3")
    yield ledger
    ledger.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A workspace of one file, ``app.py``: 20 one-line functions, long enough that a stub of
    them is cheaper than the lines (the fleet and HTTP tests; a test file's own ``repo`` wins)."""
    lines = [f"def function_{i}(argument_one, argument_two): return {i}\n" for i in range(1, 21)]
    (tmp_path / "app.py").write_text("".join(lines))
    return tmp_path


@pytest.fixture
def anyio_backend() -> str:
    """The event loop of every ``@pytest.mark.anyio`` test: asyncio (the MCP SDK's own)."""
    return "asyncio"


def text_of(result: Any) -> str:
    """The text of an MCP ``CallToolResult``: its text blocks joined."""
    return "".join(block.text for block in result.content)
