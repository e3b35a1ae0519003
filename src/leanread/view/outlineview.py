"""An outline as the model sees it: its header, head, rows of definitions with their line
ranges (a big class's members listed by name), and the stub for an outline the model still has.

Pure: an ``Outline`` (``code.outline``) and a way to get a line in, the text out. Line numbers
are 1-based.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from ..code.outline import Outline, Symbol
from ..code.outlinehead import LeftOut, head_lines
from ..config.settings import Limits
from .frame import Own, framed, hidden_notice
from .outlinemembers import member_lists
from .render import cut_line

#: An outline row shows at most this many characters of its line (a minified line is a map of
#: nothing); a row cut short does not count as seen.
OUTLINE_LINE_CHARS = 240


def outline_line_chars(limits: Limits) -> int:
    """The characters of a line an outline row shows: ``OUTLINE_LINE_CHARS``, or less when
    ``limits.max_line_chars`` is smaller."""
    return min(limits.max_line_chars, OUTLINE_LINE_CHARS)


def render_outline_unchanged(display: str) -> str:
    """The stub for a re-read of an outline the model still has, the same text as before."""
    note = (
        "(Outline unchanged since you read it, still in your context. Read a part with offset and limit "
        "or symbol=NAME, or use fresh=true to see the outline again.)"
    )
    return framed(display, "outline", [Own(note)])


def _outline_header(made: Outline, example: str | None, *, members: bool = False) -> str:
    total = f"{made.total}-line"
    if made.language == "log":
        tail = f" and {made.tail}-{made.total}" if made.tail else ""
        first = f"1-{made.head[-1][1]}" if made.head else "none"
        return (
            f"(Head and tail of a {total} file: lines {first}{tail}. Read any part with offset and "
            'limit, or all of it with mode="full".)'
        )
    symbol = f'symbol="{example}"' if example else "symbol=NAME"
    parts = {"markdown": "heading", "rst": "heading", "json": "top-level key", "yaml": "top-level key", "toml": "table"}
    part = parts.get(made.language, "definition")
    head = "its head, then " if made.head or made.left_out else ""
    return (
        f"(Outline of a {total} {made.language} file: {head}each {part} with its lines; a row with one "
        f"number ends before the next row{'; a member listed as name 12 starts on line 12' if members else ''}. "
        f'Read a part with offset and limit, one {part} with {symbol}, or all of it with mode="full".)'
    )


def left_out_line(piece: LeftOut) -> str:
    """The line that stands for lines of a head an outline leaves out, with how to read them."""
    return (
        f"… lines {_lines_label(piece.first, piece.last)}: {piece.what}, left out; "
        f"read {'them' if piece.last > piece.first else 'it'} with offset={piece.first}, "
        f"limit={piece.last - piece.first + 1} …"
    )


def _first_with_members(made: Outline) -> Symbol | None:
    """The first top-level definition with definitions nested in it (a class with methods)."""
    inner = [s for s in made.symbols if s.depth > 0]
    return next((s for s in made.symbols if s.depth == 0 and any(s.line < t.line <= s.last for t in inner)), None)


def _lines_label(first: int, last: int) -> str:
    return f"{first}" if first == last else f"{first}-{last}"


def _next_rows(numbers: list[int], total: int, *, cut: bool) -> dict[int, int]:
    """Each shown row's line → the line the next shown row starts on (``total + 1`` after the last
    row, unless rows were left out past it: then no entry)."""
    ordered = sorted(set(numbers))
    after = dict(pairwise(ordered))
    if ordered and not cut:
        after[ordered[-1]] = total + 1
    return after


def _unlabelled_end(
    row: str, n: int, ends: dict[int, int], after: dict[int, int], line_of: Callable[[int], str]
) -> str:
    """``row`` (``first-last<TAB>text``) with its last line left out when only blank lines lie
    between it and the next row: the header says a row with one number ends before the next row,
    so the model reads up to that row and gets the definition and those blank lines."""
    last, following = ends.get(n), after.get(n)
    if last is None or following is None or last >= following:
        return row
    if any(line_of(k).strip() for k in range(last + 1, following)):
        return row
    return row.replace(f"{n}-{last}\t", f"{n}\t", 1)


def render_outline(
    display: str,
    made: Outline,
    line_of: Callable[[int], str],
    limits: Limits,
    *,
    facts: str | None = None,
    start: int = 1,
) -> tuple[str, tuple[int, ...]]:
    """The model-visible outline: a header that says what it is and how to get any part, then in
    line order the head lines (``1<TAB>import os``), one line per part of the head left out
    (``… lines 2-28: a licence, left out; read them with offset=2, limit=27 …``), one
    ``line-last<TAB>signature line`` per definition (the file's own line ``line``, indentation
    kept, and the definition's last line; its decorators' first lines above it as
    ``12<TAB>@cache``) and the imports among them (``640<TAB>import warnings``), then the tail
    for a log. A definition's row whose line the head shows is not repeated. Every row's first
    number is the line its text is: tab-separated rows read as leanread's ``tab`` format does. A
    big class's members are one line of names and first lines instead (``outlinemembers``); their
    lines are not shown whole.
    When the whole would pass ``limits.max_bytes``, nested definitions are left out of the first
    page and then the rest is left for the next page. A page from line ``start`` > 1 opens with
    the rows of the definitions around that line, and holds at least one row from ``start`` on,
    so paging always moves on. ``facts`` (see ``file_facts``) and ``made.problem`` follow the
    header.

    Returns:
        The text, and the line numbers it shows whole (for the ledger).
    """
    listed = [s for s in made.symbols if s.listed]
    example = next((s.name for s in listed if s.depth > 0), listed[0].name if listed else None)
    cap = outline_line_chars(limits)
    in_head = set(head_lines(made.head))
    head = [(n, f"{n}\t{cut_line(line_of(n), cap)}") for n in sorted(in_head)]
    head += [(piece.first, left_out_line(piece)) for piece in made.left_out]
    tail = [(n, f"{n}\t{cut_line(line_of(n), cap)}") for n in range(made.tail, made.total + 1)] if made.tail else []
    ends = {s.line: s.last for s in reversed(made.symbols) if s.listed and s.last > s.line}
    lists = member_lists(made.language, listed, line_of)
    in_lists = set().union(*(members.hidden_lines for members in lists))
    rows = {  # one row a line: a one-line type's members (``interface I { void f(); }``) share its row
        n: (n, f"{_lines_label(n, ends.get(n, n))}\t{cut_line(line_of(n), cap)}", s.depth)
        for s in reversed(made.symbols)
        if s.listed
        for n in (s.line, *s.marks)
        if n not in in_lists
    }
    imports = {n: (n, f"{n}\t{cut_line(line_of(n), cap)}", 0) for n in head_lines(made.later)}
    listed_at = {members.members[0].line: members for members in lists}
    named = {n: (n, members.text, members.owner.depth + 1) for n, members in listed_at.items()}
    entries = sorted((e for n, e in (imports | rows | named).items() if n not in in_head), key=lambda entry: entry[0])
    notes: list[str] = []
    budget = limits.max_bytes - sum(len(text.encode()) + 1 for _, text in head + tail) - 400
    too_long = sum(len(text.encode()) + 1 for _, text, _ in entries) > budget
    outer = _first_with_members(made) if too_long and start == 1 else None
    if outer is not None:  # the top level only; later pages list members
        entries = [entry for entry in entries if entry[2] == 0]
        notes.append(
            "(Nested definitions are left out to keep this short. To list a class's members, read on from "
            f'inside it with mode="outline", e.g. offset={outer.line + 1} for {outer.name}.)'
        )
    kept: list[tuple[int, str, int]] = []
    used, paged = 0, False
    for entry in entries:
        used += len(entry[1].encode()) + 1
        if used > budget and any(n >= start for n, *_ in kept):
            rest = entries[len(kept) :]
            signatures = {s.line for s in made.symbols}
            left = sum(len(listed_at[n].members) if n in listed_at else n in signatures for n, *_ in rest)
            notes.append(
                f"({left} more definitions from line {rest[0][0]} on are left out; "
                f'read on with offset={rest[0][0]}, mode="outline".)'
            )
            paged = True
            break
        kept.append(entry)
    gap = made.tail and made.head and made.head[-1][1] + 1 < made.tail
    middle = [f"… lines {made.head[-1][1] + 1}-{made.tail - 1} not shown …"] if gap else []
    problem = f"({made.problem}; the rows are real lines, but a range may be off.)" if made.problem else None
    numbered = [n for n, *_ in kept if n not in listed_at]
    shown_rows = sorted([*in_head, *numbered, *(n for n, _ in tail)])
    hidden = hidden_notice((n, line_of(n)) for n in shown_rows)
    after = _next_rows([n for n, _ in head] + numbered + [n for n, _ in tail], made.total, cut=paged)
    rows_in_order = [*((n, t, n in in_head) for n, t in head), *((n, t, n not in listed_at) for n, t, _ in kept)]
    ordered = sorted(rows_in_order, key=lambda row: row[0])
    body = [
        Own(_outline_header(made, example, members=any(n in listed_at for n, *_ in kept))),
        *([Own(facts)] if facts else []),
        *([Own(problem)] if problem else []),
        *([hidden] if hidden else []),
        *(_unlabelled_end(t, n, ends, after, line_of) if row else Own(t) for n, t, row in ordered),
        *map(Own, middle),
        *(t for _, t in tail),
    ]
    whole = tuple(n for n in shown_rows if len(line_of(n)) <= cap)
    return framed(display, "outline", [*body, *(["", *map(Own, notes)] if notes else [])]), whole
