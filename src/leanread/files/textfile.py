"""A file's text: its bytes read (``load_text``: whole, or a window of a big one through the
line index) and turned into lines, remembering how to write them back."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from ..config.settings import Limits
from .fileversion import StaleIndex
from .indexcache import LineIndexCache
from .lineindex import LineIndex
from .safeopen import Resolved, read_regular_file
from .sniff import (
    ESCAPED,
    NUL_SHOWN,
    Encoding,
    almost_text,
    binary_kind,
    shown,
    text_encoding,
    unshow_nul,
    utf16_without_bom,
)

__all__ = [
    "LINE_INDEXES",
    "NUL_SHOWN",
    "IndexedLines",
    "TextFile",
    "almost_text",
    "binary_kind",
    "content_hash",
    "decode",
    "load_text",
    "shown",
    "unshow_nul",
    "utf16_without_bom",
]

#: Line indexes of big files, shared by every session of the process.
LINE_INDEXES = LineIndexCache()


@dataclass(frozen=True)
class TextFile:
    """A decoded text file.

    Attributes:
        lines: the lines without their line endings; a final newline adds no empty line. For a
            file served through the line index, an ``IndexedLines`` that holds one window.
        encoding: Python codec name the bytes after the BOM decode with (``utf-8``,
            ``utf-16-le``, ``gb18030``, ``cp1252``, …).
        bom: the file starts with a byte-order mark (stripped from ``lines``; kept on write).
        newline: the line ending the file uses: ``"\\n"``, ``"\\r\\n"`` or ``"\\r"``.
        final_newline: the last line ends with a line ending.
        content_hash: SHA-256 hex digest of the file's bytes.
        size: length of the file in bytes.
        mixed_newlines: some lines end with CRLF and others with LF (``newline`` is the
            commoner; edits keep each untouched line's own ending).
        invalid_bytes: bytes of a UTF-8 file that are not valid UTF-8; ``lines`` shows each as
            U+FFFD, ``raw_lines`` keeps them (as ``surrogateescape`` code points) for write-back.
        raw_lines: the lines as stored, when ``lines`` shows some characters otherwise (invalid
            bytes, NUL); else None.
        nul_bytes: NUL characters in the text; ``lines`` shows each as ``NUL_SHOWN`` (U+2400).
        growing: a big file that grew while it was indexed: ``lines`` and ``size`` are its first
            ``size`` bytes, up to the last complete line.
        other_encodings: a legacy file whose encoding is a guess: the other encodings whose
            texts read almost as well, closest first (``legacy.choose``); empty when it is clear.
    """

    lines: Sequence[str]
    encoding: str
    bom: bool
    newline: str
    final_newline: bool
    content_hash: str
    size: int
    invalid_bytes: int = 0
    raw_lines: Sequence[str] | None = None
    mixed_newlines: bool = False
    nul_bytes: int = 0
    growing: bool = False
    other_encodings: tuple[str, ...] = ()


def content_hash(data: bytes) -> str:
    """SHA-256 hex digest of ``data``: the identity of a file version in the ledger."""
    return hashlib.sha256(data).hexdigest()


def split_lines(text: str) -> tuple[list[str], str, bool]:
    """Split ``text`` into lines without endings.

    Returns ``(lines, newline, final_newline)``. The newline style is the one most lines end
    with: CRLF when more than half of the ``\n`` follow a ``\r`` (their ``\r`` is then not part
    of the line; an LF-only line among them simply has none), CR when the text has ``\r`` but
    no ``\n``, else LF (a ``\r`` before a ``\n`` then stays part of its line).
    """
    if "\n" in text:
        newline = "\r\n" if 2 * text.count("\r\n") > text.count("\n") else "\n"
        lines = text.split("\n")
        if newline == "\r\n":
            lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    else:
        newline = "\r" if "\r" in text else "\n"
        lines = text.split(newline)
    final_newline = lines[-1] == "" and len(lines) > 1
    if lines[-1] == "":
        lines.pop()
    return lines, newline, final_newline


def mixed_newlines(text: str) -> bool:
    """Whether some lines end with CRLF and others with a bare LF."""
    crlf = text.count("\r\n")
    return 0 < crlf < text.count("\n")


def _text_file(data: bytes, found: Encoding) -> TextFile:
    """The ``TextFile`` of the whole file ``data`` read in ``found``'s encoding: characters shown
    otherwise (invalid bytes, NUL) are kept in ``raw_lines``."""
    text = found.text
    raw, newline, final_newline = split_lines(text)
    nuls = text.count("\x00")
    kept = found.invalid or nuls
    return TextFile(
        lines=tuple(shown(line) for line in raw) if kept else tuple(raw),
        encoding=found.codec,
        bom=found.bom > 0,
        newline=newline,
        final_newline=final_newline,
        content_hash=content_hash(data),
        size=len(data),
        invalid_bytes=found.invalid,
        raw_lines=tuple(raw) if kept else None,
        mixed_newlines=mixed_newlines(text),
        nul_bytes=nuls,
        other_encodings=found.alternatives,
    )


def decode(data: bytes, display: str, sniff_bytes: int = 8192) -> TextFile:
    """Decode a file's bytes into a ``TextFile``, in the encoding ``sniff.text_encoding`` names
    (invalid UTF-8 bytes shown as U+FFFD and NUL characters as ``NUL_SHOWN``, both kept for
    write-back).

    Args:
        data: the whole file.
        display: the path as the model knows it, for error messages.
        sniff_bytes: how many leading bytes decide binary versus text.

    Raises:
        NotText: binary, or no encoding decodes the bytes; the message gives size and kind.
    """
    return _text_file(data, text_encoding(data, display, sniff_bytes))


class IndexedLines(Sequence[str]):
    """The lines of a big file as a sequence of ``total`` lines of which only the window
    ``first .. first + len(held) - 1`` (1-based) is held; reaching outside it raises IndexError."""

    def __init__(self, total: int, first: int, held: Sequence[str]) -> None:
        self._total = total
        self._first = first
        self._held = held

    def __len__(self) -> int:
        return self._total

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._total))]
        held = index - (self._first - 1)
        if not 0 <= held < len(self._held):
            raise IndexError(f"line {index + 1} is outside the loaded window")
        return self._held[held]


def load_text(
    resolved: Resolved, limits: Limits, first: int = 1, limit: int | None = None, *, data: bytes | None = None
) -> TextFile:
    """The file decoded whole, or for a file over ``limits.index_bytes`` the window of ``limit``
    lines from ``first`` read through the shared line index (``limit=None``: decode whole); the
    encoding of a big file is judged from its first ``limits.sniff_bytes``. ``data``: the whole
    file as the caller has just read it through ``read_regular_file``, decoded instead of
    reading it again (a file over ``limits.index_bytes`` is always read through its index).

    The index is of the file as it is when it is opened (not as of ``resolved``'s ``stat``); a
    file that grows meanwhile, as a log does, is served as of the bytes indexed
    (``TextFile.growing``). A file replaced or rewritten during the pass is indexed once more.

    Raises:
        NotText: binary, undecodable, or a big UTF-16/32 file (which the index cannot split).
        PathError: as ``read_regular_file`` and ``LineIndex.read_lines``.
    """
    count = limit if limit is not None and resolved.size > limits.index_bytes else None
    if data is None or count is not None:
        data = read_regular_file(resolved, None if count is None else limits.sniff_bytes)
    found = text_encoding(data, resolved.display, limits.sniff_bytes, None if count is None else resolved.size)
    if count is None:
        return _text_file(data, found)
    try:
        index = LINE_INDEXES.current(resolved.real, name=resolved.display)
    except StaleIndex:  # replaced or rewritten during the pass: index what is there now
        index = LINE_INDEXES.current(resolved.real, name=resolved.display)
    budget = limits.max_bytes + 4 * limits.max_line_chars
    return _window(index, resolved, found, range(max(first, 1), max(first, 1) + count), budget)


def _window(index: LineIndex, resolved: Resolved, found: Encoding, wanted: range, byte_budget: int) -> TextFile:
    """A ``TextFile`` of a big file whose ``lines`` hold the ``wanted`` lines (fewer once their
    raw bytes pass ``byte_budget``), read through ``index`` in ``found``'s encoding. Bytes of a
    line that do not decode are shown as U+FFFD and counted in ``invalid_bytes``."""
    codec, bom = found.codec, found.bom
    crlf = index.lf_count > 0 and index.crlf_count == index.lf_count
    total = 0 if index.size == bom else index.total_lines  # a lone BOM is an empty file
    held: list[str] = []
    used = invalid = nuls = 0
    number = wanted.start
    while len(held) < len(wanted) and number <= total and used <= byte_budget:
        batch = index.read_lines(
            resolved.real, number, min(256, len(wanted) - len(held)), name=resolved.display, grown_ok=True
        )
        for raw in batch:
            if number == 1:
                raw = raw[bom:]
            if crlf and raw.endswith(b"\r"):
                raw = raw[:-1]
            try:
                line = raw.decode(codec)
            except UnicodeDecodeError:
                line = raw.decode(codec, "surrogateescape") if codec == "utf-8" else raw.decode(codec, "replace")
                invalid += len(ESCAPED.findall(line)) or 1
            nuls += line.count("\x00")
            held.append(shown(line))
            used += len(raw) + 1
            number += 1
    return TextFile(
        lines=IndexedLines(total, wanted.start, held),
        encoding=codec,
        bom=bom > 0,
        newline="\r\n" if crlf else "\n",
        final_newline=index.final_newline,
        content_hash=index.content_hash,
        size=index.size,
        invalid_bytes=invalid,
        nul_bytes=nuls,
        growing=_growing(index, resolved.real),
        other_encodings=found.alternatives,
    )


def _growing(index: LineIndex, real: str) -> bool:
    """Whether the file has grown past the bytes ``index`` holds (it is served as of them)."""
    try:
        return index.growing or os.stat(real).st_size > index.size
    except OSError:
        return index.growing
