"""The ``context`` tool: a harness tells leanread which results left the model's context window."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InvalidArgument
from ..ledger.store import LedgerStore
from ..result import ToolResult
from .common import ToolContext
from .spec import BOOKKEEPING, Arguments, Param, ToolSpec, string

NAME = "context"

ACTIONS = ("forget", "compact", "rewind")

#: Description of ``action`` (MCP input schema, CLI help).
ACTION = "forget, compact or rewind."


def run(ctx: ToolContext, action: str, call_ids: Sequence[str] = (), call_id: str | None = None) -> ToolResult:
    """Apply one visibility change to the session's ledger.

    Returns:
        A result naming the tool results that left the context window (``forget: 1 tool result
        is now out of the context window (r2).``) and, for ``forget``, the ids this session never
        gave, which change nothing; ``metadata``: ``results`` (those call ids), ``unknown`` and
        ``hidden`` (ledger records marked).

    Raises:
        InvalidArgument: an unknown action, a missing id, or a compact/rewind id the session
            never recorded.
    """
    if action not in ACTIONS:
        raise InvalidArgument(f"action must be one of {', '.join(ACTIONS)} (got {action!r}).")
    before = ctx.ledger.call_states(ctx.session_id)
    unknown: list[str] = []
    if action == "forget":
        if not call_ids:
            raise InvalidArgument("forget needs call_ids: the ids of the results that left the context window.")
        unknown = list(dict.fromkeys(i for i in call_ids if i not in before))
        hidden = ctx.ledger.forget(ctx.session_id, call_ids)
    else:
        if not call_id:
            raise InvalidArgument(f"{action} needs call_id: the id of a result from this session.")
        change = ctx.ledger.compact if action == "compact" else ctx.ledger.rewind
        hidden = change(ctx.session_id, call_id)
    after = ctx.ledger.call_states(ctx.session_id)
    gone = [i for i, visible in before.items() if visible and not after.get(i, False)]
    return ToolResult(
        gone_sentence(action, gone) + unknown_sentence(unknown),
        metadata={"hidden": hidden, "results": gone, "unknown": unknown},
    )


#: Call ids a context result names at most; past that it gives their count and the first and last.
NAMED_IDS = 8


def gone_sentence(action: str, gone: Sequence[str]) -> str:
    """``forget: 2 tool results are now out of the context window (r2, r5).``, or that none was
    still in it."""
    if not gone:
        return f"{action}: no tool result of those was still in the context window, so nothing changed."
    named = ", ".join(gone) if len(gone) <= NAMED_IDS else f"{gone[0]} … {gone[-1]}"
    noun = "tool result is" if len(gone) == 1 else "tool results are"
    return f"{action}: {len(gone)} {noun} now out of the context window ({named})."


def unknown_sentence(unknown: Sequence[str]) -> str:
    """`` No result of this session has the call id zzz; it was ignored.`` or the empty string."""
    if not unknown:
        return ""
    shown = ", ".join(repr(i) for i in unknown[:NAMED_IDS]) + (" …" if len(unknown) > NAMED_IDS else "")
    if len(unknown) == 1:
        return f" No result of this session has the call id {shown}; it was ignored."
    return f" No result of this session has the call ids {shown}; they were ignored."


def compact_sessions(ledger: LedgerStore, session_ids: Sequence[str]) -> ToolResult:
    """Everything the given sessions have shown so far left the context window: what a client
    that compacted or cleared its conversation without naming a call (Claude Code's ``PreCompact``
    and ``SessionStart`` hooks, opencode's ``session.compacted`` event) tells leanread.

    Returns:
        ``compact: 3 tool results are now out of the context window (r1, r2, r5).`` for one
        session; with several, the count of results and of sessions; ``metadata``: ``sessions``
        (id → the call ids hidden) and ``hidden`` (ledger records marked).
    """
    gone: dict[str, list[str]] = {}
    hidden = 0
    for session_id in session_ids:
        visible = [call for call, shown in ledger.call_states(session_id).items() if shown]
        hidden += ledger.forget(session_id, visible)  # also when none: a server's held writes then count as gone
        if visible:
            gone[session_id] = visible
    metadata: dict[str, object] = {"sessions": gone, "hidden": hidden}
    if not gone:
        return ToolResult(
            "compact: no tool result was still in the context window, so nothing changed.", metadata=metadata
        )
    if len(gone) == 1:
        return ToolResult(gone_sentence("compact", next(iter(gone.values()))), metadata=metadata)
    results = sum(len(ids) for ids in gone.values())
    return ToolResult(
        f"compact: {results} tool results of {len(gone)} sessions are now out of the context window.", metadata=metadata
    )


def _call(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    return run(ctx, args["action"], args["call_ids"] or (), args["call_id"])


#: ``context`` names other calls and takes no call id of its own; it is offered only when a
#: harness asks (``Session.call(tools=...)``, ``serve --expose-context-tool``).
SPEC = ToolSpec(
    NAME,
    (
        Param("action", "string", ACTION, required=True, enum=ACTIONS),
        Param("call_ids", "array", "forget: the call ids of the results that left the context window."),
        string(
            "call_id", "compact: the last call id summarised away; rewind: the call id the conversation went back to."
        ),
    ),
    BOOKKEEPING,
    _call,
    offered=False,
    numbered=False,
)
