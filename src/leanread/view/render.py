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

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..config.settings import Limits
from .counts import plural
from .formats import Format, decorate
from .frame import Own, any_hidden, framed, hidden_notice
from .frame import envelope as envelope
from .slices import LineSlice as LineSlice
from .slices import render_slice as render_slice
from .slices import select_slice as select_slice

StopReason = Literal["eof", "limit", "bytes"]

#: Ends a line cut at the line cap; ``edit`` will refuse any text that contains it.
CUT_MARKER = "… [line cut: {length} chars in all]"


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
        start = self.first
        for number in sorted({n for n, _ in self.cut_lines if self.first <= n <= self.last}):
            if start < number:
                ranges.append((start, number - 1))
            start = number + 1
        if start <= self.last:
            ranges.append((start, self.last))
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
    held = isinstance(lines, (list, tuple))  # not a line index's window, which loads lines as asked
    fast = _plain_prefix(lines, first, end, limits) if fmt == "plain" and held else None
    if fast is not None:
        picked, capped = fast
        last = first + len(picked) - 1
        return Window(first=first, last=last, total=total, lines=picked, cut_lines=(), stop="bytes" if capped else stop)
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


def _plain_prefix(lines: Sequence[str], first: int, end: int, limits: Limits) -> tuple[tuple[str, ...], bool] | None:
    """For ``plain`` lines ``first..end`` of which none is cut: the lines ``select_window``'s loop
    would pick (the longest run from ``first`` within the byte cap, one line at least) and whether
    the cap stopped it, found with C-level passes (a whole read of a 100 KB file: 1 ms, not 8).
    None when a line would be cut: take the loop."""
    chunk = tuple(lines[first - 1 : end])
    if not chunk or max(map(len, chunk)) > limits.max_line_chars:
        return None
    if 4 * sum(map(len, chunk)) + len(chunk) <= limits.max_bytes:
        return chunk, False  # even at 4 bytes a character it fits
    sizes = map(len, chunk) if "".join(chunk).isascii() else map(len, map(str.encode, chunk))
    sums = list(itertools.accumulate(sizes))  # bytes of the lines without their newlines
    count = max(1, bisect.bisect_right(range(len(sums)), limits.max_bytes, key=lambda i: sums[i] + i + 1))
    return chunk[:count], count < len(chunk)


def span(first: int, last: int) -> str:
    """``line 5`` or ``lines 5-9``."""
    return f"line {first}" if first == last else f"lines {first}-{last}"


def byte_size(count: int) -> str:
    """``51200`` → ``50 KB``; a count that is not a whole number of KB stays in bytes."""
    return f"{count // 1024} KB" if count % 1024 == 0 else f"{count} bytes"


def _cut_notice(window: Window, limits: Limits) -> str:
    numbers = [number for number, _ in window.cut_lines]
    cap = f"{limits.max_line_chars}"
    resume = limits.max_line_chars + 1
    if len(numbers) == 1:
        n = numbers[0]
        return (
            f"(Line {n} is longer than {cap} characters and was cut where marked; "
            f"read the rest with offset={n}, char_offset={resume}.)"
        )
    listed = ", ".join(str(n) for n in numbers[:10]) + (" and more" if len(numbers) > 10 else "")
    return (
        f"(Lines {listed} are longer than {cap} characters and were cut where marked; "
        f"read the rest of line N with offset=N, char_offset={resume}.)"
    )


def file_facts(
    encoding: str,
    newline: str,
    invalid_bytes: int = 0,
    mixed: bool = False,
    *,
    nul_bytes: int = 0,
    growing: tuple[int, int] | None = None,
    others: Sequence[str] = (),
) -> str | None:
    """A notice naming a non-UTF-8 encoding (and, when it is a guess, the ``others`` that read
    almost as well), non-LF or mixed line endings, bytes that are not valid UTF-8 (shown
    as U+FFFD), NUL bytes (shown as U+2400) and a file that grew while it was indexed
    (``growing``: lines and bytes served), or None for clean UTF-8 with LF."""
    endings = {"\r\n": "CRLF", "\r": "CR"}.get(newline)
    if mixed:
        endings = f"mixed CRLF and LF (mostly {endings or 'LF'})"
    legacy = None if encoding == "utf-8" else encoding
    notes: list[str] = []
    if legacy and endings:
        notes.append(f"(File is {legacy}-encoded with {endings} line endings; edits keep both.)")
    elif legacy:
        notes.append(f"(File is {legacy}-encoded; edits keep that encoding.)")
    elif endings:
        notes.append(f"(File uses {endings} line endings; edits keep them.)")
    if others:
        notes.append(f"({encoding} is a guess; the file could also be {' or '.join(others)}.)")
    if invalid_bytes:
        noun = "byte that is" if invalid_bytes == 1 else "bytes that are"
        notes.append(f"(File is UTF-8 with {invalid_bytes} {noun} not valid UTF-8, shown as \ufffd; edits keep them.)")
    if nul_bytes:
        notes.append("(The file holds NUL bytes, shown as \u2400; edit and write take \u2400 for NUL in it.)")
    if growing is not None:
        lines, size = growing
        notes.append(
            f"(The file is growing: this shows its first {lines} lines as of {size} bytes; read again for more.)"
        )
    return "\n".join(notes) or None


