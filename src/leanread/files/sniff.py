"""Tell text from binary by a file's first bytes, name the encoding its text is in
(``text_encoding``), and show the characters text may hold that a model cannot see (NUL) or that
stand for bytes (invalid UTF-8)."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from ..errors import MarkerInEdit, NotText
from .legacy import choose

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
    # a header of 2,880 ASCII bytes or more, so no NUL in the sniffed bytes gives its data away
    (b"SIMPLE  =", "a FITS file (astronomical data)"),
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


_BOMS: tuple[tuple[bytes, str], ...] = (
    # UTF-32 first: its little-endian BOM begins with UTF-16's.
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class Encoding:
    """How a file's bytes read as text (``text_encoding``).

    Attributes:
        codec: Python codec name the bytes after the BOM decode with (``utf-8``, ``utf-16-le``,
            ``gb18030``, ``cp1252``, …).
        bom: length in bytes of the byte-order mark the file starts with (0: none).
        text: the text after the BOM, invalid bytes kept as ``surrogateescape`` code points;
            empty when only the head of a big file was judged.
        invalid: bytes of a UTF-8 text that are not valid UTF-8.
        alternatives: a legacy encoding that is a guess: the other encodings whose texts read
            almost as well, closest first (``legacy.choose``).
    """

    codec: str
    bom: int = 0
    text: str = ""
    invalid: int = 0
    alternatives: tuple[str, ...] = ()


def text_encoding(data: bytes, display: str, sniff_bytes: int = 8192, size: int | None = None) -> Encoding:
    """The encoding of a file's bytes, with the text when ``data`` is the whole file.

    Order: a UTF-32/UTF-8/UTF-16 byte-order mark decides; else leading bytes that look binary
    (a known signature, NUL bytes unless almost text, see ``binary_kind``) refuse; else UTF-16
    without a byte-order mark (``utf16_without_bom``); else strict UTF-8; else UTF-8 with a few
    invalid bytes when valid multi-byte characters outnumber them (``mostly_utf8``); else the
    legacy encoding whose text reads most plausibly (``legacy.choose``: windows-1252, GBK,
    Shift-JIS, …; close runners-up are kept as ``alternatives``).

    Args:
        data: the whole file, or (``size`` given) the first bytes of a file of ``size`` bytes too
            big to decode whole: then only the encoding is judged (its legacy encoding from the
            complete lines among them), and UTF-16/32, which cannot be split by line, refuse.
        display: the path as the model knows it, for error messages.
        sniff_bytes: how many leading bytes decide binary versus text.

    Raises:
        NotText: binary, or no encoding decodes the bytes; the message gives size and kind.
    """
    part = size is not None
    size = len(data) if size is None else size
    bom = _bom_of(data)
    if bom is not None:
        return _with_bom(data, display, *bom, size=size, part=part)
    head = data[:sniff_bytes]
    kind = binary_kind(head)
    if kind is not None:
        raise _not_text(display, kind, size)
    wide = utf16_without_bom(head) if b"\x00" in head else None
    found = _wide(data, display, wide, head, size=size, part=part) if wide is not None else None
    return found or _utf8(data, part=part) or _legacy(data, display, size=size, part=part)


def mostly_utf8(data: bytes) -> tuple[str, int] | None:
    """The text with its invalid bytes kept as ``surrogateescape`` code points, and their count,
    when the file is UTF-8 with a few bad bytes: at least three valid multi-byte characters and
    three times as many as bad bytes (legacy multi-byte text such as GBK forms valid UTF-8
    sequences only by chance, well below that); else None."""
    text = data.decode("utf-8", "surrogateescape")
    invalid = len(ESCAPED.findall(text))
    multibyte = sum(1 for char in text if ord(char) > 0x7F) - invalid
    return (text, invalid) if multibyte >= max(3, 3 * invalid) else None


def _bom_of(data: bytes) -> tuple[str, int] | None:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return None


def _not_text(display: str, kind: str, size: int) -> NotText:
    return NotText(f"{display} is {kind} ({size} bytes), not text; read shows text files only.")


def _too_big(display: str, codec: str, size: int) -> NotText:
    return NotText(
        f"{display} is a {codec} file of {size} bytes, too big to serve by line; convert it to UTF-8 to read it."
    )


def _with_bom(data: bytes, display: str, codec: str, skip: int, *, size: int, part: bool) -> Encoding:
    """A file that starts with a byte-order mark: its codec, or UTF-8 with a few bad bytes."""
    if part:
        if codec != "utf-8":
            raise _too_big(display, codec, size)
        return Encoding(codec, skip)
    try:
        return Encoding(codec, skip, data[skip:].decode(codec))
    except UnicodeDecodeError as exc:
        mostly = mostly_utf8(data[skip:]) if codec == "utf-8" else None
        if mostly is not None:
            return Encoding("utf-8", skip, *mostly)
        raise NotText(
            f"{display} starts with a {codec} byte-order mark but is not valid {codec} "
            f"(bad byte at offset {exc.start + skip} of {size}); leanread cannot show it."
        ) from None


def _wide(data: bytes, display: str, codec: str, head: bytes, *, size: int, part: bool) -> Encoding | None:
    """UTF-16 without a byte-order mark: its text; None when it does not decode but the head is
    almost text (another encoding is tried)."""
    if part:
        if not almost_text(head):
            raise _too_big(display, codec, size)
        return None
    try:
        return Encoding(codec, 0, data.decode(codec))
    except UnicodeDecodeError:
        if not almost_text(head):
            raise _not_text(display, "binary data", size) from None
    return None


def _utf8(data: bytes, *, part: bool) -> Encoding | None:
    """UTF-8, strict or with a few invalid bytes (``mostly_utf8``); else None. The head of a big
    file may end inside a character."""
    try:
        if part:
            codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
            return Encoding("utf-8")
        return Encoding("utf-8", 0, data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    mostly = mostly_utf8(data)
    if mostly is None:
        return None
    return Encoding("utf-8") if part else Encoding("utf-8", 0, *mostly)


def _legacy(data: bytes, display: str, *, size: int, part: bool) -> Encoding:
    """The legacy encoding whose text reads most plausibly (``legacy.choose``); of the head of a
    big file, judged from its complete lines."""
    # whole lines only: a multi-byte character cut at the end would rule its codec out
    legacy = choose(data[: data.rfind(b"\n") + 1] or data if part else data)
    if legacy is None:
        raise NotText(
            f"{display} is neither UTF-8 nor a text encoding leanread can detect ({size} bytes); "
            "leanread cannot show it."
        )
    # edits splice lines where the codec does not round-trip
    text = "" if part else data.decode(legacy.encoding)
    return Encoding(legacy.encoding, 0, text, alternatives=legacy.alternatives)
