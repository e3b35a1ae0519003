"""The ``read`` tool: a window of a text file (or a directory's entries), capped, decorated, and
deduplicated against what the model still has in its context window."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .. import documents, pruning
from ..config import READ_MODES, Limits
from ..diffing import DiffLine, format_hunk, hunks, moved_clause, moved_runs, window_lines
from ..documents import images as document_images
from ..documents import registry as document_registry
from ..errors import InvalidArgument, NotText, PathError
from ..formats import FORMATS, Format, decorate
from ..frame import Own
from ..instructions import Instruction, reminder
from ..knowledge import Knowledge, KnownLine, as_known, hunks_known, ranges_of
from ..ledger import LineRange
from ..names import show_path
from ..outline import HEAD_TAIL_LINES, Outline, Symbol, find_symbol, head_and_tail, language_of, outline, shown_lines
from ..render import (
    Window,
    envelope,
    file_facts,
    render_body,
    render_outline,
    render_outline_unchanged,
    render_slice,
    render_unchanged,
    render_window,
    select_slice,
    select_window,
    unchanged_marker,
)
from ..result import ImageData, ToolResult
from ..textfile import IndexedLines, TextFile, content_hash
from ..tokens import count_tokens
from ..workspace import Resolved, read_regular_file
from .common import ToolContext, audit_focus, knowledge_of, load_text, new_instructions, record_view

NAME = "read"

#: Model-facing description of each parameter (MCP input schema, CLI help).
PARAMETERS: dict[str, str] = {
    "path": "File or folder to read: relative to the workspace root, or absolute inside it. "
    "Omit it to go on with the file you read last.",
    "offset": "1-based line number to start from (0 is taken as 1). Default: 1.",
    "limit": "Number of lines to read. Default: the line limit.",
    "format": "plain (default): lines exactly as in the file; tab: `41<TAB>code`; colon: `41: code`; "
    "catn: `cat -n` style; visible: tabs as ^I, controls as ^X, `$` at line ends. "
    "Numbers and markers are display only.",
    "fresh": "true: return the full text even if you already have these lines unchanged.",
    "char_offset": "With offset=N: read line N from this 1-based character on (for lines cut at the line-length cap).",
    "mode": "auto (default): a whole read of a big file gives its outline; full: always the lines (of a "
    "notebook: its JSON, to edit it); outline: the outline of any file.",
    "symbol": 'Read one definition by name, e.g. "QuerySet.filter" (names are in the outline).',
    "focus": 'A complete, self-contained question about the file, e.g. "How does parse_header handle quoted '
    'values?": only the lines relevant to it are shown, the rest as `… lines A-B omitted …` markers.',
    "match_id": "A match id from a grep result (m4): read the lines around that match instead of giving path and "
    "offset.",
    "context_before": "With match_id: lines to show before the match. Default: 20.",
    "context_after": "With match_id: lines to show after the match. Default: 20.",
}


@dataclass(frozen=True)
class ReadRequest:
    """The parameters of one ``read`` call (see ``PARAMETERS``); ``path`` is already resolved
    from the session when the caller omitted it."""

    path: str
    offset: int | None = None
    limit: int | None = None
    format: str = "plain"
    fresh: bool = False
    char_offset: int | None = None
    mode: str | None = None
    symbol: str | None = None
    focus: str | None = None
    #: A line the answer shows as text even when the model has it (a ``match_id`` read's match).
    anchor: int | None = None

    @property
    def whole_file(self) -> bool:
        """No window asked for: the read may give the outline of a big file."""
        return self.offset is None and self.limit is None and self.char_offset is None and self.symbol is None


def _check(request: ReadRequest) -> Format:
    if request.offset is not None and request.offset < 0:
        raise InvalidArgument(f"offset must be 1 or more (got {request.offset}); use offset=1 for the start.")
    if request.limit is not None and request.limit < 1:
        raise InvalidArgument(f"limit must be 1 or more (got {request.limit}); omit it to read up to the default.")
    if request.char_offset is not None and request.char_offset < 1:
        raise InvalidArgument(f"char_offset must be 1 or more (got {request.char_offset}).")
    if request.char_offset is not None and request.offset is None:
        raise InvalidArgument(
            "char_offset needs offset: pass offset=N too to read line N from that character on."
        )
    if request.mode is not None and request.mode not in READ_MODES:
        raise InvalidArgument(f"mode must be one of {', '.join(READ_MODES)} (got {request.mode!r}).")
    if request.symbol is not None and (request.offset is not None or request.char_offset is not None):
        raise InvalidArgument("symbol reads a whole definition; leave out offset and char_offset.")
    if request.format not in FORMATS:
        raise InvalidArgument(f"format must be one of {', '.join(FORMATS)} (got {request.format!r}).")
    return request.format  # type: ignore[return-value]


def _first_line(request: ReadRequest, display: str, total: int) -> int:
    first = max(request.offset or 1, 1)
    if total and first > total:
        raise InvalidArgument(
            f"offset={first} is past the end of {display}, which has {total} lines; use an offset from 1 to {total}."
        )
    return first if total else 1


def _metadata(call_id: str, display: str, kind: str, window: Window, tokens: int) -> dict[str, Any]:
    return {
        "call_id": call_id,
        "path": display,
        "type": kind,
        "offset": window.first,
        "last_line": window.last,
        "total_lines": window.total,
        "next_offset": window.next_offset,
        "truncated": None if window.stop == "eof" else window.stop,
        "cut_lines": [number for number, _ in window.cut_lines],
        "unchanged_since": None,
        "tokens": tokens,
        "full_tokens": tokens,
    }


def _entry_name(entry: os.DirEntry[str]) -> str:
    """The listed name: folders end with ``/``; a link that cannot be followed (a loop, a
    missing target) is listed as it is; the name is escaped as every path is (``names.show_path``)."""
    try:
        is_dir = entry.is_dir()
    except OSError:
        is_dir = False
    return show_path(entry.name) + ("/" if is_dir else "")


def _list_directory(ctx: ToolContext, request: ReadRequest, resolved: Resolved, call_id: str) -> ToolResult:
    if request.char_offset is not None:
        raise InvalidArgument(f"{resolved.display} is a directory; char_offset applies to file lines only.")
    try:
        with os.scandir(resolved.real) as entries:
            names = sorted(_entry_name(entry) for entry in entries)
    except OSError as exc:
        raise PathError(f"Cannot list {resolved.display}: {exc.strerror}.") from None
    first = _first_line(request, resolved.display, len(names))
    window = select_window(names, first, request.limit or ctx.limits.max_lines, ctx.limits, "plain")
    text = render_window(resolved.display, window, "plain", ctx.limits, final_newline=True, kind="directory")
    return ToolResult(text, metadata=_metadata(call_id, resolved.display, "directory", window, count_tokens(text)))


def _read_line_slice(
    request: ReadRequest, resolved: Resolved, text_file: TextFile, limits: Limits, call_id: str
) -> ToolResult:
    total = len(text_file.lines)
    number = _first_line(request, resolved.display, total)
    line = text_file.lines[number - 1] if total else ""
    start = request.char_offset or 1
    if start > max(len(line), 1):
        after = f"use offset={number + 1} to read on" if number < total else "it is the last line of the file"
        raise InvalidArgument(
            f"char_offset={start} is past the end of line {number}, which has {len(line):,} characters; {after}."
        )
    part = select_slice(line, number, total, start, limits)
    text = render_slice(resolved.display, part, final_newline=text_file.final_newline)
    tokens = count_tokens(text)
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": resolved.display,
        "type": "file",
        "offset": number,
        "char_offset": part.start,
        "last_char": part.end,
        "line_chars": part.length,
        "total_lines": total,
        "content_hash": text_file.content_hash,
        "tokens": tokens,
        "full_tokens": tokens,
    }
    return ToolResult(text, metadata=metadata)


def _facts(text_file: TextFile) -> str | None:
    growing = (len(text_file.lines), text_file.size) if text_file.growing else None
    return file_facts(
        text_file.encoding,
        text_file.newline,
        text_file.invalid_bytes,
        text_file.mixed_newlines,
        nul_bytes=text_file.nul_bytes,
        growing=growing,
    )


def _render_lines(
    ctx: ToolContext,
    resolved: Resolved,
    text_file: TextFile,
    window: Window,
    body: list[str],
    *,
    note: str | None = None,
    shown_as: str | None = None,
) -> str:
    """The window given as ``body`` (decorated lines, markers or diff hunks) in its envelope,
    with the file's facts (``note`` above them)."""
    facts = _facts(text_file)
    if note:
        facts = f"{note}\n{facts}" if facts else note
    return render_body(
        resolved.display,
        window,
        body,
        ctx.limits,
        final_newline=text_file.final_newline,
        facts=facts,
        shown_as=shown_as,
    )


