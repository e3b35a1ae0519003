"""The MCP server: leanread's tools over the official ``mcp`` SDK, on stdio (``serve_stdio``) and
streamable HTTP (``build_server(shared=True)`` run by ``mcp.http``).

Annotations here are evaluated eagerly (no ``from __future__ import annotations``): the SDK
builds each tool's input schema from them at registration.

Each client gets its own ledger session (see ``_Sessions``), so two agents never see each
other's dedup stubs.

The tools' input schemas come from ``tools.registry`` (one source for MCP, the OpenAI and Anthropic
definitions and ``Session.call``), and every call of them runs through ``Session.call``: unknown
names, missing ones and values of the wrong JSON type (``"abc"``, ``2.5`` or ``true`` for a whole
number, ``null`` for a string) come back as one sentence in an ``is_error`` result, never as a
pydantic dump; a whole number sent as text (``"10"``) is taken as that number.

Whatever a call carries, it is answered and the server keeps serving: a request the SDK cannot
parse because a string holds a lone surrogate is mended and refused in one sentence (``wire``),
and every string going out is valid UTF-8 (``names.clean``), so no result can break the writer.
"""

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, cast

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolResult,
    ImageContent,
    InputRequiredResult,
    NotificationParams,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Tool as MCPTool
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .. import __version__
from ..config.settings import Limits, Settings, load_settings
from ..errors import LeanreadError
from ..files.names import clean, clean_text
from ..files.workspace import Workspace
from ..ledger.behind import make_held_writes
from ..ledger.sqlite_store import shared_ledger
from ..ledger.store import LedgerStore
from ..memo import LRU
from ..pruning import AuditHook, make_pruner
from ..result import ToolResult
from ..session import Session
from ..tools.arguments import check_arguments, validation_problem
from ..tools.registry import input_schema, spec_of, tool_names
from ..tools.spec import Effects
from .client_roots import LIST_CHANGED, fetch_roots, on_list_changed
from .http import session_name, unnamed
from .pipes import event_loop_pipes
from .quick import QuickCalls
from .wire import INVALID_KEY, MendedReads

INSTRUCTIONS = (
    "leanread's file tools. `read` returns lines exactly as in the file, without line numbers "
    "unless asked; every partial result says how to continue. `grep` finds lines (each shown as "
    "`line<TAB>text` under its file); `ls` shows a folder as a tree."
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

    def __init__(
        self,
        roots: Sequence[str],
        ledger: LedgerStore,
        settings: Settings,
        session_id: str | None,
        focus_audit: AuditHook | None = None,
        follow_client_roots: bool = False,
        shared: bool = False,
    ) -> None:
        self._roots = roots
        self._follow_client_roots = follow_client_roots
        self._shared = shared
        self._named: LRU[Session] = LRU(4096)
        self._ledger = ledger
        self._settings = settings
        self._fixed_id = session_id
        # one backend for every session: the hybrid one's embedding cache is worth sharing
        self._pruner = make_pruner(settings.focus)
        self._focus_audit = focus_audit
        self._process_session = self._new(session_id)

    def _new(self, ledger_id: str | None) -> Session:
        return Session(
            self._roots,
            id=ledger_id,
            ledger=self._ledger,
            limits=self._settings.limits,
            policy=self._settings.policy,
            pruner=self._pruner,
            focus_audit=self._focus_audit,
            transcript=self._settings.transcript,
        )

    def get(self, ctx: Context[Any, Any] | None) -> Session:
        """The session of the caller of ``ctx``; the process's session without one.

        Raises:
            UnnamedSession: the server is shared (HTTP) and the request names no usable session.
        """
        if self._shared and ctx is not None:
            return self._by_name(ctx)
        if ctx is None:
            return self._process_session
        # The SDK (2.3.0) offers no public path from a tool's Context to its Connection.
        connection = ctx.session._connection
        if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return self._process_session
        session = connection.state.get(self._KEY)
        if not isinstance(session, Session):
            session = self._new(self._fixed_id or connection.session_id)
            connection.state[self._KEY] = session
        return session

    def _by_name(self, ctx: Context[Any, Any]) -> Session:
        name = session_name(ctx.request_context.meta, ctx.headers) or self._fixed_id
        if name is None:
            raise unnamed()
        return self._named.get_or_make(name, lambda: self._new(name))

    async def current(self, ctx: Context[Any, Any] | None) -> Session:
        """``get(ctx)``, its workspace first moved to the client's roots when the server follows
        them and they are new or changed (see ``client_roots``); no roots keeps the workspace."""
        session = self.get(ctx)
        if self._follow_client_roots and ctx is not None:
            roots = await fetch_roots(ctx.session)
            if roots:
                session.use_roots(roots)
        return session


_log = logging.getLogger(__name__)


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=clean_text(text))], is_error=True)


