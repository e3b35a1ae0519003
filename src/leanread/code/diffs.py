"""Unified diffs of one window of a file against the version the model was shown.

Pure functions over ``difflib`` opcodes (0-based, half-open, as ``SequenceMatcher`` gives
them); line numbers are 1-based. How a hunk is shown is ``view.hunks``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Opcode = tuple[str, int, int, int, int]


@dataclass(frozen=True)
class DiffLine:
    """One line of a diff: ``tag`` is ``" "`` (context), ``"-"`` or ``"+"``; ``old``/``new`` are
    its 1-based numbers in the old/new version (None on the side it is absent from)."""

    tag: str
    old: int | None
    new: int | None
    text: str


def common_ends(old: Sequence[str], new: Sequence[str]) -> tuple[int, int]:
    """``(head, tail)``: how many lines ``old`` and ``new`` share at their start and, after
    that, at their end (head + tail never exceeds the shorter one's length)."""
    shorter = min(len(old), len(new))
    head = 0
    while head < shorter and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shorter - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail


def window_lines(
    opcodes: Sequence[Opcode], old: Sequence[str], new: Sequence[str], first: int, last: int
) -> list[DiffLine] | None:
    """Every line of new lines ``first..last`` as context or ``+``, with the old lines removed
    in between as ``-``; None when a change block straddles the window's edge (the diff would
    need lines outside it)."""
    lo, hi = first - 1, last  # the window, 0-based half-open in new-space
    out: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            for j in range(max(j1, lo), min(j2, hi)):
                out.append(DiffLine(" ", i1 + (j - j1) + 1, j + 1, new[j]))
            continue
        if (j2 <= lo and not (tag == "delete" and j1 == lo)) or j1 >= hi:
            continue
        if j1 < lo or j2 > hi:
            return None
        out.extend(DiffLine("-", i + 1, None, old[i]) for i in range(i1, i2))
        out.extend(DiffLine("+", None, j + 1, new[j]) for j in range(j1, j2))
    return out


def hunks(lines: Sequence[DiffLine], context: int = 1) -> list[list[DiffLine]]:
    """Group ``lines`` into hunks: each change with up to ``context`` context lines around it."""
    changed = [i for i, line in enumerate(lines) if line.tag != " "]
    groups: list[list[DiffLine]] = []
    start = end = -1
    for i in changed:
        lo, hi = max(0, i - context), min(len(lines), i + context + 1)
        if groups and lo <= end:
            end = hi
            groups[-1] = list(lines[start:end])
        else:
            start, end = lo, hi
            groups.append(list(lines[start:end]))
    return groups


def moved_runs(numbers: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """``(first, last, then_first)`` for each run of lines whose number moved: ``numbers`` holds
    ``(now, then)`` per line in ascending ``now``; a run is consecutive on both sides with one
    shift, and lines with ``now == then`` are in no run."""
    runs: list[tuple[int, int, int]] = []
    for now, then in numbers:
        if now == then:
            continue
        if runs and runs[-1][1] == now - 1 and runs[-1][2] + (now - runs[-1][0]) == then:
            runs[-1] = (runs[-1][0], now, runs[-1][2])
        else:
            runs.append((now, now, then))
    return runs
