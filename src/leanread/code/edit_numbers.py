"""Copied line numbers in an edit's old_string and new_string (``41\t``, ``41: ``, ``    41→``):
recognised when every line carries one family's prefix, numbered consecutively, and taken off.
Pure; line numbers are 1-based."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import MarkerInEdit
from .edit_text import split_ending

# --- copied line numbers ---------------------------------------------------------------------------

# One family per prefix shape; leanread's tab and catn (and visible) formats share "number + tab".
_FAMILIES: tuple[tuple[re.Pattern[str], re.Pattern[str] | None], ...] = (
    (re.compile(r" *(\d+)→"), None),  # Claude Code: "    41→code"
    (re.compile(r" *(\d+)\t"), re.compile(r" *(\d+)")),  # tab "41\tcode", catn "    41\tcode"
    (re.compile(r" *(\d+):(?: |$)"), None),  # colon "41: code"
)


@dataclass(frozen=True)
class Numbered:
    """old_string with its copied line numbers taken off."""

    family: int
    first: int
    text: str


def _take_prefix(line: str, family: int) -> tuple[int, str] | None:
    """``(number, rest)`` when ``line`` carries the family's prefix; a bare number (a numbered
    empty line whose tab was trimmed) counts as an empty line."""
    prefix, bare = _FAMILIES[family]
    if match := prefix.match(line):
        return int(match.group(1)), line[match.end() :]
    if bare is not None and (match := bare.fullmatch(line)):
        return int(match.group(1)), ""
    return None


def strip_numbers(old: str) -> Numbered | None:
    """old_string without copied line-number prefixes, when every non-blank line carries the
    same family's prefix and the numbers are consecutive (blank lines may have lost theirs)."""
    lines, ending = split_ending(old)
    for family in range(len(_FAMILIES)):
        first: int | None = None
        out: list[str] = []
        for index, line in enumerate(lines):
            taken = _take_prefix(line, family)
            if taken is None:
                if line.strip():
                    break
                out.append(line)
                continue
            number, rest = taken
            if first is None:
                first = number - index
            if number != first + index:
                break
            out.append(rest)
        else:
            if first is not None and first >= 1 and any(_FAMILIES[family][0].match(line) for line in lines):
                return Numbered(family, first, "\n".join(out) + ("\n" if ending else ""))
    return None


def strip_new_numbers(new: str, numbered: Numbered, old_height: int) -> str:
    """new_string without the prefixes of old_string's family: taken off when every non-blank line
    carries one numbered near old_string's lines, kept when none does.

    Raises:
        MarkerInEdit: only some lines carry a prefix, so neither reading is safe.
    """
    lines, ending = split_ending(new)
    prefix, _ = _FAMILIES[numbered.family]
    low, high = numbered.first - len(lines), numbered.first + old_height + len(lines)
    out: list[str] = []
    decorated = plain = 0
    for line in lines:
        taken = _take_prefix(line, numbered.family)
        if taken is not None and low <= taken[0] <= high:
            out.append(taken[1])
            decorated += bool(prefix.match(line))  # a bare number may be either: it does not decide
        else:
            out.append(line)
            plain += bool(line.strip())
    if decorated == 0:
        return new
    if plain:
        raise MarkerInEdit(
            "new_string has copied line-number prefixes on some lines but not on others; "
            "give new_string as plain text, without line numbers."
        )
    return "\n".join(out) + ("\n" if ending else "")