def _render(ctx: ToolContext, resolved: Resolved, text_file: TextFile, window: Window, fmt: Format) -> str:
    return render_window(
        resolved.display,
        window,
        fmt,
        ctx.limits,
        final_newline=text_file.final_newline,
        facts=_facts(text_file),
    )


@dataclass
class _Output:
    """One way to answer a read: the text, the lines it shows whole, and the calls it points to."""

    text: str
    shown: tuple[LineRange, ...]
    points_to: list[str]
    mode: str
    renumbered: tuple[int, ...] = ()
    tokens: int = 0

    def __post_init__(self) -> None:
        self.tokens = count_tokens(self.text)


def _known_runs(window: Window, knowledge: Knowledge) -> list[tuple[int, int, KnownLine | None]]:
    """The window cut into runs ``(first, last, known)``: lines the model has from one call under
    numbers moved by one offset (``known`` is the run's first line), or (``None``) lines it does
    not have. Cut lines never count as had."""
    cut = {n for n, _ in window.cut_lines}
    runs: list[tuple[int, int, KnownLine | None]] = []
    for n in range(window.first, window.last + 1):
        known = None if n in cut else knowledge.lines.get(n)
        if runs:
            a, _, head = runs[-1]
            same = (known is None and head is None) or (
                known is not None
                and head is not None
                and known.call_id == head.call_id
                and known.then - n == head.then - a
            )
            if same:
                runs[-1] = (a, n, head)
                continue
        runs.append((n, n, known))
    return runs


