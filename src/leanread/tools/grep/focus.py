"""Step 4 of ``grep`` (with ``focus``): the page pruned to the matches most relevant to the
question, one marker per run of omitted matches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import pruning
from ...files.textfile import shown
from ...pruning import guards
from ...tokens import count_tokens
from ...view.frame import Own
from ...view.rows import ROW_PREFIX
from ..common import ToolContext
from .assemble import ID_BYTES, ID_SLOT, Focused, Pager, Shown, without_slot
from .render import Showing, grep_text, page_text, summary_line
from .request import FOCUS_MATCHES, plural


def focus_on(
    ctx: ToolContext,
    question: str,
    widen: bool,
    page: Showing,
    pager: Pager,
    where: str,
    total: int,
    file_count: int,
) -> Showing:
    """``page`` pruned to ``question``. ``widen`` (no ``max_results`` given) and a page that stops
    early: up to ``FOCUS_MATCHES`` matches are judged at once, and their pruned page is shown when
    it fits the byte cap and costs no more than ``page`` without focus; else ``page`` itself is
    pruned (``prune_page``)."""
    first = pager.first
    if widen and page.truncated is not None:
        wide_files, wide_notes, wide_consumed, wide_capped = pager(FOCUS_MATCHES, guards.MAX_CHARS)
        wide_last = first + wide_consumed - 1
        wide_summary = summary_line(where, total, file_count, first, wide_last, False, ctx)
        wide_cut = "bytes" if wide_capped else None
        focused, focus, unpruned = prune_page(
            ctx, wide_files, question, first, where, wide_notes, wide_summary, wide_cut
        )
        if focused is not None:
            unfocused = page_text(page.files, where, page.notes, page.summary)
            wide_text = grep_text(where, focused.rows, [*wide_notes, wide_summary])
            wide_bytes = len(wide_text.encode()) + (ID_BYTES - 1) * wide_text.count(ID_SLOT)
            before = count_tokens(unfocused)
            if wide_bytes <= ctx.limits.max_bytes and count_tokens(wide_text.replace(ID_SLOT, "")) <= before:
                focus.update(tokens_before=before, matches_judged=wide_consumed)
                truncated = "limit" if wide_last < total else None
                wide = Showing(focused.files, wide_notes, wide_last, wide_summary, truncated)
                return wide.pruned(focused, focus, unpruned)
    focused, focus, unpruned = prune_page(
        ctx, page.files, question, first, where, page.notes, page.summary, page.truncated
    )
    return page.pruned(focused, focus, unpruned)


def prune_page(
    ctx: ToolContext,
    shown_files: Sequence[Shown],
    question: str,
    first: int,
    where: str,
    notes: Sequence[str],
    summary: str,
    truncated: str | None,
) -> tuple[Focused | None, dict[str, Any], str | None]:
    """The page pruned to the matches most relevant to ``question`` by ``ctx.pruner`` (None: shown
    whole), the ``focus`` metadata (``kept_matches``/``total_matches`` and tokens, or why it was
    ``skipped``/``fail_open``) and, when pruned, the unfocused output (its match ids numbered
    from ``m1`` within the page, since omitted matches get no id). The guards are those of
    ``pruning.guards``, measured on the unfocused output."""
    backend = pruning.backend_name(ctx.pruner)
    info: dict[str, Any] = {"question": question, "backend": backend}
    try:
        full = page_text(shown_files, where, notes, summary)
        lines = full.split("\n")
        chars = len(full)
        if not question.strip():
            info["skipped"] = "empty question"
        elif truncated == "bytes" or any(s.cut for s in shown_files):  # a page of max_results is whole
            info["skipped"] = "output already cut"
        elif len(lines) < guards.MIN_LINES:
            info["skipped"] = f"under {guards.MIN_LINES} lines"
        elif chars < guards.MIN_CHARS:
            info["skipped"] = f"under {guards.MIN_CHARS} characters"
        elif chars > guards.MAX_CHARS:
            info["skipped"] = f"over {guards.MAX_CHARS} characters"
        if "skipped" in info:
            return None, info, None
        blocks: list[str] = []
        heads: list[str] = []
        for s in shown_files:
            at = 0
            for size, _whole in s.groups:
                rows = s.rows[at : at + size]
                at += size
                blocks.append("\n".join(ROW_PREFIX.sub("", r) for r in rows))
                heads.append(next(ROW_PREFIX.sub("", r) for r in rows if ID_SLOT in r))
        kept = set(_keep_blocks(ctx.pruner, blocks, heads, question))
        if not kept:
            info["skipped"] = "no match answers the question"
            return None, info, None
        if len(kept) > guards.MAX_KEPT_SHARE * len(blocks):
            info["skipped"] = f"over {guards.MAX_KEPT_SHARE:.0%} of the matches kept"
            return None, info, None
        focused = _focused_rows(shown_files, kept, first)
        focused.rows.insert(
            0,
            Own(
                f"[focus: kept {len(kept)} of {len(blocks)} matches for {pruning.quoted_question(question)}; "
                "omitted matches can be shown by grep without focus or with offset]"
            ),
        )
    except Exception as exc:  # fail open: any error gives the whole page
        return None, {"question": question, "backend": backend, "fail_open": f"{type(exc).__name__}: {exc}"}, None
    before = count_tokens(full)
    if count_tokens(grep_text(where, focused.rows, [*notes, summary]).replace(ID_SLOT, "")) >= before:
        info["skipped"] = "the omitted matches' notes would cost as much as the matches"
        return None, info, None
    info.update(kept_matches=len(kept), total_matches=len(blocks), tokens_before=before)
    return focused, info, full


def _keep_blocks(pruner: pruning.Pruner, blocks: Sequence[str], heads: Sequence[str], question: str) -> list[int]:
    """The blocks to keep: block-level BM25 for the default local pruner (matches are short
    documents of their own), the pruner's kept lines for any other backend."""
    if type(pruner) is pruning.LocalPruner and pruner.expand:
        return pruning.keep_blocks(blocks, heads, question)
    return pruning.keep_blocks_by(pruner, blocks, heads, question)


