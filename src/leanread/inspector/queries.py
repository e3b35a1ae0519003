"""What the session and call pages show, worked out from a store's transcript and view records."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..ledger.store import CALL, LedgerStore, ViewRecord
from ..ledger.transcript import CallRecord, SessionSummary

#: Calls per page of a session's list.
PAGE_SIZE = 100


@dataclass(frozen=True)
class Grant:
    """What one view record of a call let the model hold: lines of one file version."""

    path: str
    version: str
    ranges: str
    kind: str
    visible: bool


def ranges_text(ranges: tuple[tuple[int, int], ...]) -> str:
    """``1-40, 61-80`` (a single line as ``7``); ``none`` when empty."""
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges) or "none"


def grants_by_call(records: list[ViewRecord]) -> dict[str, list[Grant]]:
    """Call id → the file views it gave (``call`` marks left out), oldest first."""
    out: dict[str, list[Grant]] = {}
    for r in records:
        if r.kind != CALL:
            out.setdefault(r.call_id, []).append(
                Grant(r.path, r.content_hash[:12], ranges_text(r.ranges), r.kind, r.visible)
            )
    return out


def state(call: CallRecord, grants: dict[str, list[Grant]]) -> str:
    """Whether the call's result is still in the context window as far as the ledger knows:
    ``in context``, ``gone`` (forgotten, compacted, rewound), or ``not tracked`` (it showed no file)."""
    mine = grants.get(call.call_id) if call.call_id else None
    if not mine:
        return "not tracked"
    return "in context" if any(g.visible for g in mine) else "gone"


def arguments_line(call: CallRecord, width: int = 90) -> str:
    """The call's arguments on one line, cut at ``width`` characters with ``…``."""
    text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in call.arguments.items())
    return text if len(text) <= width else text[: width - 1] + "…"


def summary_of(store: LedgerStore, session_id: str) -> SessionSummary | None:
    """The session's totals, or None when it has no transcript."""
    return next((s for s in store.sessions() if s.session == session_id), None)


def pages(s: SessionSummary, size: int = PAGE_SIZE) -> int:
    """How many pages the session's list of calls fills, the harness's commands listed too (at least 1)."""
    return max(1, -(-(s.calls + s.harness) // size))


def headline(s: SessionSummary) -> str:
    """The session's totals in one line: the model's calls, the tokens they showed, what the plain
    full reads cost and the share saved; calls whose plain cost is not known are named and left
    out of the share (the chart leaves them out too), so the figures never take an unknown for
    "nothing saved". The harness's own commands (``leanread context``), whose results the model
    never saw, are counted apart at the end: ``… · and 6 harness commands (139 tokens the model
    was not shown)``."""
    return _model_totals(s) + _harness_totals(s)


def _harness_totals(s: SessionSummary) -> str:
    if not s.harness:
        return ""
    noun = "command" if s.harness == 1 else "commands"
    return f" · and {s.harness:,} harness {noun} ({s.harness_tokens:,} tokens the model was not shown)"


def _model_totals(s: SessionSummary) -> str:
    head = f"{s.calls:,} calls · {s.tokens:,} tokens shown"
    if not s.calls:
        return head
    if s.saved is None:
        return f"{head} · plain full reads of unknown cost (recorded before leanread said it) · saving unknown"
    if not s.unknown:
        return f"{head} · {s.full_tokens:,} for plain full reads · {s.saved:.1%} saved"
    known = s.calls - s.unknown
    return (
        f"{head} · {s.full_tokens:,} for the plain full reads of the {known:,} calls of known cost, which showed "
        f"{s.known_tokens:,} · {s.saved:.1%} saved · {s.unknown:,} calls of unknown plain cost "
        "(recorded before leanread said it)"
    )