def _elided(
    ctx: ToolContext, resolved: Resolved, text_file: TextFile, window: Window, fmt: Format, knowledge: Knowledge
) -> _Output:
    """The window with each run of lines the model already has replaced by a marker, where the
    marker is cheaper than the lines."""
    body: list[str] = []
    shown: list[int] = []
    placed: list[int] = []  # lines a marker stands for: the model now has them under these numbers
    points_to: list[str] = []
    cut = {n for n, _ in window.cut_lines}
    for a, b, known in _known_runs(window, knowledge):
        decorated = [decorate(n, window.lines[n - window.first], fmt) for n in range(a, b + 1)]
        if known is not None:
            marker = unchanged_marker(a, b, known.then)
            if count_tokens(marker) < count_tokens("\n".join(decorated)):
                body.append(marker)
                points_to.append(known.call_id)
                placed.extend(range(a, b + 1))
                continue
        body.extend(decorated)
        shown.extend(n for n in range(a, b + 1) if n not in cut)
    changed = None
    if knowledge.changed_since is not None and points_to:
        changed = f"({resolved.display} changed since you read it; the lines marked unchanged are as you saw them.)"
    text = _render_lines(ctx, resolved, text_file, window, body, note=changed)
    mode = "elided" if points_to else "full"
    return _Output(text, ranges_of(shown), list(dict.fromkeys(points_to)), mode, renumbered=tuple(placed))


def _stub(
    ctx: ToolContext, resolved: Resolved, text_file: TextFile, window: Window, knowledge: Knowledge
) -> _Output | None:
    """The stub when the model has every line of the window of this very version."""
    if not knowledge.unchanged or not window.lines or knowledge.missing(window.first, window.last):
        return None
    if window.cut_lines or any(knowledge.lines[n].then != n for n in range(window.first, window.last + 1)):
        return None  # a cut line, or lines the model knows by other numbers: markers say which
    calls = sorted({knowledge.lines[n].call_id for n in range(window.first, window.last + 1)}, key=_call_order)
    text = render_unchanged(resolved.display, window, ctx.limits, final_newline=text_file.final_newline)
    return _Output(text, (), calls, "stub")


def _call_order(call_id: str) -> tuple[int, str]:
    """Sort ``r2`` before ``r10``; other ids (the harness's) by text."""
    return (int(call_id[1:]), "") if call_id[1:].isdigit() else (1 << 62, call_id)


def _implied_lines_known(
    lines: list[DiffLine], groups: list[list[DiffLine]], in_hunks: set[int], knowledge: Knowledge
) -> bool:
    """Whether every line the diff leaves out is one the model has, under the number a reader
    applying the diff would give it: lines before the first hunk keep that hunk's starting offset
    (new minus old), lines after a hunk its ending offset; old numbers as the model knows them."""
    edges: list[tuple[int, int]] = []  # (new number, new - old) at each hunk's edge context lines
    for group in groups:
        for line in (group[0], group[-1]):
            old = as_known(line, knowledge).old
            if line.tag == " " and line.new is not None and old is not None:
                edges.append((line.new, line.new - old))
    for line in lines:
        if line.tag != " " or line.new is None or line.new in in_hunks:
            continue
        known = knowledge.lines.get(line.new)
        before = [offset for new, offset in edges if new < line.new]
        offset = before[-1] if before else edges[0][1] if edges else 0
        if known is None or known.then != line.new - offset:
            return False
    return True


