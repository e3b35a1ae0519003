"""A big file served through the line index shows the very lines, encoding and facts that
decoding it whole shows: the encoding is judged once, by the same code, for both."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread.config.settings import Limits
from leanread.errors import NotText
from leanread.files.textfile import decode, load_text
from leanread.files.workspace import Workspace

#: Every file of these tests is served through the index (it is over one byte), its head being
#: the whole file (under ``sniff_bytes``), so both ways judge the same bytes.
BIG = Limits(index_bytes=1)

CODECS = ("utf-8", "cp1252", "gbk", "shift_jis", "cp1251")
WORDS = ("plain", "naïve café", "Größe", "数据库连接", "ファイル", "Привет мир", "x = 1", "", "\t indent")


def _write(root: Path, data: bytes) -> Workspace:
    (root / "f.txt").write_bytes(data)
    return Workspace([root])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    codec=st.sampled_from(CODECS),
    lines=st.lists(st.sampled_from(WORDS), min_size=1, max_size=30),
    crlf=st.booleans(),
    first=st.integers(1, 30),
    count=st.integers(1, 30),
)
def test_a_window_through_the_index_shows_what_the_whole_decode_shows(
    tmp_path: Path, codec: str, lines: list[str], crlf: bool, first: int, count: int
) -> None:
    kept = [line for line in lines if line.encode(codec, "ignore").decode(codec) == line]
    ending = "\r\n" if crlf else "\n"
    data = "".join(line + ending for line in kept).encode(codec)
    workspace = _write(tmp_path, data)
    try:
        whole = decode(data, "f.txt")
    except NotText:
        with pytest.raises(NotText):
            load_text(workspace.resolve("f.txt"), BIG, first, count)
        return
    part = load_text(workspace.resolve("f.txt"), BIG, first, count)
    shown = range(first - 1, min(first - 1 + count, len(whole.lines)))
    assert [part.lines[i] for i in shown] == [whole.lines[i] for i in shown]
    assert len(part.lines) == len(whole.lines)
    facts = ("encoding", "bom", "newline", "final_newline", "content_hash", "size", "other_encodings")
    assert {f: getattr(part, f) for f in facts} == {f: getattr(whole, f) for f in facts}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"\xff\xfea\x00b\x00\n\x00",
            "f.txt is a utf-16-le file of 8 bytes, too big to serve by line; convert it to UTF-8 to read it.",
        ),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 8, "f.txt is a PNG image (16 bytes), not text; read shows text files only."),
        (b"a\x00\x00\x00\x00b\n" * 4, "f.txt is binary data (28 bytes), not text; read shows text files only."),
    ],
)
def test_a_big_file_that_is_no_text_by_line_is_refused_before_it_is_indexed(
    tmp_path: Path, data: bytes, message: str
) -> None:
    workspace = _write(tmp_path, data)
    with pytest.raises(NotText) as refused:
        load_text(workspace.resolve("f.txt"), BIG, 1, 10)
    assert str(refused.value) == message


def test_a_bom_file_through_the_index_drops_its_bom_from_line_one(tmp_path: Path) -> None:
    workspace = _write(tmp_path, b"\xef\xbb\xbfalpha\r\nbeta\r\n")
    part = load_text(workspace.resolve("f.txt"), BIG, 1, 5)
    assert (list(part.lines[0:2]), part.bom, part.newline, part.encoding) == (["alpha", "beta"], True, "\r\n", "utf-8")
