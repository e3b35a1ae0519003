"""The MCP server: leanread's tools over the official ``mcp`` SDK (stdio now; HTTP later).

Annotations here are evaluated eagerly (no ``from __future__ import annotations``): the SDK
builds each tool's input schema from them at registration.

Each client gets its own ledger session (see ``_Sessions``), so two agents never see each
other's dedup stubs.
"""

import os
from collections.abc import Sequence
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from . import __version__
from .config import Settings, load_settings
from .ledger import LedgerStore
from .ledger_sqlite import shared_ledger
from .result import ToolResult
from .session import Session
from .tools import context as context_tool
from .tools import description
from .tools import read as read_tool
from .workspace import Workspace

INSTRUCTIONS = (
    "leanread's file tools. `read` returns lines exactly as in the file, without line numbers "
    "unless asked; every partial result says how to continue."
)


class _Sessions:
    """Which ledger session a tool call belongs to.

    MCP 2026-07-28 has no protocol session (SEP-2567): every request stands alone. On stdio one
    server process serves one client, so the process keeps one ``Session`` for every modern
    request. A handshake-era client (protocol 2025-11-25 and older) keeps a ``Connection`` for
    as long as it stays connected; it gets its own ``Session``, kept in that connection's state
    and named by its MCP session id when the transport has one. ``--session ID`` names the
    ledger session of all of them, so a harness resuming a conversation finds its ledger.
    """

    _KEY = "leanread.session"

    def __init__(self, roots: Sequence[str], ledger: LedgerStore, settings: Settings, session_id: str | None) -> None:
        self._roots = roots
        self._ledger = ledger
        self._settings = settings
        self._fixed_id = session_id
        self._process_session = self._new(session_id)

    def _new(self, ledger_id: str | None) -> Session:
        return Session(
            self._roots,
            id=ledger_id,
            ledger=self._ledger,
            limits=self._settings.limits,
            policy=self._settings.policy,
        )

    def get(self, ctx: Context) -> Session:
        # The SDK (2.3.0) offers no public path from a tool's Context to its Connection.
        connection = ctx.session._connection
        if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return self._process_session
        session = connection.state.get(self._KEY)
        if not isinstance(session, Session):
            session = self._new(self._fixed_id or connection.session_id)
            connection.state[self._KEY] = session
        return session


def _to_mcp(result: ToolResult) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=result.text)],
        is_error=result.is_error,
        _meta={"leanread": result.metadata},
    )


def build_server(
    roots: Sequence[str | os.PathLike[str]] | None = None,
    *,
    settings: Settings | None = None,
    ledger: LedgerStore | None = None,
    session_id: str | None = None,
) -> MCPServer:
    """An ``MCPServer`` offering leanread's tools over ``roots``.

    Args:
        roots: workspace roots; default the current directory.
        settings: limits and deny list; default from the first root's configuration file
            (``config.load_settings``).
        ledger: shared store of every session's views; default the process's SQLite ledger at
            ``ledger_sqlite.default_ledger_path()``.
        session_id: give every MCP session this ledger id (a harness resuming one conversation);
            default a new id per MCP session.

    Raises:
        PathError: a root is not an existing directory.
        ConfigError: the first root's configuration file is invalid.
    """
    checked_roots = Workspace(roots).roots
    settings = settings or load_settings(checked_roots[0])
    limits = settings.limits
    sessions = _Sessions(checked_roots, ledger if ledger is not None else shared_ledger(), settings, session_id)
    server: MCPServer = MCPServer("leanread", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    params = read_tool.PARAMETERS

    async def read(
        ctx: Context,
        path: Annotated[str | None, Field(description=params["path"])] = None,
        offset: Annotated[int | None, Field(description=params["offset"])] = None,
        limit: Annotated[int | None, Field(description=params["limit"])] = None,
        format: Annotated[str, Field(description=params["format"])] = "plain",
        fresh: Annotated[bool, Field(description=params["fresh"])] = False,
        char_offset: Annotated[int | None, Field(description=params["char_offset"])] = None,
    ) -> CallToolResult:
        session = sessions.get(ctx)
        result = await anyio.to_thread.run_sync(
            lambda: session.read(path, offset=offset, limit=limit, format=format, fresh=fresh, char_offset=char_offset)
        )
        return _to_mcp(result)

    server.add_tool(
        read,
        name=read_tool.NAME,
        description=description(read_tool.NAME, limits),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
    )
    cparams = context_tool.PARAMETERS

    async def context(
        ctx: Context,
        action: Annotated[str, Field(description=cparams["action"])],
        call_ids: Annotated[list[str] | None, Field(description=cparams["call_ids"])] = None,
        call_id: Annotated[str | None, Field(description=cparams["call_id"])] = None,
    ) -> CallToolResult:
        session = sessions.get(ctx)
        return _to_mcp(await anyio.to_thread.run_sync(lambda: session.context(action, call_ids or (), call_id)))

    server.add_tool(
        context,
        name=context_tool.NAME,
        description=description(context_tool.NAME, limits),
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    return server


def serve_stdio(
    roots: Sequence[str | os.PathLike[str]] | None = None,
    *,
    settings: Settings | None = None,
    ledger: LedgerStore | None = None,
    session_id: str | None = None,
) -> None:
    """Run the server on stdin/stdout until the client closes the connection."""
    build_server(roots, settings=settings, ledger=ledger, session_id=session_id).run("stdio")