def _diff(
    ctx: ToolContext, resolved: Resolved, text_file: TextFile, window: Window, knowledge: Knowledge
) -> _Output | None:
    """The window as a unified diff against the version the model saw, when it saw every line
    the diff leaves out or removes."""
    if knowledge.opcodes is None or knowledge.seen_text is None or window.cut_lines:
        return None
    lines = window_lines(knowledge.opcodes, knowledge.seen_text, text_file.lines, window.first, window.last)
    if lines is None or all(line.tag == " " for line in lines):
        return None
    groups = hunks(lines, context=1)
    if not hunks_known(groups, knowledge):
        return None
    in_hunks = {line.new for group in groups for line in group if line.new is not None}
    if not _implied_lines_known(lines, groups, in_hunks, knowledge):
        return None
    calls = list(
        dict.fromkeys(knowledge.seen[line.old].call_id for g in groups for line in g if line.old in knowledge.seen)
    )
    body = [row for group in groups for row in format_hunk([as_known(line, knowledge) for line in group])]
    outside = [(n, knowledge.lines[n].then) for n in range(window.first, window.last + 1) if n not in in_hunks]
    moved = moved_clause(moved_runs(outside))
    header = Own(
        f"({resolved.display} changed since you read it. Lines {window.first}-{window.last} as a diff against "
        f"what you were shown; lines outside the hunks are unchanged{';' + moved if moved else ''}.)"
    )
    text = _render_lines(ctx, resolved, text_file, window, [header, *body], shown_as="diff")
    window_numbers = tuple(range(window.first, window.last + 1))
    return _Output(text, ranges_of(in_hunks), calls, "diff", renumbered=window_numbers)


def _answer(
    ctx: ToolContext,
    resolved: Resolved,
    text_file: TextFile,
    window: Window,
    fmt: Format,
    knowledge: Knowledge,
    fresh: bool,
) -> _Output:
    """The cheapest truthful answer: the full window, a stub, a diff, or the window with markers."""
    full = _Output(_render(ctx, resolved, text_file, window, fmt), window.full_ranges, [], "full")
    if fresh or fmt != "plain" or knowledge.seen_hash is None or not window.lines:
        return full  # line numbers were asked for: a stub or markers would not give them
    stub = _stub(ctx, resolved, text_file, window, knowledge)
    if stub is not None and stub.tokens < full.tokens:
        return stub
    diff = _diff(ctx, resolved, text_file, window, knowledge)
    if diff is not None and diff.tokens * 2 < full.tokens:
        return diff
    elided = _elided(ctx, resolved, text_file, window, fmt, knowledge)
    return elided if elided.tokens < full.tokens else full


def _focused(
    ctx: ToolContext,
    resolved: Resolved,
    text_file: TextFile,
    window: Window,
    fmt: Format,
    question: str,
    asked_limit: bool,
    knowledge: Knowledge,
) -> tuple[_Output | None, dict[str, Any]]:
    """The window pruned to the lines that answer ``question`` (None: shown whole), and the
    ``focus`` metadata: ``kept_lines``/``total_lines`` or why it was ``skipped``/``fail_open``.
    A run of kept lines the model already has, under the same numbers, is one unchanged marker."""
    # cut: a long line cut, or the window stopped by the byte cap or the default line limit (a
    # window that ends at the caller's own limit is whole as asked)
    cut = bool(window.cut_lines) or window.stop == "bytes" or (window.stop == "limit" and not asked_limit)
    result = pruning.prune(ctx.pruner, window.lines, question, language_of(resolved.display), already_cut=cut)
    info: dict[str, Any] = {"question": question, "backend": pruning.backend_name(ctx.pruner), **result.metadata}
    if not result.pruned:
        return None, info
    cut_numbers = {n for n, _ in window.cut_lines}

    def held(a: int, b: int) -> str | None:
        had = all(n not in cut_numbers and getattr(knowledge.lines.get(n), "then", None) == n for n in range(a, b + 1))
        return unchanged_marker(a, b, a) if had else None

    body, shown_numbers = pruning.focus_body(
        window.lines, window.first, result.kept, lambda n, line: decorate(n, line, fmt), held
    )
    kept_numbers = {window.first + i - 1 for a, b in result.kept for i in range(a, b + 1)}
    held_numbers = sorted(kept_numbers - set(shown_numbers))
    header = pruning.focus_header(len(shown_numbers) + len(held_numbers), len(window.lines), question)
    text = _render_lines(ctx, resolved, text_file, window, [header, *body])
    info.update(kept_lines=len(shown_numbers) + len(held_numbers), total_lines=len(window.lines))
    points_to = list(dict.fromkeys(knowledge.lines[n].call_id for n in held_numbers))
    return _Output(text, ranges_of(shown_numbers), points_to, "focus"), info


