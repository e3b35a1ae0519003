"""The reader of text files: a window of lines (served by ``pipeline.serve``), one definition by
name (``symbol=``), the part of one long line from a character on (``char_offset``), or, for a
whole read of a big file, its outline (``outline``)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ... import pruning
from ...errors import InvalidArgument
from ...files.textfile import load_text
from ...result import ToolResult
from ...tokens import count_tokens
from ...view.render import render_slice, select_slice
from ..common import new_instructions, record_view
from . import outline
from .focus import unfocused
from .request import Job, first_line
from .shared import Lines, Opened, plain_tokens, with_instructions


@dataclass(frozen=True)
class _Wanted:
    """What a read of a text file asks for, decided from its request, the limits and the file's
    size before the file is loaded: a slice of one long line, the window's line count, the read
    mode in force, an outline, a focus question answered from the whole file, the whole text."""

    slice: bool
    limit: int
    mode: str
    outline: bool
    focus_whole: bool
    whole: bool


def _wanted(job: Job) -> _Wanted:
    ctx, request, resolved = job.ctx, job.request, job.resolved
    slice_wanted = request.char_offset is not None and request.char_offset > 1
    mode = request.mode or ctx.limits.read_mode
    # an outline: of a whole read in auto/outline mode, or on from offset when asked for by name
    wants_map = not slice_wanted and (
        (request.whole_file and mode != "full") or (request.mode == "outline" and request.symbol is None)
    )
    # a focus question on a whole read is answered from the whole file when the pruner takes it all
    focus_whole = (
        not slice_wanted
        and request.focus is not None
        and request.whole_file
        and mode in ("auto", "full")
        and resolved.size <= pruning.MAX_CHARS
    )
    by_name = request.symbol is not None or request.plain_whole  # its plain full read is the whole file's
    whole = by_name or focus_whole or (wants_map and resolved.size <= ctx.limits.index_bytes)
    limit = 1 if slice_wanted else request.limit or ctx.limits.max_lines
    return _Wanted(slice_wanted, limit, mode, wants_map, focus_whole, whole)


def read(job: Job) -> ToolResult | Lines:
    """The text file's answer: a finished result (a slice of a line, an outline), or the lines
    of the window to serve.

    Raises:
        InvalidArgument: offset past the end, char_offset past the end of its line, no such symbol.
        LeanreadError: as ``load_text`` (binary or undecodable content, a file that cannot be read).
    """
    wanted = _wanted(job)
    first = max(job.request.offset or 1, 1)
    text_file = load_text(job.resolved, job.ctx.limits, first, None if wanted.whole else wanted.limit, data=job.whole)
    opened = Opened(job, text_file, new_instructions(job.ctx, job.resolved))
    return _line_slice(opened) if wanted.slice else _answer(opened, wanted)


def _answer(opened: Opened, wanted: _Wanted) -> ToolResult | Lines:
    """The outline of the file, or the lines of the window (a symbol's range as offset and limit)."""
    job, text_file, resolved, mode = opened.job, opened.text_file, opened.resolved, wanted.mode
    request, limits = job.request, job.ctx.limits
    # a focus question on a whole read of a file that fits one window prunes its text, not its outline
    fits = len(text_file.lines) <= limits.max_lines and resolved.size <= limits.max_bytes
    focus_text = request.focus is not None and request.mode is None and (fits or wanted.focus_whole)
    big_whole = wanted.outline and outline.big(opened)
    start = max(request.offset or 1, 1)
    if request.mode == "outline" and start > 1:
        first_line(request, resolved.display, len(text_file.lines))  # past the end: say so
    mapped = outline.map_of(opened, start) if wanted.outline and (mode == "outline" or big_whole) else None
    if mapped is not None and mode != "outline" and not outline.pays(opened, mapped):
        big_whole = False

    def outline_result(shown_as: str) -> ToolResult:
        assert mapped is not None
        result = outline.read_outline(opened, mapped, start)
        full = plain_tokens(job.ctx, resolved, text_file, start, job.request.limit)  # what mode="full" would show
        result = replace(result, metadata=dict(result.metadata, full_tokens=full))
        return unfocused(job.ctx, with_instructions(result, opened.instructions), request.focus, shown_as)

    if mapped is not None and (mode == "outline" or (big_whole and not focus_text)):
        return outline_result("outline")
    problem = mapped.made.problem if mapped is not None else None
    plain_request = None
    if request.symbol is not None or request.plain_whole:  # the whole file, as without symbol=
        plain_request = replace(request, symbol=None, offset=None, limit=None, plain_whole=False)
    if request.symbol is not None:
        found, problem = outline.definition(opened, request.symbol)
        request = replace(request, offset=found.first, limit=found.last - found.first + 1)

    def not_pruned(reason: str) -> ToolResult:  # a focus question that does not prune a big file's text
        return outline_result(f"outline, as the text was not pruned ({reason})")

    return Lines(
        resolved,
        text_file,
        request,
        opened.instructions,
        facts=_facts(opened),
        outline_instead=not_pruned if mapped is not None and big_whole else None,
        problem=problem,
        what="; this definition's range may be off" if request.symbol is not None else "",
        focus_whole=wanted.focus_whole,
        plain_request=plain_request,
    )


def _facts(opened: Opened) -> dict[str, Any]:
    """The file's facts in the metadata of a window of it."""
    text_file = opened.text_file
    facts: dict[str, Any] = {
        "content_hash": text_file.content_hash,
        "size": text_file.size,
        "mtime_ns": opened.resolved.mtime_ns,
        "encoding": text_file.encoding,
        "bom": text_file.bom,
        "newline": text_file.newline,
        "final_newline": text_file.final_newline,
    }
    if text_file.other_encodings:  # the encoding is a guess
        facts["encoding_alternatives"] = list(text_file.other_encodings)
    return facts


def _line_slice(opened: Opened) -> ToolResult:
    """Line ``offset`` from character ``char_offset`` on, up to the line-length cap; the slice
    that reaches the end of the line completes it (the ledger has the line whole); never pruned."""
    job, text_file, instructions = opened.job, opened.text_file, opened.instructions
    request, resolved, limits, call_id = job.request, job.resolved, job.ctx.limits, job.call_id
    total = len(text_file.lines)
    number = first_line(request, resolved.display, total)
    line = text_file.lines[number - 1] if total else ""
    start = request.char_offset or 1
    if start > max(len(line), 1):
        after = f"use offset={number + 1} to read on" if number < total else "it is the last line of the file"
        raise InvalidArgument(
            f"char_offset={start} is past the end of line {number}, which has {len(line)} characters; {after}."
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
    result = ToolResult(text, metadata=metadata)
    # The slice that reaches the end of a long line completes it: the hints lead there from the cut.
    whole = ((number, number),) if part.end >= part.length else ()
    attached = tuple(i.real for i in instructions)
    record_view(job.ctx, call_id, resolved, text_file, whole, kind="read", instructions=attached)
    return unfocused(job.ctx, with_instructions(result, instructions), request.focus, "part of a line")
