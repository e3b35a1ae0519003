"""The ``edit``, ``write`` and ``context`` commands: the rest of the tools from a shell.

A bash-only agent (mini-swe-agent) calls them in separate shell calls; with one ``--session``
(or ``$LEANREAD_SESSION``) they share one ledger session in the default SQLite ledger, so a
re-read gets its stub and an edit the grant of the read before it, also when several run at
once. Registered on ``cli.app`` when ``cli`` is imported.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Any

import typer

from ..errors import InvalidArgument
from ..files.workspace import Workspace
from ..ledger.open import open_ledger
from ..result import ToolResult
from ..session import Session
from ..tools import context as context_tool
from ..tools import edit as edit_tool
from ..tools import write as write_tool
from .app import MetaOption, RootOption, SessionOption, _session, _settings, _show, app

WriteProtected = Annotated[
    bool, typer.Option(help="Let edit and write change .git and leanread's own configuration (refused by default).")
]
LedgerOption = Annotated[
    str | None,
    typer.Option(help="The ledger file the server uses (its --ledger); default the user state folder's."),
]


@app.command()
def edit(
    path: Annotated[str, typer.Argument(help=edit_tool.PARAMETERS["path"])],
    old_string: Annotated[str, typer.Argument(help=edit_tool.PARAMETERS["old_string"])],
    new_string: Annotated[str, typer.Argument(help=edit_tool.PARAMETERS["new_string"])],
    replace_all: Annotated[bool, typer.Option(help=edit_tool.PARAMETERS["replace_all"])] = False,
    root: RootOption = None,
    session: SessionOption = None,
    meta: MetaOption = False,
    allow_write_protected: WriteProtected = False,
) -> None:
    """Print exactly what the model would see for an `edit` tool call (it needs the --session of
    the read that showed the lines)."""
    settings = _settings(root, None, None, None, allow_write_protected=allow_write_protected)
    _show(_session(root, settings, session).edit(path, old_string, new_string, replace_all=replace_all), meta)


@app.command()
def write(
    path: Annotated[str, typer.Argument(help=write_tool.PARAMETERS["path"])],
    content: Annotated[
        str | None, typer.Argument(help=write_tool.PARAMETERS["content"] + " Default: standard input.")
    ] = None,
    root: RootOption = None,
    session: SessionOption = None,
    meta: MetaOption = False,
    allow_write_protected: WriteProtected = False,
) -> None:
    """Print exactly what the model would see for a `write` tool call; the content comes from
    the argument or, without one, from standard input (a heredoc), byte for byte."""
    text = content if content is not None else _stdin_text()
    settings = _settings(root, None, None, None, allow_write_protected=allow_write_protected)
    _show(_session(root, settings, session).write(path, text), meta)


def _stdin_text() -> str:
    """Standard input as UTF-8 text, line endings as given (no newline translation)."""
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(
            "The content on standard input is not UTF-8; write UTF-8 text (leanread keeps the file's own encoding)."
        ) from None


def _hook_input() -> dict[str, Any]:
    """The JSON object a client's hook passes on standard input; empty when there is none."""
    raw = "" if sys.stdin.isatty() else sys.stdin.read()
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError:
        raise InvalidArgument("The hook input on standard input is not JSON; pass the client's hook JSON.") from None
    return data if isinstance(data, dict) else {}


#: ``SessionStart`` sources after which the model no longer has earlier results.
GONE_SOURCES = ("compact", "clear", "resume")


def _compact_all(root: list[str] | None, session: str | None, ledger: str | None) -> ToolResult:
    """Compact every result of ``session``, or without one, of every session of the roots."""
    if ledger == "memory":
        raise InvalidArgument("--all needs a ledger shared with the server: a SQLite file path, not 'memory'.")
    store = open_ledger(ledger)  # the server's own --ledger: a SQLite file or redis://
    roots = Workspace(root).roots
    ids = [session] if session else sorted({sid for r in roots for sid in store.sessions_under(r)})
    return context_tool.compact_sessions(store, ids)


@app.command()
def context(
    action: Annotated[str, typer.Argument(help=context_tool.PARAMETERS["action"])],
    call_ids: Annotated[
        list[str] | None,
        typer.Argument(help="forget: the call ids; compact and rewind: one call id (or --all for compact)."),
    ] = None,
    all_results: Annotated[
        bool,
        typer.Option(
            "--all",
            help="compact: every result so far, of --session, or without it of every session that showed "
            "a file of the roots (what a client's compaction hook runs).",
        ),
    ] = False,
    hook: Annotated[
        bool,
        typer.Option(
            help="Run as a client hook: read its JSON on standard input (Claude Code's PreCompact or "
            "SessionStart, whose cwd is the default root), compact everything, print nothing on stdout."
        ),
    ] = False,
    root: RootOption = None,
    session: SessionOption = None,
    ledger: LedgerOption = None,
    meta: MetaOption = False,
) -> None:
    """Tell leanread which results left the model's context window (for harnesses and hooks)."""
    if hook:
        _run_hook(action, root, session, ledger)
        return
    ids = call_ids or []
    if all_results:
        if action != "compact" or ids:
            raise InvalidArgument("--all goes with compact and no call ids: `leanread context compact --all`.")
        _show(_compact_all(root, session, ledger), meta)
        return
    if session is None:
        raise InvalidArgument(
            "context needs --session (or $LEANREAD_SESSION): the session whose results left the context window."
        )
    tools = Session(root, id=session, ledger=open_ledger(ledger), limits=_settings(root, None, None, None).limits)
    if action == "forget":
        _show(tools.context(action, ids), meta)
        return
    if len(ids) > 1:
        raise InvalidArgument(
            f"{action} takes one call id (got {len(ids)}); pass the one the history ends or goes back to."
        )
    _show(tools.context(action, (), ids[0] if ids else None), meta)


def _run_hook(action: str, root: list[str] | None, session: str | None, ledger: str | None) -> None:
    """``context compact --hook``: what a client's compaction hook runs; the result on stderr."""
    if action != "compact":
        raise InvalidArgument("--hook goes with compact: `leanread context compact --hook`.")
    data = _hook_input()
    source = data.get("source")
    if data.get("hook_event_name") == "SessionStart" and source not in GONE_SOURCES:
        return  # a new conversation (startup): nothing of it was shown yet
    cwd = data.get("cwd")
    roots = root or ([cwd] if isinstance(cwd, str) and os.path.isdir(cwd) else None)
    result = _compact_all(roots, session, ledger)
    print(f"leanread: {result.text}", file=sys.stderr)


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