def _big(ctx: ToolContext, resolved: Resolved, text_file: TextFile) -> bool:
    """Whether a whole-file read gets the outline in ``auto`` mode."""
    lines = len(text_file.lines)
    # A file of a few huge lines (minified code) is already compact as read cuts it.
    return lines > ctx.limits.outline_lines or (
        resolved.size > ctx.limits.outline_bytes and lines > 2 * HEAD_TAIL_LINES
    )


#: A whole read of a big file that fits one window gets its outline only when the outline is at
#: most this share of the file's bytes; else the text costs little more and needs no follow-up.
OUTLINE_SHARE = 0.5


@dataclass(frozen=True)
class _Map:
    """An outline as the model would get it: what it lists, its text, the lines it shows whole."""

    made: Outline
    text: str
    whole: tuple[int, ...]


def _map_of(ctx: ToolContext, resolved: Resolved, text_file: TextFile, start: int) -> _Map:
    """The outline of the file, its definitions from line ``start`` on."""
    total = len(text_file.lines)
    if isinstance(text_file.lines, IndexedLines):  # too big to parse: head and tail through the index
        made = head_and_tail(total)
        held = {n: load_text(ctx, resolved, n, 1).lines[n - 1] for n in shown_lines(made)}
        line_of: Callable[[int], str] = held.__getitem__
    else:
        made = outline(resolved.display, text_file.lines)
        lines = text_file.lines
        line_of = lambda n: lines[n - 1]  # noqa: E731
    if start > 1:  # going on with a long outline, under the rows of the definitions around line start
        made = replace(made, head=0, symbols=tuple(sym for sym in made.symbols if sym.last >= start))
    text, whole = render_outline(resolved.display, made, line_of, ctx.limits, facts=_facts(text_file), start=start)
    return _Map(made, text, whole)


def _pays(ctx: ToolContext, resolved: Resolved, text_file: TextFile, mapped: _Map) -> bool:
    """Whether a whole read in ``auto`` mode gets the outline rather than the text: always for a
    file over one window. One that fits gets its text when the outline would be unsure (code that
    does not parse), would hide most of it (head and tail of a file that is not a log, one
    definition over half the file) or would cost over ``OUTLINE_SHARE`` of its bytes."""
    fits = len(text_file.lines) <= ctx.limits.max_lines and resolved.size <= ctx.limits.max_bytes
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


def _read_outline(
    ctx: ToolContext,
    resolved: Resolved,
    text_file: TextFile,
    call_id: str,
    attached: tuple[str, ...],
    mapped: _Map,
    start: int,
    fresh: bool,
) -> ToolResult:
    """The outline ``mapped`` (of the file's definitions from line ``start`` on); its head,
    signature and tail lines count as seen. The same outline again, while the model still has it
    and every line it shows, is a stub (unless ``fresh``)."""
    made, text, whole = mapped.made, mapped.text, mapped.whole
    knowledge = knowledge_of(ctx, resolved, text_file)
    sight, as_lines = _sight(resolved, f"outline@{start}", content_hash(text.encode()), len(text))
    seen = knowledge_of(ctx, sight, as_lines)
    earlier = None if fresh else _earlier_outline(seen, knowledge, whole)
    if earlier:
        text = render_outline_unchanged(resolved.display)
    record_view(ctx, call_id, sight, as_lines, () if earlier else ((1, 1),), kind="read", knowledge=seen)
    shown = () if earlier else ranges_of(whole)
    record_view(ctx, call_id, resolved, text_file, shown, kind="read", knowledge=knowledge, instructions=attached)
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


def _sight(resolved: Resolved, what: str, digest: str, size: int) -> tuple[Resolved, TextFile]:
    """Something shown whole that is not the file's lines (an image, an outline page) as the
    ledger knows it: a one-line version of a file of its own (``path#what``), named by
    ``digest``; that line is the thing shown."""
    return replace(resolved, real=f"{resolved.real}#{what}"), TextFile(
        (what,), "utf-8", False, "\n", True, f"{digest}:{what}", size
    )


def _earlier_outline(seen: Knowledge, knowledge: Knowledge, whole: tuple[int, ...]) -> str | None:
    """The call that gave this very outline, when it is still in the context window and the model
    has every line the outline shows whole, under the same number."""
    if not seen.unchanged or 1 not in seen.lines:
        return None
    if any(n not in knowledge.lines or knowledge.lines[n].then != n for n in whole):
        return None
    return seen.lines[1].call_id


