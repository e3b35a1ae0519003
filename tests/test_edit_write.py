"""`edit` and `write`: per-range grants that agree with the read hints, byte-exact write-back."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from leanread import MemoryLedger, Session


@pytest.fixture
def session(root: Path) -> Session:
    return Session([root], ledger=MemoryLedger())


def _lines(n: int) -> str:
    return "".join(f"value_{i} = compute({i})\n" for i in range(1, n + 1))


def test_crlf_without_final_newline_case(session: Session, root: Path) -> None:
    (root / "w.txt").write_bytes(b"alpha\r\nbeta\r\ngamma")
    session.read("w.txt")
    result = session.edit("w.txt", "alpha\nbeta", "one\ntwo")
    assert not result.is_error, result.text
    assert (root / "w.txt").read_bytes() == b"one\r\ntwo\r\ngamma"
    assert result.text == ("Edited lines 1-2.")


def test_latin1_byte_is_untouched(session: Session, root: Path) -> None:
    (root / "l.js").write_bytes(b"const x = 1;\n// caf\xe9 note\n")
    session.read("l.js")
    assert not session.edit("l.js", "const x = 1;", "const x = 2;").is_error
    assert (root / "l.js").read_bytes() == b"const x = 2;\n// caf\xe9 note\n"


def test_touch_keeps_the_grant(session: Session, root: Path) -> None:
    (root / "a.py").write_text(_lines(5))
    session.read("a.py")
    os.utime(root / "a.py", ns=(1, 1))
    assert not session.edit("a.py", "value_3 = compute(3)", "value_3 = 0").is_error


def test_unread_file_refusal_names_the_read_that_grants_it(session: Session, root: Path) -> None:
    (root / "a.py").write_text(_lines(100))
    refused = session.edit("a.py", "value_50 = compute(50)", "value_50 = 0")
    assert refused.is_error
    assert refused.text == (
        "You have not read a.py in this session, so nothing was edited; read the lines old_string spans "
        "first (offset=50, limit=1) and retry."
    )
    assert session.read("a.py", offset=50, limit=1).metadata["offset"] == 50
    assert not session.edit("a.py", "value_50 = compute(50)", "value_50 = 0").is_error
    assert "value_50 = 0\n" in (root / "a.py").read_text()


def test_partly_seen_range_refusal_then_grant(session: Session, root: Path) -> None:
    (root / "a.py").write_text(_lines(100))
    session.read("a.py", limit=10)
    block = "value_9 = compute(9)\nvalue_10 = compute(10)\nvalue_11 = compute(11)\nvalue_12 = compute(12)"
    refused = session.edit("a.py", block, "pass")
    assert refused.text == (
        "old_string spans lines 9-12 of a.py, but you have not seen lines 11-12 of its current version, so "
        "nothing was edited; read them first (offset=11, limit=2) and retry."
    )
    session.read("a.py", offset=11, limit=2)
    assert not session.edit("a.py", block, "pass").is_error


def test_outside_change_refusal_carries_the_diff_and_the_retry_needs_no_read(session: Session, root: Path) -> None:
    (root / "a.py").write_text(_lines(6))
    session.read("a.py")
    (root / "a.py").write_text(_lines(6).replace("value_2 = compute(2)", "value_2 = formatted(2)"))
    refused = session.edit("a.py", "value_2 = compute(2)", "value_2 = 0")
    assert refused.is_error
    assert refused.text == (
        "a.py changed since you read it, so nothing was edited; this is what changed (a diff against what "
        "you were shown):\n@@ -1,3 +1,3 @@\n value_1 = compute(1)\n-value_2 = compute(2)\n+value_2 = formatted(2)\n"
        " value_3 = compute(3)\nRetry the edit against the current text."
    )
    retry = session.edit("a.py", "value_2 = formatted(2)", "value_2 = 0")
    assert not retry.is_error, retry.text
    assert (root / "a.py").read_text() == _lines(6).replace("value_2 = compute(2)", "value_2 = 0")


def test_own_edits_refresh_what_was_seen(session: Session, root: Path) -> None:
    (root / "a.py").write_text(_lines(40))
    session.read("a.py")
    assert not session.edit("a.py", "value_5 = compute(5)", "value_5 = 5\nvalue_5b = 6").is_error
    # no read in between: the lines it knew moved by one, and it knows its own new lines
    assert not session.edit("a.py", "value_30 = compute(30)", "value_30 = 0").is_error
    assert not session.edit("a.py", "value_5b = 6", "value_5b = 7").is_error
    reread = session.read("a.py")
    assert reread.metadata["mode"] in ("stub", "elided")
    assert "value_30 = 0" not in reread.text  # it already has that line


def test_rewind_revokes_the_grant(session: Session, root: Path) -> None:
    (root / "a.py").write_text(_lines(5))
    session.read("a.py", limit=1)  # r1
    session.read("a.py")  # r2
    session.rewind("r1")
    refused = session.edit("a.py", "value_3 = compute(3)", "value_3 = 0")
    assert refused.text.startswith("old_string spans line 3 of a.py, but you have not seen line 3")


def test_edit_keeps_mode_and_bom(session: Session, root: Path) -> None:
    path = root / "run.sh"
    path.write_bytes(b"\xef\xbb\xbfecho one\r\necho two\r\n")
    path.chmod(0o755)
    session.read("run.sh")
    assert not session.edit("run.sh", "echo two", "echo 2").is_error
    assert path.read_bytes() == b"\xef\xbb\xbfecho one\r\necho 2\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


def test_write_creates_and_guards_overwrites(session: Session, root: Path) -> None:
    created = session.write("pkg/new.py", "print('hi')\n")
    assert created.text == "Created 1 line."
    (root / "old.txt").write_bytes(b"a\r\nb\r\n")
    refused = session.write("old.txt", "x\ny\n")
    assert refused.text == (
        "write would replace all 2 lines of old.txt, which is not fully known to you, so nothing was written; "
        "read it first (offset=1) or change it with edit."
    )
    session.read("old.txt")
    assert session.write("old.txt", "x\ny\n").text == "Wrote 2 lines."
    assert (root / "old.txt").read_bytes() == b"x\r\ny\r\n"
    # what it wrote counts as seen: an edit needs no read
    assert not session.edit("old.txt", "y", "z").is_error


@pytest.mark.parametrize(
    ("on_disk", "sent"),
    [
        (b"done\n", "done\n"),
        (b"a\r\nb\r\n", "a\nb\n"),  # the file's CRLF kept, as for any write
        (b"a\r\nb\r\n", "a\r\nb\r\n"),
        ("caf\u00e9 \u20ac\n".encode("cp1252"), "caf\u00e9 \u20ac\n"),  # its legacy encoding kept
    ],
)
def test_write_of_the_text_a_file_already_holds_needs_no_read(
    session: Session, root: Path, on_disk: bytes, sent: str
) -> None:
    """A write sent again after its answer was lost (its server killed once the file was written)
    finds the file holding what it sends: nothing is lost, so it is not refused, and the file
    counts as seen."""
    (root / "out.txt").write_bytes(on_disk)
    result = session.write("out.txt", sent)
    lines = "1 line" if sent.count("\n") == 1 else f"{sent.count(chr(10))} lines"
    assert result.text == f"Wrote {lines}; the file already held this text."
    assert (root / "out.txt").read_bytes() == on_disk
    assert not session.edit("out.txt", sent.splitlines()[0], "z").is_error
    # one character off is still a write over lines the model has not seen
    (root / "other.txt").write_bytes(on_disk)
    assert session.write("other.txt", sent + "x\n").is_error
    assert (root / "other.txt").read_bytes() == on_disk


def test_write_refuses_display_markers(session: Session, root: Path) -> None:
    refused = session.write("a.py", "x = 1\n… lines 2-40 unchanged since you read them …\n")
    assert refused.is_error
    assert not (root / "a.py").exists()
    assert session.write("b.py", "x\n<response clipped>\n").is_error


def test_write_outside_or_denied_is_refused(session: Session, root: Path) -> None:
    assert session.write("../escape.py", "x\n").is_error
    assert session.write(".env", "KEY=1\n").is_error
    assert not (root.parent / "escape.py").exists()
    assert not (root / ".env").exists()


def test_concurrent_edits_from_two_sessions_lose_nothing(root: Path) -> None:
    import threading

    lines = [f"line {i}" for i in range(40)]
    (root / "a.txt").write_text("\n".join(lines) + "\n")
    ledger = MemoryLedger()
    sessions = [Session([root], id=name, ledger=ledger) for name in ("A", "B")]
    errors: list[str] = []

    def work(session: Session, offset: int) -> None:
        for i in range(offset, 40, 2):
            for _ in range(500):  # a refusal (the other agent changed the file) is followed by a fresh read
                session.read("a.txt", fresh=True)
                result = session.edit("a.txt", f"line {i}\n", f"done {i}\n")
                if not result.is_error:
                    break
            else:
                errors.append(result.text)

    threads = [threading.Thread(target=work, args=(s, k)) for k, s in enumerate(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert (root / "a.txt").read_text() == "".join(f"done {i}\n" for i in range(40))


def test_a_long_line_can_be_edited_after_reading_all_of_it(session: Session, root: Path) -> None:
    long = "A" * 1990 + "MIDDLE" + "B" * 3000 + "END"
    (root / "min.js").write_text(f"first\n{long}\nlast\n")
    session.read("min.js")
    refused = session.edit("min.js", "END", "FIN")
    assert refused.text == (
        "old_string spans line 2 of min.js, and line 2 is longer than 2000 characters, of which you have not "
        "read all, so nothing was edited; read the rest with offset=2, char_offset=2001 (and on, as its notes say) "
        "and retry."
    )
    assert "End of line 2" in session.read("min.js", offset=2, char_offset=2001).text
    assert not session.edit("min.js", "END", "FIN").is_error
    assert (root / "min.js").read_text() == f"first\n{long[:-3]}FIN\nlast\n"


def test_edit_excerpt_cuts_long_lines_like_read(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("    alpha\n    beta\n")
    session.read("a.txt")
    # the whitespace rule shifts new_string 4 columns deeper: its first line is shown, cut as read cuts
    result = session.edit("a.txt", "alpha\nbeta", "L" * 300_000 + "\nbeta")
    assert not result.is_error
    assert result.text == (
        "Edited lines 1-2 (old_string matched by the whitespace rule; new_string indented 4 columns deeper, as the "
        "file).\n1:     " + "L" * 1996 + "… [line cut: 300004 chars in all]"
    )


def test_deleting_lines_says_so(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("a\nb\nc\nd\n")
    session.read("a.txt")
    result = session.edit("a.txt", "b\nc\n", "")
    assert result.text == "Removed lines 2-3."
    assert (root / "a.txt").read_text() == "a\nd\n"


def test_mixed_line_endings_keep_each_untouched_line(session: Session, root: Path) -> None:
    (root / "m.txt").write_bytes(b"".join(b"line%d\r\n" % i for i in range(1, 6)) + b"lf line\n")
    shown = session.read("m.txt")
    assert "(File uses mixed CRLF and LF (mostly CRLF) line endings; edits keep them.)" in shown.text
    assert not session.edit("m.txt", "line3\nline4", "LINE3\nLINE4\nLINE45").is_error
    assert (root / "m.txt").read_bytes() == (b"line1\r\nline2\r\nLINE3\r\nLINE4\r\nLINE45\r\nline5\r\nlf line\n")


@pytest.mark.parametrize("path", ["new.txt", "sub/new.txt", "a.txt"])
def test_an_empty_old_string_points_to_write_whether_or_not_the_file_exists(
    session: Session, root: Path, path: str
) -> None:
    (root / "a.txt").write_text("alpha\n")
    result = session.edit(path, "", "content\n")
    assert (result.is_error, result.text) == (True, "old_string is empty; to create or overwrite a file use write.")
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]
    assert (root / "a.txt").read_text() == "alpha\n"
    assert session.write("new.txt", "content\n").text == "Created 1 line."
