"""Whatever a call carries, the stdio server answers it and keeps serving: names that are not
UTF-8 round-trip through the SDK client, and arguments holding a lone surrogate (valid JSON, not
text) get one sentence instead of silence."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import text_of
from mcp import Client, StdioServerParameters
from mcp.server.mcpserver.exceptions import ToolError

from leanread.mcp.server import _to_mcp, build_server
from leanread.mcp.wire import INVALID_KEY, mend
from leanread.result import ToolResult

pytestmark = pytest.mark.anyio


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "ok.txt").write_text("NEEDLE_LATIN1\n")
    (tmp_path / os.fsdecode(b"caf\xe9.txt")).write_text("NEEDLE_LATIN1\n")
    return tmp_path


def _serve(repo: Path) -> list[str]:
    return [sys.executable, "-m", "leanread", "serve", "--root", str(repo)]


async def test_a_name_that_is_not_utf8_round_trips_over_stdio(repo: Path) -> None:
    command, *args = _serve(repo)
    # the whole environment: the SDK's default passes no PYTHONPATH, so the server would not be this checkout's
    async with Client(StdioServerParameters(command=command, args=args, env=dict(os.environ))) as client:
        listed = await client.call_tool("ls", {})
        name = text_of(listed).splitlines()[1]
        read = await client.call_tool("read", {"path": name})
        missing = await client.call_tool("read", {"path": "cafe.txt"})
        found = await client.call_tool("grep", {"pattern": "NEEDLE_LATIN1"})
        by_id = await client.call_tool("read", {"match_id": "m1", "fresh": True})
        later = await client.call_tool("ls", {"depth": 1})
    assert name == "caf\\xe9.txt"
    assert text_of(read) == (
        "<path>caf\\xe9.txt</path>\n<type>file</type>\n<content>\nNEEDLE_LATIN1\n\n"
        "(End of file - total 1 line)\n</content>"
    )
    assert read.meta["leanread"]["path"] == "caf\\xe9.txt"
    assert text_of(missing) == "File not found: cafe.txt. Did you mean caf\\xe9.txt?"
    assert [m["path"] for m in found.meta["leanread"]["matches"]] == ["caf\\xe9.txt", "ok.txt"]
    assert text_of(found).splitlines()[0:2] == ["caf\\xe9.txt", "1\tNEEDLE_LATIN1"]
    assert text_of(by_id).startswith("<path>caf\\xe9.txt</path>\n")
    assert text_of(later) == text_of(listed)


class _RawServer:
    """The server as a subprocess spoken to in raw JSON-RPC lines (the SDK client cannot send a
    lone surrogate: it is not text)."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/")
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def answer(self) -> dict[str, Any]:
        decoded: dict[str, Any] = json.loads(self.lines.get(timeout=30))
        return decoded

    def call(self, number: int, arguments_json: str, tool: str = "read") -> dict[str, Any]:
        params = f'{{"name": "{tool}", "arguments": {arguments_json}}}'
        self.send(f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", "params": {params}}}')
        return self.answer()

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()  # end of input: the server exits
        self.process.wait(timeout=30)
        self.pump.join(timeout=30)
        self.process.stdout.close()


@pytest.fixture
def raw(repo: Path) -> Any:
    server = _RawServer(_serve(repo))
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    server.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}))
    assert server.answer()["id"] == 0
    server.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    yield server
    server.close()


def _said(answer: dict[str, Any]) -> tuple[bool, str]:
    result = answer["result"]
    return result["isError"], "".join(block["text"] for block in result["content"])


@pytest.mark.parametrize(
    ("tool", "arguments", "problem"),
    [
        (
            "read",
            r'{"path": "\ud800"}',
            "path holds a lone surrogate (\\ud800), which is not text; send the name as shown by ls or grep",
        ),
        (
            "grep",
            r'{"pattern": "a\udce9b"}',
            "pattern holds a lone surrogate (\\xe9), which is not text; send it as text",
        ),
        (
            "write",
            r'{"path": "x.txt", "content": "\udfff"}',
            "content holds a lone surrogate (\\udfff), which is not text; send it as text",
        ),
        (
            "read",
            r'{"path": "ok.txt", "focus": "why \ud83d?"}',
            "focus holds a lone surrogate (\\ud83d), which is not text; send it as text",
        ),
    ],
)
def test_a_lone_surrogate_gets_one_sentence_and_the_server_goes_on(
    raw: _RawServer, repo: Path, tool: str, arguments: str, problem: str
) -> None:
    answer = raw.call(1, arguments, tool)
    assert answer["id"] == 1
    assert _said(answer) == (True, f"Invalid arguments for {tool}: {problem}.")
    later = raw.call(2, '{"path": "ok.txt"}')
    assert _said(later)[0] is False and "NEEDLE_LATIN1" in _said(later)[1]
    assert sorted(p.name for p in repo.iterdir()) == sorted(["ok.txt", os.fsdecode(b"caf\xe9.txt")])


def test_a_surrogate_pair_is_text(raw: _RawServer, repo: Path) -> None:
    (repo / "\U0001f600.txt").write_text("smile\n")
    assert "smile" in _said(raw.call(1, r'{"path": "\ud83d\ude00.txt"}'))[1]


def test_mend_passes_other_failures_on() -> None:
    import mcp_types as types
    from pydantic import ValidationError

    for line in ['{"jsonrpc": "2.0", "id": 1, "method": 5}', '{"x": "\\ud800"', "not json \\u"]:
        with pytest.raises(ValidationError) as caught:
            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        assert mend(caught.value) is caught.value
    line = '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ls", "arguments": {"p\\udc80": 1}}}'
    with pytest.raises(ValidationError) as caught:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    mended = mend(caught.value)
    assert not isinstance(mended, Exception)
    assert mended.message.model_dump()["params"]["arguments"] == {INVALID_KEY: "p\\x80 holds a lone surrogate (\\x80)"}


async def test_nothing_a_tool_returns_or_raises_can_break_the_writer(repo: Path) -> None:
    server = build_server([repo])

    async def shout(fail: bool) -> str:
        if fail:
            raise ToolError("no caf\udce9 here")
        return "caf\udce9 \ud800"

    server.add_tool(shout, name="shout", description="A test tool whose text holds lone surrogates.")
    async with Client(server) as client:
        said = await client.call_tool("shout", {"fail": False})
        failed = await client.call_tool("shout", {"fail": True})
    assert (said.is_error, text_of(said)) == (False, "caf\\xe9 \\ud800")
    assert (failed.is_error, text_of(failed)) == (True, "Error executing tool shout: no caf\\xe9 here")
    for result in (said, failed):
        result.model_dump_json()


def test_a_result_goes_out_as_valid_utf8() -> None:
    out = _to_mcp(ToolResult("caf\udce9", metadata={"path": "caf\udce9", "matches": [{"path": "\udcff"}]}))
    assert json.loads(out.model_dump_json(by_alias=True))["_meta"]["leanread"] == {
        "path": "caf\\xe9",
        "matches": [{"path": "\\xff"}],
    }
    assert text_of(out) == "caf\\xe9"