def run(ctx: ToolContext, request: ReadRequest, call_id: str) -> ToolResult:
    """Execute one ``read``; what it showed is recorded in the ledger under ``call_id``.

    Raises:
        LeanreadError: any refusal (bad argument, path outside the workspace or denied, missing
            file, special file, binary or undecodable content); the caller turns it into an
            error result.
    """
    fmt = _check(request)
    resolved = ctx.workspace.resolve(request.path)
    if resolved.is_dir:
        return _unfocused(ctx, _list_directory(ctx, request, resolved, call_id), request.focus, "directory")
    kind = document_registry.document_kind(resolved.display, read_regular_file(resolved, ctx.limits.sniff_bytes))
    if kind is not None:
        document = _read_document(ctx, request, resolved, kind, fmt, call_id)
        if document is not None:
            return _unfocused(ctx, document, request.focus, "document")
    slice_wanted = request.char_offset is not None and request.char_offset > 1
    limit = 1 if slice_wanted else request.limit or ctx.limits.max_lines
    mode = request.mode or ctx.limits.read_mode
    # an outline: of a whole read in auto/outline mode, or on from offset when asked for by name
    wants_map = not slice_wanted and (
        (request.whole_file and mode != "full") or (request.mode == "outline" and request.symbol is None)
    )
    needs_whole = request.symbol is not None or (wants_map and resolved.size <= ctx.limits.index_bytes)
    text_file = load_text(ctx, resolved, max(request.offset or 1, 1), None if needs_whole else limit)
    instructions = new_instructions(ctx, resolved)
    attached = tuple(i.real for i in instructions)
    if slice_wanted:
        result = _read_line_slice(request, resolved, text_file, ctx.limits, call_id)
        number = result.metadata["offset"]
        # The slice that reaches the end of a long line completes it: the hints lead there from the cut.
        whole = ((number, number),) if result.metadata["last_char"] >= result.metadata["line_chars"] else ()
        record_view(ctx, call_id, resolved, text_file, whole, kind="read", instructions=attached)
        return _unfocused(ctx, _with_instructions(result, instructions), request.focus, "part of a line")
    # a focus question on a whole read of a file that fits one window prunes its text, not its outline
    fits = len(text_file.lines) <= ctx.limits.max_lines and resolved.size <= ctx.limits.max_bytes
    focus_text = request.focus is not None and request.mode is None and fits
    big_whole = wants_map and _big(ctx, resolved, text_file)
    start = max(request.offset or 1, 1)
    if request.mode == "outline" and start > 1:
        _first_line(request, resolved.display, len(text_file.lines))  # past the end: say so
    mapped = _map_of(ctx, resolved, text_file, start) if wants_map and (mode == "outline" or big_whole) else None
    if mapped is not None and mode != "outline" and not _pays(ctx, resolved, text_file, mapped):
        big_whole = False
    if mapped is not None and (mode == "outline" or (big_whole and not focus_text)):
        result = _read_outline(ctx, resolved, text_file, call_id, attached, mapped, start, request.fresh)
        return _unfocused(ctx, _with_instructions(result, instructions), request.focus, "outline")
    problem = mapped.made.problem if mapped is not None else None
    if request.symbol is not None:
        found, problem = _definition(resolved, text_file, request.symbol)
        request = replace(request, offset=found.first, limit=found.last - found.first + 1)
        limit = request.limit or limit
    first = _first_line(request, resolved.display, len(text_file.lines))
    window = select_window(text_file.lines, first, limit, ctx.limits, fmt)
    knowledge = knowledge_of(ctx, resolved, text_file).without(request.anchor)
    answer = _answer(ctx, resolved, text_file, window, fmt, knowledge, request.fresh)
    focus: dict[str, Any] | None = None
    unpruned = answer.text
    if request.focus is not None:
        # a stub or a diff is already as short as the truth gets; the full window, or one with
        # markers for lines the model has, gives way to the pruned window when that is shorter
        if answer.mode in ("full", "elided"):
            focused, focus = _focused(
                ctx, resolved, text_file, window, fmt, request.focus, request.limit is not None, knowledge
            )
            if focused is not None and focused.tokens < answer.tokens:
                unpruned = _render(ctx, resolved, text_file, window, fmt)
                focus.update(tokens_before=count_tokens(unpruned), tokens_after=focused.tokens)
                answer = focused
            elif focused is not None:
                focus = {"question": request.focus, "skipped": f"answered as {answer.mode}, shorter than pruned"}
        else:
            focus = {"question": request.focus, "skipped": f"answered as {answer.mode}"}
        if mapped is not None and big_whole and answer.mode in ("full", "elided"):  # not pruned: its outline
            reason = focus.get("skipped") or focus.get("fail_open") or "not pruned"
            result = _read_outline(ctx, resolved, text_file, call_id, attached, mapped, start, request.fresh)
            shown_as = f"outline, as the text was not pruned ({reason})"
            return _unfocused(ctx, _with_instructions(result, instructions), request.focus, shown_as)
        audit_focus(ctx, "read", resolved.display, focus, unpruned, answer.text, "kept_lines" in focus)
    record_view(
        ctx,
        call_id,
        resolved,
        text_file,
        answer.shown,
        kind="read",
        knowledge=knowledge,
        renumbered=answer.renumbered,
        instructions=attached,
    )
    metadata = _metadata(call_id, resolved.display, "file", window, answer.tokens)
    metadata.update(
        mode=answer.mode,
        unchanged_since=answer.points_to or None,
        content_hash=text_file.content_hash,
        size=text_file.size,
        mtime_ns=resolved.mtime_ns,
        encoding=text_file.encoding,
        bom=text_file.bom,
        newline=text_file.newline,
        final_newline=text_file.final_newline,
        instructions=[i.display for i in instructions],
    )
    if focus is not None:
        metadata["focus"] = focus
    if answer.mode != "full" or fmt != "plain":
        plain = select_window(text_file.lines, first, limit, ctx.limits, "plain")
        metadata["full_tokens"] = count_tokens(_render(ctx, resolved, text_file, plain, "plain"))
    text = answer.text
    if problem:  # the model should know the file does not parse (its own edit may have broken it)
        what = "; this definition's range may be off" if request.symbol is not None else ""
        text = f"{text}\n({problem}{what}.)"
        metadata.update(problem=problem, tokens=count_tokens(text))
    return _with_instructions(ToolResult(text=text, metadata=metadata), instructions)


