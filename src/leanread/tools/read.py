"""The ``read`` tool: a window of a text file (or a directory's entries), capped, decorated, and
deduplicated against what the model still has in its context window."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..config import Limits
from ..errors import InvalidArgument, PathError
from ..formats import FORMATS, Format
from ..ledger import LedgerStore, ReadRecord, covering_calls
from ..lineindex import LineIndexCache, StaleIndex
from ..render import (
    Window,
    file_facts,
    render_slice,
    render_unchanged,
    render_window,
    select_slice,
    select_window,
)
from ..result import ToolResult
from ..textfile import TextFile, decode, decode_indexed
from ..tokens import count_tokens
from ..workspace import Resolved, Workspace, read_regular_file

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


@dataclass(frozen=True)
class ToolContext:
    """What a tool needs from its session: the workspace, the ledger and the limits."""

    workspace: Workspace
    ledger: LedgerStore
    session_id: str
    limits: Limits


def _check(request: ReadRequest) -> Format:
    if request.offset is not None and request.offset < 0:
        raise InvalidArgument(f"offset must be 1 or more (got {request.offset}); use offset=1 for the start.")
    if request.limit is not None and request.limit < 1:
        raise InvalidArgument(f"limit must be 1 or more (got {request.limit}); omit it to read up to the default.")
    if request.char_offset is not None and request.char_offset < 1:
        raise InvalidArgument(f"char_offset must be 1 or more (got {request.char_offset}).")
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


def _list_directory(ctx: ToolContext, request: ReadRequest, resolved: Resolved, call_id: str) -> ToolResult:
    if request.char_offset is not None:
        raise InvalidArgument(f"{resolved.display} is a directory; char_offset applies to file lines only.")
    try:
        with os.scandir(resolved.real) as entries:
            names = sorted(e.name + "/" if e.is_dir() else e.name for e in entries)
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
        raise InvalidArgument(
            f"char_offset={start} is past the end of line {number}, which has {len(line):,} characters; "
            f"use offset={number + 1} to read on."
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


def _stub_source(ctx: ToolContext, resolved: Resolved, text_file: TextFile, window: Window) -> list[str] | None:
    """The calls whose visible output still holds every line of ``window`` in this version."""
    if not window.lines:
        return None
    records = ctx.ledger.reads_of(ctx.session_id, resolved.real)
    return covering_calls(records, text_file.content_hash, window.first, window.last)


def _render(ctx: ToolContext, resolved: Resolved, text_file: TextFile, window: Window, fmt: Format) -> str:
    return render_window(
        resolved.display,
        window,
        fmt,
        ctx.limits,
        final_newline=text_file.final_newline,
        facts=file_facts(text_file.encoding, text_file.newline),
    )


#: Line indexes of big files, shared by every session of the process.
_INDEXES = LineIndexCache()


def _load(ctx: ToolContext, resolved: Resolved, first: int, limit: int) -> TextFile:
    """The file decoded whole, or for a file over ``limits.index_bytes`` the window from ``first``
    read through the cached line index."""
    if resolved.size <= ctx.limits.index_bytes:
        return decode(read_regular_file(resolved), resolved.display, ctx.limits.sniff_bytes)
    head = read_regular_file(resolved, ctx.limits.sniff_bytes)
    budget = ctx.limits.max_bytes + 4 * ctx.limits.max_line_chars
    for attempt in (1, 2):
        try:
            index = _INDEXES.get(resolved.real, resolved.size, resolved.mtime_ns)
            return decode_indexed(index, resolved.real, resolved.display, head, first, limit, budget)
        except StaleIndex:
            if attempt == 2:
                raise
            resolved = ctx.workspace.resolve(resolved.real)
    raise AssertionError("unreachable")


def run(ctx: ToolContext, request: ReadRequest, call_id: str) -> ToolResult:
    """Execute one ``read``; a file window shown in full is recorded in the ledger under ``call_id``.

    Raises:
        LeanreadError: any refusal (bad argument, path outside the workspace or denied, missing
            file, special file, binary or undecodable content); the caller turns it into an
            error result.
    """
    fmt = _check(request)
    resolved = ctx.workspace.resolve(request.path)
    if resolved.is_dir:
        return _list_directory(ctx, request, resolved, call_id)
    slice_wanted = request.char_offset is not None and request.char_offset > 1
    limit = 1 if slice_wanted else request.limit or ctx.limits.max_lines
    text_file = _load(ctx, resolved, max(request.offset or 1, 1), limit)
    if slice_wanted:
        return _read_line_slice(request, resolved, text_file, ctx.limits, call_id)
    first = _first_line(request, resolved.display, len(text_file.lines))
    window = select_window(text_file.lines, first, limit, ctx.limits, fmt)

    text = _render(ctx, resolved, text_file, window, fmt)
    tokens = count_tokens(text)
    earlier = None if request.fresh else _stub_source(ctx, resolved, text_file, window)
    if earlier:
        stub = render_unchanged(resolved.display, window.first, window.last, earlier)
        stub_tokens = count_tokens(stub)
        if stub_tokens < tokens:  # a stub must pay for itself
            text, tokens = stub, stub_tokens
        else:
            earlier = None
    if not earlier:
        ctx.ledger.record(
            ctx.session_id,
            ReadRecord(
                call_id=call_id,
                path=resolved.real,
                ranges=window.full_ranges,
                content_hash=text_file.content_hash,
                size=text_file.size,
                mtime_ns=resolved.mtime_ns,
            ),
        )
    metadata = _metadata(call_id, resolved.display, "file", window, tokens)
    metadata.update(
        unchanged_since=earlier,
        content_hash=text_file.content_hash,
        size=text_file.size,
        mtime_ns=resolved.mtime_ns,
        encoding=text_file.encoding,
        bom=text_file.bom,
        newline=text_file.newline,
        final_newline=text_file.final_newline,
    )
    if earlier or fmt != "plain":
        plain = select_window(text_file.lines, first, limit, ctx.limits, "plain")
        metadata["full_tokens"] = count_tokens(_render(ctx, resolved, text_file, plain, "plain"))
    return ToolResult(text=text, metadata=metadata)
