"""The reader of outlines and symbols: the outline of a big file (or of any file, asked for by
``mode="outline"``), and the range of one definition found by name (``symbol=``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ...code.outline import (
    HEAD_TAIL_LINES,
    Outline,
    Symbol,
    find_symbol,
    head_and_tail,
    language_of,
    outline,
    shown_lines,
)
from ...code.outlinehead import head_lines
from ...errors import InvalidArgument
from ...files.textfile import IndexedLines, content_hash, load_text
from ...ledger.knowledge import Knowledge, ranges_of
from ...result import ToolResult
from ...tokens import count_tokens
from ...view.outlineview import render_outline, render_outline_unchanged
from ..common import knowledge_of, record_view
from .shared import Opened, facts_of, sight


def big(opened: Opened) -> bool:
    """Whether a whole-file read gets the outline in ``auto`` mode."""
    limits, resolved = opened.job.ctx.limits, opened.resolved
    lines = len(opened.text_file.lines)
    # A file of a few huge lines (minified code) is already compact as read cuts it.
    return lines > limits.outline_lines or (resolved.size > limits.outline_bytes and lines > 2 * HEAD_TAIL_LINES)


#: A whole read of a big file that fits one window gets its outline only when the outline is at
#: most this share of the file's bytes; else the text costs little more and needs no follow-up.
OUTLINE_SHARE = 0.5


@dataclass(frozen=True)
class Map:
    """An outline as the model would get it: what it lists, its text, the lines it shows whole."""

    made: Outline
    text: str
    whole: tuple[int, ...]


def map_of(opened: Opened, start: int) -> Map:
    """The outline of the file, its definitions from line ``start`` on."""
    ctx, resolved, text_file = opened.job.ctx, opened.resolved, opened.text_file
    total = len(text_file.lines)
    if isinstance(text_file.lines, IndexedLines):  # too big to parse: head and tail through the index
        made = head_and_tail(total)
        held = {n: load_text(resolved, ctx.limits, n, 1).lines[n - 1] for n in shown_lines(made)}
        line_of: Callable[[int], str] = held.__getitem__
    else:
        made = outline(resolved.display, text_file.lines)
        lines = text_file.lines
        line_of = lambda n: lines[n - 1]  # noqa: E731
    if start > 1:  # going on with a long outline, under the rows of the definitions around line start
        symbols = tuple(sym for sym in made.symbols if sym.last >= start)
        later = tuple((a, b) for a, b in made.later if b >= start)
        made = replace(made, head=(), left_out=(), symbols=symbols, later=later)
    text, whole = render_outline(resolved.display, made, line_of, ctx.limits, facts=facts_of(text_file), start=start)
    return Map(made, text, whole)


def pays(opened: Opened, mapped: Map) -> bool:
    """Whether a whole read in ``auto`` mode gets the outline rather than the text: always for a
    file over one window. One that fits gets its text when the outline would be unsure (code that
    does not parse), would hide most of it (head and tail of a file that is not a log, one
    definition over half the file) or would cost over ``OUTLINE_SHARE`` of its bytes."""
    limits, resolved = opened.job.ctx.limits, opened.resolved
    fits = len(opened.text_file.lines) <= limits.max_lines and resolved.size <= limits.max_bytes
    made = mapped.made
    if not fits:
        return True
    if made.problem or _one_body(made) or (not made.symbols and language_of(resolved.display) != "log"):
        return False
    return len(mapped.text.encode()) <= OUTLINE_SHARE * resolved.size


def _one_body(made: Outline) -> bool:
    """Whether one definition with nothing listed inside it spans over half the file's lines."""
    big = [s for s in made.symbols if 2 * (s.last - s.first + 1) > made.total]
    return any(not any(t is not s and s.first <= t.first and t.last <= s.last for t in made.symbols) for s in big)


def read_outline(opened: Opened, mapped: Map, start: int) -> ToolResult:
    """The outline ``mapped`` (of the file's definitions from line ``start`` on); its head,
    signature and tail lines count as seen. The same outline again, while the model still has it
    and every line it shows, is a stub (unless the read is ``fresh``)."""
    ctx, resolved, text_file, call_id = opened.job.ctx, opened.resolved, opened.text_file, opened.job.call_id
    attached, fresh = opened.attached, opened.job.request.fresh
    made, text, whole = mapped.made, mapped.text, mapped.whole
    knowledge = knowledge_of(ctx, resolved, text_file)
    outline_view, as_lines = sight(resolved, f"outline@{start}", content_hash(text.encode()), len(text))
    seen = knowledge_of(ctx, outline_view, as_lines)
    earlier = None if fresh else _earlier_outline(seen, knowledge, whole)
    if earlier:
        text = render_outline_unchanged(resolved.display)
    record_view(ctx, call_id, outline_view, as_lines, () if earlier else ((1, 1),), kind="read", knowledge=seen)
    shown = () if earlier else ranges_of(whole)
    # outline rows: seen (an edit may change them), not held as text (``knowledge.INDEX_KINDS``)
    record_view(ctx, call_id, resolved, text_file, shown, kind="outline", knowledge=knowledge, instructions=attached)
    runs = () if earlier else text_runs(made, whole)
    if runs:  # the head (imports, a log's head and tail) is the file's text: a later read may mark it
        record_view(ctx, call_id, resolved, text_file, runs, kind="read")
    tokens = count_tokens(text)
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": resolved.display,
        "type": "outline",
        "mode": "stub" if earlier else "outline",
        "unchanged_since": [earlier] if earlier else None,
        "language": made.language,
        "problem": made.problem,
        "total_lines": len(text_file.lines),
        "symbols": len(made.symbols),
        "shown_lines": len(whole),
        "content_hash": text_file.content_hash,
        "size": text_file.size,
        "mtime_ns": resolved.mtime_ns,
        "tokens": tokens,
    }
    return ToolResult(text, metadata=metadata)


def text_runs(made: Outline, whole: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The runs of lines an outline shows as the file's text, every line of the run in order
    under its number: its head, the imports among its rows, a log's tail (of the lines in
    ``whole``, those shown uncut); line ranges, 1-based and inclusive."""
    text = {*head_lines(made.head), *head_lines(made.later)}
    text |= set(range(made.tail, made.total + 1)) if made.tail else set()
    return ranges_of(tuple(n for n in whole if n in text))


def _earlier_outline(seen: Knowledge, knowledge: Knowledge, whole: tuple[int, ...]) -> str | None:
    """The call that gave this very outline, when it is still in the context window and the model
    has every line the outline shows whole, under the same number."""
    if not seen.unchanged or 1 not in seen.lines:
        return None
    if any(n not in knowledge.lines or knowledge.lines[n].then != n for n in whole):
        return None
    return seen.lines[1].call_id


def definition(opened: Opened, name: str) -> tuple[Symbol, str | None]:
    """The definition ``name`` of the file, and why its range may be off (see ``Outline.problem``).

    Raises:
        InvalidArgument: no such definition (or several), the reason named when the file does
            not parse.
    """
    display = opened.resolved.display
    made = outline(display, opened.text_file.lines)
    try:
        return find_symbol(made, name, display), made.problem
    except InvalidArgument as exc:
        if made.problem is None:
            raise
        raise InvalidArgument(
            f"{exc} ({made.problem}, so the map may miss it; read the lines with offset and limit.)"
        ) from exc
