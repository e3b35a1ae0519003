"""Files that are almost text: a stray NUL, UTF-16 without a byte-order mark, a lone bad byte."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.files.rgsearch import count_files
from leanread.files.ripgrep import RgOptions
from leanread.files.textfile import almost_text, binary_kind, decode
from leanread.view.render import binary_skipped

KEY_TS = b"const F = 'x';\nconst key = `${F}\x00${name}`;\nexport function lookup() { return SIGNATURE_TOKEN; }\n"
NUL_NOTE = "(The file holds NUL bytes, shown as \u2400; edit and write take \u2400 for NUL in it.)"


def _body(text: str) -> str:
    return text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0]


def test_a_stray_nul_is_text_and_read_shows_it_as_the_symbol_for_null(root: Path, session: Session) -> None:
    (root / "key.ts").write_bytes(KEY_TS)
    result = session.read("key.ts")
    assert not result.is_error
    assert _body(result.text) == (
        "const F = 'x';\n"
        "const key = `${F}\u2400${name}`;\n"
        "export function lookup() { return SIGNATURE_TOKEN; }\n"
        "\n"
        f"{NUL_NOTE}\n"
        "(End of file - total 3 lines)"
    )


def test_every_format_shows_the_nul_as_the_symbol(root: Path, session: Session) -> None:
    (root / "key.ts").write_bytes(KEY_TS)
    for fmt, line in [
        ("tab", "2\tconst key = `${F}\u2400${name}`;"),
        ("colon", "2: const key = `${F}\u2400${name}`;"),
        ("catn", "     2\tconst key = `${F}\u2400${name}`;"),
        ("visible", "   2\tconst key = `${F}\u2400${name}`;$"),
    ]:
        text = session.read("key.ts", format=fmt, fresh=True).text
        assert line in text.split("\n"), fmt
        assert "\x00" not in text


def test_edit_of_the_line_with_the_nul_keeps_the_nul_byte(root: Path, session: Session) -> None:
    (root / "key.ts").write_bytes(KEY_TS)
    session.read("key.ts")
    result = session.edit("key.ts", "`${F}\u2400${name}`", "`${F}\u2400${name}\u2400${id}`")
    assert not result.is_error, result.text
    assert (root / "key.ts").read_bytes() == KEY_TS.replace(b"${name}`", b"${name}\x00${id}`")


def test_edit_of_a_line_without_the_nul_leaves_it_alone(root: Path, session: Session) -> None:
    (root / "key.ts").write_bytes(KEY_TS)
    session.read("key.ts")
    result = session.edit("key.ts", "SIGNATURE_TOKEN", "OTHER")
    assert not result.is_error, result.text
    assert (root / "key.ts").read_bytes() == KEY_TS.replace(b"SIGNATURE_TOKEN", b"OTHER")


def test_edit_refuses_the_symbol_when_the_file_also_holds_it_for_real(root: Path, session: Session) -> None:
    data = "a\x00b\nc\u2400d\n".encode()
    (root / "both.txt").write_bytes(data)
    session.read("both.txt")
    result = session.edit("both.txt", "a\u2400b", "x")
    assert result.is_error
    assert result.text == (
        "old_string contains \u2400, and both.txt holds both NUL bytes (which read shows as \u2400) and real "
        "\u2400 characters, so it is not known which you mean; change a part of the file without them."
    )
    assert (root / "both.txt").read_bytes() == data


def test_write_over_a_file_with_nuls_takes_the_symbol_for_nul(root: Path, session: Session) -> None:
    (root / "key.ts").write_bytes(KEY_TS)
    session.read("key.ts")
    shown = _body(session.read("key.ts", fresh=True).text).split("\n\n")[0] + "\n"
    result = session.write("key.ts", shown.replace("SIGNATURE_TOKEN", "T"))
    assert not result.is_error, result.text
    assert (root / "key.ts").read_bytes() == KEY_TS.replace(b"SIGNATURE_TOKEN", b"T")


def test_almost_text_lets_a_few_control_bytes_through() -> None:
    assert almost_text(b"a\x00b")
    assert almost_text(b"x" * 62 + b"\x00\x01")
    assert not almost_text(b"x" * 61 + b"\x00\x01\x02")
    assert not almost_text(b"x" * 1000 + b"\x00\x00\x00\x00")  # padding of a binary format
    assert binary_kind(b"x" * 61 + b"\x00\x01\x02") == "binary data"
    assert binary_kind(b"\x89PNG\r\n\x1a\n" + b"x" * 100) == "a PNG image"


def test_utf16_without_a_bom_is_read_and_edited_byte_exactly(root: Path, session: Session) -> None:
    data = "first line\nsecond caf\u00e9\n".encode("utf-16-le")
    (root / "wide.txt").write_bytes(data)
    result = session.read("wide.txt")
    assert _body(result.text) == (
        "first line\nsecond caf\u00e9\n\n(File is utf-16-le-encoded; edits keep that encoding.)\n"
        "(End of file - total 2 lines)"
    )
    assert not session.edit("wide.txt", "second", "2nd").is_error
    assert (root / "wide.txt").read_bytes() == "first line\n2nd caf\u00e9\n".encode("utf-16-le")
    big_endian = "hello\n".encode("utf-16-be")
    assert decode(big_endian, "x").encoding == "utf-16-be"


def test_a_lone_bad_byte_reads_greps_and_edits_alike(root: Path, session: Session) -> None:
    data = b"plain ascii line\nname = 'caf\xe9'\n"
    (root / "one.py").write_bytes(data)
    read = session.read("one.py")
    assert "name = 'caf\u00e9'" in read.text.split("\n")
    grep = session.grep("caf", path="one.py")
    assert "2\tname = 'caf\u00e9'" in grep.text.split("\n"), grep.text
    assert not session.edit("one.py", "caf\u00e9", "cafe").is_error
    assert (root / "one.py").read_bytes() == b"plain ascii line\nname = 'cafe'\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.text(alphabet="ab \x00", max_size=12), min_size=2, max_size=8),
    pick=st.integers(min_value=0),
)
def test_editing_any_line_keeps_every_other_byte(lines: list[str], pick: int) -> None:
    data = "\n".join(["header line of text for the sniff", *lines]).encode() + b"\n"
    if not almost_text(data[:8192]):
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "f.txt")
        path.write_bytes(data)
        session = Session([tmp], ledger=MemoryLedger())
        shown = _body(session.read("f.txt").text).split("\n")[: len(lines) + 1]
        index = 1 + pick % len(lines)
        old = shown[index]
        if not old or sum(line.count(old) for line in shown) != 1:
            return
        result = session.edit("f.txt", old, old + "Z")
        assert not result.is_error, result.text
        raw = data.split(b"\n")
        raw[index] += b"Z"
        assert path.read_bytes() == b"\n".join(raw)


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR SIGNATURE_TOKEN \x00\x00\x00\x00"


def _grep_text(body: list[str]) -> str:
    """A grep result's text: its rows and notes (a whole result has no summary line)."""
    while body and body[-1] == "":
        body = body[:-1]
    return "\n".join(body)


