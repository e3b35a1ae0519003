"""The pruner interface and the result every backend's ranges are turned into."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class Pruner(Protocol):
    """A backend that picks the lines relevant to a question."""

    def keep(self, lines: Sequence[str], question: str, language: str | None) -> list[tuple[int, int]]:
        """Ranges of ``lines`` to keep for ``question``.

        Args:
            lines: the output's lines, without line ends; line 1 is ``lines[0]``.
            question: the agent's complete, self-contained focus question.
            language: what ``leanread.code.outline`` reads the lines as (``python``, ``go``, …), or None.

        Returns:
            1-based inclusive ``(first, last)`` ranges into ``lines``, in any order; they may
            overlap or fall outside ``1..len(lines)`` (the guards clip and merge them).
        """
        ...


@dataclass(frozen=True)
class PruneResult:
    """What focus pruning decided for one output.

    Attributes:
        kept: 1-based inclusive, sorted, disjoint ranges into the output's lines to show; all of
            them (``((1, total),)``) when the output is returned whole.
        total: lines in the output.
        pruned: whether anything was left out (False: skipped by a guard, or failed open).
        metadata: ``skipped`` (the guard that stopped pruning) or ``fail_open`` (the error), or
            ``kept_lines``/``total_lines`` when pruned; the caller adds token counts.
    """

    kept: tuple[tuple[int, int], ...]
    total: int
    pruned: bool
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def kept_lines(self) -> int:
        """Number of lines kept."""
        return sum(b - a + 1 for a, b in self.kept)


def merge_ranges(ranges: Iterable[tuple[int, int]], total: int) -> tuple[tuple[int, int], ...]:
    """``ranges`` clipped to ``1..total``, sorted, with overlapping and adjacent ones merged."""
    clipped = sorted((max(a, 1), min(b, total)) for a, b in ranges if max(a, 1) <= min(b, total))
    merged: list[tuple[int, int]] = []
    for a, b in clipped:
        if merged and a <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return tuple(merged)
