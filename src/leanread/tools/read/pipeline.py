"""The ``read`` pipeline, top to bottom: ``run`` resolves the path and picks the reader for its
kind (``READERS``: one module per kind); a reader gives a finished result (a directory, an image,
an outline, part of a line) or the lines to serve as a window, which ``serve`` does: take the
window → compare it with what the model has (the ledger) → render the cheapest truthful answer
→ prune it to a focus question → record what it showed → the result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ...documents import registry as document_registry
from ...knowledge import Knowledge
from ...render import select_window
from ...result import ToolResult
from ...tokens import count_tokens
from ...workspace import Resolved, read_regular_file
from ..common import ToolContext, audit_focus, knowledge_of, record_view
from . import directory, document, image, notebook, text
from .answer import answer_of
from .focus import focus_whole_file, focus_window, unfocused
from .request import Job, ReadRequest, check, first_line
from .shared import Lines, plain_tokens, retyped, window_metadata, with_instructions

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
    kind = kind_of(ctx, resolved)
    job = Job(ctx, request, resolved, fmt, call_id, kind)
    answer = READERS.get(kind, document.read)(job)
    if answer is None:  # read as the text it is
        answer = text.read(job)
    return answer if isinstance(answer, ToolResult) else serve(job, answer)


def kind_of(ctx: ToolContext, resolved: Resolved) -> str:
    """What the path is: ``directory``, a document kind (``documents.registry.document_kind``, by
    name and first bytes: ``image``, ``notebook``, ``pdf``, ``zip``, ...) or ``text``."""
    if resolved.is_dir:
        return "directory"
    head = read_regular_file(resolved, ctx.limits.sniff_bytes)
    return document_registry.document_kind(resolved.display, head) or "text"


def placed_by(knowledge: Knowledge, held: Knowledge, placed: tuple[int, ...]) -> Knowledge:
    """What the model knows once an answer placed lines ``placed`` (markers, a diff's unchanged
    lines) from what it ``held`` as text: ``knowledge`` with those lines owned as ``held`` says."""
    if not placed:
        return knowledge
    return replace(knowledge, lines={**knowledge.lines, **{n: held.lines[n] for n in placed if n in held.lines}})


def serve(job: Job, lines: Lines) -> ToolResult:
    """A window of ``lines``: the full window, a stub, a diff or the window with markers for
    lines the model has (``answer``), pruned to a focus question (``focus``), recorded in the
    ledger, with its metadata and the instruction files it brings.

    Raises:
        InvalidArgument: offset past the end.
    """
    ctx, request, fmt, view, text_file = job.ctx, lines.request, job.fmt, lines.view, lines.text_file
    limit = request.limit or ctx.limits.max_lines
    first = first_line(request, view.display, len(text_file.lines))
    window = select_window(text_file.lines, first, limit, ctx.limits, fmt)
    knowledge = knowledge_of(ctx, view, text_file)
    # what stubs, diffs and markers may stand for: lines held as text, not the match asked for
    held = knowledge.as_text().without(request.anchor)
    named = request.symbol is not None  # a definition asked for by name: not cut up by markers
    focus = None
    question = request.focus if lines.unpruned_as is None else None
    whole = None
    if question is not None and lines.focus_whole and not (window.first == 1 and window.stop == "eof"):
        whole = focus_whole_file(
            ctx,
            view,
            text_file,
            fmt,
            question,
            held,
            lambda w: answer_of(ctx, view, text_file, w, fmt, held, request.fresh, named),
            request.fresh,
            named,
        )
    if whole is not None:
        window, answer, focus, unpruned = whole
        audit_focus(ctx, "read", view.display, focus, unpruned, answer.text, "kept_lines" in focus)
    else:
        answer = answer_of(ctx, view, text_file, window, fmt, held, request.fresh, named)
    # the plain full window's tokens, when answer_of rendered exactly it (before focus prunes)
    rendered_plain = whole is None and fmt == "plain" and lines.kind == "file" and lines.plain_request is None
    full_tokens = answer.full_tokens if rendered_plain else None
    if question is not None and whole is None:
        asked_limit = request.limit is not None
        answer, focus, unpruned = focus_window(
            ctx, view, text_file, window, fmt, question, asked_limit, held, answer, request.fresh, named
        )
        if lines.outline_instead is not None and answer.mode in ("full", "elided"):  # not pruned: its outline
            return lines.outline_instead(focus.get("skipped") or focus.get("fail_open") or "not pruned")
        audit_focus(ctx, "read", view.display, focus, unpruned, answer.text, "kept_lines" in focus)
    attached = tuple(i.real for i in lines.instructions)
    record_view(
        ctx,
        job.call_id,
        view,
        text_file,
        answer.shown,
        kind="read",
        knowledge=placed_by(knowledge, held, answer.renumbered),
        renumbered=answer.renumbered,
        instructions=attached,
    )
    shown = retyped(answer.text, lines.kind)
    metadata = window_metadata(job.call_id, view.display, lines.kind, window, count_tokens(shown))
    instructions = [i.display for i in lines.instructions]
    metadata.update(
        mode=answer.mode, unchanged_since=answer.points_to or None, **lines.facts, instructions=instructions
    )
    if focus is not None:
        metadata["focus"] = focus
    if full_tokens is None and (answer.mode != "full" or fmt != "plain" or lines.plain_request is not None):
        asked = lines.plain_request or request
        plain_first = first_line(asked, view.display, len(text_file.lines))
        full_tokens = plain_tokens(ctx, view, text_file, plain_first, asked.limit, lines.kind)
    if full_tokens is not None:
        metadata["full_tokens"] = full_tokens
    if lines.problem:  # the model should know the file does not parse (its own edit may have broken it)
        shown = f"{shown}\n({lines.problem}{lines.what}.)"
        metadata.update(problem=lines.problem, tokens=count_tokens(shown))
    result = with_instructions(ToolResult(text=shown, metadata=metadata), lines.instructions)
    return result if lines.unpruned_as is None else unfocused(ctx, result, job.request.focus, lines.unpruned_as)