def test_grep_finds_a_match_after_a_stray_nul_and_names_a_skipped_binary(root: Path, session: Session) -> None:
    (root / "key.ts").write_bytes(KEY_TS)
    (root / "logo.png").write_bytes(PNG)
    result = session.grep("SIGNATURE_TOKEN")
    assert result.text == _grep_text(
        [
            "key.ts",
            "3\texport function lookup() { return SIGNATURE_TOKEN; }",
            "",
            "(1 binary file skipped: logo.png.)",
            "",
        ]
    )
    alone = session.grep("SIGNATURE_TOKEN", path="key.ts")
    assert "3\texport function lookup() { return SIGNATURE_TOKEN; }" in alone.text.split("\n")
    assert "skipped" not in alone.text  # the binary is not under the path searched


def test_grep_shows_the_nul_line_as_read_does_and_grants_its_edit(root: Path, session: Session) -> None:
    (root / "key.ts").write_bytes(KEY_TS)
    result = session.grep("const key")
    assert "2\tconst key = `${F}\u2400${name}`;" in result.text.split("\n"), result.text
    edit = session.edit("key.ts", "`${F}\u2400${name}`", "`${F}\u2400${id}`")
    assert not edit.is_error, edit.text
    assert (root / "key.ts").read_bytes() == KEY_TS.replace(b"${name}`", b"${id}`")


def test_files_only_and_the_counted_search_judge_binaries_alike(root: Path, session: Session) -> None:
    (root / "key.ts").write_bytes(KEY_TS)
    for name in ("a.png", "b.png"):
        (root / name).write_bytes(PNG)
    result = session.grep("SIGNATURE_TOKEN", files_only=True)
    assert result.text == _grep_text(
        ["key.ts (1 match)", "", "(2 binary files skipped: a.png, b.png.)"]
    )
    binary: list[str] = []
    counts = count_files("SIGNATURE_TOKEN", [str(root)], RgOptions(), cwd=str(root), binary=binary)
    assert [(os.path.basename(f.path), f.count) for f in counts] == [("key.ts", 1)]
    assert sorted(os.path.basename(p) for p in binary) == ["a.png", "b.png"]


def test_a_note_names_five_binaries_and_counts_the_rest() -> None:
    names = [f"{c}.bin" for c in "abcdefg"]
    assert binary_skipped(names) == "(7 binary files skipped: a.bin, b.bin, c.bin, d.bin, e.bin and 2 more.)"
    assert binary_skipped([]) is None
