"""Start ``leanread serve --http`` processes on loopback and connect MCP clients to them (the load
benchmark and the fleet tests use these)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from ..errors import LeanreadError
from .redis_local import free_port


@dataclass
class HttpServer:
    """One ``leanread serve --http`` process: its URL and process."""

    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def kill(self) -> None:
        """kill -9 (SIGKILL) and reap it."""
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Terminate it (SIGTERM), then kill it if it lingers."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def start_http_server(root: Path, ledger: str, extra: Sequence[str] = (), token: str | None = None) -> HttpServer:
    """Start a server over ``root`` with ``--ledger ledger`` on a free loopback port; returns once
    ``GET /healthz`` answers.

    Raises:
        LeanreadError: it did not answer within 30 s.
    """
    port = free_port()
    args = [sys.executable, "-m", "leanread", "serve", "--root", str(root), "--ledger", ledger]
    # the harness (the load script, a test) tells the server what left the context: it needs the tool
    args += ["--http", f"127.0.0.1:{port}", "--expose-context-tool", *extra]
    env = {**os.environ, **({"LEANREAD_TOKEN": token} if token else {})}
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = HttpServer(port, process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LeanreadError(f"leanread serve --http exited with status {process.returncode}.")
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return server
        except httpx2.HTTPError:
            time.sleep(0.1)
    server.stop()
    raise LeanreadError(f"leanread serve --http did not answer on port {port} within 30 s.")


@asynccontextmanager
async def http_client(url: str, session: str | None, token: str | None = None) -> AsyncIterator[Any]:
    """An MCP ``Client`` for ``url`` whose requests name ledger session ``session`` (the
    ``Leanread-Session`` header) and carry ``token``; its HTTP connections close on exit."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Leanread-Session": session} if session else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client
