"""Which calls the server runs where they arrive (on the event loop) and which in a worker thread:
only a plain read of a small regular file is quick (``tools.read.quick``)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from conftest import text_of
from mcp import Client

from leanread import Session
from leanread.ledger.store import MemoryLedger
from leanread.mcp.server import build_server
from leanread.tools.read.quick import QUICK_BYTES, quick_read


@pytest.fixture
def files(root: Path) -> Path:
    (root / "small.py").write_text("x = 1\n")
    (root / "edge.txt").write_bytes(b"a" * (QUICK_BYTES - 1) + b"\n")
    (root / "big.txt").write_bytes(b"b" * QUICK_BYTES + b"\n")
    (root / "sub").mkdir()
    (root / "link.py").symlink_to("small.py")
    os.mkfifo(root / "pipe")
    return root


@pytest.mark.parametrize(
    ("arguments", "quick"),
    [
        ({"path": "small.py"}, True),
        ({"path": "small.py", "offset": "2", "mode": "full", "fresh": True}, True),
        ({"path": "edge.txt"}, True),  # QUICK_BYTES exactly
        ({"path": "link.py"}, True),  # what it points to counts
        ({"path": "big.txt"}, False),
        ({"path": "sub"}, False),  # a folder is listed by ripgrep
        ({"path": "pipe"}, False),  # only stat-ed: never opened, so nothing waits on it
        ({"path": "missing.py"}, False),
        ({"path": "small.py", "focus": "what is x"}, False),  # a question for the pruning backend
        ({"path": "small.py", "symbol": "x"}, False),  # the symbol index
        ({"match_id": "m1"}, False),
        ({"path": "small.py", "focus": ""}, True),
        ({}, False),  # goes on with the last file: the call decides
        ({"path": ""}, False),
        ({"path": "small\x00.py"}, False),
        ({"path": 7}, False),
        ({"path": ["small.py"]}, False),
    ],
)
def test_only_a_plain_read_of_a_small_regular_file_is_quick(files: Path, arguments: dict[str, object], quick: bool) -> None:
    assert quick_read(str(files), arguments) is quick


def test_an_absolute_path_is_taken_as_it_is(files: Path, tmp_path: Path) -> None:
    assert quick_read("/nowhere", {"path": str(files / "small.py")}) is True
    assert quick_read(str(files), {"path": str(tmp_path / "absent.py")}) is False


class _Where(MemoryLedger):
    """A memory ledger that notes the thread each call id was taken in."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def new_call_id(self, session_id: str) -> str:
        self.threads.append("loop" if threading.current_thread() is threading.main_thread() else "worker")
        return super().new_call_id(session_id)


@pytest.mark.anyio
async def test_the_server_runs_quick_reads_on_its_loop_and_the_rest_in_a_worker(files: Path) -> None:
    ledger = _Where()
    calls = [
        ("read", {"path": "small.py"}),
        ("read", {"path": "big.txt"}),
        ("read", {"path": "sub"}),
        ("grep", {"pattern": "x"}),
        ("read", {"path": "small.py", "fresh": True}),
    ]
    async with Client(build_server([files], ledger=ledger)) as client:
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
    assert ledger.threads == ["loop", "worker", "worker", "worker", "loop"]
    alone = Session([files], ledger=MemoryLedger())  # the same answers as a session gives
    assert [text_of(r) for r in results] == [alone.call(name, arguments).text for name, arguments in calls]
