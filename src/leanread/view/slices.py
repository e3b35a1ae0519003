"""Part of one long line, read with ``char_offset``: which characters, and their envelope."""

from __future__ import annotations

from dataclasses import dataclass

from ..config.settings import Limits
from .counts import plural
from .frame import Own, framed, hidden_notice


@dataclass(frozen=True)
class LineSlice:
    """Part of one long line, read with ``char_offset``.

    Attributes:
        number: 1-based line number.
        start: 1-based character offset of ``text`` within the line.
        text: the characters shown.
        length: characters in the whole line.
        total: lines in the file.
    """

    number: int
    start: int
    text: str
    length: int
    total: int

    @property
    def end(self) -> int:
        """1-based offset of the last character shown."""
        return self.start + len(self.text) - 1


def select_slice(line: str, number: int, total: int, char_offset: int, limits: Limits) -> LineSlice:
    """Characters of ``line`` from ``char_offset`` (1-based, ``<= len(line)``) on, as many as fit
    in ``limits.max_bytes`` UTF-8 bytes (at least one)."""
    rest = line[char_offset - 1 : char_offset - 1 + limits.max_bytes]
    text = rest.encode("utf-8")[: limits.max_bytes].decode("utf-8", "ignore") or rest[:1]
    return LineSlice(number=number, start=char_offset, text=text, length=len(line), total=total)


def render_slice(display: str, part: LineSlice, *, final_newline: bool) -> str:
    """The model-visible text of a ``LineSlice``: the characters, then where they sit and the next step."""
    span = f"characters {part.start}-{part.end} of {part.length}"
    if part.end < part.length:
        note = f"(Line {part.number}, {span}. Use offset={part.number}, char_offset={part.end + 1} to continue.)"
    elif part.number < part.total:
        note = f"(End of line {part.number}, {span}. Use offset={part.number + 1} to continue.)"
    else:
        ending = "" if final_newline else "; no newline at end of file"
        note = f"(End of line {part.number}, {span}. End of file - total {plural(part.total, 'line')}{ending})"
    hidden = hidden_notice([(part.number, part.text)])
    return framed(display, "file", [part.text, "", *([hidden] if hidden else []), Own(note)])
