"""The ``grep`` pipeline, top to bottom in ``run``: check the request (``request``) → search with
ripgrep (``search``) → load each file's lines as ``read`` decodes them and check them against
ripgrep's (``lines``) → the page as rows within the byte cap (``assemble``) → prune it to a
focus question (``focus``) → hand out match ids and record the lines shown in the ledger → the
text around the rows (``render``) → the result."""

from __future__ import annotations

from dataclasses import replace

from ...errors import InvalidArgument
from ...files.ripgrep import RgOptions, glob_under
from ...ledger.knowledge import ranges_of
from ...result import ToolResult
from ...tokens import count_tokens
from ..common import ToolContext, audit_focus, knowledge_of, record_view
from ..leftout import left_out_note
from .assemble import Pager, assemble
from .focus import fill, focus_on
from .render import files_only, grep_text, metadata_of, showing
from .request import FOOTER_BYTES, GrepRequest, check, plural
from .search import Prefetch, search
from .selection import nothing_found


def run(ctx: ToolContext, request: GrepRequest, call_id: str) -> ToolResult:
    """Execute one ``grep``; the lines it shows whole are recorded in the ledger under ``call_id``
    and its matches under new match ids.

    Raises:
        LeanreadError: a bad argument (pattern, glob, type, counts), a path outside the
            workspace or denied, ripgrep missing, failing or taking longer than its timeout.
    """
    before, after, cap, first = check(request)
    target = ctx.workspace.resolve(request.path or ".")
    options = RgOptions(
        case_insensitive=request.case_insensitive,
        glob=glob_under(request.glob, target.display) if request.glob else None,
        file_type=request.file_type or None,
        policy=ctx.policy,
        no_ignore=request.include_ignored,
    )
    prefetch = Prefetch(ctx, before, after, 0 if request.files_only else first - 1 + cap)
    every_root = request.path is None and len(ctx.workspace.roots) > 1  # "the whole workspace"
    found = search(request.pattern, target, options, ctx, prefetch, every_root)
    files, by_path, searched = found.files, found.by_path, found.searched
    options, literal = searched.options, [searched.note] if searched.note else []
    left = left_out_note(found.left, "grep")
    skipped_note = [*found.notes, *([left] if left else [])]
    total = sum(f.count for f in files)
    no_match = None if total else nothing_found(ctx, target, options, every_root, request.glob)
    if request.files_only:
        notes = [*literal, *skipped_note]
        return files_only(ctx, call_id, target.display, files, total, first, cap, notes, no_match)
    if total and first > total:
        raise InvalidArgument(
            f"offset={first} is past the last match: there are {plural(total, 'match')}; "
            f"use an offset from 1 to {total}."
        )
    pager = Pager(ctx, request.pattern, options, files, by_path, prefetch.ready, first, before, after)
    budget = max(ctx.limits.max_bytes - FOOTER_BYTES, 1)  # the summary line goes after the rows
    page = showing(ctx, pager(cap, budget), target.display, first, total, len(files))
    if no_match is not None:
        page = replace(page, summary=no_match)
    if request.focus is not None:
        widen = request.max_results is None  # the question may find its matches past this page
        page = focus_on(ctx, request.focus, widen, page, pager, target.display, total, len(files))
    shown_matches = [(s.resolved.real, line) for s in page.files for line, _ in s.matches]
    ids = ctx.ledger.put_matches(ctx.session_id, shown_matches)
    body, matches = assemble(page.files, ids) if page.focused is None else fill(page.focused, ids)
    for s in page.files:
        knowledge = s.knowledge or knowledge_of(ctx, s.resolved, s.text_file, keep_version=False)
        record_view(ctx, call_id, s.resolved, s.text_file, ranges_of(s.whole), kind="grep", knowledge=knowledge)
    text = grep_text(target.display, body, [*literal, *page.notes, *skipped_note, page.summary])
    if page.focus is not None:
        if page.focused is not None:
            page.focus["tokens_after"] = count_tokens(text)
        pruned = page.focused is not None
        audit_focus(ctx, "grep", target.display, page.focus, page.unpruned or text, text, pruned=pruned)
    where, literally = target.display, options.fixed_strings
    return ToolResult(
        text, metadata=metadata_of(call_id, where, page, total, len(files), first, matches, literally, text)
    )
