"""Faults on a real file system: kill -9 of the server amid writes, a full disk or a file-size
limit at the write, and a file deleted, truncated or replaced between the stat and the read."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from leanread import MemoryLedger, Session
from leanread.bench.faults import bench_faults, markdown_report
from leanread.files.workspace import Workspace

FULL = "fix the cause (permissions, free space) and try again."


def test_kill_9_amid_edits_and_writes_tears_nothing() -> None:
    report = bench_faults(rounds=2, seed=7)
    assert (report.rounds, report.torn, report.ledger_failures) == (2, 0, 0)
    assert report.changes_answered > 0
    assert markdown_report(report, "leanread bench faults --rounds 2").splitlines()[-1].startswith("| 2 | 0 | 0 | ")


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (needs root and mount), unmounted after the test."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root?); the RLIMIT_FSIZE test covers the failed write")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_full_disk_at_the_write_is_a_clear_error_and_leaves_the_file(tiny_disk: Path) -> None:
    (tiny_disk / "a.txt").write_text("alpha\n")
    session = Session([tiny_disk], ledger=MemoryLedger())
    session.read("a.txt")
    big = "y" * 200_000 + "\n"
    written = session.write("a.txt", big)
    edited = session.edit("a.txt", "alpha", big)
    created = session.write("new.txt", big)
    for result, path in ((written, "a.txt"), (edited, "a.txt"), (created, "new.txt")):
        assert (result.is_error, result.text) == (
            True,
            f"Cannot write {path} (No space left on device), so it is unchanged; {FULL}",
        )
    assert (tiny_disk / "a.txt").read_text() == "alpha\n"
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["a.txt"]  # no temp file, no new.txt


CHILD = """
import resource, sys
from leanread import MemoryLedger, Session
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
session = Session([sys.argv[1]], ledger=MemoryLedger())
session.read("a.txt")
print(session.write("a.txt", "z" * 5000 + "\\n").text)
print(session.edit("a.txt", "alpha", "z" * 5000).text)
"""


def test_a_file_size_limit_at_the_write_is_a_clear_error_and_leaves_the_file(root: Path) -> None:
    """RLIMIT_FSIZE: the kernel refuses the write with EFBIG (SIGXFSZ ignored, as Python does)."""
    (root / "a.txt").write_text("alpha\n")
    done = subprocess.run([sys.executable, "-c", CHILD, str(root)], capture_output=True, text=True, timeout=60)
    message = f"Cannot write a.txt (File too large), so it is unchanged; {FULL}"
    assert done.stdout == f"{message}\n{message}\n"
    assert (root / "a.txt").read_text() == "alpha\n"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]


def between_stat_and_read(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    """Run ``action`` (a real file-system change) once, right after the first ``resolve`` (the stat)."""
    original = Workspace.resolve
    done = [False]

    def resolve_then_act(self: Workspace, path: str) -> object:
        resolved = original(self, path)
        if not done[0]:
            done[0] = True
            action()
        return resolved

    monkeypatch.setattr(Workspace, "resolve", resolve_then_act)


def test_a_file_deleted_between_stat_and_read(root: Path, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "a.txt").write_text("alpha\n")
    between_stat_and_read(monkeypatch, (root / "a.txt").unlink)
    result = session.read("a.txt")
    assert (result.is_error, result.text) == (
        True,
        "a.txt disappeared while leanread was opening it; list its folder to see what exists.",
    )


def test_a_file_truncated_between_stat_and_read_shows_what_is_there(
    root: Path, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    between_stat_and_read(monkeypatch, lambda: os.truncate(root / "a.txt", 6))
    result = session.read("a.txt")
    assert (
        result.text
        == "<path>a.txt</path>\n<type>file</type>\n<content>\nalpha\n\n(End of file - total 1 line)\n</content>"
    )
    assert result.metadata["total_lines"] == 1


def test_a_file_replaced_between_stat_and_read(root: Path, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "a.txt").write_text("alpha\n")

    def replace() -> None:
        (root / "b.txt").write_text("other\n")
        os.replace(root / "b.txt", root / "a.txt")

    between_stat_and_read(monkeypatch, replace)
    result = session.read("a.txt")
    assert (result.is_error, result.text) == (
        True,
        "a.txt changed while leanread was opening it (it or a folder on its path was replaced), "
        "so it was not read; read it again.",
    )
    assert session.read("a.txt").text == (
        "<path>a.txt</path>\n<type>file</type>\n<content>\nother\n\n(End of file - total 1 line)\n</content>"
    )


def test_an_edit_of_a_file_replaced_between_stat_and_read_writes_nothing(
    root: Path, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_text("alpha\n")
    session.read("a.txt")

    def replace() -> None:
        (root / "b.txt").write_text("alpha from elsewhere\n")
        os.replace(root / "b.txt", root / "a.txt")

    between_stat_and_read(monkeypatch, replace)
    result = session.edit("a.txt", "alpha", "ALPHA")
    assert (result.is_error, result.text) == (  # the edit looks at the file again under its lock
        True,
        "a.txt changed since you read it, so nothing was edited; this is what changed (a diff against what you "
        "were shown):\n@@ -1 +1 @@\n-alpha\n+alpha from elsewhere\nRetry the edit against the current text.",
    )
    assert (root / "a.txt").read_text() == "alpha from elsewhere\n"
