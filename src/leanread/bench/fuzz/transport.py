"""A stdio transport for the official ``mcp`` client that keeps hold of the server process.

The SDK's own ``stdio_client`` hides its process, so the fuzzer could not tell a crash from a
closed pipe; this one exposes it (``ServerProcess.alive``, ``stderr_tail``). It also sends what
the SDK cannot: a lone surrogate in an argument (pydantic refuses to encode one) is written as a
JSON ``\\uXXXX`` escape, exactly as a client in another language may send it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import Process
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

#: Private-use brackets around four hex digits: where ``mark_surrogates`` hid a lone surrogate.
_OPEN, _CLOSE = "\U000f0000", "\U000f0001"
_MARK = re.compile(f"{_OPEN}([0-9a-f]{{4}}){_CLOSE}")


def mark_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys included) replaced by a marker the
    transport turns back into a ``\\uXXXX`` escape on the wire."""
    if isinstance(value, str):
        if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            return value
        return "".join(f"{_OPEN}{ord(ch):04x}{_CLOSE}" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
    if isinstance(value, list):
        return [mark_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {mark_surrogates(k): mark_surrogates(v) for k, v in value.items()}
    return value


def sdk_rejects(tool: str, arguments: dict[str, Any]) -> str | None:
    """Why the SDK's JSON-RPC parser (the server's too) cannot read a ``tools/call`` of ``tool``
    with ``arguments`` as this transport sends it, or None when it can."""
    params = {"name": tool, "arguments": arguments}
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        errors = exc.errors() if isinstance(exc, ValidationError) else []
        return "the MCP SDK cannot parse it: " + (str(errors[0]["msg"]) if errors else str(exc)[:120])
    return None


def _wire(message: SessionMessage) -> bytes:
    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
    return (_MARK.sub(lambda m: "\\u" + m.group(1), text) + "\n").encode()


class ServerProcess:
    """The server process of one connection: its handle and a file with its stderr."""

    def __init__(self, process: Process, stderr: Path) -> None:
        self.process = process
        self.stderr = stderr

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def exited(self, within: float) -> bool:
        """True when the process ends within ``within`` seconds (it may be dying right now)."""
        with anyio.move_on_after(within):
            while self.alive:
                await anyio.sleep(0.01)
        return not self.alive

    def stderr_tail(self, lines: int = 3) -> str:
        """The last non-empty lines of the server's stderr, joined by `` | ``."""
        try:
            text = self.stderr.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return " | ".join([line.strip() for line in text.splitlines() if line.strip()][-lines:])

    def kill(self) -> None:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)


@asynccontextmanager
async def spawn(
    argv: list[str], env: dict[str, str], cwd: Path, stderr: Path
) -> AsyncIterator[tuple[ServerProcess, TransportStreams]]:
    """Start ``argv`` and bridge its stdin/stdout to a client's streams (newline-delimited JSON-RPC).

    On exit, stdin is closed, the process gets a second to end, then its process group is killed.

    Raises:
        OSError: the process could not be started.
    """
    with open(stderr, "ab") as errlog:
        process = await anyio.open_process(argv, env=env, cwd=cwd, stderr=errlog, start_new_session=True)
    server = ServerProcess(process, stderr)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](0)

    async def pump_out() -> None:
        assert process.stdout is not None
        buffer = b""
        async with to_client:
            with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in process.stdout:
                    *lines, buffer = (buffer + chunk).split(b"\n")
                    for line in lines:
                        await to_client.send(_parse(line))

    async def pump_in() -> None:
        assert process.stdin is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with from_client:
                async for message in from_client:
                    await process.stdin.send(_wire(message))
        await to_client.aclose()  # the server cannot take more: end the session's pending calls

    async with anyio.create_task_group() as group:
        group.start_soon(pump_out)
        group.start_soon(pump_in)
        try:
            yield server, (from_server, to_server)
        finally:
            with anyio.CancelScope(shield=True):
                with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    assert process.stdin is not None
                    await process.stdin.aclose()
                if not await server.exited(1.0):
                    server.kill()
                    await server.exited(2.0)
            group.cancel_scope.cancel()


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


def server_argv(root: Path, ledger: Path) -> list[str]:
    """The command that serves ``root`` over stdio with its ledger in ``ledger`` (a SQLite file)."""
    return [sys.executable, "-m", "leanread", "serve", "--root", str(root), "--ledger", str(ledger)]
