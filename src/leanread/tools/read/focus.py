"""A read with a focus question: the window pruned to the lines that answer it, or (for what is
never pruned: a directory, a document, an outline) the result with ``focus`` metadata saying why."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from ... import pruning
from ...code.outline import language_of
from ...ledger.knowledge import ranges_of
from ...result import ToolResult
from ...tokens import count_tokens
from ...view.formats import decorate
from ...view.marks import marker_pays
from ...view.render import select_window, unchanged_marker
from ..common import ToolContext, audit_focus
from .answer import Output, answer_of
from .shared import Page

#: What a focus question made of an answer: the answer to show, the ``focus`` metadata, and the
#: text before pruning.
Focused = tuple[Output, dict[str, Any], str]


def focus_window(page: Page, question: str, asked_limit: bool, answer: Output, fresh: bool = False) -> Focused:
    """The answer to show for ``question``, the ``focus`` metadata and the text before pruning.
    A stub or a diff is already as short as the truth gets; the full window, or one with markers
    for lines the model has, gives way to the pruned window (``pruned_window``) when that is
    shorter."""
    if answer.mode not in ("full", "elided"):
        return answer, {"question": question, "skipped": f"answered as {answer.mode}"}, answer.text
    focused, focus = pruned_window(page, question, asked_limit, fresh)
    if focused is not None and focused.tokens < answer.tokens:
        unpruned = answer.text if answer.mode == "full" else page.render()
        focus.update(tokens_before=count_tokens(unpruned), tokens_after=focused.tokens)
        return focused, focus, unpruned
    if focused is not None:
        focus = {"question": question, "skipped": f"answered as {answer.mode}, shorter than pruned"}
    return answer, focus, answer.text


def pruned_window(
    page: Page, question: str, asked_limit: bool, fresh: bool = False
) -> tuple[Output | None, dict[str, Any]]:
    """The window pruned to the lines that answer ``question`` (None: shown whole), and the
    ``focus`` metadata: ``kept_lines``/``total_lines`` or why it was ``skipped``/``fail_open``.
    A run of kept lines the model already has as text (``page.knowledge``), under the same numbers,
    is one unchanged marker where it pays (``marker_pays``), unless ``fresh`` asked for the text
    or the window is a definition asked for by name (``page.named``)."""
    window, knowledge, pruner = page.window, page.knowledge, page.job.ctx.pruner
    # cut: a long line cut, or the window stopped by the byte cap or the default line limit (a
    # window that ends at the caller's own limit is whole as asked)
    cut = bool(window.cut_lines) or window.stop == "bytes" or (window.stop == "limit" and not asked_limit)
    result = pruning.prune(pruner, window.lines, question, language_of(page.display), already_cut=cut)
    info: dict[str, Any] = {"question": question, "backend": pruning.backend_name(pruner), **result.metadata}
    if not result.pruned:
        return None, info
    cut_numbers = {n for n, _ in window.cut_lines}

    fmt = page.job.fmt

    def held(a: int, b: int) -> str | None:
        if fresh or page.named:
            return None
        had = all(n not in cut_numbers and getattr(knowledge.lines.get(n), "then", None) == n for n in range(a, b + 1))
        marker = unchanged_marker(a, b, a)
        run = [decorate(n, window.lines[n - window.first], fmt) for n in range(a, b + 1)]
        return marker if had and marker_pays(marker, run) else None

    body, shown_numbers = pruning.focus_body(
        window.lines, window.first, result.kept, lambda n, line: decorate(n, line, fmt), held
    )
    kept_numbers = {window.first + i - 1 for a, b in result.kept for i in range(a, b + 1)}
    held_numbers = sorted(kept_numbers - set(shown_numbers))
    header = pruning.focus_header(len(shown_numbers) + len(held_numbers), len(window.lines), question)
    text = page.render_lines([header, *body])
    info.update(kept_lines=len(shown_numbers) + len(held_numbers), total_lines=len(window.lines))
    points_to = list(dict.fromkeys(knowledge.lines[n].call_id for n in held_numbers))
    return Output(text, ranges_of(shown_numbers), points_to, "focus"), info


def focus_whole_file(page: Page, question: str, fresh: bool) -> tuple[Page, Focused] | None:
    """A whole read with a focus question answered from the whole file: the page of the whole
    file and its ``(answer, focus metadata, unpruned text)`` when the pruner took the whole file
    and what it kept fits the caps (``max_lines`` lines, ``max_bytes``); None otherwise (the
    caller serves the capped window)."""
    lines, limits = page.lines.text_file.lines, page.job.ctx.limits
    if not lines:
        return None
    uncapped = replace(limits, max_bytes=sys.maxsize)
    whole = replace(page, window=select_window(lines, 1, len(lines), uncapped, page.job.fmt))
    focused = focus_window(whole, question, False, answer_of(whole, fresh), fresh)
    answer = focused[0]
    if answer.mode == "focus":
        shown = sum(b - a + 1 for a, b in answer.shown)
        if shown > limits.max_lines or len(answer.text.encode("utf-8")) > limits.max_bytes:
            return None
    elif answer.mode in ("full", "elided"):
        return None
    return whole, focused


def unfocused(ctx: ToolContext, result: ToolResult, question: str | None, shown_as: str) -> ToolResult:
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
