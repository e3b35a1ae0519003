"""``leanread serve --http HOST:PORT``: the MCP server over the SDK's streamable HTTP transport, for
a fleet of servers behind a load balancer.

- Every request stands alone (the SDK's stateless mode, JSON responses), so any server of the
  fleet can answer any request; what a session has seen lives in the shared ledger (Redis).
- The ledger session of a call is named by the request itself, since MCP 2026-07-28 has no
  protocol session (SEP-2567): the ``_meta`` key ``leanread/session`` of the ``tools/call``
  request, else the HTTP header ``Leanread-Session``. A server started with ``--session ID``
  uses that id for requests naming none; any other server refuses them with a tool error.
- A bearer token (``Authorization: Bearer …``, compared in constant time) is required when the
  server binds a non-loopback address; it is read from an environment variable, never from the
  command line, and refused unless it could be a random secret (``check_token``). ``GET /healthz``
  answers ``ok`` without a token (for the load balancer).
- A request body over ``--max-request-mib`` (default ``DEFAULT_MAX_REQUEST_MIB``) is answered
  ``413`` with a JSON-RPC error the client shows as one sentence (``Gate``), not the SDK's plain
  ``Request body too large``.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import json
import re
import socket
from collections.abc import Mapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..config.limits import DEFAULT_MAX_REQUEST_MIB
from ..errors import InvalidArgument, LeanreadError

#: The ``_meta`` key of a request that names its ledger session.
SESSION_META = "leanread/session"
#: The HTTP header that names a request's ledger session (when ``_meta`` does not).
SESSION_HEADER = "Leanread-Session"
#: The environment variable the bearer token is read from by default.
TOKEN_ENV = "LEANREAD_TOKEN"
#: Longest session name accepted, in characters.
MAX_SESSION_CHARS = 200
#: Shortest bearer token accepted, in characters: 32 hex digits hold 128 bits, the bound RFC 6749
#: (OAuth 2.0) section 10.10 sets on guessing a token (a probability of at most 2^-128).
MIN_TOKEN_CHARS = 32
#: Fewest different characters a token of random characters may have: 32 hex digits have fewer
#: than 8 with a probability under 10^-7, while ``aaaa…`` or ``abab…`` are not secrets.
MIN_TOKEN_SYMBOLS = 8
#: A token an ``Authorization: Bearer`` header can carry: RFC 6750 section 2.1's ``b64token``.
B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
#: JSON-RPC's "Invalid Request" error code.
INVALID_REQUEST = -32600
#: The command that makes a good token (43 URL-safe characters, 256 bits).
MAKE_TOKEN = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'


class UnnamedSession(InvalidArgument):
    """A request to a shared server named no ledger session (or an unusable one)."""


class CannotListen(LeanreadError):
    """``serve --http`` could not bind its address (the port is taken, or the address is not this
    machine's); nothing was served."""


def session_name(meta: Mapping[str, Any] | None, headers: Mapping[str, str] | None) -> str | None:
    """The ledger session a request names: ``_meta["leanread/session"]``, else the
    ``Leanread-Session`` header; None when it names none.

    Raises:
        UnnamedSession: the name is not a non-empty string of at most ``MAX_SESSION_CHARS``.
    """
    name: object = (meta or {}).get(SESSION_META)
    if name is None and headers is not None:
        name = headers.get(SESSION_HEADER.lower())
    if name is None:
        return None
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_SESSION_CHARS:
        raise UnnamedSession(
            f"The ledger session must be a non-empty string of at most {MAX_SESSION_CHARS} characters; "
            f"send the conversation's id in the {SESSION_HEADER} header or the _meta key {SESSION_META}."
        )
    return name


def unnamed() -> UnnamedSession:
    """The refusal of a request that names no ledger session on a shared server."""
    return UnnamedSession(
        f"This server is shared, so each request must name its ledger session; send the conversation's id "
        f"in the {SESSION_HEADER} header or the _meta key {SESSION_META}."
    )


def parse_bind(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) → ``(host, port)``.

    Raises:
        InvalidArgument: not of that shape, or the port is not 0-65535.
    """
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise InvalidArgument(f"--http takes HOST:PORT, such as 127.0.0.1:8765 (got {text!r}).")
    return host, int(port)


def host_port(host: str, port: int | str) -> str:
    """``HOST:PORT`` as ``--http`` takes it: ``127.0.0.1:8765``, ``[::1]:8765``."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_matches(header: bytes | None, token: str) -> bool:
    """Whether an ``Authorization`` header value is ``Bearer <token>``, the scheme in any case
    (RFC 7235 §2.1) and the token compared in constant time."""
    if header is None:
        return False
    scheme, _, given = header.partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(given, token.encode())


def too_large(max_mib: int) -> str:
    """The sentence a request over ``max_mib`` MiB is answered with: the limit and what to do."""
    return (
        f"The request is over this server's limit of {max_mib} MiB, so it was not run; send less per call "
        "(write part of the file, then add the rest with edit) or serve with a larger --max-request-mib."
    )


class Gate:
    """ASGI middleware in front of the MCP app: ``GET /healthz`` → ``200 ok``; with a token, any
    other HTTP request without ``Authorization: Bearer <token>`` → ``401`` and a JSON error; the
    SDK's plain-text ``413`` of a body over ``max_mib`` MiB → a JSON-RPC error (``too_large``)."""

    def __init__(self, app: ASGIApp, token: str | None, max_mib: int = DEFAULT_MAX_REQUEST_MIB) -> None:
        self.app = app
        self.token = token
        self.max_mib = max_mib

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == "/healthz":
            await _respond(send, 200, b"ok\n", b"text/plain; charset=utf-8")
            return
        if self.token is not None:
            header = dict(scope["headers"]).get(b"authorization")
            if not token_matches(header, self.token):
                body = json.dumps({"error": "Unauthorized: send the server's token as Authorization: Bearer <token>."})
                await _respond(send, 401, body.encode(), b"application/json", [(b"www-authenticate", b"Bearer")])
                return
        await self.app(scope, receive, _TooLarge(send, self.max_mib))


class _TooLarge:
    """``send`` with a ``413`` response replaced by a JSON-RPC error (id null) saying ``too_large``,
    which the ``mcp`` client raises as ``MCPError`` with that message."""

    def __init__(self, send: Send, max_mib: int) -> None:
        self.send = send
        self.max_mib = max_mib
        self.replaced = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 413:
            self.replaced = True
            error = {"code": INVALID_REQUEST, "message": too_large(self.max_mib)}
            body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
            await _respond(self.send, 413, body, b"application/json")
        elif not (self.replaced and message["type"] == "http.response.body"):
            await self.send(message)


async def _respond(
    send: Send, status: int, body: bytes, kind: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def http_app(server: Any, host: str, token: str | None, max_mib: int = DEFAULT_MAX_REQUEST_MIB) -> ASGIApp:
    """The ASGI app serving ``server`` (a ``LeanreadServer``) at ``/mcp``, behind ``Gate``; request
    bodies of at most ``max_mib`` MiB."""
    inner = server.streamable_http_app(
        stateless_http=True, json_response=True, host=host, max_request_body_size=max_mib * 1024 * 1024
    )
    return Gate(inner, token, max_mib)


def check_token(token: str, env: str = TOKEN_ENV) -> None:
    """Refuse a bearer token that cannot be a random secret, or that a header cannot carry.

    Args:
        token: the token, as read from the environment variable ``env`` (named in the message).

    Raises:
        InvalidArgument: ``token`` has fewer than ``MIN_TOKEN_CHARS`` characters, a character
            outside ``B64TOKEN``, or fewer than ``MIN_TOKEN_SYMBOLS`` different ones.
    """
    make = f"make one with {MAKE_TOKEN}"
    if len(token) < MIN_TOKEN_CHARS:
        raise InvalidArgument(
            f"The bearer token in {env} is {len(token)} characters long; it needs at least {MIN_TOKEN_CHARS} random "
            f"characters (128 bits): {make}"
        )
    if not B64TOKEN.fullmatch(token):
        bad = next((c for c in token.rstrip("=") if not B64TOKEN.fullmatch(c)), "=")
        raise InvalidArgument(
            f"The bearer token in {env} holds {bad!r}, which an Authorization: Bearer header cannot carry; "
            f"use letters, digits and -._~+/ only: {make}"
        )
    if len(set(token)) < MIN_TOKEN_SYMBOLS:
        raise InvalidArgument(
            f"The bearer token in {env} has only {len(set(token))} different characters, so it is not a random "
            f"secret: {make}"
        )


def check_bind(bind: str, token: str | None, token_env: str = TOKEN_ENV) -> tuple[str, int]:
    """``parse_bind``; a token is required off loopback, and any token given must pass ``check_token``.

    Args:
        token_env: the environment variable ``token`` was read from, named in the messages.

    Raises:
        InvalidArgument: ``bind`` is malformed, it is not a loopback address and ``token`` is None,
            or ``token`` is refused by ``check_token``.
    """
    host, port = parse_bind(bind)
    if token is None and not is_loopback(host):
        raise InvalidArgument(
            f"Serving on {host}, which is not a loopback address, needs a bearer token; set {token_env} "
            f"(or the variable --token-env names) to a long random secret: make one with {MAKE_TOKEN}"
        )
    if token is not None:
        check_token(token, token_env)
    return host, port


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening (port 0: one the system picks).

    Raises:
        CannotListen: the port is taken, or the address cannot be bound (one line naming it and
            what to do instead).
    """
    try:
        return socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CannotListen(
                f"Port {port} on {host} is already in use, so nothing was served; serve on another port "
                f"(--http {host_port(host, 'PORT')}) or stop the process that holds it."
            ) from None
        raise CannotListen(
            f"Cannot listen on {host_port(host, port)} ({exc.strerror or exc}), so nothing was served; give an "
            "address of this machine, such as 127.0.0.1:8765."
        ) from None


def run_http(server: Any, bind: str, token: str | None, max_mib: int = DEFAULT_MAX_REQUEST_MIB) -> None:
    """Serve ``server`` (built with ``shared=True``) on ``bind`` (``HOST:PORT``) until interrupted,
    request bodies of at most ``max_mib`` MiB; says where on stderr once the socket is bound.

    Raises:
        InvalidArgument: as ``check_bind``.
        CannotListen: as ``listen``.
    """
    import sys

    import uvicorn

    host, port = check_bind(bind, token)
    sock = listen(host, port)
    where = f"http://{host_port(host, sock.getsockname()[1])}"
    print(f"leanread: serving MCP at {where}/mcp (health: /healthz)", file=sys.stderr, flush=True)
    config = uvicorn.Config(http_app(server, host, token, max_mib), host=host, port=port, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])