def _footer(window: Window, limits: Limits, final_newline: bool, kind: str) -> list[str]:
    notes: list[str] = []
    if window.cut_lines:
        notes.append(_cut_notice(window, limits))
    units = "lines" if kind == "file" else "entries"
    if window.total == 0:
        notes.append(f"(Empty {kind} - 0 {units})")
    elif window.stop == "eof":
        ending = "" if final_newline else "; no newline at end of file"
        if kind == "directory":
            ending = "; ls shows the tree below it"
        notes.append(f"(End of {kind} - total {plural(window.total, 'line' if kind == 'file' else 'entry')}{ending})")
    else:
        showing = (
            f"Showing {units} {window.first}-{window.last} of {window.total}. "
            f"Use offset={window.next_offset} to continue."
        )
        if window.stop == "bytes":
            showing = f"Output capped at {byte_size(limits.max_bytes)}. {showing}"
        notes.append(f"({showing})")
    return notes


#: Binary files a search note names at most; the rest are counted.
BINARY_NAMES = 5


def binary_skipped(names: Sequence[str]) -> str | None:
    """The one-line note for binary files with a match that a search left out, or None for none:
    ``(1 binary file skipped: logo.png.)``, naming up to ``BINARY_NAMES`` and counting the rest."""
    if not names:
        return None
    listed = ", ".join(names[:BINARY_NAMES])
    more = f" and {len(names) - BINARY_NAMES} more" if len(names) > BINARY_NAMES else ""
    noun = "binary file" if len(names) == 1 else "binary files"
    return f"({len(names)} {noun} skipped: {listed}{more}.)"


def render_window(
    display: str,
    window: Window,
    fmt: Format,
    limits: Limits,
    *,
    final_newline: bool,
    facts: str | None = None,
    kind: str = "file",
) -> str:
    """The model-visible text of a read window: envelope, decorated lines, a blank line, notices.

    ``facts`` (see ``file_facts``) comes first among the notices; ``kind="directory"`` words the
    notices in entries instead of lines.
    """
    body = [decorate(window.first + i, line, fmt) for i, line in enumerate(window.lines)]
    return render_body(display, window, body, limits, final_newline=final_newline, facts=facts, kind=kind)


def render_body(
    display: str,
    window: Window,
    body: Sequence[str],
    limits: Limits,
    *,
    final_newline: bool,
    facts: str | None = None,
    kind: str = "file",
    shown_as: str | None = None,
) -> str:
    """Like ``render_window`` with the window's lines already turned into ``body`` (decorated
    lines, markers, or diff hunks); ``shown_as`` overrides the ``<type>`` (``diff``)."""
    lines = list(body)
    if lines:
        lines.append("")
    hidden = any_hidden(window.lines) and hidden_notice(enumerate(window.lines, window.first))
    if hidden:
        lines.append(hidden)
    if facts:
        lines.append(Own(facts))
    lines.extend(Own(note) for note in _footer(window, limits, final_newline, "file" if kind == "file" else kind))
    return framed(display, shown_as or kind, lines)


def unchanged_marker(first: int, last: int, then_first: int) -> str:
    """Stands for lines ``first..last`` the model has unchanged, read when they were lines
    ``then_first..``: ``… lines 40-80 unchanged since you read them …``. ``edit`` and ``write``
    refuse text that contains one."""
    span, them = (f"line {first}", "it") if first == last else (f"lines {first}-{last}", "them")
    if then_first == first:
        return Own(f"… {span} unchanged since you read {them} …")
    then = f"line {then_first}" if first == last else f"lines {then_first}-{then_first + last - first}"
    return Own(f"… {span} unchanged since you read {them} as {then} …")


def unchanged_note(window: Window) -> str:
    """The note of an unchanged re-read's stub, naming the lines it stands for:
    ``(Lines 40-80 unchanged since you read them, still in your context. Use fresh=true …)``."""
    if window.first == window.last:
        return Own(
            f"(Line {window.first} unchanged since you read it, still in your context. Use fresh=true to see it again.)"
        )
    span = f"Lines {window.first}-{window.last}"
    return Own(f"({span} unchanged since you read them, still in your context. Use fresh=true to see them again.)")


def render_unchanged(display: str, window: Window, limits: Limits, *, final_newline: bool) -> str:
    """The stub for a re-read of lines the model still has, unchanged, with the window's usual
    notices. ``read`` sends it only when it pays (``marks.marker_pays``)."""
    return render_body(display, window, [unchanged_note(window)], limits, final_newline=final_newline)
