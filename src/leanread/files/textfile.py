"""Tell text from binary and turn a file's bytes into lines, remembering how to write them back."""

from __future__ import annotations

import codecs
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from ..errors import NotText
from .legacy import choose
from .lineindex import LineIndex
from .sniff import ESCAPED, NUL_SHOWN, almost_text, binary_kind, shown, unshow_nul, utf16_without_bom

__all__ = [
    "NUL_SHOWN",
    "IndexedLines",
    "TextFile",
    "almost_text",
    "binary_kind",
    "content_hash",
    "decode",
    "decode_indexed",
    "shown",
    "unshow_nul",
    "utf16_without_bom",
]


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


def _mostly_utf8(data: bytes) -> tuple[str, int] | None:
    """The text with its invalid bytes kept as ``surrogateescape`` code points, and their count,
    when the file is UTF-8 with a few bad bytes: at least three valid multi-byte characters and
    three times as many as bad bytes (legacy multi-byte text such as GBK forms valid UTF-8
    sequences only by chance, well below that); else None."""
    text = data.decode("utf-8", "surrogateescape")
    invalid = len(ESCAPED.findall(text))
    multibyte = sum(1 for char in text if ord(char) > 0x7F) - invalid
    return (text, invalid) if multibyte >= max(3, 3 * invalid) else None


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