def _focused_rows(shown_files: Sequence[Shown], kept: set[int], first: int) -> Focused:
    """The rows of the kept matches (``kept``: indices in page order), the file path before a
    file's first kept match, and one marker per run of omitted matches."""
    rows: list[str] = []
    files: list[Shown] = []
    omitted: dict[str, int] = {}
    run_start = 0
    index = 0

    def flush() -> None:
        if omitted:
            n = sum(omitted.values())
            where = ", ".join(f"{path}: {count}" for path, count in omitted.items())
            rows.append(
                Own(
                    f"… {plural(n, 'match')} omitted ({where}); "
                    f"grep without focus or with offset={run_start} shows {'it' if n == 1 else 'them'} …"
                )
            )
            omitted.clear()

    for s in shown_files:
        entry: Shown | None = None
        at = 0
        for (size, whole), match in zip(s.groups, s.matches, strict=True):
            group_rows = s.rows[at : at + size]
            at += size
            if index in kept:
                flush()
                if entry is None:
                    entry = Shown(s.resolved, s.text_file, knowledge=s.knowledge)
                    files.append(entry)
                    rows.append(shown(s.resolved.display))
                rows.extend(group_rows)
                entry.rows.extend(group_rows)
                entry.whole.extend(whole)
                entry.matches.append(match)
                entry.groups.append((size, whole))
            else:
                if not omitted:
                    run_start = first + index
                display = shown(s.resolved.display)
                omitted[display] = omitted.get(display, 0) + 1
            index += 1
    flush()
    return Focused(rows, files)


def fill(focused: Focused, ids: Sequence[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """The focused rows with the match ids filled in, and the kept matches for the metadata."""
    body: list[str] = []
    matches: list[dict[str, Any]] = []
    it = iter(ids)
    pending = iter((s, line, column) for s in focused.files for line, column in s.matches)
    for row in focused.rows:
        if ID_SLOT in row:
            match_id = next(it)
            s, line, column = next(pending)
            matches.append({"id": match_id, "path": s.resolved.display, "line": line, "column": column})
            row = without_slot(row)
        body.append(row)
    return body, matches
