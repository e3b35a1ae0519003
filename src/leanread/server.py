"""The MCP server: leanread's tools over the official ``mcp`` SDK (stdio now; HTTP later).

Annotations here are evaluated eagerly (no ``from __future__ import annotations``): the SDK
builds each tool's input schema from them at registration.

Each client gets its own ledger session (see ``_Sessions``), so two agents never see each
other's dedup stubs.

Arguments are checked against each tool's published input schema before the SDK sees them
(``LeanreadServer.call_tool``): unknown names, missing ones and values of the wrong JSON type
(``"abc"``, ``2.5`` or ``true`` for a whole number, ``null`` for a string) come back as one
sentence in an ``is_error`` result, never as a pydantic dump, and nothing is coerced.

Whatever a call carries, it is answered and the server keeps serving: a request the SDK cannot
parse because a string holds a lone surrogate is mended and refused in one sentence (``wire``),
and every string going out is valid UTF-8 (``names.clean``), so no result can break the writer.
"""

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, cast

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, ImageContent, InputRequiredResult, TextContent, ToolAnnotations
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field, ValidationError

from . import __version__
from .config import Settings, load_settings
from .ledger import LedgerStore
from .ledger_sqlite import shared_ledger
from .memo import LRU
from .names import clean, clean_text
from .pruning import AuditHook, make_pruner
from .result import ToolResult
from .server_http import UnnamedSession, session_name, unnamed
from .session import Session
from .tools import context as context_tool
from .tools import description
from .tools import edit as edit_tool
from .tools import grep as grep_tool
from .tools import ls as ls_tool
from .tools import read as read_tool
from .tools import write as write_tool
from .wire import INVALID_KEY, MendedReads
from .workspace import Workspace

INSTRUCTIONS = (
    "leanread's file tools. `read` returns lines exactly as in the file, without line numbers "
    "unless asked; every partial result says how to continue. `grep` finds lines, each match with "
    "an id that `read(match_id=...)` opens; `ls` shows a folder as a tree."
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
        shared: bool = False,
    ) -> None:
        self._roots = roots
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
        )

    def get(self, ctx: Context) -> Session:
        """The caller's ``Session``.

        Raises:
            UnnamedSession: the server is shared (HTTP) and the request names no usable session.
        """
        if self._shared:
            return self._by_name(ctx)
        # The SDK (2.3.0) offers no public path from a tool's Context to its Connection.
        connection = ctx.session._connection
        if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return self._process_session
        session = connection.state.get(self._KEY)
        if not isinstance(session, Session):
            session = self._new(self._fixed_id or connection.session_id)
            connection.state[self._KEY] = session
        return session

    def _by_name(self, ctx: Context) -> Session:
        name = session_name(ctx.request_context.meta, ctx.headers) or self._fixed_id
        if name is None:
            raise unnamed()
        return self._named.get_or_make(name, lambda: self._new(name))


#: How an argument check names a JSON Schema type: "offset must be a whole number".
_KIND_TEXT = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_KIND_PLURAL = {"string": "strings", "integer": "whole numbers", "number": "numbers", "boolean": "booleans"}
#: The next step after an argument of the wrong type.
_SEE_SCHEMA = "see the tool's input schema"
#: Characters of a rejected value quoted in a message at most.
_SHOWN_CHARS = 60


def _or_null(schema: dict[str, Any]) -> None:
    """Publish a field typed ``str`` with default None as ``anyOf: [string, null]``."""
    schema["anyOf"] = [{"type": schema.pop("type")}, {"type": "null"}]


def _optional_text(description: str) -> Any:
    """The ``Field`` of an optional string parameter: omitted or null means None.

    Its annotation must stay the bare ``str`` (not ``str | None``): the SDK JSON-decodes any
    string argument of a non-``str`` field, which would turn the path ``"null"`` into None (the
    last file read) and ``"[1]"`` into a list. Explicit nulls are dropped by
    ``LeanreadServer.call_tool`` before the SDK validates, so the default None is what arrives.
    """
    return Field(default=None, description=description, json_schema_extra=_or_null)


