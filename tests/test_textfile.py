"""textfile: text versus binary, decoding, line splitting, the content hash."""

from __future__ import annotations

import codecs
import hashlib

import pytest

from leanread.errors import NotText
from leanread.files.textfile import TextFile, binary_kind, content_hash, decode, split_lines


@pytest.mark.parametrize(
    ("text", "lines", "newline", "final"),
    [
        ("a\nb\n", ["a", "b"], "\n", True),
        ("a\nb", ["a", "b"], "\n", False),
        ("a\r\nb\r\n", ["a", "b"], "\r\n", True),
        ("a\r\nb", ["a", "b"], "\r\n", False),
        ("a\rb\r", ["a", "b"], "\r", True),
        ("a\rb", ["a", "b"], "\r", False),
        ("", [], "\n", False),
        ("\n", [""], "\n", True),
        ("\n\n", ["", ""], "\n", True),
        ("\r\n", [""], "\r\n", True),
        ("one line", ["one line"], "\n", False),
        # a lone CR inside an LF file stays part of its line
        ("a\rb\nc\n", ["a\rb", "c"], "\n", True),
        # mixed endings: LF wins and the CR of a CRLF line stays visible in the line
        ("a\r\nb\nc\n", ["a\r", "b", "c"], "\n", True),
        # other Unicode line breaks are not line endings of the file
        ("a\u2028b\x0cc\x85d\n", ["a\u2028b\x0cc\x85d"], "\n", True),
    ],
)
def test_split_lines(text: str, lines: list[str], newline: str, final: bool) -> None:
    assert split_lines(text) == (lines, newline, final)


def test_content_hash_is_sha256_of_bytes() -> None:
    assert content_hash(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert content_hash(b"abc\n") == hashlib.sha256(b"abc\n").hexdigest()


def test_decode_plain_utf8() -> None:
    data = "héllo\nwörld\n".encode()
    assert decode(data, "a.txt") == TextFile(
        lines=("héllo", "wörld"),
        encoding="utf-8",
        bom=False,
        newline="\n",
        final_newline=True,
        content_hash=hashlib.sha256(data).hexdigest(),
        size=14,
    )


def test_decode_strips_bom_and_remembers_it() -> None:
    data = codecs.BOM_UTF8 + b"x = 1\r\ny = 2\r\n"
    tf = decode(data, "a.py")
    assert tf.lines == ("x = 1", "y = 2")
    assert tf.bom is True
    assert tf.newline == "\r\n"
    assert tf.final_newline is True
    assert tf.size == len(data) == 17
    assert tf.content_hash == hashlib.sha256(data).hexdigest()


def test_decode_bom_only_file_is_empty() -> None:
    tf = decode(codecs.BOM_UTF8, "b.txt")
    assert (tf.lines, tf.bom, tf.final_newline, tf.size) == ((), True, False, 3)


def test_decode_only_the_leading_bom_is_stripped() -> None:
    tf = decode(codecs.BOM_UTF8 + "a\n\ufeffb\n".encode(), "c.txt")
    assert tf.lines == ("a", "\ufeffb")


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "a JPEG image"),
        (b"GIF89a\x01\x00", "a GIF image"),
        (b"GIF87a", "a GIF image"),
        (b"%PDF-1.7\n", "a PDF document"),
        (b"PK\x03\x04\x14\x00", "a ZIP archive (or a DOCX/XLSX/JAR/wheel)"),
        (b"\x1f\x8b\x08\x00", "a gzip archive"),
        (b"BZh91AY&SY", "a bzip2 archive"),
        (b"\xfd7zXZ\x00\x00", "an xz archive"),
        (b"7z\xbc\xaf\x27\x1c\x00\x04", "a 7-Zip archive"),
        (b"\x7fELF\x02\x01\x01", "an ELF executable"),
        (b"SQLite format 3\x00\x10\x00", "an SQLite database"),
        (b"SIMPLE  =                    T" + b" " * 50 + b"BITPIX  = -32", "a FITS file (astronomical data)"),
        (b"\x00asm\x01\x00\x00\x00", "binary data"),
    ],
)
def test_binary_kind(head: bytes, kind: str) -> None:
    assert binary_kind(head) == kind


