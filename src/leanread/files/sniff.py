"""Tell text from binary by a file's first bytes, and show the characters text may hold that a
model cannot see (NUL) or that stand for bytes (invalid UTF-8)."""

from __future__ import annotations

import re

from ..errors import MarkerInEdit

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


ESCAPED = re.compile("[\udc80-\udcff]")

#: How read, grep and edit show a NUL character: U+2400 SYMBOL FOR NULL. A NUL itself is invisible
#: (and ends the string in many clients); edit maps this character back to NUL in a file that holds NULs.
NUL_SHOWN = "\u2400"


def shown(text: str) -> str:
    """``text`` with bytes kept by ``surrogateescape`` shown as U+FFFD, the replacement character,
    and each NUL as ``NUL_SHOWN``."""
    if "\x00" in text:
        text = text.replace("\x00", NUL_SHOWN)
    return ESCAPED.sub("\ufffd", text)


def unshow_nul(text: str, file_text: str, *, argument: str, display: str) -> str:
    """``text`` (an edit's old_string or new_string, or write's content for a file that holds
    NUL bytes) with each ``NUL_SHOWN`` turned back into the NUL that read showed as it.

    Args:
        text: what the model gave.
        file_text: the file's logical text, NULs as NUL.
        argument, display: the argument's name and the file's path, for the message.

    Raises:
        MarkerInEdit: ``text`` holds ``NUL_SHOWN`` and so does the file, so it is not known which
            is meant.
    """
    if NUL_SHOWN not in text:
        return text
    if NUL_SHOWN in file_text:
        raise MarkerInEdit(
            f"{argument} contains \u2400, and {display} holds both NUL bytes (which read shows as \u2400) and "
            "real \u2400 characters, so it is not known which you mean; change a part of the file without them."
        )
    return text.replace(NUL_SHOWN, "\x00")


#: Bytes that do not occur in text: C0 controls other than TAB, LF, VT, FF, CR and ESC, and DEL.
_ODD_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
#: An almost-text head holds at most one odd byte in this many (and at least two are let through).
ODD_SHARE = 32


def almost_text(head: bytes) -> bool:
    """Whether a head with NUL bytes is still text: at most one byte in ``ODD_SHARE`` (3 %) of it
    is NUL or another control byte (``_ODD_BYTES``), at least two such bytes always let through
    (``a\\x00b\\x00c`` is text), and no four NULs in a row (padding and integers of binary formats).

    git (``buffer_is_binary``) and ripgrep call a file binary at its first NUL byte. leanread
    sniffs the same way (git's first 8000 bytes; ``Limits.sniff_bytes``), but lets a few such
    bytes through: a template string with a NUL separator or a padding byte in a log stays
    readable, while executables, object files, bytecode and compressed data hold far more.
    """
    odd = len(head) - len(head.translate(None, _ODD_BYTES))
    return odd <= max(2, len(head) // ODD_SHARE) and b"\x00\x00\x00\x00" not in head


def binary_kind(head: bytes) -> str | None:
    """Name the kind of a non-text file from its first bytes, or None when it may be text.

    A known signature marks binary; so do NUL bytes, unless the head is almost text
    (``almost_text``) or UTF-16 text without a byte-order mark (``utf16_without_bom``).
    """
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return kind
    if b"\x00" in head and not almost_text(head) and utf16_without_bom(head) is None:
        return "binary data"
    return None


def utf16_without_bom(head: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` for UTF-16 text without a byte-order mark, else None.

    Such text of Latin script has a NUL in every other byte (the high byte of each character):
    taken for a head of 8 bytes or more when at least 90 % of the bytes of one parity are NUL,
    at most 5 % of the other are, and the head (cut to whole characters) decodes to text
    without odd controls.
    """
    if len(head) < 8:
        return None
    even, odd = head[0::2], head[1::2]
    for codec, zeros, other in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if 10 * zeros.count(0) >= 9 * len(zeros) and 20 * other.count(0) <= len(other):
            try:  # a head may end inside a surrogate pair
                text = head[: len(head) - len(head) % 2].decode(codec, "surrogatepass")
            except UnicodeDecodeError:
                return None
            controls = sum(1 for char in text if char < " " and char not in "\t\n\v\f\r\x1b")
            return codec if not controls else None
    return None
