"""Finding old_string as a substring and applying matches to the logical text: offsets, the
line ranges touched, and the refusal of several matches. Pure; line numbers are 1-based."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import MultipleMatches

#: Match lines listed at most in a MultipleMatches message.
MAX_LISTED_MATCHES = 10

# --- finding and applying matches ------------------------------------------------------------------

# A match: (start, end, replacement) in the logical text.
Match = tuple[int, int, str]
# 1-based inclusive line ranges.
Ranges = tuple[tuple[int, int], ...]


def _positions(text: str, old: str, *, overlapping: bool, line_start: bool = False) -> list[int]:
    """Start offsets of ``old`` in ``text``; with ``line_start`` only those at the start of a line."""
    found: list[int] = []
    start = text.find(old)
    while start != -1:
        if not line_start or start == 0 or text[start - 1] == "\n":
            found.append(start)
            step = 1 if overlapping else len(old)
        else:
            step = 1
        start = text.find(old, start + step)
    return found


def _line_numbers(text: str, offsets: Sequence[int]) -> list[int]:
    """1-based line numbers of ascending ``offsets`` in ``text``."""
    numbers: list[int] = []
    line, prev = 1, 0
    for offset in offsets:
        line += text.count("\n", prev, offset)
        prev = offset
        numbers.append(line)
    return numbers


def too_many(count: int, lines: Sequence[int]) -> MultipleMatches:
    unique = list(dict.fromkeys(lines))
    shown = ", ".join(str(n) for n in unique[:MAX_LISTED_MATCHES])
    if len(unique) > MAX_LISTED_MATCHES:
        shown += f" and {len(unique) - MAX_LISTED_MATCHES} more"
    noun = "line" if len(unique) == 1 else "lines"
    return MultipleMatches(
        f"old_string matches {count} places ({noun} {shown}); "
        "add surrounding lines to make it unique, or pass replace_all=true."
    )


def apply_matches(text: str, matches: Sequence[Match]) -> tuple[str, Ranges, Ranges]:
    """The text with ``matches`` (ascending, not overlapping, non-empty) replaced, and the line
    ranges touched in the old and the new text (merged where they share a line).

    A line is touched when any of its characters, or its line ending, was replaced, or when it was
    joined onto such a line; in the new text, the line the rest of the last matched old line ends
    up on counts too, unless that rest is whole untouched lines starting a fresh line. So the
    lines before and after the ranges are the same in both texts."""
    pieces: list[str] = []
    old_ranges: list[tuple[int, int]] = []
    new_ranges: list[tuple[int, int]] = []
    prev, old_line, new_line = 0, 1, 1
    last_char = ""  # the last character of the new text so far
    for start, end, replacement in matches:
        gap = text.count("\n", prev, start)
        old_line += gap
        new_line += gap
        before = text[prev:start]
        pieces.append(before)
        pieces.append(replacement)
        last_char = (before + replacement)[-1:] or last_char
        old_last = old_line + text.count("\n", start, end - 1)
        after = new_line + replacement.count("\n")  # the line the rest of the old line lands on
        if text[end - 1] == "\n" or end == len(text):
            if last_char in ("", "\n"):
                after -= 1  # the rest is whole untouched lines, starting a fresh line
            elif end < len(text):
                old_last += 1  # the next line is joined onto the changed one
        old_range, new_range = (old_line, old_last), (new_line, after)
        if old_ranges and old_range[0] <= old_ranges[-1][1]:
            old_ranges[-1] = (old_ranges[-1][0], max(old_ranges[-1][1], old_range[1]))
            new_ranges[-1] = (min(new_ranges[-1][0], new_range[0]), max(new_ranges[-1][1], new_range[1]))
        else:
            old_ranges.append(old_range)
            new_ranges.append(new_range)
        old_line += text.count("\n", start, end)
        new_line += replacement.count("\n")
        prev = end
    pieces.append(text[prev:])
    return "".join(pieces), tuple(old_ranges), tuple(new_ranges)


def substring_matches(
    text: str, old: str, new: str, *, replace_all: bool, line_start: bool = False, prefer_line: int | None = None
) -> list[Match] | None:
    """Matches of ``old`` as a substring, or None when there is none.

    Raises:
        MultipleMatches: several and not ``replace_all``, unless exactly one starts on line
            ``prefer_line`` (the line number old_string was copied with).
    """
    if replace_all:
        starts = _positions(text, old, overlapping=False, line_start=line_start)
        return [(s, s + len(old), new) for s in starts] or None
    starts = _positions(text, old, overlapping=True, line_start=line_start)
    if not starts:
        return None
    if len(starts) > 1:
        lines = _line_numbers(text, starts)
        preferred = [s for s, n in zip(starts, lines, strict=True) if n == prefer_line]
        if len(preferred) != 1:
            raise too_many(len(starts), lines)
        starts = preferred
    return [(starts[0], starts[0] + len(old), new)]
