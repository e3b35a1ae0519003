"""How a path is shown and taken back: ``names.show_path`` and ``names.parse_path``."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.files.names import clean, clean_text, parse_path, show_path

#: File names as Linux may hold them: any bytes but NUL and "/".
NAME_BYTES = st.binary(min_size=1, max_size=24).filter(lambda b: b"\0" not in b and b"/" not in b)


def test_examples() -> None:
    assert show_path("caf\udce9.txt") == "caf\\xe9.txt"
    assert show_path("a\nb\tc\x1b[31m.txt") == "a\\x0ab\\x09c\\x1b[31m.txt"
    assert show_path("x\u202ey\u2028z\x85.txt") == "x\\u202ey\\u2028z\\u0085.txt"
    assert show_path("a\\x41 b\\u00e9 c\\d") == "a\\x5cx41 b\\x5cu00e9 c\\d"
    assert show_path("src/app.py") == "src/app.py"
    assert show_path("  a.py") == "\\x20\\x20a.py"  # in a tree, leading spaces would read as indent
    assert show_path("src/ x /b ") == "src/\\x20x\\x20/b\\x20"
    assert show_path("x -> y.txt") == "x -\\x3e y.txt"  # in ls, a link's arrow
    assert show_path("two words.txt") == "two words.txt"
    assert show_path("a->b -x> c") == "a->b -x> c"
    assert show_path("p (a socket; read does not open it)") == "p \\x28a socket; read does not open it)"  # ls's mark
    assert show_path("d (x; read does not open it)/f (1).txt") == "d \\x28x; read does not open it)/f (1).txt"
    assert parse_path("p \\x28a socket; read does not open it)") == "p (a socket; read does not open it)"
    assert parse_path("\\x20\\x20a.py") == "  a.py"
    assert parse_path("x -\\x3e y.txt") == "x -> y.txt"
    assert show_path("caf\u00e9/\u4e2d\U0001f600.md") == "caf\u00e9/\u4e2d\U0001f600.md"
    assert parse_path("caf\\xe9.txt") == "caf\udce9.txt"
    assert parse_path("caf\\xc3\\xa9.txt") == "caf\u00e9.txt"  # escaped UTF-8 bytes are that character
    assert parse_path("a\\x5cx41") == "a\\x41"
    assert parse_path("C:\\dir\\file") == "C:\\dir\\file"


@given(NAME_BYTES)
def test_every_os_name_round_trips_and_shows_as_one_line_of_utf8(raw: bytes) -> None:
    name = os.fsdecode(raw)
    shown = show_path(name)
    assert parse_path(shown) == name
    assert os.fsencode(parse_path(shown)) == raw
    shown.encode("utf-8")  # never a lone surrogate
    assert shown.splitlines() == [shown]
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in shown)


@given(st.text(max_size=30))
def test_any_text_comes_back_as_the_os_name_it_stands_for(text: str) -> None:
    try:
        expected = os.fsdecode(os.fsencode(text))  # escaped bytes forming UTF-8 read as that text
    except UnicodeError:
        expected = text  # a surrogate that is no byte: kept
    assert parse_path(show_path(text)) == expected
    show_path(text).encode("utf-8")


def test_clean_escapes_only_lone_surrogates() -> None:
    assert clean_text("caf\udce9 \ud800 ok\n\ufffd") == "caf\\xe9 \\ud800 ok\n\ufffd"
    assert clean({"path": "a\udce9", "list": ["\udcff", 1, None], "k\ud800": True}) == {
        "path": "a\\xe9",
        "list": ["\\xff", 1, None],
        "k\\ud800": True,
    }


def _odd_names(root: Path) -> None:
    (root / "ok.txt").write_text("NEEDLE_LATIN1\n")
    (root / os.fsdecode(b"caf\xe9.txt")).write_text("NEEDLE_LATIN1\n")
    (root / "two\nlines.txt").write_text("NEEDLE_LATIN1\n")


def test_every_tool_shows_a_name_one_way_and_takes_it_back(session: Session, root: Path) -> None:
    _odd_names(root)
    assert session.ls().text.splitlines()[1:4] == ["caf\\xe9.txt", "ok.txt", "two\\x0alines.txt"]
    files = session.grep("NEEDLE_LATIN1", files_only=True)
    assert files.text.splitlines()[0:3] == ["caf\\xe9.txt (1 match)", "ok.txt (1 match)", "two\\x0alines.txt (1 match)"]
    found = session.grep("NEEDLE_LATIN1")
    assert [m["path"] for m in found.metadata["matches"]] == ["caf\\xe9.txt", "ok.txt", "two\\x0alines.txt"]
    assert found.text.splitlines()[0:2] == ["caf\\xe9.txt", "1\tNEEDLE_LATIN1"]
    assert session.read(match_id="m1").text.startswith("<path>caf\\xe9.txt</path>\n")
    read = session.read("caf\\xe9.txt", fresh=True)
    assert (read.is_error, read.metadata["path"]) == (False, "caf\\xe9.txt")
    assert session.read(offset=1, fresh=True).metadata["path"] == "caf\\xe9.txt"  # the last file, by its shown name
    edited = session.edit("caf\\xe9.txt", "NEEDLE_LATIN1", "FOUND")
    assert (edited.is_error, edited.metadata["path"]) == (False, "caf\\xe9.txt")
    assert (root / os.fsdecode(b"caf\xe9.txt")).read_text() == "FOUND\n"
    session.read("two\\x0alines.txt")
    assert session.write("two\\x0alines.txt", "new\n").is_error is False
    assert (root / "two\nlines.txt").read_text() == "new\n"
    assert session.write("na\\xefve.txt", "x\n").metadata["path"] == "na\\xefve.txt"
    assert (root / os.fsdecode(b"na\xefve.txt")).read_bytes() == b"x\n"


def test_errors_and_suggestions_show_the_escaped_name(session: Session, root: Path) -> None:
    _odd_names(root)
    assert session.read("cafe.txt").text == "File not found: cafe.txt. Did you mean caf\\xe9.txt?"
    assert session.read("caf\\xe8.txt").text == "File not found: caf\\xe8.txt. Did you mean caf\\xe9.txt?"
    raw = os.fsdecode(b"caf\xe8.txt")  # a library caller passing the OS name itself
    assert session.read(raw).text == "File not found: caf\\xe8.txt. Did you mean caf\\xe9.txt?"
    not_a_folder = "caf\\xe9.txt is a file, not a folder; read it, or ls the folder it is in."
    assert session.ls("caf\\xe9.txt").text == not_a_folder
    assert session.read(".").text.splitlines()[3:6] == ["caf\\xe9.txt", "ok.txt", "two\\x0alines.txt"]


def test_an_escape_show_path_never_writes_is_a_literal_name(tmp_path: Path) -> None:
    (tmp_path / "aA.txt").write_text("the A file\n")
    (tmp_path / "a\\x41.txt").write_text("the backslash file\n")
    assert parse_path("a\\x41.txt") == "a\\x41.txt"  # show_path writes an A as A, never as \x41
    assert parse_path(show_path("a\\x41.txt")) == "a\\x41.txt"
    session = Session([tmp_path], ledger=MemoryLedger())
    assert "the backslash file" in session.read("a\\x41.txt").text
    assert "the A file" in session.read("aA.txt").text
