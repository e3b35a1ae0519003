"""The ``read`` pipeline, top to bottom: ``run`` resolves the path and picks the reader for its
kind (``READERS``: one module per kind); a reader gives a finished result (a directory, an image,
an outline, part of a line) or the lines to serve as a window, which ``serve`` does: take the
window → compare it with what the model has (the ledger) → render the cheapest truthful answer
→ prune it to a focus question → record what it showed → the result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ...documents import registry as document_registry
from ...files.workspace import Resolved, read_regular_file
from ...ledger.knowledge import Knowledge
from ...result import ToolResult
from ...tokens import count_tokens
from ...view.render import select_window
from ..common import ToolContext, audit_focus, knowledge_of, record_view
from . import directory, document, image, notebook, text
from .answer import Output, answer_of
from .focus import focus_whole_file, focus_window, unfocused
from .request import Job, ReadRequest, check, first_line
from .shared import Lines, Page, plain_tokens, retyped, window_metadata, with_instructions

#: A reader: the answer of one kind of thing, finished or as lines to serve; None when it is to be
#: read as text instead (a notebook asked for as its JSON, a zip that holds no document).
Reader = Callable[[Job], ToolResult | Lines | None]

#: The reader of each kind (``kind_of``); any other document kind is read by ``document``.
READERS: dict[str, Reader] = {
    "directory": directory.read,
    "image": image.read,
    "notebook": notebook.read,
    "text": text.read,
}


def run(ctx: ToolContext, request: ReadRequest, call_id: str) -> ToolResult:
    """Execute one ``read``; what it showed is recorded in the ledger under ``call_id``.

    Raises:
        LeanreadError: any refusal (bad argument, path outside the workspace or denied, missing
            file, special file, binary or undecodable content); the caller turns it into an
            error result.
    """
    fmt = check(request)
    resolved = ctx.workspace.resolve(request.path)
    kind, whole = kind_of(ctx, resolved)
    job = Job(ctx, request, resolved, fmt, call_id, kind, whole)
    answer = READERS.get(kind, document.read)(job)
    if answer is None:  # read as the text it is
        answer, kind = text.read(job), "text"
    result = answer if isinstance(answer, ToolResult) else serve(job, answer)
    return result if request.mode != "outline" or kind == "text" else with_no_outline_note(result)


#: What a read with ``mode="outline"`` of something that has no outline is read as instead (a
#: stub when the model has it), by its ``type``; any other type is a document, read as its text.
READ_AS = {
    "directory": "its entries; read any part with offset and limit",
    "image": "the image",
    "notebook": 'its cells; read any part with offset and limit, or its JSON with mode="full"',
}
DOCUMENT_READ_AS = "its text; read any part with offset and limit"


def with_no_outline_note(result: ToolResult) -> ToolResult:
    """``result`` (a read with ``mode="outline"`` of a document, notebook, image or directory)
    with one line after it saying that it has no outline and what it was read as instead:
    ``(This PDF document has no outline (mode="outline" is for text files), so it is read as its
    text; read any part with offset and limit.)``; its ``tokens`` grow by the note's."""
    kind = str(result.metadata.get("type", ""))
    name, read_as = document_registry.NAMES.get(kind, kind), READ_AS.get(kind, DOCUMENT_READ_AS)
    note = f'(This {name} has no outline (mode="outline" is for text files), so it is read as {read_as}.)'
    shown = f"{result.text}\n{note}"
    tokens = int(result.metadata.get("tokens", 0)) + count_tokens(shown) - count_tokens(result.text)  # images' kept
    return replace(result, text=shown, metadata=dict(result.metadata, tokens=tokens))


#: Files up to this size (bytes) are read whole when their kind is told, which a text file's
#: read then decodes: one open instead of two.
WHOLE_BYTES = 256 * 1024


def kind_of(ctx: ToolContext, resolved: Resolved) -> tuple[str, bytes | None]:
    """What the path is: ``directory``, a document kind (``documents.registry.document_kind``, by
    name and first bytes: ``image``, ``notebook``, ``pdf``, ``zip``, ...) or ``text``; and, for a
    file of at most ``WHOLE_BYTES`` (by its ``stat``), all its bytes, read in the same open
    (None when it had grown meanwhile, and for bigger files, of which the first
    ``Limits.sniff_bytes`` are read)."""
    if resolved.is_dir:
        return "directory", None
    sniff = ctx.limits.sniff_bytes
    small = resolved.size <= WHOLE_BYTES
    # never fewer than the sniff: a file that stats smaller than it is (/proc) is told by its head too
    head = read_regular_file(resolved, max(resolved.size + 1, sniff) if small else sniff)
    whole = head if small and len(head) <= resolved.size else None
    return document_registry.document_kind(resolved.display, head) or "text", whole


