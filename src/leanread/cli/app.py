"""The ``leanread`` command: the tools from a shell, the MCP server, the demo and benchmarks."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..config.settings import Settings, load_settings
from ..errors import LeanreadError
from ..files.workspace import Workspace, given_roots
from ..ledger.store import LedgerStore
from ..pruning import make_pruner
from ..result import ToolResult
from ..session import Session
from ..tools import grep as grep_tool
from ..tools import ls as ls_tool
from ..tools import read as read_tool
from ..view.frame import for_terminal

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="File tools for LLM coding agents that spend context tokens with care.",
)

RootOption = Annotated[
    list[str] | None,
    typer.Option(
        "--root",
        help="Workspace root (repeatable); default the current directory. An empty one is left out.",
        callback=lambda roots: given_roots(roots) if roots else roots,  # once per command: one stderr line
    ),
]
MaxLines = Annotated[int | None, typer.Option(help="Lines per read when no limit is given (config: max_lines).")]
MaxBytes = Annotated[int | None, typer.Option(help="Bytes of output per read (config: max_bytes).")]
MaxLineChars = Annotated[
    int | None, typer.Option(help="Characters of a line before it is cut (config: max_line_chars).")
]
ReadMode = Annotated[
    str | None, typer.Option(help="What a read without offset/limit gives: auto, full or outline (config: read_mode).")
]
FocusBackend = Annotated[
    str | None,
    typer.Option(help="Backend pruning outputs for --focus: local, hybrid, llm or swe-pruner (config: focus_backend)."),
]
FocusUrl = Annotated[
    str | None,
    typer.Option(help="Base URL of the llm or swe-pruner backend, e.g. http://localhost:8000/v1 (config: focus_url)."),
]
FocusModel = Annotated[str | None, typer.Option(help="Chat model of the llm backend (config: focus_model).")]
FocusKeyEnv = Annotated[
    str | None,
    typer.Option(help="Environment variable holding the llm backend's API key; default OPENAI_API_KEY."),
]
FocusTimeout = Annotated[
    float | None, typer.Option(help="Seconds a remote focus backend may take in all (config: focus_timeout).")
]
SessionOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        envvar="LEANREAD_SESSION",
        help="Ledger session id, kept in the default ledger between commands (so `read --match-id` finds a "
        "`grep`'s ids, a re-read gets a stub and an edit its grant); default $LEANREAD_SESSION, else a new one.",
    ),
]
MetaOption = Annotated[bool, typer.Option(help="Also print the result's metadata as JSON on stderr.")]


def _settings(
    root: list[str] | None,
    max_lines: int | None,
    max_bytes: int | None,
    max_line_chars: int | None,
    read_mode: str | None = None,
    focus: tuple[str | None, str | None, str | None, str | None, float | None] = (None,) * 5,
    allow_write_protected: bool = False,
    dedup: str | None = None,
) -> Settings:
    """The user's and the first root's configuration files, with the command-line flags on top
    (``focus``: the backend, URL, model, API key variable and timeout flags); what the project's
    file tried to loosen is named on stderr."""
    overrides = {
        "max_lines": max_lines,
        "max_bytes": max_bytes,
        "max_line_chars": max_line_chars,
        "read_mode": read_mode,
        "dedup": dedup,
        "allow_write_protected": True if allow_write_protected else None,
        **dict(
            zip(("focus_backend", "focus_url", "focus_model", "focus_api_key_env", "focus_timeout"), focus, strict=True)
        ),
    }
    settings = load_settings(Workspace(root).primary, overrides, "the command-line options")
    for warning in settings.warnings:
        print(f"leanread: {warning}", file=sys.stderr)
    return settings


def _session(root: list[str] | None, settings: Settings, session: str | None = None) -> Session:
    """A session over ``root`` with ``settings``, its focus backend included."""
    return Session(
        root,
        id=session,
        limits=settings.limits,
        policy=settings.policy,
        pruner=make_pruner(settings.focus),
        transcript=settings.transcript,
    )


def _show(result: ToolResult, meta: bool) -> None:
    """Print what the model sees (stdout; a refusal on stderr with status 1), and the metadata on
    request. On a terminal, control characters show in caret notation (``frame.for_terminal``)."""
    if meta:
        import json

        print(json.dumps(result.metadata, indent=2), file=sys.stderr)
    if result.is_error:
        print(result.text, file=sys.stderr)
        raise typer.Exit(1)
    print(for_terminal(result.text) if sys.stdout.isatty() else result.text)


def _write_image(result: ToolResult, target: Path) -> None:
    """Write the image a read sent to ``target``; a one-line error when there is none or it cannot be written."""
    if not result.images:
        print(f"No image written to {target}: this read sent no image.", file=sys.stderr)
        raise typer.Exit(1)
    import base64

    try:
        target.write_bytes(base64.b64decode(result.images[0].data))
    except OSError as exc:
        print(f"Cannot write the image to {target}: {exc.strerror}; pass another --image-out path.", file=sys.stderr)
        raise typer.Exit(1) from None


#: ``read``'s help for each parameter, the match parameters included.
_READ_HELP = read_tool.PARAMETERS


@app.command()
def read(
    path: Annotated[str | None, typer.Argument(help=_READ_HELP["path"])] = None,
    offset: Annotated[int | None, typer.Option(help=_READ_HELP["offset"])] = None,
    limit: Annotated[int | None, typer.Option(help=_READ_HELP["limit"])] = None,
    format: Annotated[str, typer.Option(help=_READ_HELP["format"])] = "plain",
    char_offset: Annotated[int | None, typer.Option(help=_READ_HELP["char_offset"])] = None,
    match_id: Annotated[str | None, typer.Option(help=_READ_HELP["match_id"])] = None,
    context_before: Annotated[int | None, typer.Option(help=_READ_HELP["context_before"])] = None,
    context_after: Annotated[int | None, typer.Option(help=_READ_HELP["context_after"])] = None,
    mode: Annotated[str | None, typer.Option(help=_READ_HELP["mode"])] = None,
    symbol: Annotated[str | None, typer.Option(help=_READ_HELP["symbol"])] = None,
    focus: Annotated[str | None, typer.Option(help=_READ_HELP["focus"])] = None,
    fresh: Annotated[bool, typer.Option(help=_READ_HELP["fresh"])] = False,
    focus_backend: FocusBackend = None,
    focus_url: FocusUrl = None,
    focus_model: FocusModel = None,
    focus_api_key_env: FocusKeyEnv = None,
    focus_timeout: FocusTimeout = None,
    root: RootOption = None,
    session: SessionOption = None,
    meta: MetaOption = False,
    max_lines: MaxLines = None,
    max_bytes: MaxBytes = None,
    max_line_chars: MaxLineChars = None,
    image_out: Annotated[
        Path | None, typer.Option(help="For an image: also write the image as sent to the model to this file.")
    ] = None,
) -> None:
    """Print exactly what the model would see for a `read` tool call."""
    if match_id is not None and session is None:
        print(
            "--match-id needs --session: match ids live in a ledger session, so run "
            "`leanread grep PATTERN --session NAME`, then `leanread read --match-id m1 --session NAME`.",
            file=sys.stderr,
        )
        raise typer.Exit(2)
    settings = _settings(
        root,
        max_lines,
        max_bytes,
        max_line_chars,
        focus=(focus_backend, focus_url, focus_model, focus_api_key_env, focus_timeout),
    )
    tools = _session(root, settings, session)
    result = tools.read(
        path,
        offset=offset,
        limit=limit,
        format=format,
        char_offset=char_offset,
        match_id=match_id,
        context_before=context_before,
        context_after=context_after,
        mode=mode,
        symbol=symbol,
        focus=focus,
        fresh=fresh,
    )
    _show(result, meta)
    if image_out is not None:
        _write_image(result, image_out)


@app.command()
def grep(
    pattern: Annotated[str, typer.Argument(help=grep_tool.PARAMETERS["pattern"])],
    path: Annotated[str | None, typer.Argument(help=grep_tool.PARAMETERS["path"])] = None,
    glob: Annotated[str | None, typer.Option("--glob", "-g", help=grep_tool.PARAMETERS["glob"])] = None,
    type: Annotated[str | None, typer.Option("--type", "-t", help=grep_tool.PARAMETERS["type"])] = None,
    case_insensitive: Annotated[
        bool, typer.Option("--case-insensitive", "-i", help=grep_tool.PARAMETERS["case_insensitive"])
    ] = False,
    context: Annotated[int | None, typer.Option("--context", "-C", help=grep_tool.PARAMETERS["context"])] = None,
    before: Annotated[int | None, typer.Option("--before", "-B", help=grep_tool.PARAMETERS["before"])] = None,
    after: Annotated[int | None, typer.Option("--after", "-A", help=grep_tool.PARAMETERS["after"])] = None,
    max_results: Annotated[int | None, typer.Option(help=grep_tool.PARAMETERS["max_results"])] = None,
    offset: Annotated[int | None, typer.Option(help=grep_tool.PARAMETERS["offset"])] = None,
    files_only: Annotated[bool, typer.Option("--files-only", "-l", help=grep_tool.PARAMETERS["files_only"])] = False,
    focus: Annotated[str | None, typer.Option(help=grep_tool.PARAMETERS["focus"])] = None,
    focus_backend: FocusBackend = None,
    focus_url: FocusUrl = None,
    focus_model: FocusModel = None,
    focus_api_key_env: FocusKeyEnv = None,
    focus_timeout: FocusTimeout = None,
    root: RootOption = None,
    session: SessionOption = None,
    meta: MetaOption = False,
    max_bytes: MaxBytes = None,
) -> None:
    """Print exactly what the model would see for a `grep` tool call."""
    settings = _settings(
        root, None, max_bytes, None, focus=(focus_backend, focus_url, focus_model, focus_api_key_env, focus_timeout)
    )
    tools = _session(root, settings, session)
    result = tools.grep(
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
    )
    _show(result, meta)


@app.command("ls")
def ls_command(
    path: Annotated[str | None, typer.Argument(help=ls_tool.PARAMETERS["path"])] = None,
    depth: Annotated[int | None, typer.Option(help=ls_tool.PARAMETERS["depth"])] = None,
    max_entries: Annotated[int | None, typer.Option(help=ls_tool.PARAMETERS["max_entries"])] = None,
    root: RootOption = None,
    meta: MetaOption = False,
) -> None:
    """Print exactly what the model would see for an `ls` tool call."""
    tools = _session(root, _settings(root, None, None, None))
    _show(tools.ls(path, depth=depth, max_entries=max_entries), meta)


@app.command()
def serve(
    root: RootOption = None,
    session: Annotated[
        str | None,
        typer.Option(help="Ledger id for every client session (a harness resuming a conversation)."),
    ] = None,
    ledger: Annotated[
        str | None,
        typer.Option(
            help="Where the ledger lives: a SQLite file path, 'memory', or redis://host:port/db (servers sharing "
            "sessions). Default: a SQLite file in the user state folder."
        ),
    ] = None,
    ledger_idle: Annotated[
        int | None,
        typer.Option(help="With a Redis ledger: seconds a session is kept after its last call. Default: 7 days."),
    ] = None,
    max_lines: MaxLines = None,
    max_bytes: MaxBytes = None,
    max_line_chars: MaxLineChars = None,
    read_mode: ReadMode = None,
    focus_backend: FocusBackend = None,
    focus_url: FocusUrl = None,
    focus_model: FocusModel = None,
    focus_api_key_env: FocusKeyEnv = None,
    focus_timeout: FocusTimeout = None,
    allow_write_protected: Annotated[
        bool,
        typer.Option(help="Let edit and write change .git and leanread's own configuration (refused by default)."),
    ] = False,
    dedup: Annotated[
        str | None,
        typer.Option(
            help="When a re-read gets a stub: recent (default; against the last 40 calls), on (until the client "
            "reports a compaction) or off (config: dedup)."
        ),
    ] = None,
    expose_context_tool: Annotated[
        bool,
        typer.Option(help="Also offer the context tool (for a harness that tells leanread what it compacted)."),
    ] = False,
    http: Annotated[
        str | None,
        typer.Option(
            help="Serve streamable HTTP on HOST:PORT (at /mcp; GET /healthz) instead of stdio; each request names "
            "its ledger session (header Leanread-Session or _meta key leanread/session)."
        ),
    ] = None,
    token_env: Annotated[
        str, typer.Option(help="With --http: the environment variable holding the bearer token (needed off loopback).")
    ] = "LEANREAD_TOKEN",
) -> None:
    """Serve the tools over MCP on stdin/stdout (or HTTP with --http)."""
    from ..ledger.open import open_ledger
    from ..mcp.server import serve_stdio

    try:
        store = open_ledger(ledger, idle_seconds=ledger_idle)
    except LeanreadError as exc:
        print(exc, file=sys.stderr)
        raise typer.Exit(2) from None
    settings = _settings(
        root,
        max_lines,
        max_bytes,
        max_line_chars,
        read_mode,
        (focus_backend, focus_url, focus_model, focus_api_key_env, focus_timeout),
        allow_write_protected,
        dedup,
    )
    if http is not None:
        _serve_http(root, settings, store, session, http, token_env, expose_context_tool)
        return
    serve_stdio(root, settings=settings, ledger=store, session_id=session, expose_context_tool=expose_context_tool)


@app.command("inspect")
def inspect_command(
    ledger: Annotated[
        str | None,
        typer.Option(
            help="The ledger to show: a SQLite file or redis://host:port/db. Default: the SQLite file in the user "
            "state folder."
        ),
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1; 0 picks a free one.")] = 0,
    report: Annotated[
        Path | None,
        typer.Option(help="A replay report (results.json) to show too; default bench-results/replay/results.json."),
    ] = None,
) -> None:
    """Serve a local web page (127.0.0.1 only; nothing leaves the machine) showing what each
    session's model was shown: its calls, their texts, the files, the savings."""
    from ..inspector.server import default_report, serve  # jinja2 missing: main names the extra
    from ..ledger.open import open_ledger

    def announce(url: str) -> None:
        print(f"leanread inspect: open {url} (Ctrl-C stops it)", flush=True)

    try:
        serve(open_ledger(ledger), port, report or default_report(), announce)
    except LeanreadError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(1) from None


def _serve_http(
    root: list[str] | None,
    settings: Settings,
    store: LedgerStore,
    session: str | None,
    bind: str,
    token_env: str,
    expose_context_tool: bool = False,
) -> None:
    """``serve --http``: refuse a bad address or a missing token off loopback with exit status 2."""
    from ..mcp.http import check_bind, run_http
    from ..mcp.server import build_server

    token = os.environ.get(token_env) or None
    try:
        check_bind(bind, token, token_env)
        server = build_server(
            root,
            settings=settings,
            ledger=store,
            session_id=session,
            shared=True,
            expose_context_tool=expose_context_tool,
        )
    except LeanreadError as exc:
        print(exc, file=sys.stderr)
        raise typer.Exit(2) from None
    run_http(server, bind, token)