def _shown(value: object) -> str:
    """A rejected value as a message quotes it: JSON words for null and booleans, ``'abc'`` for
    strings, cut to ``_SHOWN_CHARS``."""
    if value is None or isinstance(value, bool):
        text = json.dumps(value)
    elif isinstance(value, str | int | float):
        text = repr(value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def _is_kind(kind: object, value: object) -> bool:
    """True when ``value`` (decoded JSON) is of the JSON Schema type ``kind``; strict: a boolean
    is not a number, a float is not an integer, a numeric string is neither."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True  # a type this check does not know: left to pydantic


def _fits(schema: Mapping[str, Any], value: object) -> bool:
    """True when ``value`` fits ``schema`` in its types, ``anyOf``, ``enum`` and array ``items``;
    bounds, formats and ``$ref`` are left to pydantic."""
    if "anyOf" in schema:
        return any(_fits(option, value) for option in schema["anyOf"])
    if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    if kinds and not any(_is_kind(k, value) for k in kinds):
        return False
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return all(_fits(schema["items"], item) for item in value)
    return True


def _expected(schema: Mapping[str, Any]) -> str:
    """What ``schema`` asks for, in words ("a whole number", "a list of strings"); a nullable
    type is named without its null."""
    if "anyOf" in schema:
        options = [_expected(option) for option in schema["anyOf"] if option.get("type") != "null"]
        return " or ".join(dict.fromkeys(options)) or "null"
    if "enum" in schema:
        return "one of " + ", ".join(_shown(e) for e in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        item_kind = items.get("type") if isinstance(items, dict) else None
        return f"a list of {_KIND_PLURAL[item_kind]}" if item_kind in _KIND_PLURAL else "a list"
    kinds = kind if isinstance(kind, list) else [kind]
    return " or ".join(_KIND_TEXT.get(str(k), f"of type {k}") for k in kinds)


def check_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any] | str:
    """The arguments of one tool call checked against the tool's input schema.

    Checks, in this order: names not in ``properties`` (unless ``additionalProperties`` allows
    them), names in ``required`` that are missing, and each value's JSON type (see ``_fits``) in
    the schema's property order. A string holding a JSON list or object is decoded when the
    property wants one (clients that send ``'["r1"]'``). An explicit null for a property whose
    default is null is dropped, so the tool sees its default.

    Args:
        schema: the tool's input schema (an object schema with ``properties``).
        arguments: the call's arguments, decoded from JSON.

    Returns:
        The arguments to pass on, or the first problem and its next step, without the tool's name
        or a full stop: ``offset must be a whole number (got 'abc'); see the tool's input schema``
        or ``unknown argument 'bogus'; the parameters are path, offset``.
    """
    properties: Mapping[str, Any] = schema.get("properties", {})
    unknown = [name for name in arguments if name not in properties]
    if unknown and not schema.get("additionalProperties"):
        noun = "argument" if len(unknown) == 1 else "arguments"
        names = ", ".join(repr(name) for name in unknown)
        return f"unknown {noun} {names}; the parameters are {', '.join(properties)}"
    for name in schema.get("required", ()):
        if name not in arguments:
            return f"missing required argument {name!r} ({_expected(properties.get(name, {}))}); {_SEE_SCHEMA}"
    checked = dict(arguments)
    for name, prop in properties.items():
        if name not in checked:
            continue
        value = checked[name]
        if isinstance(value, str) and not _fits(prop, value):
            try:
                decoded = json.loads(value)
            except (ValueError, RecursionError):
                decoded = None
            if isinstance(decoded, list | dict) and _fits(prop, decoded):
                checked[name] = value = decoded
        if not _fits(prop, value):
            return f"{name} must be {_expected(prop)} (got {_shown(value)}); {_SEE_SCHEMA}"
        if value is None and "default" in prop and prop["default"] is None:
            del checked[name]
    return checked


def _validation_problem(error: ValidationError) -> str:
    """The first error pydantic found, with the next step, as ``check_arguments`` words a problem."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the arguments"
    message = first["msg"][:1].lower() + first["msg"][1:]
    got = f", got {_shown(first['input'])}" if first.get("type") != "missing" else ""
    return f"{where} is not valid ({message}{got}); {_SEE_SCHEMA}"


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


class LeanreadServer(MCPServer[Any]):
    """``MCPServer`` whose tool calls check their arguments first (see ``check_arguments``).

    A bad call gets one sentence as an ``is_error`` result, for example
    ``Invalid arguments for read: offset must be a whole number (got 'abc'); see the tool's
    input schema.``; an unknown tool name lists the tools.
    """

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Check ``arguments`` against the tool's input schema, then call it as ``MCPServer`` does.

        Returns:
            The tool's result with every lone surrogate in its text escaped, or an ``is_error``
            result of one sentence for an unknown tool, arguments that held a lone surrogate (see
            ``wire``) or arguments that do not fit its schema (also when pydantic rejects what the
            schema check let through, such as a value out of a declared range).

        Raises:
            ToolError: the tool failed other than on its arguments (as ``MCPServer.call_tool``).
            MCPError: raised by the tool; passed through.
        """
        tools = {tool.name: tool for tool in await self.list_tools()}
        tool = tools.get(name)
        if tool is None:
            return _error(f"Unknown tool {name!r}; the tools are {', '.join(tools)}.")
        if isinstance(problem := arguments.get(INVALID_KEY), str):
            step = "send the name as shown by ls or grep" if problem.startswith("path ") else "send it as text"
            return _error(f"Invalid arguments for {name}: {problem}, which is not text; {step}.")
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
            return _error(f"Invalid arguments for {name}: {_validation_problem(exc.__cause__)}.")
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
        async with stdio_server() as (read_stream, write_stream):
            lowlevel = self._lowlevel_server  # the SDK (2.3.0) offers no public way to wrap a transport
            await lowlevel.run(MendedReads(read_stream), write_stream, lowlevel.create_initialization_options())


READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
CHANGES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False)
BOOKKEEPING = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)


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
    shared: bool = False,
) -> LeanreadServer:
    """A ``LeanreadServer`` (an ``MCPServer``) offering leanread's tools over ``roots``.

    Args:
        roots: workspace roots; default the current directory.
        settings: limits and deny list; default from the first root's configuration file
            (``config.load_settings``).
        ledger: shared store of every session's views; default the process's SQLite ledger at
            ``ledger_sqlite.default_ledger_path()``.
        session_id: give every MCP session this ledger id (a harness resuming one conversation);
            default a new id per MCP session.
        focus_audit: the audit hook of every session (see ``Session``): it sees each focused
            output before and after pruning.
        shared: each request names its ledger session (HTTP; see ``server_http``); one that
            names none gets ``session_id``, or is refused when that is None.

    Raises:
        PathError: a root is not an existing directory.
        ConfigError: the first root's configuration file is invalid.
        LeanreadError: the configured focus backend cannot be built.
    """
    checked_roots = Workspace(roots).roots
    settings = settings or load_settings(checked_roots[0])
    limits = settings.limits
    store = ledger if ledger is not None else shared_ledger()
    sessions = _Sessions(checked_roots, store, settings, session_id, focus_audit, shared)
    server = LeanreadServer("leanread", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    async def run(ctx: Context, tool: Callable[[Session], ToolResult]) -> CallToolResult:
        """Run a tool of the caller's session in a worker thread (tools do blocking file I/O)."""
        try:
            session = sessions.get(ctx)
        except UnnamedSession as exc:
            return _error(str(exc))
        return _to_mcp(await anyio.to_thread.run_sync(lambda: tool(session)))

    def offer(fn: Callable[..., Any], module: Any, annotations: ToolAnnotations, **facts: object) -> None:
        server.add_tool(
            fn, name=module.NAME, description=description(module.NAME, limits, **facts), annotations=annotations
        )

    params = read_tool.PARAMETERS

    async def read(
        ctx: Context,
        path: Annotated[str, _optional_text(params["path"])],
        match_id: Annotated[str, _optional_text(params["match_id"])],
        symbol: Annotated[str, _optional_text(params["symbol"])],
        offset: Annotated[int | None, Field(description=params["offset"])] = None,
        limit: Annotated[int | None, Field(description=params["limit"])] = None,
        format: Annotated[str, Field(description=params["format"])] = "plain",
        fresh: Annotated[bool, Field(description=params["fresh"])] = False,
        char_offset: Annotated[int | None, Field(description=params["char_offset"])] = None,
        context_before: Annotated[int | None, Field(description=params["context_before"])] = None,
        context_after: Annotated[int | None, Field(description=params["context_after"])] = None,
        mode: Annotated[str | None, Field(description=params["mode"])] = None,
        focus: Annotated[str | None, Field(description=params["focus"])] = None,
    ) -> CallToolResult:
        return await run(
            ctx,
            lambda session: session.read(
                path,
                offset=offset,
                limit=limit,
                format=format,
                fresh=fresh,
                char_offset=char_offset,
                match_id=match_id,
                context_before=context_before,
                context_after=context_after,
                mode=mode,
                symbol=symbol,
                focus=focus,
            ),
        )

    offer(read, read_tool, READ_ONLY)
    gparams = grep_tool.PARAMETERS

    async def grep(
        ctx: Context,
        pattern: Annotated[str, Field(description=gparams["pattern"])],
        path: Annotated[str, _optional_text(gparams["path"])],
        glob: Annotated[str, _optional_text(gparams["glob"])],
        type: Annotated[str, _optional_text(gparams["type"])],
        case_insensitive: Annotated[bool, Field(description=gparams["case_insensitive"])] = False,
        context: Annotated[int | None, Field(description=gparams["context"])] = None,
        before: Annotated[int | None, Field(description=gparams["before"])] = None,
        after: Annotated[int | None, Field(description=gparams["after"])] = None,
        max_results: Annotated[int | None, Field(description=gparams["max_results"])] = None,
        offset: Annotated[int | None, Field(description=gparams["offset"])] = None,
        files_only: Annotated[bool, Field(description=gparams["files_only"])] = False,
        focus: Annotated[str | None, Field(description=gparams["focus"])] = None,
    ) -> CallToolResult:
        return await run(
            ctx,
            lambda session: session.grep(
                pattern,
                path,
                glob=glob,
                type=type,
                case_insensitive=case_insensitive,
                context=context,
                before=before,
                after=after,
                max_results=max_results,
                offset=offset,
                files_only=files_only,
                focus=focus,
            ),
        )

    offer(grep, grep_tool, READ_ONLY, **grep_tool.FACTS)
    lparams = ls_tool.PARAMETERS

    async def ls(
        ctx: Context,
        path: Annotated[str, _optional_text(lparams["path"])],
        depth: Annotated[int | None, Field(description=lparams["depth"])] = None,
        max_entries: Annotated[int | None, Field(description=lparams["max_entries"])] = None,
    ) -> CallToolResult:
        return await run(ctx, lambda session: session.ls(path, depth=depth, max_entries=max_entries))

    offer(ls, ls_tool, READ_ONLY, **ls_tool.FACTS)
    eparams = edit_tool.PARAMETERS

    async def edit(
        ctx: Context,
        path: Annotated[str, Field(description=eparams["path"])],
        old_string: Annotated[str, Field(description=eparams["old_string"])],
        new_string: Annotated[str, Field(description=eparams["new_string"])],
        replace_all: Annotated[bool, Field(description=eparams["replace_all"])] = False,
    ) -> CallToolResult:
        return await run(ctx, lambda session: session.edit(path, old_string, new_string, replace_all=replace_all))

    offer(edit, edit_tool, CHANGES)
    wparams = write_tool.PARAMETERS

    async def write(
        ctx: Context,
        path: Annotated[str, Field(description=wparams["path"])],
        content: Annotated[str, Field(description=wparams["content"])],
    ) -> CallToolResult:
        return await run(ctx, lambda session: session.write(path, content))

    offer(write, write_tool, CHANGES)
    cparams = context_tool.PARAMETERS

    async def context(
        ctx: Context,
        action: Annotated[str, Field(description=cparams["action"])],
        call_ids: Annotated[list[str] | None, Field(default=None, description=cparams["call_ids"])],
        call_id: Annotated[str, _optional_text(cparams["call_id"])],
    ) -> CallToolResult:
        return await run(ctx, lambda session: session.context(action, call_ids or (), call_id))

    offer(context, context_tool, BOOKKEEPING)
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
