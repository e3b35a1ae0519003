"""A write or edit that has written the file says so, whatever happens after; what it refuses it
refuses before writing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from leanread import MemoryLedger, Session
from leanread.ledger.store import ViewRecord


def test_write_of_text_with_a_nul_says_what_it_wrote(root: Path, session: Session) -> None:
    result = session.write("nul.txt", "a\x00b\n")
    assert not result.is_error, result.text
    assert result.text == "Created 1 line; it holds 1 NUL byte, which read shows as \u2400."
    assert (root / "nul.txt").read_bytes() == b"a\x00b\n"
    again = session.write("nul.txt", "a\u2400b\u2400c\n")  # known whole: ␀ stands for NUL here
    assert again.text == "Wrote 1 line; it holds 2 NUL bytes, which read shows as \u2400."
    assert (root / "nul.txt").read_bytes() == b"a\x00b\x00c\n"


def test_write_of_binary_content_writes_nothing(root: Path, session: Session) -> None:
    result = session.write("blob.bin", "\x00\x01\x02\x03\x04\x05 header")
    assert result.is_error
    assert result.text == (
        "The new content of blob.bin would be binary data, not text, so nothing was written; write text (a few "
        "NUL bytes are fine: read shows each as \u2400), or ask the user to create binary files."
    )
    assert not (root / "blob.bin").exists()


def test_edit_that_would_make_the_file_binary_edits_nothing(root: Path, session: Session) -> None:
    (root / "a.txt").write_bytes(b"one\ntwo\n")
    session.read("a.txt")
    result = session.edit("a.txt", "two", "\x00\x00\x00\x00")
    assert result.is_error
    assert result.text.startswith("The new content of a.txt would be binary data, not text, so nothing was written;")
    assert (root / "a.txt").read_bytes() == b"one\ntwo\n"


class _BrokenStore(MemoryLedger):
    """A ledger whose store fails on every new record once ``broken`` is set (a full disk, a lost
    Redis connection), as a real store's failure surfaces: an exception of the store's own kind."""

    broken = False

    def record(self, session_id: str, record: ViewRecord) -> ViewRecord:
        if self.broken:
            raise sqlite3.OperationalError("database or disk is full")
        return super().record(session_id, record)


def test_write_and_edit_report_success_when_the_ledger_fails_after_writing(root: Path) -> None:
    ledger = _BrokenStore()
    session = Session([root], ledger=ledger)
    (root / "a.txt").write_bytes(b"one\ntwo\n")
    session.read("a.txt")
    ledger.broken = True
    edit = session.edit("a.txt", "two", "three")
    assert not edit.is_error, edit.text
    assert edit.text.split("\n") == [
        "Edited line 2.",
        "(The session could not record it (OperationalError); read it before you change it again.)",
    ]
    assert (root / "a.txt").read_bytes() == b"one\nthree\n"
    write = session.write("b.txt", "new\n")
    assert not write.is_error
    assert write.text == (
        "Created 1 line.\n"
        "(The session could not record it (OperationalError); read it before you change it again.)"
    )
    assert (root / "b.txt").read_bytes() == b"new\n"