@pytest.mark.parametrize("head", [b"", b"plain text\n", "日本語\n".encode(), b"\xff\xfe garbage"])
def test_binary_kind_none_for_possible_text(head: bytes) -> None:
    assert binary_kind(head) is None


def test_decode_refuses_png_with_size_and_kind() -> None:
    data = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8  # 2056 bytes
    with pytest.raises(NotText) as info:
        decode(data, "img/logo.png")
    assert str(info.value) == ("img/logo.png is a PNG image (2056 bytes), not text; read shows text files only.")


def test_decode_nul_within_sniff_window_is_binary() -> None:
    data = b"a" * 100 + b"\x00\x01\x02\x03\x04" + b"b" * 16
    with pytest.raises(NotText) as info:
        decode(data, "x.bin", sniff_bytes=8192)
    assert str(info.value) == "x.bin is binary data (121 bytes), not text; read shows text files only."


def test_decode_nul_beyond_sniff_window_is_not_sniffed() -> None:
    data = b"a" * 100 + b"\x00\x01\x02\x03\n"
    text_file = decode(data, "x.txt", sniff_bytes=50)
    assert text_file.lines == ("a" * 100 + "\u2400\x01\x02\x03",)
    assert text_file.raw_lines == ("a" * 100 + "\x00\x01\x02\x03",)


def test_decode_bom_then_invalid_utf8_gives_the_file_offset() -> None:
    # The offset is a byte offset into the file: the three BOM bytes come before the bad byte.
    data = codecs.BOM_UTF8 + b"ab\xff\n"
    assert data.index(b"\xff") == 5
    with pytest.raises(NotText) as info:
        decode(data, "bom.txt")
    assert str(info.value) == (
        "bom.txt starts with a utf-8 byte-order mark but is not valid utf-8 "
        "(bad byte at offset 5 of 7); leanread cannot show it."
    )


def test_decode_undetectable_bytes_refused() -> None:
    with pytest.raises(NotText) as info:
        decode(bytes(range(128, 256)) * 20, "blob.dat")
    assert str(info.value) == (
        "blob.dat is neither UTF-8 nor a text encoding leanread can detect (2560 bytes); leanread cannot show it."
    )


def test_decode_utf16_with_bom() -> None:
    data = codecs.BOM_UTF16_LE + "héllo\r\nwörld\r\n".encode("utf-16-le")
    tf = decode(data, "w.txt")
    assert (tf.lines, tf.encoding, tf.bom, tf.newline, tf.final_newline) == (
        ("héllo", "wörld"),
        "utf-16-le",
        True,
        "\r\n",
        True,
    )
    assert tf.size == len(data)


def test_decode_windows_1252_sentence() -> None:
    text = "Le café était très bon, naïve résumé — “quotes”."
    tf = decode((text + "\n").encode("cp1252"), "fr.txt")
    assert (tf.lines, tf.encoding) == ((text,), "cp1252")


@pytest.mark.parametrize("word", ["café", "naïve", "Größe"])
def test_decode_short_latin1_file_keeps_its_letters(word: str) -> None:
    # Latin-1 and windows-1252 agree on these letters; any other reading shows the model
    # text that is not in the file (e.g. cp1006 turns "café" into "cafﻠ").
    tf = decode((word + "\n").encode("latin-1"), "short.txt")
    assert tf.lines == (word,)


@pytest.mark.parametrize(
    ("data", "ascii_head"),
    [
        ("ab€".encode()[:-1], "ab"),  # UTF-8 cut in the middle of the euro sign
        (b"value = 1\nname = 'x\xe9'\n", "value = 1\nname = 'x"),  # one Latin-1 byte
    ],
)
def test_decode_ascii_without_nul_is_never_utf16(data: bytes, ascii_head: str) -> None:
    # ASCII bytes of a file without BOM or NUL bytes must come back as themselves, whatever
    # codec is picked for the rest; UTF-16 pairs them up into CJK characters instead.
    try:
        tf = decode(data, "f.txt")
    except NotText:
        return
    assert not tf.encoding.startswith(("utf-16", "utf-32")), tf.encoding
    assert "\n".join(tf.lines).startswith(ascii_head)
