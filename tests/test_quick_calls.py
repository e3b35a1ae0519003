"""Which calls the server runs where they arrive (on its event loop) and which in a worker thread:
a plain read of a file whose last read was a fast text window (``mcp.quick``)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import text_of
from mcp import Client

from leanread import Session
from leanread.ledger.store import MemoryLedger
from leanread.mcp import quick
from leanread.mcp.quick import QUICK_S, QuickCalls
from leanread.mcp.server import build_server
from leanread.result import ToolResult
from leanread.tools.read.quick import quick_read


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"path": "a.py"}, "a.py"),
        ({"path": "a.py", "offset": "2", "mode": "full", "fresh": True}, "a.py"),
        ({"path": "a.py", "focus": ""}, "a.py"),
        ({"path": "a.py", "focus": "what is x"}, None),  # a question for the pruning backend
        ({"path": "a.py", "symbol": "x"}, None),  # the symbol index
        ({"match_id": "m1"}, None),
        ({}, None),  # goes on with the last file: the call decides which
        ({"path": ""}, None),
        ({"path": "a\x00.py"}, None),
        ({"path": 7}, None),
        ({"path": ["a.py"]}, None),
    ],
)
def test_a_plain_read_of_one_file_may_be_quick(arguments: dict[str, object], path: str | None) -> None:
    assert quick_read(arguments) == path


def _window(kind: str = "file", error: bool = False) -> ToolResult:
    return ToolResult(text="x", is_error=error, metadata={"type": kind})


def test_a_file_is_read_on_the_loop_only_after_a_fast_text_window_of_it() -> None:
    calls = QuickCalls()
    read = {"path": "a.py"}
    assert not calls.inline("read", "/ws", read)  # nothing learned yet
    calls.learn("read", "/ws", read, _window(), QUICK_S / 2)
    assert calls.inline("read", "/ws", {"path": "a.py", "fresh": True})
    assert not calls.inline("read", "/ws", {"path": "b.py"})
    assert not calls.inline("read", "/other", read)  # another root's a.py
    assert not calls.inline("read", "/ws", {"path": "a.py", "focus": "why"})
    assert not calls.inline("grep", "/ws", {"pattern": "x", "path": "a.py"})
    for after, seconds in [
        (_window(), QUICK_S),
        (_window("pdf"), 0.0),
        (_window("directory"), 0.0),
        (_window(error=True), 0.0),
    ]:
        calls.learn("read", "/ws", read, _window(), 0.0)
        assert calls.inline("read", "/ws", read)
        calls.learn("read", "/ws", read, after, seconds)  # slow, or no text window: back to a thread
        assert not calls.inline("read", "/ws", read), (after, seconds)


class _Where(MemoryLedger):
    """A memory ledger that notes the thread each call id was taken in."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def new_call_id(self, session_id: str) -> str:
        self.threads.append("loop" if threading.current_thread() is threading.main_thread() else "worker")
        return super().new_call_id(session_id)


@pytest.mark.anyio
async def test_the_server_runs_a_fast_files_next_reads_on_its_loop(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "QUICK_S", 60.0)  # every read here counts as fast: the rule, not the clock
    (root / "small.py").write_text("x = 1\n")
    (root / "sub").mkdir()
    (root / "sub" / "c.py").write_text("y = 2\n")
    ledger = _Where()
    calls = [
        ("read", {"path": "small.py"}),
        ("read", {"path": "small.py", "fresh": True}),
        ("read", {"path": "sub"}),
        ("read", {"path": "sub"}),  # a folder is no text window: never on the loop
        ("grep", {"pattern": "x"}),
        ("read", {"path": "small.py", "offset": 1, "limit": 1}),
    ]
    async with Client(build_server([root], ledger=ledger)) as client:
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
        (root / "small.py").unlink()
        gone = [await client.call_tool("read", {"path": "small.py"}) for _ in range(2)]
    assert ledger.threads == ["worker", "loop", "worker", "worker", "worker", "loop", "loop", "worker"]
    assert all(result.is_error for result in gone)
    alone = Session([root], ledger=MemoryLedger())  # the same answers as a session gives
    (root / "small.py").write_text("x = 1\n")
    assert [text_of(r) for r in results] == [alone.call(name, arguments).text for name, arguments in calls]


@pytest.mark.anyio
async def test_a_shared_server_runs_every_call_in_a_worker(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "QUICK_S", 60.0)
    (root / "small.py").write_text("x = 1\n")
    ledger = _Where()
    async with Client(build_server([root], ledger=ledger, shared=True, session_id="s")) as client:
        for _ in range(3):
            await client.call_tool("read", {"path": "small.py", "fresh": True})
    assert ledger.threads == ["worker"] * 3
