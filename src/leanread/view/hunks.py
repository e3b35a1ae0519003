"""How a diff is shown to the model: a hunk's ``@@`` header and lines, and the lines that moved.

The unified diff format of GNU diff (``@@ -old_start,old_count +new_start,new_count @@``; a
count of 0 puts start on the line before); the lines come from ``code.diffs``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..code.diffs import DiffLine
from .frame import Own


def _span(numbers: list[int], before: int) -> str:
    if not numbers:
        return f"{before},0"
    return f"{numbers[0]}" if len(numbers) == 1 else f"{numbers[0]},{len(numbers)}"


def format_hunk(hunk: Sequence[DiffLine]) -> list[str]:
    """A hunk's ``@@`` header and its lines, each prefixed with its tag."""
    olds = [line.old for line in hunk if line.old is not None]
    news = [line.new for line in hunk if line.new is not None]
    old_before = _before(hunk, "old")
    new_before = _before(hunk, "new")
    header = Own(f"@@ -{_span(olds, old_before)} +{_span(news, new_before)} @@")
    return [header, *(line.tag + line.text for line in hunk)]


def _before(hunk: Sequence[DiffLine], side: str) -> int:
    """For an empty side: the number of the line just before the hunk on that side."""
    other = "new" if side == "old" else "old"
    for line in hunk:
        if getattr(line, other) is not None and line.tag == " ":
            return int(getattr(line, side)) - 1
    return 0


def moved_clause(runs: Sequence[tuple[int, int, int]]) -> str:
    """Where the lines outside a diff's hunks were when the model read them: ``""`` when none
    moved, else ``" lines 20-47 were 21-48 and line 51 was 52 when you read them"`` (numbers in
    the current version first)."""
    parts = [
        f"line {first} was {then}" if first == last else f"lines {first}-{last} were {then}-{then + last - first}"
        for first, last, then in runs
    ]
    if not parts:
        return ""
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f" {listed} when you read them"