def _definition(resolved: Resolved, text_file: TextFile, name: str) -> tuple[Symbol, str | None]:
    """The definition ``name`` of the file, and why its range may be off (see ``Outline.problem``).

    Raises:
        InvalidArgument: no such definition (or several), the reason named when the file does
            not parse.
    """
    made = outline(resolved.display, text_file.lines)
    try:
        return find_symbol(made, name, resolved.display), made.problem
    except InvalidArgument as exc:
        if made.problem is None:
            raise
        raise InvalidArgument(
            f"{exc} ({made.problem}, so the map may miss it; read the lines with offset and limit.)"
        ) from exc


def _unfocused(ctx: ToolContext, result: ToolResult, question: str | None, shown_as: str) -> ToolResult:
    """``result`` (not a full-text window, so never pruned) with ``focus`` metadata saying so."""
    if question is None:
        return result
    focus: dict[str, Any] = {"question": question, "skipped": shown_as}
    if shown_as.startswith("outline") and not result.is_error:  # the model should know its question waits
        text = result.text + "\n" + OUTLINE_FOCUS_NOTE
        result = replace(result, text=text, metadata=dict(result.metadata, tokens=count_tokens(text)))
    audit_focus(ctx, "read", str(result.metadata.get("path", "")), focus, result.text, result.text, False)
    return replace(result, metadata=dict(result.metadata, focus=focus))


#: After an outline given for a read with a focus question.
OUTLINE_FOCUS_NOTE = (
    "(focus: an outline is not pruned; read a definition with symbol= or a range with offset/limit, "
    "with the same focus, to prune its text.)"
)


def _with_instructions(result: ToolResult, instructions: list[Instruction]) -> ToolResult:
    """The result with newly found instruction files attached after its content."""
    if not instructions:
        return result
    text = result.text + "\n" + reminder(instructions)
    metadata = dict(result.metadata, tokens=count_tokens(text))
    return replace(result, text=text, metadata=metadata)


def _load_document(resolved: Resolved, kind: str) -> bytes:
    if resolved.size > documents.MAX_DOCUMENT_BYTES:
        what = document_registry.NAMES.get(kind, "document")
        raise NotText(
            f"{resolved.display} is a {what} of {resolved.size:,} bytes, over the "
            f"{documents.MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB leanread extracts; split or convert it first."
        )
    return read_regular_file(resolved)


