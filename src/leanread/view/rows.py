"""A file's line as a search row shows it (grep's rows, the uses ``grep(symbol=…)`` lists): the
line as the file has it, or past ``LINE_CHARS`` characters a part of it with the cut marked."""

from __future__ import annotations

import re

from .render import CUT_MARKER

#: Characters of a line shown whole; a longer matching line shows a window around the match,
#: a longer context line its start, cut with ``CUT_MARKER``.
LINE_CHARS = 400
#: Characters of the window of a long matching line, of which ``WINDOW_LEAD`` come before the match.
WINDOW_CHARS = 240
WINDOW_LEAD = 80
#: A row's prefix: the id slot (a NUL) grep marks a match's row with until its id is handed out,
#: then the line's number, and ``-`` for a context line (``12<TAB>``, ``13-<TAB>``), or no number
#: for a context line right after the row of the line before it (``<TAB>``).
ROW_PREFIX = re.compile(r"^\x00?(\d+)?(-?)\t")
#: The end of a context row cut at ``LINE_CHARS`` (``context``).
CONTEXT_CUT = re.compile(re.escape(CUT_MARKER).replace(re.escape("{length}"), r"[\d,]+") + "$")


def matched(line: str, number: int, column: int) -> str:
    """Line ``number`` with a match at the 0-based character ``column``: the line itself, or
    when longer than ``LINE_CHARS`` a window of ``WINDOW_CHARS`` around the match, with where it
    is and how to read on (``[line cut: match at column 2,400 of 9,000 chars; read on with
    offset=12, char_offset=2321]``)."""
    if len(line) <= LINE_CHARS:
        return line
    start = max(0, column - WINDOW_LEAD)
    end = min(len(line), start + WINDOW_CHARS)
    start = max(0, end - WINDOW_CHARS)
    text = ("…" if start else "") + line[start:end] + ("…" if end < len(line) else "")
    return (
        f"{text} [line cut: match at column {column + 1} of {len(line)} chars; "
        f"read on with offset={number}, char_offset={start + 1}]"
    )


def context(line: str) -> str:
    """A line around a match: itself, or its first ``LINE_CHARS`` characters and ``CUT_MARKER``."""
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + CUT_MARKER.format(length=len(line))