def serve(job: Job, lines: Lines) -> ToolResult:
    """A window of ``lines``: the full window, a stub, a diff or the window with markers for
    lines the model has (``answer``), pruned to a focus question (``focus``), recorded in the
    ledger, with its metadata and the instruction files it brings.

    Raises:
        InvalidArgument: offset past the end.
    """
    ctx, request, text_file = job.ctx, lines.request, lines.text_file
    first = first_line(request, lines.view.display, len(text_file.lines))
    window = select_window(text_file.lines, first, request.limit or ctx.limits.max_lines, ctx.limits, job.fmt)
    knowledge = knowledge_of(ctx, lines.view, text_file)
    # what stubs, diffs and markers may stand for: lines held as text, not the match asked for
    page = Page(job, lines, window, knowledge.as_text().without(request.anchor))
    answered = _answer(page)
    if isinstance(answered, ToolResult):
        return answered
    page, answer, focus, full_tokens = answered
    _record(page, answer, placed_by(knowledge, page.knowledge, answer.renumbered))
    result = with_instructions(_result(page, answer, focus, full_tokens), lines.instructions)
    return result if lines.unpruned_as is None else unfocused(ctx, result, job.request.focus, lines.unpruned_as)


def _answer(page: Page) -> tuple[Page, Output, dict[str, Any] | None, int | None] | ToolResult:
    """The page as answered (the whole file's, when a focus question was answered from it), the
    answer, the ``focus`` metadata and the plain full window's tokens when the answer rendered
    exactly that; or, when a focus question does not prune a big file's window, its outline."""
    job, lines = page.job, page.lines
    fresh = lines.request.fresh
    question = lines.request.focus if lines.unpruned_as is None else None
    if question is not None and lines.focus_whole and not (page.window.first == 1 and page.window.stop == "eof"):
        whole = focus_whole_file(page, question, fresh)
        if whole is not None:
            page, (answer, focus, unpruned) = whole
            audit_focus(job.ctx, "read", page.display, focus, unpruned, answer.text, "kept_lines" in focus)
            return page, answer, focus, None
    answer = answer_of(page, fresh)
    # the plain full window's tokens, when answer_of rendered exactly it (before focus prunes)
    rendered_plain = job.fmt == "plain" and lines.kind == "file" and lines.plain_request is None
    full_tokens = answer.full_tokens if rendered_plain else None
    if question is None:
        return page, answer, None, full_tokens
    answer, focus, unpruned = focus_window(page, question, lines.request.limit is not None, answer, fresh)
    if lines.outline_instead is not None and answer.mode in ("full", "elided"):  # not pruned: its outline
        return lines.outline_instead(focus.get("skipped") or focus.get("fail_open") or "not pruned")
    audit_focus(job.ctx, "read", page.display, focus, unpruned, answer.text, "kept_lines" in focus)
    return page, answer, focus, full_tokens


def placed_by(knowledge: Knowledge, held: Knowledge, placed: tuple[int, ...]) -> Knowledge:
    """What the model knows once an answer placed lines ``placed`` (markers, a diff's unchanged
    lines) from what it ``held`` as text: ``knowledge`` with those lines owned as ``held`` says."""
    if not placed:
        return knowledge
    return replace(knowledge, lines={**knowledge.lines, **{n: held.lines[n] for n in placed if n in held.lines}})


def _record(page: Page, answer: Output, knowledge: Knowledge) -> None:
    """What the answer showed, in the ledger under the read's call id (``knowledge``: what the
    model knew of the file, with the lines the answer placed)."""
    lines = page.lines
    attached = tuple(i.real for i in lines.instructions)
    record_view(
        page.job.ctx,
        page.job.call_id,
        lines.view,
        lines.text_file,
        answer.shown,
        kind="read",
        knowledge=knowledge,
        renumbered=answer.renumbered,
        instructions=attached,
    )


def _result(page: Page, answer: Output, focus: dict[str, Any] | None, full_tokens: int | None) -> ToolResult:
    """The answer as the model sees it (``<type>`` the kind, a note when the file does not parse)
    with its metadata: the window, the mode, the file's facts, the focus, the tokens of the plain
    full read it stands for (``full_tokens``: known already when the answer rendered exactly it)."""
    job, lines, window = page.job, page.lines, page.window
    shown = retyped(answer.text, lines.kind)
    metadata = window_metadata(job.call_id, page.display, lines.kind, window, count_tokens(shown))
    instructions = [i.display for i in lines.instructions]
    metadata.update(
        mode=answer.mode, unchanged_since=answer.points_to or None, **lines.facts, instructions=instructions
    )
    if focus is not None:
        metadata["focus"] = focus
    if full_tokens is None and (answer.mode != "full" or job.fmt != "plain" or lines.plain_request is not None):
        asked = lines.plain_request or lines.request
        first = first_line(asked, page.display, len(lines.text_file.lines))
        full_tokens = plain_tokens(job.ctx, lines.view, lines.text_file, first, asked.limit, lines.kind)
    if full_tokens is not None:
        metadata["full_tokens"] = full_tokens
    if lines.problem:  # the model should know the file does not parse (its own edit may have broken it)
        shown = f"{shown}\n({lines.problem}{lines.what}.)"
        metadata.update(problem=lines.problem, tokens=count_tokens(shown))
    return ToolResult(text=shown, metadata=metadata)
