"""Turn a window of lines into the text the model sees: caps, line decorations, the envelope.

Everything here is pure: lines in, strings out. Line numbers are 1-based.

Envelope (DESIGN.md)::

    <path>src/app.py</path>
    <type>file</type>
    <content>
    ...the lines...

    (End of file - total 120 lines)
    </content>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from .config import Limits

Format = Literal["plain", "tab", "colon"]
FORMATS: tuple[str, ...] = get_args(Format)
StopReason = Literal["eof", "limit", "bytes"]

#: Ends a line cut at the line cap; ``edit`` will refuse any text that contains it.
CUT_MARKER = "… [line cut: {length:,} chars in all]"


def decorate(number: int, line: str, fmt: Format) -> str:
    """One line as shown in ``fmt``: ``plain`` → ``code``; ``tab`` → ``41\\tcode``;
    ``colon`` → ``41: code`` (opencode's prefix)."""
    if fmt == "plain":
        return line
    if fmt == "tab":
        return f"{number}\t{line}"
    return f"{number}: {line}"


@dataclass(frozen=True)
class Window:
    """The lines one ``read`` shows.

    Attributes:
        first: 1-based number of the first line shown.
        last: 1-based number of the last line shown (``first - 1`` when none is).
        total: lines in the file.
        lines: the lines as shown; a cut line ends with ``CUT_MARKER``.
        cut_lines: ``(line number, full length in characters)`` of each cut line.
        stop: why the window ends: ``eof``, the line ``limit``, or the ``bytes`` cap.
    """

    first: int
    last: int
    total: int
    lines: tuple[str, ...]
    cut_lines: tuple[tuple[int, int], ...]
    stop: StopReason

    @property
    def next_offset(self) -> int | None:
        """The offset that continues after this window, or None at end of file."""
        return None if self.stop == "eof" else self.last + 1

    @property
    def full_ranges(self) -> tuple[tuple[int, int], ...]:
        """Inclusive 1-based ranges of the lines shown whole (cut lines excluded)."""
        ranges: list[tuple[int, int]] = []
        cut = {number for number, _ in self.cut_lines}
        for number in range(self.first, self.last + 1):
            if number in cut:
                continue
            if ranges and ranges[-1][1] == number - 1:
                ranges[-1] = (ranges[-1][0], number)
            else:
                ranges.append((number, number))
        return tuple(ranges)


def cut_line(line: str, max_chars: int) -> str:
    """``line`` itself, or its first ``max_chars`` characters followed by ``CUT_MARKER``."""
    if len(line) <= max_chars:
        return line
    return line[:max_chars] + CUT_MARKER.format(length=len(line))


def select_window(lines: Sequence[str], first: int, limit: int, limits: Limits, fmt: Format) -> Window:
    """Pick the lines from ``first`` (1-based, ``1 <= first <= len(lines)`` or an empty file)
    on, stopping at ``limit`` lines, end of file, or when the decorated lines would pass
    ``limits.max_bytes`` UTF-8 bytes. At least one line is always shown, so paging progresses.
    """
    total = len(lines)
    shown: list[str] = []
    cut: list[tuple[int, int]] = []
    used = 0
    end = min(total, first - 1 + limit)
    stop: StopReason = "eof" if end == total else "limit"
    for number in range(first, end + 1):
        line = lines[number - 1]
        visible = cut_line(line, limits.max_line_chars)
        size = len(decorate(number, visible, fmt).encode("utf-8")) + 1
        if shown and used + size > limits.max_bytes:
            stop = "bytes"
            break
        used += size
        shown.append(visible)
        if visible is not line:
            cut.append((number, len(line)))
    return Window(
        first=first,
        last=first + len(shown) - 1,
        total=total,
        lines=tuple(shown),
        cut_lines=tuple(cut),
        stop=stop,
    )


def _footer(window: Window, limits: Limits, final_newline: bool) -> list[str]:
    notes: list[str] = []
    if window.cut_lines:
        numbers = ", ".join(str(number) for number, _ in window.cut_lines)
        noun = "Line" if len(window.cut_lines) == 1 else "Lines"
        notes.append(
            f"({noun} {numbers} cut at {limits.max_line_chars:,} characters; "
            "the marker at the end of each gives its full length.)"
        )
    if window.total == 0:
        notes.append("(Empty file - 0 lines)")
    elif window.stop == "eof":
        ending = "" if final_newline else "; no newline at end of file"
        notes.append(f"(End of file - total {window.total} lines{ending})")
    else:
        showing = (
            f"Showing lines {window.first}-{window.last} of {window.total}. "
            f"Use offset={window.next_offset} to continue."
        )
        if window.stop == "bytes":
            showing = f"Output capped at {limits.max_bytes // 1024} KB. {showing}"
        notes.append(f"({showing})")
    return notes


def envelope(display: str, kind: str, body: Sequence[str]) -> str:
    """Wrap ``body`` lines in the ``<path>``/``<type>``/``<content>`` envelope."""
    return "\n".join([f"<path>{display}</path>", f"<type>{kind}</type>", "<content>", *body, "</content>"])


def render_window(display: str, window: Window, fmt: Format, limits: Limits, *, final_newline: bool) -> str:
    """The model-visible text of a read window: envelope, decorated lines, a blank line, notices."""
    body = [decorate(window.first + i, line, fmt) for i, line in enumerate(window.lines)]
    if body:
        body.append("")
    body.extend(_footer(window, limits, final_newline))
    return envelope(display, "file", body)


def render_unchanged(display: str, first: int, last: int, call_ids: Sequence[str]) -> str:
    """The stub for a re-read of lines the model still has, unchanged, from ``call_ids``.

    ``read`` sends it only when it costs fewer tokens than the lines themselves."""
    calls = ", ".join(call_ids)
    noun = "call" if len(call_ids) == 1 else "calls"
    return envelope(
        display,
        "file",
        [
            f"(Lines {first}-{last} unchanged since {noun} {calls}, still in your context. "
            "Use fresh=true to see them again.)"
        ],
    )
