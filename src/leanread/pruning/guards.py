"""The guards around any pruner: when to prune at all, what is always kept, and failing open."""

from __future__ import annotations

from collections.abc import Sequence

from .base import Pruner, PruneResult, merge_ranges

#: Outputs shorter than this many lines are returned whole.
MIN_LINES = 50
#: Outputs shorter than this many characters are returned whole.
MIN_CHARS = 2_000
#: Outputs longer than this many characters are returned whole (too big to score quickly).
MAX_CHARS = 200_000
#: Lines always kept at the start and at the end of the output.
EDGE_LINES = 5
#: If the pruner keeps more than this share of the lines, the output is returned whole.
MAX_KEPT_SHARE = 0.9


def _whole(total: int, **reason: str) -> PruneResult:
    return PruneResult(((1, total),) if total else (), total, False, dict(reason))


def prune(
    pruner: Pruner, lines: Sequence[str], question: str, language: str | None, *, already_cut: bool = False
) -> PruneResult:
    """The lines of an output to keep for ``question``, guarded.

    Returns the whole output (``pruned=False``) with ``metadata["skipped"]`` when the output is
    under ``MIN_LINES`` lines or ``MIN_CHARS`` characters, over ``MAX_CHARS``, already cut
    (``already_cut``), or when the pruner keeps no line or over ``MAX_KEPT_SHARE`` of them; with
    ``metadata["fail_open"]`` when the pruner raised anything. Otherwise the pruner's ranges plus
    the first and last ``EDGE_LINES`` lines.
    """
    total = len(lines)
    chars = sum(len(line) + 1 for line in lines)
    if not question.strip():
        return _whole(total, skipped="empty question")
    if already_cut:
        return _whole(total, skipped="output already cut")
    if total < MIN_LINES:
        return _whole(total, skipped=f"under {MIN_LINES} lines")
    if chars < MIN_CHARS:
        return _whole(total, skipped=f"under {MIN_CHARS} characters")
    if chars > MAX_CHARS:
        return _whole(total, skipped=f"over {MAX_CHARS} characters")
    try:
        chosen = pruner.keep(lines, question, language)
        if not chosen:
            return _whole(total, skipped="no line answers the question")
        edges = [(1, EDGE_LINES), (total - EDGE_LINES + 1, total)]
        kept = merge_ranges([*((int(a), int(b)) for a, b in chosen), *edges], total)
    except Exception as exc:  # fail open: any error of any backend gives the full output
        return _whole(total, fail_open=f"{type(exc).__name__}: {exc}")
    count = sum(b - a + 1 for a, b in kept)
    if count > MAX_KEPT_SHARE * total:
        return _whole(total, skipped=f"pruner kept over {MAX_KEPT_SHARE:.0%} of the lines")
    return PruneResult(kept, total, True, {"kept_lines": count, "total_lines": total})
