"""`read` on the files people actually have: each case from users, with the exact output."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from leanread import Limits, Session


def _content(text: str) -> str:
    return text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0]


@pytest.mark.parametrize("boundary", [4096, 8192])
def test_utf8_chinese_with_a_character_across_the_sniffing_boundary(tmp_path: Path, boundary: int) -> None:
    filler = ("x" * 99 + "\n") * ((boundary - 1) // 100)
    prefix = filler + "#" * (boundary - 1 - len(filler))  # the first 3-byte character starts at byte boundary - 1
    text = prefix + "中文注释：计算两个数的和\ndef add(a, b):\n    return a + b\n"
    data = text.encode("utf-8")
    assert data[boundary - 1] >= 0x80 and data[boundary] >= 0x80  # the boundary is inside a character
    (tmp_path / "cn.py").write_bytes(data)
    result = Session([tmp_path]).read("cn.py")
    assert not result.is_error
    assert _content(result.text) == text + f"\n(End of file - total {text.count(chr(10))} lines)"
    assert result.metadata["encoding"] == "utf-8"


def test_3000_lines_of_200_chars_stop_at_the_byte_cap_with_the_next_offset(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("".join(f"{i:05d}" + "y" * 195 + "\n" for i in range(1, 3001)))
    result = Session([tmp_path]).read("wide.txt", mode="full")
    # 201 bytes a line (200 characters and a newline): 254 lines fit in 50 KB (51200 bytes).
    assert result.text.endswith(
        "\n\n(Output capped at 50 KB. Showing lines 1-254 of 3000. Use offset=255 to continue.)\n</content>"
    )
    assert result.metadata["next_offset"] == 255
    assert result.metadata["truncated"] == "bytes"


def test_link_to_etc_passwd_is_refused(tmp_path: Path) -> None:
    os.symlink("/etc/passwd", tmp_path / "leak")
    result = Session([tmp_path]).read("leak")
    assert result.is_error
    assert result.text == f"leak resolves outside the workspace ({tmp_path.resolve()}); use a path inside it."


def test_missing_final_newline_is_flagged(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo")
    assert _content(Session([tmp_path]).read("a.txt").text) == (
        "one\ntwo\n\n(End of file - total 2 lines; no newline at end of file)"
    )


def test_minified_line_is_cut_and_the_rest_is_one_read_away(tmp_path: Path) -> None:
    line = "".join(f"var a{i}={i};" for i in range(700))[:5000]
    (tmp_path / "app.min.js").write_text(line + "\n")
    session = Session([tmp_path])
    first = session.read("app.min.js")
    assert _content(first.text) == (
        line[:2000] + "… [line cut: 5000 chars in all]\n\n"
        "(Line 1 is longer than 2000 characters and was cut where marked; "
        "read the rest with offset=1, char_offset=2001.)\n"
        "(End of file - total 1 line)"
    )
    rest = session.read("app.min.js", offset=1, char_offset=2001)
    assert (
        _content(rest.text)
        == line[2000:] + "\n\n(End of line 1, characters 2001-5000 of 5000. End of file - total 1 line)"
    )


def test_one_megabyte_single_line_is_readable_in_full(tmp_path: Path) -> None:
    line = ("function f(){return 42}" * 50_000)[:1_000_000]
    (tmp_path / "bundle.js").write_text(line)
    session = Session([tmp_path])
    got = _content(session.read("bundle.js").text).split("… [line cut", 1)[0]
    start, calls = 2001, 1
    while True:
        part = _content(session.read(offset=1, char_offset=start).text).split("\n")
        got += part[0]
        calls += 1
        if "to continue.)" not in part[-1]:
            break
        start = int(part[-1].rsplit("char_offset=", 1)[1].split(" ")[0])
    assert got == line
    assert calls == 21  # 2000 characters, then 50 KB slices


@pytest.mark.parametrize(
    ("encoding", "bom", "named"),
    [
        ("utf-16-le", codecs.BOM_UTF16_LE, "utf-16-le"),
        ("utf-16-be", codecs.BOM_UTF16_BE, "utf-16-be"),
        ("utf-32-le", codecs.BOM_UTF32_LE, "utf-32-le"),
        ("utf-32-be", codecs.BOM_UTF32_BE, "utf-32-be"),
    ],
)
def test_utf16_and_utf32_with_bom(tmp_path: Path, encoding: str, bom: bytes, named: str) -> None:
    (tmp_path / "w.txt").write_bytes(bom + "größe\r\nπ = 3.14\r\n".encode(encoding))
    result = Session([tmp_path]).read("w.txt")
    assert _content(result.text) == (
        f"größe\nπ = 3.14\n\n(File is {named}-encoded with CRLF line endings; edits keep both.)\n"
        "(End of file - total 2 lines)"
    )
    assert (result.metadata["encoding"], result.metadata["bom"], result.metadata["newline"]) == (named, True, "\r\n")


@pytest.mark.parametrize(
    ("text", "encoding", "named"),
    [
        ("// 这是一个测试文件，包含中文注释。我们需要确保编码检测正确无误。\nint x = 1;\n", "gbk", "gb18030"),
        ("// これは日本語のテキストです。文字コードの検出を確認します。\nint y = 2;\n", "shift_jis", "cp932"),
        ("const x = 1;\n// café naïve résumé — “quoted”\n", "cp1252", "cp1252"),
        ("const x = 1;\n// caf\xe9 note\n", "latin-1", "cp1252"),
        ("// Привет мир, это тест кодировки текста и ещё немного слов\nx = 1\n", "cp1251", "cp1251"),
    ],
)
def test_legacy_encodings_are_detected_and_named(tmp_path: Path, text: str, encoding: str, named: str) -> None:
    (tmp_path / "legacy.txt").write_bytes(text.encode(encoding))
    result = Session([tmp_path]).read("legacy.txt")
    assert _content(result.text) == (
        text + f"\n(File is {named}-encoded; edits keep that encoding.)\n(End of file - total 2 lines)"
    )


def test_crlf_is_named_and_stripped(tmp_path: Path) -> None:
    (tmp_path / "win.txt").write_bytes(b"alpha\r\nbeta\r\ngamma")
    assert _content(Session([tmp_path]).read("win.txt").text) == (
        "alpha\nbeta\ngamma\n\n(File uses CRLF line endings; edits keep them.)\n"
        "(End of file - total 3 lines; no newline at end of file)"
    )


def test_empty_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    assert _content(Session([tmp_path]).read("empty.txt").text) == "(Empty file - 0 lines)"


def test_directory_is_a_paged_listing(tmp_path: Path) -> None:
    for name in ("b.py", "a.py", "c.txt"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / "pkg").mkdir()
    session = Session([tmp_path])
    result = session.read(".", limit=2)
    assert result.text == (
        "<path>.</path>\n<type>directory</type>\n<content>\na.py\nb.py\n\n"
        "(Showing entries 1-2 of 4. Use offset=3 to continue.)\n</content>"
    )
    assert _content(session.read(".", offset=3).text) == (
        "c.txt\npkg/\n\n(End of directory - total 4 entries; ls shows the tree below it)"
    )


def test_path_may_be_omitted_to_go_on_with_the_last_file(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("".join(f"entry {i}\n" for i in range(1, 11)))
    session = Session([tmp_path])
    assert session.read(offset=1).text == "path is required: no file has been read in this session yet."
    session.read("log.txt", limit=4)
    following = session.read(offset=5, limit=2)
    assert following.text == (
        "<path>log.txt</path>\n<type>file</type>\n<content>\nentry 5\nentry 6\n\n"
        "(Showing lines 5-6 of 10. Use offset=7 to continue.)\n</content>"
    )


def test_secrets_are_refused_and_examples_are_not(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=hunter2-value\n")
    (tmp_path / ".env.example").write_text("TOKEN=\n")
    session = Session([tmp_path])
    denied = session.read(".env")
    assert denied.is_error
    assert denied.text == (
        ".env is on leanread's deny list (it matches .env, a name kept for secrets); "
        "ask the user for the value you need instead."
    )
    assert "hunter2" not in denied.text
    assert _content(session.read(".env.example").text) == "TOKEN=\n\n(End of file - total 1 line)"


def test_missing_file_suggests_similar_names(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x\n")
    result = Session([tmp_path]).read("src/ap.py")
    assert result.text == "File not found: src/ap.py. Did you mean src/app.py?"


def test_settings_file_sets_limits_and_the_description(tmp_path: Path) -> None:
    (tmp_path / "leanread.toml").write_text("max_lines = 3\n")
    (tmp_path / "n.txt").write_text("".join(f"{i}\n" for i in range(1, 10)))
    session = Session([tmp_path])
    assert session.limits.max_lines == 3
    assert session.read("n.txt").text.endswith("(Showing lines 1-3 of 9. Use offset=4 to continue.)\n</content>")


def test_big_file_window_near_the_end_through_the_line_index(tmp_path: Path) -> None:
    lines = [f"2026-11-30T12:00:{i % 60:02d} INFO request {i} served" for i in range(1, 20001)]
    (tmp_path / "app.log").write_text("\n".join(lines) + "\n")
    indexed = Session([tmp_path], limits=Limits(index_bytes=64 * 1024)).read("app.log", offset=19990, limit=5)
    whole = Session([tmp_path]).read("app.log", offset=19990, limit=5)
    assert indexed.text == whole.text
    assert _content(indexed.text) == "\n".join(lines[19989:19994]) + (
        "\n\n(Showing lines 19990-19994 of 20000. Use offset=19995 to continue.)"
    )
    assert indexed.metadata["content_hash"] == whole.metadata["content_hash"]
