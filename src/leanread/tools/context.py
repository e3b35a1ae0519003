"""The ``context`` tool: a harness tells leanread which results left the model's context window."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InvalidArgument
from ..result import ToolResult
from .common import ToolContext

NAME = "context"

ACTIONS = ("forget", "compact", "rewind")

#: Description of each parameter (MCP input schema, CLI help).
PARAMETERS: dict[str, str] = {
    "action": "forget, compact or rewind.",
    "call_ids": "forget: the call ids of the results that left the context window.",
    "call_id": "compact: the last call id summarised away; rewind: the call id the conversation went back to.",
}


def run(ctx: ToolContext, action: str, call_ids: Sequence[str] = (), call_id: str | None = None) -> ToolResult:
    """Apply one visibility change to the session's ledger.

    Raises:
        InvalidArgument: an unknown action, a missing id, or an id the session never recorded.
    """
    if action == "forget":
        if not call_ids:
            raise InvalidArgument("forget needs call_ids: the ids of the results that left the context window.")
        hidden = ctx.ledger.forget(ctx.session_id, call_ids)
    elif action in ("compact", "rewind"):
        if not call_id:
            raise InvalidArgument(f"{action} needs call_id: the id of a result from this session.")
        change = ctx.ledger.compact if action == "compact" else ctx.ledger.rewind
        hidden = change(ctx.session_id, call_id)
    else:
        raise InvalidArgument(f"action must be one of {', '.join(ACTIONS)} (got {action!r}).")
    noun = "view" if hidden == 1 else "views"
    return ToolResult(
        f"{action}: {hidden} file {noun} marked as out of the context window.", metadata={"hidden": hidden}
    )
