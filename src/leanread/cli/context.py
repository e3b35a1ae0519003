"""``leanread context``: a harness or a client's hook tells leanread which results left the
model's context window (``forget``, ``compact``, ``rewind``; ``compact --all`` and ``--hook``)."""

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
from .app import LedgerOption, MetaOption, RootOption, SessionOption, app, settings_for, show


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
    action: Annotated[str, typer.Argument(help=context_tool.ACTION)],
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
        show(_compact_all(root, session, ledger), meta)
        return
    if session is None:
        raise InvalidArgument(
            "context needs --session (or $LEANREAD_SESSION): the session whose results left the context window."
        )
    tools = Session(root, id=session, ledger=open_ledger(ledger), limits=settings_for(root).limits)
    if action == "forget":
        show(tools.context(action, ids), meta)
        return
    if len(ids) > 1:
        raise InvalidArgument(
            f"{action} takes one call id (got {len(ids)}); pass the one the history ends or goes back to."
        )
    show(tools.context(action, (), ids[0] if ids else None), meta)


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
