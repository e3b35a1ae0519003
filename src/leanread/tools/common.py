"""What the tools share: their context, loading a file's text, and the model's knowledge of it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..config import Limits, Policy
from ..instructions import Instruction, governing, load
from ..knowledge import Knowledge, KnownLine, carry_records, know
from ..ledger import LedgerStore, LineRange, ViewRecord
from ..lineindex import LineIndexCache, StaleIndex
from ..textfile import IndexedLines, TextFile, decode, decode_indexed
from ..workspace import Resolved, Workspace, read_regular_file

#: Line indexes of big files, shared by every session of the process.
_INDEXES = LineIndexCache()

#: Bytes of one instruction file attached to a result at most.
INSTRUCTION_BYTES = 16 * 1024


@dataclass(frozen=True)
class ToolContext:
    """What a tool needs from its session: the workspace, the ledger, the limits and policy."""

    workspace: Workspace
    ledger: LedgerStore
    session_id: str
    limits: Limits
    policy: Policy


def load_text(ctx: ToolContext, resolved: Resolved, first: int = 1, limit: int | None = None) -> TextFile:
    """The file decoded whole, or for a file over ``limits.index_bytes`` the window of ``limit``
    lines from ``first`` read through the cached line index (``limit=None``: decode whole)."""
    if limit is None or resolved.size <= ctx.limits.index_bytes:
        return decode(read_regular_file(resolved), resolved.display, ctx.limits.sniff_bytes)
    head = read_regular_file(resolved, ctx.limits.sniff_bytes)
    budget = ctx.limits.max_bytes + 4 * ctx.limits.max_line_chars
    try:
        index = _INDEXES.get(
            resolved.real, resolved.size, resolved.mtime_ns, ino=resolved.ino, ctime_ns=resolved.ctime_ns
        )
    except StaleIndex:  # changed between stat and index: index what is there now
        resolved = ctx.workspace.resolve(resolved.real)
        index = _INDEXES.get(
            resolved.real, resolved.size, resolved.mtime_ns, ino=resolved.ino, ctime_ns=resolved.ctime_ns
        )
    return decode_indexed(index, resolved.real, resolved.display, head, first, limit, budget)


def whole_lines(text_file: TextFile) -> list[str] | None:
    """All lines of the file, or None when only a window of it was loaded."""
    return None if isinstance(text_file.lines, IndexedLines) else list(text_file.lines)


def knowledge_of(ctx: ToolContext, resolved: Resolved, text_file: TextFile) -> Knowledge:
    """What the model knows of this version; keeps the version's text for later diffs."""
    lines = whole_lines(text_file)
    if lines is not None:
        ctx.ledger.put_version(text_file.content_hash, "\n".join(lines))
    records = ctx.ledger.views_of(ctx.session_id, resolved.real)
    return know(records, text_file.content_hash, lines, ctx.ledger.get_version)


def record_view(
    ctx: ToolContext,
    call_id: str,
    resolved: Resolved,
    text_file: TextFile,
    ranges: tuple[LineRange, ...],
    *,
    kind: str,
    knowledge: Knowledge | None = None,
    renumbered: Iterable[int] = (),
    instructions: tuple[str, ...] = (),
) -> None:
    """Record what this call showed; first carry what the model knew of an older version onto
    this one (``knowledge`` of that version mapped here), so it is not lost.

    ``renumbered``: lines of this version the result placed for the model without showing them
    (a diff's unchanged lines): they are carried under their new numbers.
    """
    shown = {n for a, b in ranges for n in range(a, b + 1)}
    placed = set(renumbered)
    if knowledge is not None:
        if knowledge.changed_since is not None:  # carry all it knows onto this version
            lines = {n: KnownLine(k.call_id, n) if n in placed else k for n, k in knowledge.lines.items()}
        else:  # same version: only lines this result placed under new numbers
            lines = {n: KnownLine(k.call_id, n) for n, k in knowledge.lines.items() if n in placed and k.then != n}
        moved = replace(knowledge, lines=lines)
        for carry in carry_records(
            moved, resolved.real, text_file.content_hash, text_file.size, resolved.mtime_ns, skip=shown
        ):
            ctx.ledger.record(ctx.session_id, carry)
    ctx.ledger.record(
        ctx.session_id,
        ViewRecord(
            call_id,
            resolved.real,
            text_file.content_hash,
            ranges,
            text_file.size,
            resolved.mtime_ns,
            kind=kind,
            instructions=instructions,
        ),
    )


def new_instructions(ctx: ToolContext, resolved: Resolved) -> list[Instruction]:
    """Instruction files governing the file that the model does not have in view yet."""
    seen = ctx.ledger.visible_instructions(ctx.session_id)
    fresh = [real for real in governing(ctx.workspace, resolved.real, ctx.policy) if real not in seen]
    return load(ctx.workspace, fresh, INSTRUCTION_BYTES)
