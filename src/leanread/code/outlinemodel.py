"""What an outline is: one ``Symbol`` per definition or heading and the ``Outline`` of a file (its
head, its definitions, a log's tail). Line numbers are 1-based and inclusive."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .outlinehead import LeftOut

#: Lines of head and tail shown for a file with no structure leanread knows (a log).
HEAD_TAIL_LINES = 20


@dataclass(frozen=True)
class Symbol:
    """One definition or heading.

    Attributes:
        name: qualified name (``QuerySet.filter``, ``Install > Linux`` for headings).
        kind: ``class``, ``function``, ``method``, ``variable``, ``heading``, ``key``, ``type``, …
        first: first line, decorators and leading doc comments included.
        last: last line.
        line: the line that carries its signature (shown in the outline).
        depth: nesting depth (0 at the top).
        marks: first lines of its decorators, attributes, annotations or ``template`` header,
            between ``first`` and ``line`` (shown above its row).
        listed: whether the outline shows its row; False for a trivial one-line assignment
            (``DEBUG = False``), which ``symbol=`` still finds.
    """

    name: str
    kind: str
    first: int
    last: int
    line: int
    depth: int
    marks: tuple[int, ...] = ()
    listed: bool = True


@dataclass(frozen=True)
class Outline:
    """The map of one file.

    Attributes:
        language: what the file was read as (``python``, ``markdown``, ``log``, …).
        total: lines in the file.
        head: line ranges ``(first, last)`` shown whole above the definitions (a log: its first
            lines; code: the prelude and imports, see ``outlinehead``), at most ``HEAD_LINES``.
        symbols: definitions in file order.
        tail: lines ``tail..total`` are shown whole (0: none; logs only).
        left_out: parts of the head not shown (a long licence, more imports), each said by one
            line that names its lines.
        later: line ranges of imports after the first definition, shown whole among the rows.
        problem: why the map may be off (Python that ``ast`` cannot parse, mapped by an
            error-tolerant parser), or None.
    """

    language: str
    total: int
    head: tuple[tuple[int, int], ...]
    symbols: tuple[Symbol, ...]
    tail: int = 0
    left_out: tuple[LeftOut, ...] = ()
    later: tuple[tuple[int, int], ...] = ()
    problem: str | None = None


def head_and_tail(total: int) -> Outline:
    """The map of a file with no structure leanread knows (a log): its first and last lines."""
    head = min(HEAD_TAIL_LINES, total)
    tail = max(total - HEAD_TAIL_LINES + 1, head + 1)
    return Outline("log", total, ((1, head),) if head else (), (), tail if tail <= total else 0)


def relisted_when_mostly_trivial(symbols: Sequence[Symbol]) -> list[Symbol]:
    """``symbols``, every one listed when most are not (a module of constants, a header of
    ``#define``s: those are its map)."""
    if 2 * sum(not s.listed for s in symbols) > len(symbols):
        return [replace(s, listed=True) for s in symbols]
    return list(symbols)