_BOMS: tuple[tuple[bytes, str], ...] = (
    # UTF-32 first: its little-endian BOM begins with UTF-16's.
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _sniff_bom(data: bytes) -> tuple[str, int] | None:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return None


def _text_file(
    data: bytes, text: str, codec: str, *, bom: bool, invalid: int = 0, others: tuple[str, ...] = ()
) -> TextFile:
    """The ``TextFile`` of ``data`` decoded to ``text`` (invalid bytes kept as ``surrogateescape``
    code points, ``invalid`` of them): characters shown otherwise (invalid bytes, NUL) are kept
    in ``raw_lines``."""
    raw, newline, final_newline = split_lines(text)
    nuls = text.count("\x00")
    lines = tuple(shown(line) for line in raw) if invalid or nuls else tuple(raw)
    return TextFile(
        lines=lines,
        encoding=codec,
        bom=bom,
        newline=newline,
        final_newline=final_newline,
        content_hash=content_hash(data),
        size=len(data),
        invalid_bytes=invalid,
        raw_lines=tuple(raw) if invalid or nuls else None,
        mixed_newlines=mixed_newlines(text),
        nul_bytes=nuls,
        other_encodings=others,
    )


def _not_text(display: str, kind: str, size: int) -> NotText:
    return NotText(f"{display} is {kind} ({size} bytes), not text; read shows text files only.")


def decode(data: bytes, display: str, sniff_bytes: int = 8192) -> TextFile:
    """Decode a file's bytes into a ``TextFile``.

    Order: a UTF-32/UTF-8/UTF-16 byte-order mark decides; else leading bytes that look binary
    (a known signature, NUL bytes unless almost text, see ``binary_kind``) refuse; else UTF-16
    without a byte-order mark (``utf16_without_bom``); else strict UTF-8; else UTF-8 with a few
    invalid bytes (shown as U+FFFD, kept for write-back) when valid multi-byte characters
    outnumber them; else the legacy encoding whose text reads most plausibly among the candidates
    of charset-normalizer and the usual code pages (``legacy.choose``: windows-1252, GBK,
    Shift-JIS, …; close runners-up are kept as ``other_encodings``). NUL characters are
    shown as ``NUL_SHOWN`` and kept for write-back.

    Args:
        data: the whole file.
        display: the path as the model knows it, for error messages.
        sniff_bytes: how many leading bytes decide binary versus text.

    Raises:
        NotText: binary, or no encoding decodes the bytes; the message gives size and kind.
    """
    bom = _sniff_bom(data)
    if bom is not None:
        codec, skip = bom
        try:
            text = data[skip:].decode(codec)
        except UnicodeDecodeError as exc:
            mostly = _mostly_utf8(data[skip:]) if codec == "utf-8" else None
            if mostly is not None:
                return _text_file(data, mostly[0], "utf-8", bom=True, invalid=mostly[1])
            raise NotText(
                f"{display} starts with a {codec} byte-order mark but is not valid {codec} "
                f"(bad byte at offset {exc.start + skip} of {len(data)}); leanread cannot show it."
            ) from None
        return _text_file(data, text, codec, bom=True)
    head = data[:sniff_bytes]
    kind = binary_kind(head)
    if kind is not None:
        raise _not_text(display, kind, len(data))
    wide = utf16_without_bom(head) if b"\x00" in head else None
    if wide is not None:
        try:
            return _text_file(data, data.decode(wide), wide, bom=False)
        except UnicodeDecodeError:
            if not almost_text(head):
                raise _not_text(display, "binary data", len(data)) from None
    try:
        return _text_file(data, data.decode("utf-8"), "utf-8", bom=False)
    except UnicodeDecodeError:
        pass
    mostly = _mostly_utf8(data)
    if mostly is not None:
        return _text_file(data, mostly[0], "utf-8", bom=False, invalid=mostly[1])
    legacy = choose(data)
    if legacy is None:
        raise NotText(
            f"{display} is neither UTF-8 nor a text encoding leanread can detect "
            f"({len(data)} bytes); leanread cannot show it."
        ) from None
    # edits splice lines where the codec does not round-trip
    text = data.decode(legacy.encoding)
    return _text_file(data, text, legacy.encoding, bom=False, others=legacy.alternatives)


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


def _head_encoding(head: bytes, display: str, size: int) -> tuple[str, int, tuple[str, ...]]:
    """Codec, BOM length and close alternative codecs (``legacy.choose``) for a big file, judged
    from its first bytes (a legacy encoding from its complete lines among them, as ``decode``
    would judge a file of those lines)."""
    bom = _sniff_bom(head)
    if bom is not None:
        codec, skip = bom
        if codec != "utf-8":
            raise NotText(
                f"{display} is a {codec} file of {size} bytes, too big to serve by line; "
                "convert it to UTF-8 to read it."
            )
        return codec, skip, ()
    kind = binary_kind(head)
    if kind is not None:
        raise _not_text(display, kind, size)
    wide = utf16_without_bom(head) if b"\x00" in head else None
    if wide is not None and not almost_text(head):
        raise NotText(
            f"{display} is a {wide} file of {size} bytes, too big to serve by line; convert it to UTF-8 to read it."
        )
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        return "utf-8", 0, ()
    except UnicodeDecodeError:
        if _mostly_utf8(head) is not None:
            return "utf-8", 0, ()
        # whole lines only: a multi-byte character cut at the end would rule its codec out
        legacy = choose(head[: head.rfind(b"\n") + 1] or head)
        if legacy is None:
            raise NotText(
                f"{display} is neither UTF-8 nor a text encoding leanread can detect "
                f"({size} bytes); leanread cannot show it."
            ) from None
        return legacy.encoding, 0, legacy.alternatives


def decode_indexed(
    index: LineIndex, real: str, display: str, head: bytes, first: int, count: int, byte_budget: int
) -> TextFile:
    """A ``TextFile`` of a big file whose ``lines`` hold lines ``first .. first + count - 1``
    (fewer once their raw bytes pass ``byte_budget``), read through ``index``; ``head`` is the
    file's first bytes, which decide binary and encoding.

    Raises:
        NotText: binary, or UTF-16/32 (which the index cannot split). Bytes of a line that do
            not decode are shown as U+FFFD and counted in ``invalid_bytes``.
        StaleIndex, PathError: as for ``LineIndex.read_lines``.
    """
    codec, bom, others = _head_encoding(head, display, index.size)
    crlf = index.lf_count > 0 and index.crlf_count == index.lf_count
    total = 0 if index.size == bom else index.total_lines  # a lone BOM is an empty file
    held: list[str] = []
    used = invalid = nuls = 0
    number = max(first, 1)
    while len(held) < count and number <= total and used <= byte_budget:
        batch = index.read_lines(real, number, min(256, count - len(held)), name=display, grown_ok=True)
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
    try:  # served as of the bytes indexed when the file has grown since
        growing = index.growing or os.stat(real).st_size > index.size
    except OSError:
        growing = index.growing
    return TextFile(
        lines=IndexedLines(total, max(first, 1), held),
        encoding=codec,
        bom=bom > 0,
        newline="\r\n" if crlf else "\n",
        final_newline=index.final_newline,
        content_hash=index.content_hash,
        size=index.size,
        invalid_bytes=invalid,
        nul_bytes=nuls,
        growing=growing,
        other_encodings=others,
    )
