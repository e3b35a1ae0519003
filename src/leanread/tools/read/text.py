"""The reader of text files: a window of lines (served by ``pipeline.serve``), one definition by
name (``symbol=``), the part of one long line from a character on (``char_offset``), or, for a
whole read of a big file, its outline (``outline``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ... import pruning
from ...errors import InvalidArgument
from ...instructions import Instruction
from ...render import render_slice, select_slice
from ...result import ToolResult
from ...textfile import TextFile
from ...tokens import count_tokens
from ..common import load_text, new_instructions, record_view
from . import outline
from .focus import unfocused
from .request import Job, first_line
from .shared import Lines, plain_tokens, with_instructions


def read(job: Job) -> ToolResult | Lines:
    """The text file's answer: a finished result (a slice of a line, an outline), or the lines
    of the window to serve.

    Raises:
        InvalidArgument: offset past the end, char_offset past the end of its line, no such symbol.
        LeanreadError: as ``load_text`` (binary or undecodable content, a file that cannot be read).
    """
    ctx, request, resolved = job.ctx, job.request, job.resolved
    slice_wanted = request.char_offset is not None and request.char_offset > 1
    limit = 1 if slice_wanted else request.limit or ctx.limits.max_lines
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
    needs_whole = (
        request.symbol is not None or focus_whole or (wants_map and resolved.size <= ctx.limits.index_bytes)
    )
    text_file = load_text(ctx, resolved, max(request.offset or 1, 1), None if needs_whole else limit)
    instructions = new_instructions(ctx, resolved)
    attached = tuple(i.real for i in instructions)
    if slice_wanted:
        return _line_slice(job, text_file, instructions)
    # a focus question on a whole read of a file that fits one window prunes its text, not its outline
    fits = len(text_file.lines) <= ctx.limits.max_lines and resolved.size <= ctx.limits.max_bytes
    focus_text = request.focus is not None and request.mode is None and (fits or focus_whole)
    big_whole = wants_map and outline.big(ctx, resolved, text_file)
    start = max(request.offset or 1, 1)
    if request.mode == "outline" and start > 1:
        first_line(request, resolved.display, len(text_file.lines))  # past the end: say so
    mapped = outline.map_of(ctx, resolved, text_file, start) if wants_map and (mode == "outline" or big_whole) else None
    if mapped is not None and mode != "outline" and not outline.pays(ctx, resolved, text_file, mapped):
        big_whole = False

    def outline_result(shown_as: str) -> ToolResult:
        assert mapped is not None
        result = outline.read_outline(ctx, resolved, text_file, job.call_id, attached, mapped, start, request.fresh)
        full = plain_tokens(ctx, resolved, text_file, start, request.limit)  # what mode="full" would show
        result = replace(result, metadata=dict(result.metadata, full_tokens=full))
        return unfocused(ctx, with_instructions(result, instructions), request.focus, shown_as)

    if mapped is not None and (mode == "outline" or (big_whole and not focus_text)):
        return outline_result("outline")
    problem = mapped.made.problem if mapped is not None else None
    plain_request = None
    if request.symbol is not None:
        plain_request = replace(request, symbol=None, offset=None, limit=None)  # the whole file, as without symbol=
        found, problem = outline.definition(resolved, text_file, request.symbol)
        request = replace(request, offset=found.first, limit=found.last - found.first + 1)
    facts = {
        "content_hash": text_file.content_hash,
        "size": text_file.size,
        "mtime_ns": resolved.mtime_ns,
        "encoding": text_file.encoding,
        "bom": text_file.bom,
        "newline": text_file.newline,
        "final_newline": text_file.final_newline,
    }
    if text_file.other_encodings:  # the encoding is a guess
        facts["encoding_alternatives"] = list(text_file.other_encodings)

    def not_pruned(reason: str) -> ToolResult:
        return outline_result(f"outline, as the text was not pruned ({reason})")

    instead = not_pruned if mapped is not None and big_whole else None  # a focus question that does not prune
    what = "; this definition's range may be off" if request.symbol is not None else ""
    return Lines(
        resolved,
        text_file,
        request,
        instructions,
        facts=facts,
        outline_instead=instead,
        problem=problem,
        what=what,
        focus_whole=focus_whole,
        plain_request=plain_request,
    )


def _line_slice(job: Job, text_file: TextFile, instructions: list[Instruction]) -> ToolResult:
    """Line ``offset`` from character ``char_offset`` on, up to the line-length cap; the slice
    that reaches the end of the line completes it (the ledger has the line whole); never pruned."""
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
