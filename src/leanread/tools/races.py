"""Calls of one session that overlap on one file.

Models send several edits (and writes) to one file at once. They run one after another under
``writeback.file_lock``, and each records what it wrote before the lock passes on, so the
session's own writes are the version the model knows, never a change from outside. Yet each
call was written against the version the model had when it sent the call: it must not change
lines that another call of the session changed while it waited (the model had not seen them
then), and a write must not replace such a change. ``arrival`` notes that version before the
call waits; the rest tells, under the lock, what changed since.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..code.diffs import Opcode
from ..ledger.knowledge import latest_hash, line_opcodes, map_lines
from ..view.frame import Own, plain_or_framed
from ..view.render import cut_line, span
from .common import ToolContext

#: Current lines quoted at most when an edit is refused for a concurrent change.
MAX_QUOTED_LINES = 6


@dataclass(frozen=True)
class Arrival:
    """What the model had of a file when a call came in, before it waited for the file's lock.

    Attributes:
        seen_hash: content hash of the version it saw last, or None if it saw none.
        existed: whether anything was at the path.
    """

    seen_hash: str | None
    existed: bool


def arrival(ctx: ToolContext, real: str) -> Arrival:
    """The session's view of ``real`` (a realpath) now; take it before ``file_lock``."""
    return Arrival(latest_hash(ctx.ledger.views_of(ctx.session_id, real)), os.path.lexists(real))


def changes_since(
    ctx: ToolContext, came: Arrival, current_hash: str, current_lines: Sequence[str] | None
) -> list[Opcode] | None:
    """Line opcodes from the version the model had when the call came in to the current one
    (``difflib``, 0-based half-open), when they differ; None when they are the same version or
    either text is not at hand (the grant check then decides alone)."""
    if came.seen_hash is None or came.seen_hash == current_hash or current_lines is None:
        return None
    text = ctx.ledger.get_version(came.seen_hash)
    return None if text is None else line_opcodes(text.split("\n"), current_lines)


def changed_lines(opcodes: Sequence[Opcode], touched: Iterable[int]) -> list[int]:
    """The 1-based current lines of ``touched`` that are not unchanged lines of the arrival version."""
    unchanged = set(map_lines(opcodes).values())
    return sorted(n for n in set(touched) if n not in unchanged)


def current_span(opcodes: Sequence[Opcode], first: int, last: int) -> tuple[int, int]:
    """Where arrival lines ``first..last`` (1-based) are now: the 1-based current range covering
    them and every change among them; ``(n, n - 1)`` when they were all removed (line ``n``
    followed them)."""
    lo, hi = first - 1, last  # 0-based half-open
    now: list[int] = []
    follows: int | None = None
    for tag, i1, i2, j1, j2 in opcodes:
        inside = lo < i1 < hi if i1 == i2 else i1 < hi and i2 > lo
        if not inside:
            continue
        follows = j1 if follows is None else follows
        if tag == "equal":
            now.extend(range(j1 + max(lo, i1) - i1, j1 + min(hi, i2) - i1))
        else:
            now.extend(range(j1, j2))
    if not now:
        return (follows or 0) + 1, follows or 0
    return min(now) + 1, max(now) + 1


def refusal(display: str, lines: Sequence[str], first: int, last: int, max_chars: int) -> str:
    """The message refusing an edit whose lines ``first..last`` (current, 1-based; empty when
    removed) another call of the session changed while it waited, quoting them as they are
    (``12: text``; sealed as grep's rows are when one reads like leanread's frame)."""
    head = f"old_string is in {display} as you had it when you sent this edit, but another of your calls "
    if last < first:
        return (
            f"{head}removed those lines while this edit waited, so nothing was edited; read line {first} on "
            "and retry if you still mean to change it."
        )
    shown = range(first, min(last, first + MAX_QUOTED_LINES - 1) + 1)
    quote = [f"{n}: {cut_line(lines[n - 1], max_chars)}" for n in shown]
    more = f" (first {len(shown)} of {last - first + 1})" if last > shown[-1] else ""
    verb = "reads" if first == last else "read"
    said = (
        f"{head}changed {span(first, last)} while this edit waited, so nothing was edited; "
        f"{'it' if first == last else 'they'} now {verb}{more}:"
    )
    retry = Own("Retry the edit against the current text if you still mean it.")
    return plain_or_framed(display, "refusal", [Own(said), *quote, retry])


def write_refusal(display: str, came: Arrival) -> str:
    """The message refusing a write whose file another call changed (or created) while it waited."""
    what = "changed" if came.existed else "created"
    return (
        f"write would replace {display}, which another of your calls {what} while this write waited, so nothing "
        "was written; read it and retry (or change it with edit) if you still mean to replace it."
    )