def _read_image(ctx: ToolContext, request: ReadRequest, resolved: Resolved, data: bytes, call_id: str) -> ToolResult:
    """An image as image content, downscaled to fit; the text gives both sizes. A re-read of the
    same bytes while the earlier result is still in the context gets a stub instead."""
    source_hash = content_hash(data)
    view, as_lines = _sight(resolved, "image", source_hash, len(data))
    knowledge = knowledge_of(ctx, view, as_lines)
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": resolved.display,
        "type": "image",
        "document": True,
        "content_hash": source_hash,
        "size": len(data),
        "mtime_ns": resolved.mtime_ns,
        "unchanged_since": None,
    }
    if not request.fresh and knowledge.unchanged and 1 in knowledge.lines:
        earlier = knowledge.lines[1].call_id
        text = envelope(
            resolved.display,
            "image",
            [
                f"(Image unchanged since you read it in {earlier}, still in your context. "
                "Use fresh=true to see it again.)"
            ],
        )
        record_view(ctx, call_id, view, as_lines, (), kind="read", knowledge=knowledge)
        return ToolResult(text, metadata=dict(metadata, unchanged_since=[earlier], tokens=count_tokens(text)))
    payload = document_images.prepare(data, resolved.display, ctx.limits.image_max_side, ctx.limits.image_max_bytes)
    text = envelope(resolved.display, "image", [document_images.describe(payload, len(data))])
    width, height = payload.sent_size
    image = ImageData(base64.b64encode(payload.data).decode("ascii"), payload.mime_type, width, height)
    record_view(ctx, call_id, view, as_lines, ((1, 1),), kind="read", knowledge=knowledge)
    metadata.update(
        format=payload.format,
        original_size=list(payload.original_size),
        sent_size=[width, height],
        sent_bytes=len(payload.data),
        mime_type=payload.mime_type,
        tokens=count_tokens(text),
        base64_bytes=len(image.data),
    )
    return ToolResult(text, metadata=metadata, images=(image,))


def _read_document(
    ctx: ToolContext, request: ReadRequest, resolved: Resolved, kind: str, fmt: Format, call_id: str
) -> ToolResult | None:
    """A document, notebook or image read through the same window, render and dedup path as
    text: the extracted lines stand for the file's lines. None: a zip that holds no document
    (read refuses it as binary), or a notebook asked for as its JSON (``mode="full"``)."""
    if kind == "notebook" and (request.mode == "full" or request.char_offset is not None or request.symbol):
        return None  # the notebook's JSON as text, to edit it
    if kind == "zip" and resolved.size > documents.MAX_DOCUMENT_BYTES:
        return None  # too big to look into: refused as binary
    data = _load_document(resolved, kind)
    if kind == "zip":
        found = document_registry.zip_kind(data, resolved.display)
        if found is None:
            return None
        kind = found
    if kind == "image":
        return _with_instructions(_read_image(ctx, request, resolved, data, call_id), new_instructions(ctx, resolved))
    if request.char_offset is not None or request.symbol is not None:
        raise InvalidArgument(
            f"{resolved.display} is a {document_registry.NAMES[kind]}; read its text with offset and limit "
            "(char_offset and symbol apply to text files)."
        )
    source_hash = content_hash(data)
    try:
        extracted = documents.extract(kind, data, resolved.display, source_hash)
    except documents.DocumentError:
        if kind == "notebook":
            return None  # not valid notebook JSON (a merge conflict, a half-written file): show the text
        raise
    # The extracted text is its own version: another path and hash in the ledger than the raw
    # file, so a notebook's cells never grant edits of its JSON, nor does one stand for the other.
    text_file = TextFile(
        lines=extracted.lines,
        encoding="utf-8",
        bom=False,
        newline="\n",
        final_newline=True,
        content_hash=f"{source_hash}:{kind}",
        size=len(data),
    )
    view = replace(resolved, real=f"{resolved.real}#{kind}")
    instructions = new_instructions(ctx, resolved)
    limit = request.limit or ctx.limits.max_lines
    first = _first_line(request, resolved.display, len(text_file.lines))
    window = select_window(text_file.lines, first, limit, ctx.limits, fmt)
    knowledge = knowledge_of(ctx, view, text_file)
    answer = _answer(ctx, view, text_file, window, fmt, knowledge, request.fresh)
    record_view(
        ctx,
        call_id,
        view,
        text_file,
        answer.shown,
        kind="read",
        knowledge=knowledge,
        renumbered=answer.renumbered,
        instructions=tuple(i.real for i in instructions),
    )
    text = _retyped(answer.text, resolved.display, kind)
    metadata = _metadata(call_id, resolved.display, kind, window, count_tokens(text))
    metadata.update(
        mode=answer.mode,
        document=True,
        facts=extracted.facts,
        unchanged_since=answer.points_to or None,
        content_hash=source_hash,
        size=len(data),
        mtime_ns=resolved.mtime_ns,
        instructions=[i.display for i in instructions],
    )
    if answer.mode != "full" or fmt != "plain":
        plain = select_window(text_file.lines, first, limit, ctx.limits, "plain")
        metadata["full_tokens"] = count_tokens(_retyped(_render(ctx, view, text_file, plain, "plain"), "", kind))
    return _with_instructions(ToolResult(text=text, metadata=metadata), instructions)


def _retyped(text: str, display: str, kind: str) -> str:
    """``text`` with its ``<type>file</type>`` naming the document's kind."""
    return text.replace("</path>\n<type>file</type>\n", f"</path>\n<type>{kind}</type>\n", 1)
