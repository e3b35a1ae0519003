"""The ``read`` tool: a window of a text file, capped, decorated, and deduplicated against what
the model still has in its context window."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config import Limits
from ..errors import InvalidArgument, NotAFile
from ..ledger import LedgerStore, ReadRecord, covering_calls
from ..render import FORMATS, Format, Window, render_unchanged, render_window, select_window
from ..result import ToolResult
from ..textfile import TextFile, decode
from ..tokens import count_tokens
from ..workspace import Resolved, Workspace, read_regular_file

NAME = "read"

#: Model-facing description of each parameter (MCP input schema, CLI help).
PARAMETERS: dict[str, str] = {
    "path": "File to read: relative to the workspace root, or absolute inside it.",
    "offset": "1-based line number to start from (0 is taken as 1). Default: 1.",
    "limit": "Number of lines to read. Default: the line limit (2000).",
    "format": "plain (default): lines exactly as in the file; tab: `41<TAB>code`; "
    "colon: `41: code`. Numbers are display only.",
    "fresh": "true: return the full text even if you already have these lines unchanged.",
}


@dataclass(frozen=True)
class ReadRequest:
    """The parameters of one ``read`` call (see ``PARAMETERS``)."""

    path: str
    offset: int | None = None
    limit: int | None = None
    format: str = "plain"
    fresh: bool = False


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
        raise InvalidArgument(
            f"limit must be 1 or more (got {request.limit}); omit it to read up to the default."
        )
    if request.format not in FORMATS:
        raise InvalidArgument(f"format must be one of {', '.join(FORMATS)} (got {request.format!r}).")
    return request.format  # type: ignore[return-value]


def _first_line(request: ReadRequest, resolved: Resolved, total: int) -> int:
    first = max(request.offset or 1, 1)
    if total and first > total:
        raise InvalidArgument(
            f"offset={first} is past the end of {resolved.display}, which has {total} lines; "
            f"use an offset from 1 to {total}."
        )
    return first if total else 1


def _metadata(
    call_id: str, resolved: Resolved, text_file: TextFile, window: Window, tokens: int
) -> dict[str, Any]:
    return {
        "call_id": call_id,
        "path": resolved.display,
        "type": "file",
        "offset": window.first,
        "last_line": window.last,
        "total_lines": window.total,
        "next_offset": window.next_offset,
        "truncated": None if window.stop == "eof" else window.stop,
        "cut_lines": [number for number, _ in window.cut_lines],
        "unchanged_since": None,
        "content_hash": text_file.content_hash,
        "size": text_file.size,
        "mtime_ns": resolved.mtime_ns,
        "tokens": tokens,
    }


def _stub_source(
    ctx: ToolContext, resolved: Resolved, text_file: TextFile, window: Window
) -> list[str] | None:
    """The calls whose visible output still holds every line of ``window`` in this version."""
    if not window.lines:
        return None
    records = ctx.ledger.reads_of(ctx.session_id, resolved.real)
    return covering_calls(records, text_file.content_hash, window.first, window.last)


def _plain_tokens(
    ctx: ToolContext, resolved: Resolved, text_file: TextFile, window: Window, limit: int
) -> int:
    """Tokens of a ``plain`` read of the same window without dedup: what this result replaces."""
    plain = select_window(text_file.lines, window.first, limit, ctx.limits, "plain")
    text = render_window(resolved.display, plain, "plain", ctx.limits, final_newline=text_file.final_newline)
    return count_tokens(text)


def run(ctx: ToolContext, request: ReadRequest, call_id: str) -> ToolResult:
    """Execute one ``read``; the window is recorded in the ledger under ``call_id``.

    Raises:
        LeanreadError: any refusal (bad argument, path outside the workspace, missing file,
            directory or special file, binary or non-UTF-8 content); the caller turns it into
            an error result.
    """
    fmt = _check(request)
    resolved = ctx.workspace.resolve(request.path)
    if resolved.is_dir:
        raise NotAFile(f"{resolved.display} is a directory; read a file inside it.")
    text_file = decode(read_regular_file(resolved), resolved.display, ctx.limits.sniff_bytes)
    first = _first_line(request, resolved, len(text_file.lines))
    limit = request.limit or ctx.limits.max_lines
    window = select_window(text_file.lines, first, limit, ctx.limits, fmt)

    text = render_window(resolved.display, window, fmt, ctx.limits, final_newline=text_file.final_newline)
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
    metadata = _metadata(call_id, resolved, text_file, window, tokens)
    metadata["unchanged_since"] = earlier
    metadata["full_tokens"] = (
        _plain_tokens(ctx, resolved, text_file, window, limit) if earlier or fmt != "plain" else tokens
    )
    return ToolResult(text=text, metadata=metadata)
