"""Where a file's opening comment holds a licence, so an outline can leave it out and say so.

A licence is told by its paragraphs, not by the whole comment: the opening lines are split into
paragraphs at blank lines and at lines of comment punctuation only (``#``, `` *``, ``//``,
``/*----``), and a paragraph is licence text when it carries one of ``LICENCE_MARKS`` (the
words every common licence notice uses: SPDX tags, "Copyright", "Permission is hereby granted",
"Licensed under", "Redistribution and use", the GPL's "free software", warranty disclaimers,
licence URLs). Consecutive licence paragraphs, with the punctuation lines around and between
them (``/*``, `` */``, ``#``) and a short paragraph of the same comment between two of them
(``SANDWICH_LINES``), make one run; a run of ``LICENCE_MIN_LINES`` or more is long. A
paragraph that describes the module stays, even above or below a licence. Pure: lines in,
line ranges out; line numbers are 1-based and inclusive.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: A licence run shorter than this (lines) stays in the head: the line that says it was left out
#: costs about what two or three comment lines do (Go's usual three-line BSD notice stays).
LICENCE_MIN_LINES = 4

#: A paragraph of at most this many lines between two licence paragraphs of one comment (no blank
#: line between them) is part of the notice (MPL's "Contributor(s):" list, an author line).
SANDWICH_LINES = 3

#: Phrases of licence notices (case-insensitive). From the notices of the MIT, BSD, Apache 2.0,
#: GPL/LGPL/AGPL, MPL and PSF licences, SPDX tags (spdx.dev/ids) and the headers of CPython,
#: Go, Rust, Apache Commons, VS Code and the Linux kernel.
LICENCE_MARKS = re.compile(
    r"spdx-license-identifier|spdx-filecopyrighttext|\bcopyright\b|©|\(c\)\s*\d{4}"
    r"|permission is hereby granted|permission to use, copy|licen[cs]ed (to|under|by)\b|under the terms of"
    r"|redistribution and use|redistributions of source|all rights reserved|without (any )?warrant"
    r"|provided ['\"“]?as[- ]is|merchantability|fitness for a particular purpose|\bliable\b"
    r"|free software|gnu (general|lesser|library|affero)|\b(apache|mit|bsd|mozilla public|isc) licen[cs]e"
    r"|you may not use this file|governed by an? [\w-]+ licen[cs]e|see (the )?(licen[cs]e|copying)\b"
    r"|/licenses?/|opensource\.org|licen[cs]e (agreement|information|file|text|block)|the original code is"
    r"|public domain|creativecommons\.org|if you need additional information",
    re.IGNORECASE,
)

#: A line of comment punctuation or a rule only: it separates paragraphs and belongs to the run
#: it borders.
_PUNCTUATION = re.compile(r"[\s#/*=+~_<>!;%-]*")


def _is_separator(line: str) -> bool:
    return _PUNCTUATION.fullmatch(line) is not None


def _is_licence(paragraph: Sequence[str]) -> bool:
    """Whether a paragraph carries a licence mark, its words joined by single spaces (notices are
    often justified with runs of spaces, and a phrase may break across lines)."""
    return LICENCE_MARKS.search(" ".join(" ".join(paragraph).split())) is not None


def _paragraphs(lines: Sequence[str], first: int) -> list[tuple[int, int]]:
    """The paragraphs of ``lines`` (numbered from ``first``): runs of lines between separators."""
    found: list[tuple[int, int]] = []
    start = None
    for number, line in enumerate(lines, start=first):
        if _is_separator(line):
            if start is not None:
                found.append((start, number - 1))
            start = None
        elif start is None:
            start = number
    if start is not None:
        found.append((start, first + len(lines) - 1))
    return found


def licence_runs(lines: Sequence[str], first: int = 1) -> list[tuple[int, int]]:
    """The long licence runs among ``lines`` (an opening comment or docstring whose first line is
    line ``first`` of the file): ``(first, last)`` line ranges of ``LICENCE_MIN_LINES`` or more,
    with the punctuation-only lines that border them, in order. Blank lines that border a run
    are not part of it."""
    paragraphs = _paragraphs(lines, first)
    licence = [(a, b) for a, b in paragraphs if _is_licence(lines[a - first : b - first + 1])]
    runs: list[tuple[int, int]] = []
    for a, b in licence:
        between = lines[runs[-1][1] - first + 1 : a - first] if runs else []
        inside = [line for line in between if not _is_separator(line)]
        one_comment = all(line.strip() for line in between)
        if runs and (not inside or (len(inside) <= SANDWICH_LINES and one_comment)):
            runs[-1] = (runs[-1][0], b)  # one notice, maybe with a short "Contributor(s):" paragraph
        else:
            runs.append((a, b))
    grown = [_with_borders(lines, first, a, b) for a, b in runs]
    return [(a, b) for a, b in grown if b - a + 1 >= LICENCE_MIN_LINES]


def _with_borders(lines: Sequence[str], first: int, a: int, b: int) -> tuple[int, int]:
    """``a..b`` grown over the non-blank punctuation lines right before and after it."""
    while a > first and lines[a - first - 1].strip() and _is_separator(lines[a - first - 1]):
        a -= 1
    while b < first + len(lines) - 1 and lines[b - first + 1].strip() and _is_separator(lines[b - first + 1]):
        b += 1
    return a, b