def annotations(effects: Effects) -> ToolAnnotations:
    """What a tool may do to the workspace, as MCP clients are told (from its ``ToolSpec``)."""
    return ToolAnnotations(
        read_only_hint=effects.read_only,
        destructive_hint=effects.destructive,
        idempotent_hint=effects.idempotent,
        open_world_hint=False,
    )


class LeanreadServer(MCPServer[Any]):
    """``MCPServer`` offering leanread's tools, each call run through ``Session.call``.

    A bad call gets one sentence as an ``is_error`` result, for example
    ``Invalid arguments for read: offset must be a whole number (got 'abc'); see the tool's
    input schema.``; an unknown tool name lists the tools. Tools added with ``add_tool`` are
    listed after leanread's and their arguments checked the same way (``check_arguments``).
    """

    def __init__(self, sessions: _Sessions, limits: Limits, tools: Sequence[str], *, quick: bool = True) -> None:
        super().__init__("leanread", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
        self._sessions = sessions
        self._offered = tuple(tools)
        # one client: a small read runs on the loop once the same call proved fast (``mcp.quick``)
        self._quick = QuickCalls() if quick else None
        self._lowlevel_server.add_notification_handler(LIST_CHANGED, NotificationParams, on_list_changed)
        self._listed = [
            MCPTool(
                name=spec.name,
                description=spec.describe(limits),
                input_schema=spec.input_schema(),
                annotations=annotations(spec.effects),
            )
            for spec in map(spec_of, self._offered)
        ]

    async def list_tools(self) -> list[MCPTool]:
        """leanread's tools (schemas from ``tools.registry``), then any added with ``add_tool``."""
        return [*self._listed, *await super().list_tools()]

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        return input_schema(name) if name in self._offered else super()._tool_input_schema(name)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Run one tool call: leanread's through ``Session.call`` of the caller's session, in a
        worker thread, or on the event loop when the server serves one client and has seen the
        same call go fast (``mcp.quick``); others as ``MCPServer`` does after ``check_arguments``.

        Returns:
            The tool's result with every lone surrogate in its text escaped, or an ``is_error``
            result of one sentence for an unknown tool, arguments that held a lone surrogate (see
            ``wire``) or arguments that do not fit its schema (also when pydantic rejects what the
            schema check let through, such as a value out of a declared range).

        Raises:
            ToolError: an added tool failed other than on its arguments (as ``MCPServer.call_tool``).
            MCPError: raised by an added tool; passed through.
        """
        if isinstance(problem := arguments.get(INVALID_KEY), str):
            step = "send the name as shown by ls or grep" if problem.startswith("path ") else "send it as text"
            return _error(f"Invalid arguments for {name}: {problem}, which is not text; {step}.")
        added = {tool.name: tool for tool in await super().list_tools()}
        if name in added:
            return await self._call_added(name, added[name], arguments, context)
        try:
            session = await self._sessions.current(context)
            tools = [*self._offered, *added]
            result = await self._run(session, name, arguments, tools)
        except LeanreadError as exc:  # no session named (UnnamedSession), or its store is away
            return _error(str(exc))
        except Exception as exc:  # a bug of leanread's or a client gone mid-call: one sentence all the same
            _log.exception("leanread: %s call failed", name)
            return _error(f"leanread failed on this {name} call ({type(exc).__name__}); try it again, or narrow it.")
        return _to_mcp(result)

    async def _run(self, session: Session, name: str, arguments: dict[str, Any], tools: list[str]) -> ToolResult:
        """``Session.call`` in a worker thread, or on the loop when ``mcp.quick`` says so."""
        quick = self._quick if name in self._offered else None
        root = session.workspace.primary
        started = time.perf_counter()
        local: bool | None
        if quick is not None and quick.inline(name, root, arguments):
            result, local = session.call(name, arguments, tools=tools), None  # nothing checked on the loop
        else:

            def work() -> tuple[ToolResult, bool]:
                done = session.call(name, arguments, tools=tools)
                if quick is None or not quick.fast(done, time.perf_counter() - started):
                    return done, False  # nothing to learn: where the file lies does not matter
                return done, quick.local(name, root, arguments)

            result, local = await anyio.to_thread.run_sync(work)
        if quick is not None:
            quick.learn(name, root, arguments, result, time.perf_counter() - started, local)
        return result

    async def _call_added(
        self, name: str, tool: MCPTool, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> CallToolResult | InputRequiredResult:
        """A tool added with ``add_tool``: its arguments checked, then called as ``MCPServer`` does."""
        checked = check_arguments(tool.input_schema, arguments)
        if isinstance(checked, str):
            return _error(f"Invalid arguments for {name}: {checked}.")
        try:
            result = await super().call_tool(name, checked, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ValidationError):
                if clean_text(str(exc)) != str(exc):
                    raise ToolError(clean_text(str(exc))) from exc
                raise
            return _error(f"Invalid arguments for {name}: {validation_problem(exc.__cause__)}.")
        if isinstance(result, CallToolResult):  # whatever a tool said, it must go out as UTF-8
            for block in result.content:
                if isinstance(block, TextContent):
                    block.text = clean_text(block.text)
            if result.structured_content is not None:
                result.structured_content = cast(dict[str, Any], clean(result.structured_content))
        return result

    async def run_stdio_async(self) -> None:
        """Serve on stdin/stdout as ``MCPServer`` does, answering a request the SDK cannot parse
        because a string holds a lone surrogate (see ``wire``)."""
        with event_loop_pipes() as pipes:
            stdin, stdout = pipes or (None, None)
            async with stdio_server(cast(Any, stdin), cast(Any, stdout)) as (read_stream, write_stream):
                lowlevel = self._lowlevel_server  # the SDK (2.3.0) offers no public way to wrap a transport
                await lowlevel.run(MendedReads(read_stream), write_stream, lowlevel.create_initialization_options())


def _to_mcp(result: ToolResult) -> CallToolResult:
    images = [ImageContent(type="image", data=image.data, mime_type=image.mime_type) for image in result.images]
    return CallToolResult(
        content=[TextContent(type="text", text=clean_text(result.text)), *images],
        is_error=result.is_error,
        _meta={"leanread": clean(result.metadata)},
    )


def build_server(
    roots: Sequence[str | os.PathLike[str]] | None = None,
    *,
    settings: Settings | None = None,
    ledger: LedgerStore | None = None,
    session_id: str | None = None,
    focus_audit: AuditHook | None = None,
    expose_context_tool: bool = False,
    follow_client_roots: bool | None = None,
    shared: bool = False,
) -> LeanreadServer:
    """A ``LeanreadServer`` (an ``MCPServer``) offering leanread's tools over ``roots``.

    Args:
        roots: workspace roots; default the current directory.
        settings: limits and deny list; default from the first root's configuration file
            (``config.settings.load_settings``).
        ledger: shared store of every session's views; default the process's SQLite ledger at
            ``ledger.sqlite_store.default_ledger_path()``.
        session_id: give every MCP session this ledger id (a harness resuming one conversation);
            default a new id per MCP session.
        focus_audit: the audit hook of every session (see ``Session``): it sees each focused
            output before and after pruning.
        expose_context_tool: also offer the ``context`` tool. It is for harnesses, not models, so
            it is off the tool list by default; a harness without it tells leanread through
            ``Session.context`` or ``leanread context`` (the hooks of ``leanread mcp-config``).
        follow_client_roots: use the roots of a client that has the roots capability
            (``roots/list``) as its session's workspace roots, following its changes; default
            True when ``roots`` is None (``leanread serve`` without ``--root``). Settings stay
            those loaded at start.
        shared: each request names its ledger session (HTTP; see ``mcp.http``); one that
            names none gets ``session_id``, or is refused when that is None.

    Raises:
        PathError: a root is not an existing directory.
        ConfigError: the first root's configuration file is invalid.
        LeanreadError: the configured focus backend cannot be built.
    """
    follow = roots is None if follow_client_roots is None else follow_client_roots
    checked_roots = Workspace(roots).roots
    settings = settings or load_settings(checked_roots[0])
    store = ledger if ledger is not None else shared_ledger()
    sessions = _Sessions(checked_roots, store, settings, session_id, focus_audit, follow, shared)
    offered = tuple(name for name in tool_names() if expose_context_tool or spec_of(name).offered)
    return LeanreadServer(sessions, settings.limits, offered, quick=not shared)


def serve_stdio(
    roots: Sequence[str | os.PathLike[str]] | None = None,
    *,
    settings: Settings | None = None,
    ledger: LedgerStore | None = None,
    session_id: str | None = None,
    expose_context_tool: bool = False,
) -> None:
    """Run the server on stdin/stdout until the client closes the connection. A SIGTERM (how many
    hosts stop a server) ends it too, as ``SystemExit``, which stops the event loop (nothing more
    is answered); then what the ledger holds is made (``ledger.behind``) and the process ends at
    once, without waiting for the SDK's worker threads, which the ended loop no longer stops (the
    interpreter waited for them for good). Should the ``SystemExit`` be caught on its way, a thread
    does the same ``EXIT_GRACE_S`` later. A second SIGTERM ends it without the writes."""
    server = build_server(
        roots, settings=settings, ledger=ledger, session_id=session_id, expose_context_tool=expose_context_tool
    )
    terminated = threading.Event()

    def on_sigterm(*_: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        terminated.set()
        threading.Thread(target=_make_writes_and_exit, args=(EXIT_GRACE_S,), daemon=True).start()
        sys.exit(0)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_sigterm)
    try:
        server.run("stdio")
    finally:
        if terminated.is_set():
            _make_writes_and_exit(0.0)


#: Seconds after a SIGTERM by which the server ends, should the ``SystemExit`` it raised be caught.
EXIT_GRACE_S = 2.0


def _make_writes_and_exit(after: float) -> None:
    time.sleep(after)
    try:
        make_held_writes()
        sys.stderr.flush()
    finally:
        os._exit(0)
