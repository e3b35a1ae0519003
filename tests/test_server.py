"""The MCP server through the SDK's own client: in process, and over stdio as a subprocess."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from conftest import text_of
from mcp import Client, StdioServerParameters

from leanread import Limits
from leanread.mcp.server import build_server
from leanread.tools import description

pytestmark = pytest.mark.anyio


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    (tmp_path / "src" / "defs.py").write_text("".join(f"{DEF.format(i)}\n" for i in range(1, 11)))
    return tmp_path


#: Line ``i`` of ``src/defs.py``: long enough that a stub is cheaper than the lines it stands for.
DEF = "def function_{0}(argument_one, argument_two): return {0}"


async def test_lists_read_with_description_and_schema(repo: Path) -> None:
    async with Client(build_server([repo])) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    read = tools["read"]
    assert read.description == description("read", Limits())
    schema = read.input_schema
    assert "required" not in schema  # path may be omitted to go on with the last file
    assert list(schema["properties"]) == ["path", "symbol", "offset", "limit", "focus"]
    assert "additionalProperties" not in schema  # it takes fresh, mode, char_offset, match_id … unlisted
    assert all(prop["type"] for prop in schema["properties"].values())  # no null unions (see test_schemas.py)
    assert "default" not in schema["properties"]["path"]
    assert read.annotations is not None and read.annotations.read_only_hint is True


async def test_read_window_then_stub_then_fresh(repo: Path) -> None:
    args = {"path": "src/defs.py", "offset": 3, "limit": 8}  # 8 lines: a stub pays (issue 26)
    async with Client(build_server([repo])) as client:
        first = await client.call_tool("read", args)
        again = await client.call_tool("read", args)
        fresh = await client.call_tool("read", {**args, "fresh": True})
    lines = "".join(f"{DEF.format(i)}\n" for i in range(3, 11))
    assert text_of(first) == (
        f"<path>src/defs.py</path>\n<type>file</type>\n<content>\n{lines}\n(End of file - total 10 lines)\n</content>"
    )
    assert first.is_error is False
    meta = first.meta["leanread"]
    assert (meta["offset"], meta["last_line"], meta["total_lines"], meta["next_offset"]) == (3, 10, 10, None)
    assert meta["call_id"] == "r1" and meta["tokens"] > 0
    assert text_of(again) == (
        "<path>src/defs.py</path>\n<type>file</type>\n<content>\n"
        "(Lines 3-10 unchanged since you read them, still in your context. "
        "Use fresh=true to see them again.)\n\n"
        "(End of file - total 10 lines)\n</content>"
    )
    assert again.meta["leanread"]["unchanged_since"] == ["r1"]
    assert text_of(fresh) == text_of(first)


async def test_errors_are_results_not_tracebacks(repo: Path) -> None:
    async with Client(build_server([repo])) as client:
        missing = await client.call_tool("read", {"path": "src/nope.py"})
        outside = await client.call_tool("read", {"path": "../escape.txt"})
    assert missing.is_error is True
    assert text_of(missing) == (
        "File not found: src/nope.py. Check the spelling, or list its folder to see what exists."
    )
    assert outside.is_error is True
    assert text_of(outside).startswith("../escape.txt resolves outside the workspace (")


async def test_handshake_clients_get_separate_ledgers(repo: Path) -> None:
    server = build_server([repo])
    args = {"path": "src/defs.py", "limit": 8}
    async with Client(server, mode="legacy") as one, Client(server, mode="legacy") as two:
        await one.call_tool("read", args)
        first_for_two = await two.call_tool("read", args)
        second_for_one = await one.call_tool("read", args)
    assert f"{DEF.format(1)}\n{DEF.format(2)}" in text_of(first_for_two)
    assert first_for_two.meta["leanread"]["unchanged_since"] is None
    assert second_for_one.meta["leanread"]["unchanged_since"] == ["r1"]


async def test_stdio_subprocess_serves_reads(repo: Path) -> None:
    # the whole environment: the SDK passes no PYTHONPATH by default, so the server would not be this checkout's
    args = ["-m", "leanread", "serve", "--root", str(repo)]
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
    async with Client(params) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("read", {"path": "src/defs.py", "offset": 5})
        full = await client.call_tool("read", {"path": "src/defs.py"})
        stub = await client.call_tool("read", {"path": "src/defs.py", "offset": 2, "limit": 8})
        bad = await client.call_tool("read", {"path": "src/defs.py", "offset": "two"})
    assert tools == ["read", "grep", "ls", "edit", "write"]  # context is for harnesses: --expose-context-tool
    assert text_of(result) == (
        "<path>src/defs.py</path>\n<type>file</type>\n<content>\n"
        + "".join(f"{DEF.format(i)}\n" for i in range(5, 11))
        + "\n(End of file - total 10 lines)\n</content>"
    )
    lines = "".join(f"{DEF.format(i)}\n" for i in range(1, 5))
    assert text_of(full) == (
        f"<path>src/defs.py</path>\n<type>file</type>\n<content>\n{lines}"
        "… lines 5-10 unchanged since you read them …\n\n(End of file - total 10 lines)\n</content>"
    )
    assert full.meta["leanread"]["unchanged_since"] == ["r1"]  # lines 1-4 were not shown yet
    assert text_of(stub) == (
        "<path>src/defs.py</path>\n<type>file</type>\n<content>\n"
        "(Lines 2-9 unchanged since you read them, still in your context. "
        "Use fresh=true to see them again.)\n\n"
        "(Showing lines 2-9 of 10. Use offset=10 to continue.)\n</content>"
    )
    assert stub.meta["leanread"]["unchanged_since"] == ["r1", "r2"]
    assert bad.is_error is True
    assert text_of(bad) == (
        "Invalid arguments for read: offset must be a whole number (got 'two'); see the tool's input schema."
    )


async def test_serve_leaves_out_an_empty_root(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "in.txt").write_text("in\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    args = ["-m", "leanread", "serve", "--ledger", "memory", "--root", "", "--root", str(proj)]
    # this environment (PYTHONPATH too): the SDK would otherwise start the server with a bare one
    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(tmp_path), env=dict(os.environ))
    async with Client(params) as client:
        relative = await client.call_tool("read", {"path": "outside.txt"})
        absolute = await client.call_tool("read", {"path": str(tmp_path / "outside.txt")})
        inside = await client.call_tool("read", {"path": "in.txt"})
    assert (relative.is_error, text_of(relative)) == (
        True,
        "File not found: outside.txt. Check the spelling, or list its folder to see what exists.",
    )
    assert absolute.is_error is True
    assert text_of(absolute) == (
        f"{tmp_path / 'outside.txt'} resolves outside the workspace ({proj}); use a path inside it."
    )
    assert (
        text_of(inside)
        == "<path>in.txt</path>\n<type>file</type>\n<content>\nin\n\n(End of file - total 1 line)\n</content>"
    )


async def test_continue_directory_char_offset_and_deny_over_mcp(repo: Path) -> None:
    (repo / "min.js").write_text("b" * 2100 + "\n")
    (repo / ".env").write_text("KEY=value\n")
    async with Client(build_server([repo])) as client:
        first = await client.call_tool("read", {"path": "min.js"})
        rest = await client.call_tool("read", {"offset": 1, "char_offset": 2001})
        listing = await client.call_tool("read", {"path": "."})
        secret = await client.call_tool("read", {"path": ".env"})
    assert "read the rest with offset=1, char_offset=2001." in text_of(first)
    assert text_of(rest) == (
        "<path>min.js</path>\n<type>file</type>\n<content>\n" + "b" * 100 + "\n\n"
        "(End of line 1, characters 2001-2100 of 2100. End of file - total 1 line)\n</content>"
    )
    assert text_of(listing) == (
        "<path>.</path>\n<type>directory</type>\n<content>\n.env\nmin.js\nsrc/\n\n"
        "(End of directory - total 3 entries; ls shows the tree below it)\n</content>"
    )
    assert secret.is_error is True
    assert text_of(secret).startswith(".env is on leanread's deny list")


async def test_context_tool_only_when_asked_for(repo: Path) -> None:
    async with Client(build_server([repo])) as client:
        hidden = [tool.name for tool in (await client.list_tools()).tools]
        refused = await client.call_tool("context", {"action": "forget", "call_ids": ["r1"]})
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        shown = [tool.name for tool in (await client.list_tools()).tools]
    assert hidden == ["read", "grep", "ls", "edit", "write"]
    assert text_of(refused) == "Unknown tool 'context'; the tools are read, grep, ls, edit, write."
    assert shown == ["read", "grep", "ls", "edit", "write", "context"]
