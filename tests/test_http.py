"""``leanread serve --http``: streamable HTTP, the bearer token, ``/healthz``, the ledger session
named per request, and a fleet of two HTTP servers on one real Redis (one of them killed)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from conftest import text_of

from leanread.bench.http_serve import HttpServer, http_client, start_http_server
from leanread.errors import InvalidArgument
from leanread.mcp.http import is_loopback, parse_bind, session_name, token_matches

pytestmark = pytest.mark.anyio
TOKEN = "Zx3k9-Q_vT7mP2wLr8sN4yB6cH1dF5gJ0aE"  # 35 characters, all different
UNNAMED = (
    "This server is shared, so each request must name its ledger session; send the conversation's id "
    "in the Leanread-Session header or the _meta key leanread/session."
)

OVER_1_MIB = (
    "The request is over this server's limit of 1 MiB, so it was not run; send less per call (write part of the "
    "file, then add the rest with edit) or serve with a larger --max-request-mib."
)
JSON_POST = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture
def server(repo: Path) -> Iterator[HttpServer]:
    started = start_http_server(repo, "memory", token=TOKEN)
    yield started
    started.stop()


def _meta(result: Any) -> dict[str, Any]:
    return dict((result.meta or {})["leanread"])


def test_bind_addresses_and_tokens() -> None:
    assert parse_bind("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_bind("[::1]:80") == ("::1", 80)
    with pytest.raises(InvalidArgument, match=r"^--http takes HOST:PORT, such as 127.0.0.1:8765 \(got '8765'\)\.$"):
        parse_bind("8765")
    assert [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "10.0.0.2", "example.com")] == [
        True, True, True, False, False, False,
    ]  # fmt: skip
    assert token_matches(b"Bearer abc", "abc") and not token_matches(b"Bearer abd", "abc")
    assert not token_matches(None, "abc") and not token_matches(b"abc", "abc")


def test_session_named_by_meta_then_header() -> None:
    assert session_name({"leanread/session": "a"}, {"leanread-session": "b"}) == "a"
    assert session_name(None, {"leanread-session": "b"}) == "b"
    assert session_name({}, None) is None
    with pytest.raises(InvalidArgument, match=r"^The ledger session must be a non-empty string"):
        session_name({"leanread/session": 7}, None)


def test_off_loopback_without_a_token_is_refused(repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "LEANREAD_TOKEN"}
    args = [sys.executable, "-m", "leanread", "serve", "--root", str(repo), "--ledger", "memory"]
    done = subprocess.run([*args, "--http", "0.0.0.0:1"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (
        "Serving on 0.0.0.0, which is not a loopback address, needs a bearer token; set LEANREAD_TOKEN "
        "(or the variable --token-env names) to a long random secret: make one with "
        'python -c "import secrets; print(secrets.token_urlsafe(32))"\n'
    )


async def test_a_write_of_5_mb_goes_through_as_over_stdio(server: HttpServer, repo: Path) -> None:
    content = ("x" * 99 + "\n") * 50_000  # 5,000,000 bytes: over the SDK's 4 MiB default
    async with http_client(server.url, "big", TOKEN) as client:
        written = await client.call_tool("write", {"path": "big.txt", "content": content})
    assert (written.is_error, text_of(written)) == (False, "Created 50000 lines.")
    assert (repo / "big.txt").read_text() == content


async def test_a_request_over_the_limit_is_one_json_rpc_sentence(repo: Path) -> None:
    from mcp import MCPError

    small = start_http_server(repo, "memory", extra=["--max-request-mib", "1"])
    try:
        async with http_client(small.url, "big") as client:
            with pytest.raises(MCPError) as refused:
                await client.call_tool("write", {"path": "big.txt", "content": "x" * (1024 * 1024)})
            chunked = httpx2.post(small.url, content=iter([b"{" + b" " * 1024 * 1024, b"}"]), headers=JSON_POST)
            kept = await client.call_tool("read", {"path": "app.py", "offset": 1, "limit": 1})
    finally:
        small.stop()
    assert str(refused.value) == OVER_1_MIB
    assert (chunked.status_code, chunked.json()) == (
        413, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": OVER_1_MIB}},
    )  # fmt: skip
    assert not (repo / "big.txt").exists() and kept.is_error is False


def _serve_http(repo: Path, bind: str) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "leanread", "serve", "--root", str(repo), "--ledger", "memory", "--http", bind]
    return subprocess.Popen(args, stderr=subprocess.PIPE, text=True)


def test_a_taken_port_is_one_line_and_exit_status_3_with_no_serving_line(repo: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        done = _serve_http(repo, f"127.0.0.1:{port}")
        _, stderr = done.communicate(timeout=60)
    assert (done.returncode, stderr) == (
        3,
        f"Port {port} on 127.0.0.1 is already in use, so nothing was served; serve on another port "
        "(--http 127.0.0.1:PORT) or stop the process that holds it.\n",
    )


def test_the_serving_line_comes_once_bound_and_names_the_port_port_0_got(repo: Path) -> None:
    process = _serve_http(repo, "127.0.0.1:0")
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        assert line == f"leanread: serving MCP at http://127.0.0.1:{port}/mcp (health: /healthz)\n"
        health = httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=10)  # bound: no retry needed
        assert (health.status_code, health.text) == (200, "ok\n")
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_healthz_needs_no_token_and_mcp_does(server: HttpServer) -> None:
    health = httpx2.get(f"http://127.0.0.1:{server.port}/healthz")
    assert (health.status_code, health.text) == (200, "ok\n")
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        refused = httpx2.post(server.url, json={}, headers=headers)
        assert refused.status_code == 401
        assert refused.json() == {"error": "Unauthorized: send the server's token as Authorization: Bearer <token>."}
    for scheme in ("Bearer", "bearer", "BEARER"):  # the scheme is case-insensitive (RFC 7235 §2.1)
        accepted = httpx2.post(server.url, json={}, headers={"Authorization": f"{scheme} {TOKEN}"})
        assert accepted.status_code != 401


async def test_each_request_names_its_ledger_session(server: HttpServer) -> None:
    token = TOKEN
    async with http_client(server.url, None, token) as anonymous:
        refused = await anonymous.call_tool("read", {"path": "app.py"})
        by_meta = await anonymous.call_tool("read", {"path": "app.py"}, meta={"leanread/session": "conv-a"})
    async with http_client(server.url, "conv-a", token) as named, http_client(server.url, "conv-b", token) as other:
        again = await named.call_tool("read", {"path": "app.py"})
        elsewhere = await other.call_tool("read", {"path": "app.py"})
    assert refused.is_error is True and text_of(refused) == UNNAMED
    assert _meta(by_meta)["mode"] == "full"
    assert (_meta(again)["mode"], _meta(again)["unchanged_since"]) == ("stub", ["r1"])
    assert _meta(elsewhere)["mode"] == "full"


async def test_two_http_servers_on_one_redis_share_sessions_and_survive_a_kill(
    repo: Path, redis_server: Any
) -> None:
    session = f"fleet-{uuid.uuid4().hex[:8]}"
    a = start_http_server(repo, redis_server.url)
    b = start_http_server(repo, redis_server.url)
    try:
        async with http_client(a.url, session) as on_a:
            await on_a.call_tool("read", {"path": "app.py", "offset": 1, "limit": 8})  # a stub pays for 8
        a.kill()  # kill -9 between a session's calls: the next one lands on B
        async with http_client(b.url, session) as on_b:
            stub = await on_b.call_tool("read", {"path": "app.py", "offset": 1, "limit": 8})
            change = {"path": "app.py", "old_string": "return 3", "new_string": "return 33"}
            edited = await on_b.call_tool("edit", change)
            refused = await on_b.call_tool("edit", {"path": "app.py", "old_string": "return 9\n", "new_string": "x\n"})
            await on_b.call_tool("read", {"path": "app.py"})
            told = await on_b.call_tool("context", {"action": "compact", "call_id": "r5"})
        c = start_http_server(repo, redis_server.url)
        try:
            async with http_client(c.url, session) as on_c:
                after = await on_c.call_tool("read", {"path": "app.py"})
        finally:
            c.stop()
    finally:
        a.stop()
        b.stop()
    assert (_meta(stub)["mode"], _meta(stub)["unchanged_since"]) == ("stub", ["r1"])
    assert edited.is_error is False, text_of(edited)
    assert refused.is_error is True
    assert (repo / "app.py").read_text().splitlines()[2] == "def function_3(argument_one, argument_two): return 33"
    assert text_of(told) == "compact: 4 tool results are now out of the context window (r1, r2, r3, r5)."
    assert _meta(after)["mode"] == "full"
