"""``leanread serve`` (the MCP server on stdio or HTTP), ``leanread inspect`` (the local page over
the ledger) and ``leanread mcp-config`` (a client's configuration)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..config.limits import DEFAULT_MAX_REQUEST_MIB
from ..config.settings import Settings
from ..errors import LeanreadError
from ..files.workspace import Workspace
from ..ledger.store import LedgerStore
from .app import (
    FocusBackend,
    FocusKeyEnv,
    FocusModel,
    FocusTimeout,
    FocusUrl,
    MaxBytes,
    MaxLineChars,
    MaxLines,
    ReadMode,
    RootOption,
    WriteProtected,
    app,
    settings_for,
)


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
    allow_write_protected: WriteProtected = False,
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
    max_request_mib: Annotated[
        int,
        typer.Option(min=1, help="With --http: the largest request body served, in MiB (a bigger write is refused)."),
    ] = DEFAULT_MAX_REQUEST_MIB,
) -> None:
    """Serve the tools over MCP on stdin/stdout (or HTTP with --http)."""
    from ..ledger.open import open_ledger
    from ..mcp.server import serve_stdio

    try:
        store = open_ledger(ledger, idle_seconds=ledger_idle)
    except LeanreadError as exc:
        print(exc, file=sys.stderr)
        raise typer.Exit(2) from None
    settings = settings_for(
        root,
        max_lines=max_lines,
        max_bytes=max_bytes,
        max_line_chars=max_line_chars,
        read_mode=read_mode,
        focus_backend=focus_backend,
        focus_url=focus_url,
        focus_model=focus_model,
        focus_api_key_env=focus_api_key_env,
        focus_timeout=focus_timeout,
        allow_write_protected=allow_write_protected,
        dedup=dedup,
    )
    if http is not None:
        _serve_http(root, settings, store, session, http, token_env, expose_context_tool, max_mib=max_request_mib)
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
    *,
    max_mib: int = DEFAULT_MAX_REQUEST_MIB,
) -> None:
    """``serve --http``, request bodies of at most ``max_mib`` MiB: refuse a bad address or a missing
    token off loopback with exit status 2, an address it cannot listen on (a port taken) with 3."""
    from ..mcp.http import CannotListen, check_bind, run_http
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
    try:
        run_http(server, bind, token, max_mib)
    except CannotListen as exc:
        print(exc, file=sys.stderr)
        raise typer.Exit(3) from None


@app.command("mcp-config")
def mcp_config(
    client: Annotated[str, typer.Argument(help="claude-code, opencode, codex, gemini, cursor or vscode.")],
    part: Annotated[
        str,
        typer.Option(
            help="server (the MCP server entry); claude-code: also settings (.claude/settings.json with "
            "the hooks and permission rules); opencode: also plugin (.opencode/plugin/leanread.js)."
        ),
    ] = "server",
    root: RootOption = None,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Merge it into the client's own file instead of printing it (.mcp.json, .claude/settings.json, "
            "opencode.json, ~/.codex/config.toml, .gemini/settings.json, .cursor/mcp.json, .vscode/mcp.json), "
            "creating the folders and keeping every key of yours.",
        ),
    ] = False,
) -> None:
    """Print a configuration for CLIENT that works as printed: absolute paths, the client's own
    file tools switched off where it allows, compaction hooks where it has them."""
    from .clientconfig import render

    if write:
        from .clientwrite import write_config

        print(write_config(client, Workspace(root).roots, part))
        return
    sys.stdout.write(render(client, Workspace(root).roots, part))
