"""Tell text from binary and turn a file's bytes into lines, remembering how to write them back."""

from __future__ import annotations

import codecs
import hashlib
from dataclasses import dataclass

from .errors import NotText

# Leading bytes of common non-text files, so a refusal can name what the file is.
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or a DOCX/XLSX/JAR/wheel)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"BZh", "a bzip2 archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"SQLite format 3\x00", "an SQLite database"),
)


@dataclass(frozen=True)
class TextFile:
    """A decoded text file.

    Attributes:
        lines: the lines without their line endings; a final newline adds no empty line.
        encoding: codec name the bytes were decoded with (``utf-8`` for now).
        bom: the file starts with a byte-order mark (stripped from ``lines``).
        newline: the line ending the file uses: ``"\\n"``, ``"\\r\\n"`` or ``"\\r"``.
        final_newline: the last line ends with a line ending.
        content_hash: SHA-256 hex digest of the file's bytes.
        size: length of the file in bytes.
    """

    lines: tuple[str, ...]
    encoding: str
    bom: bool
    newline: str
    final_newline: bool
    content_hash: str
    size: int


def content_hash(data: bytes) -> str:
    """SHA-256 hex digest of ``data``: the identity of a file version in the ledger."""
    return hashlib.sha256(data).hexdigest()


def binary_kind(head: bytes) -> str | None:
    """Name the kind of a non-text file from its first bytes, or None when it may be text.

    A NUL byte in ``head`` marks binary; UTF-8 text never contains one.
    """
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return kind
    if b"\x00" in head:
        return "binary data"
    return None


def split_lines(text: str) -> tuple[list[str], str, bool]:
    """Split ``text`` into lines without endings.

    Returns ``(lines, newline, final_newline)``. The newline style is CRLF when every ``\\n`` is
    preceded by ``\\r``, CR when the text has ``\\r`` but no ``\\n``, else LF. A lone ``\\r``
    inside an LF file stays part of its line.
    """
    if "\n" in text:
        crlf = text.count("\r\n") == text.count("\n")
        newline = "\r\n" if crlf else "\n"
    elif "\r" in text:
        newline = "\r"
    else:
        newline = "\n"
    lines = text.split(newline)
    final_newline = lines[-1] == "" and len(lines) > 1
    if lines[-1] == "":
        lines.pop()
    return lines, newline, final_newline


def decode(data: bytes, display: str, sniff_bytes: int = 8192) -> TextFile:
    """Decode a file's bytes into a ``TextFile``.

    Args:
        data: the whole file.
        display: the path as the model knows it, for error messages.
        sniff_bytes: how many leading bytes decide binary versus text.

    Raises:
        NotText: the bytes look binary or are not valid UTF-8; the message gives size and kind.
    """
    kind = binary_kind(data[:sniff_bytes])
    if kind is not None:
        raise NotText(f"{display} is {kind} ({len(data):,} bytes), not text; read shows text files only.")
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        raise NotText(
            f"{display} is not UTF-8 text (invalid byte at offset {exc.start:,} of "
            f"{len(data):,} bytes); leanread cannot show it yet."
        ) from None
    lines, newline, final_newline = split_lines(text)
    return TextFile(
        lines=tuple(lines),
        encoding="utf-8",
        bom=bom,
        newline=newline,
        final_newline=final_newline,
        content_hash=content_hash(data),
        size=len(data),
    )
