"""Without ``--root`` the server works in the client's roots (``roots/list``) and follows
``notifications/roots/list_changed``; with roots given, or a client without the capability, the
workspace stays as started. The official SDK client, handshake protocol (roots are part of it)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import text_of
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import ListRootsResult, Root

from leanread import MemoryLedger
from leanread.mcp.server import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """The server's start folder and two client projects, each with its own ``a.txt``."""
    start, one, two = (tmp_path / name for name in ("start", "one", "two"))
    for folder in (start, one, two):
        folder.mkdir()
        (folder / "a.txt").write_text(f"{folder.name}\n")
    monkeypatch.chdir(start)
    return start, one, two


def _file(body: str) -> str:
    return f"<path>a.txt</path>\n<type>file</type>\n<content>\n{body}\n\n(End of file - total 1 line)\n</content>"


class _Roots:
    """A client's roots, changeable, counting the server's ``roots/list`` requests."""

    def __init__(self, *folders: Path) -> None:
        self.folders = list(folders)
        self.asked = 0

    async def __call__(self, context: Any) -> ListRootsResult:
        self.asked += 1
        return ListRootsResult(roots=[Root(uri=folder.as_uri()) for folder in self.folders])


async def test_the_clients_roots_are_the_workspace_and_changes_are_followed(folders: tuple[Path, Path, Path]) -> None:
    _, one, two = folders
    roots = _Roots(one)
    server = build_server(ledger=MemoryLedger())
    async with Client(server, mode="legacy", list_roots_callback=roots) as client:
        first = await client.call_tool("read", {"path": "a.txt"})
        again = await client.call_tool("ls", {})
        roots.folders = [two, one]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.send_roots_list_changed()
        moved = await client.call_tool("read", {"path": "a.txt"})
        outside = await client.call_tool("read", {"path": str(folders[0] / "a.txt")})
        inside_one = await client.call_tool("read", {"path": str(one / "a.txt")})
    assert text_of(first) == _file("one")
    assert again.is_error is False and roots.asked == 2
    assert text_of(moved) == _file("two")
    assert outside.is_error is True
    assert inside_one.is_error is False
    assert text_of(inside_one).startswith(f"<path>{one / 'a.txt'}</path>\n<type>file</type>\n<content>\none\n")


async def test_roots_given_at_start_are_kept(folders: tuple[Path, Path, Path]) -> None:
    start, one, _ = folders
    roots = _Roots(one)
    async with Client(build_server([start], ledger=MemoryLedger()), mode="legacy", list_roots_callback=roots) as c:
        result = await c.call_tool("read", {"path": "a.txt"})
    assert (text_of(result), roots.asked) == (_file("start"), 0)


async def test_a_client_without_roots_or_with_none_keeps_the_start_folder(folders: tuple[Path, Path, Path]) -> None:
    empty = _Roots()
    async with Client(build_server(ledger=MemoryLedger()), mode="legacy") as client:
        plain = await client.call_tool("read", {"path": "a.txt"})
    async with Client(build_server(ledger=MemoryLedger()), mode="legacy", list_roots_callback=empty) as client:
        none = await client.call_tool("read", {"path": "a.txt"})
    assert text_of(plain) == text_of(none) == _file("start")
    assert empty.asked == 1
    assert os.getcwd() == str(folders[0])
