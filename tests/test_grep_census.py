"""grep's list of the files it searches decoded (GBK, cp1252, UTF-16 without a byte-order mark, …)
stays true for the life of a session: a file created, moved, rewritten by temp file and rename or
written by leanread since the last grep is searched as read decodes it at the next, in every root
(one rewritten in place by another program, its folder unchanged, once ``FULL_STAT_NS`` passed);
what it left out of a walk stays true too. Real folders, the real ripgrep, exact outputs.

Each behaviour runs twice: on a fresh tree, whose stats are too recent to trust (so each grep
looks again), and on an aged one with no window for a change to hide in (``RACY_NS`` 0, every
mtime an hour back), where only the stats can tell a change.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from leanread import MemoryLedger, Session
from leanread.files import walk
from leanread.files.ripgrep import RgOptions
from leanread.files.search_files import utf8_flaw
from leanread.tools.grep import mirror

NO_MATCH = "gitignored, binary and deny-listed files are not searched.)"


def _age(root: Path) -> None:
    """Every file and folder below ``root`` (and it) last modified an hour ago."""
    then = time.time() - 3600
    for path in [root, *root.rglob("*")]:
        os.utime(path, (then, then), follow_symlinks=False)


@pytest.fixture(params=["fresh", "aged"])
def settle(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """What to do to a tree before the first grep: nothing (fresh), or age it with no racy window."""
    if request.param == "fresh":
        return lambda root: None
    monkeypatch.setattr(walk, "RACY_NS", 0)
    return _age


def test_legacy_files_created_after_a_grep_are_found_by_the_next(
    session: Session, root: Path, settle: Callable[[Path], None]
) -> None:
    (root / "a.txt").write_text("关键字 in utf8\n")
    (root / "b.txt").write_text("plain\n")
    settle(root)
    assert session.grep("关键字").text == "a.txt\n1\t关键字 in utf8"
    (root / "gbk2.txt").write_bytes("第二个 关键字\n".encode("gbk"))
    (root / "cp2.txt").write_bytes("€ smart ’quotes’\n".encode("cp1252"))
    assert session.grep("关键字").text == "a.txt\n1\t关键字 in utf8\ngbk2.txt\n1\t第二个 关键字"
    assert session.grep("€").text == "cp2.txt\n1\t€ smart ’quotes’"
    assert session.grep("’quotes’", files_only=True).text == "cp2.txt (1 match)"


def test_a_file_rewritten_in_place_by_another_program_is_found_within_the_full_stat_bound(
    session: Session, root: Path, settle: Callable[[Path], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "notes.txt").write_bytes(b"abcdefgh\n")
    settle(root)
    assert session.grep("目标").text == f"(No matches in the workspace; {NO_MATCH}"
    stat = os.stat(root / "notes.txt")
    with open(root / "notes.txt", "r+b") as handle:  # in place: the folder does not change
        handle.write("目标 ok\n".encode("gbk"))
    os.utime(root / "notes.txt", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # only its ctime tells
    assert os.stat(root / "notes.txt").st_size == stat.st_size
    found = "notes.txt\n1\t目标 ok"
    if walk.RACY_NS:  # fresh: its version was too recent to trust, so it is stat'ed again each grep
        assert session.grep("目标").text == found
        return
    assert session.grep("目标").text == f"(No matches in the workspace; {NO_MATCH}"  # its folder did not move
    monkeypatch.setattr(walk, "FULL_STAT_NS", 0)  # the bound passed: every file is stat'ed again
    assert session.grep("目标").text == found


def test_new_folders_and_folders_with_no_file_listed_are_watched(
    session: Session, root: Path, settle: Callable[[Path], None]
) -> None:
    (root / ".gitignore").write_text("*.log\n")
    (root / "logs").mkdir()
    (root / "logs" / "run.log").write_text("ignored\n")  # a folder whose only file is ignored
    (root / "empty").mkdir()
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("x = 1\n")
    settle(root)
    note = "(Not searched: logs/run.log, left out by .gitignore (include_ignored=true searches it).)"
    assert session.grep("café").text == f"{note}\n(No matches in the workspace; {NO_MATCH}"
    (root / "logs" / "notes.txt").write_bytes("le café\n".encode("cp1252"))
    (root / "empty" / "deep" / "er").mkdir(parents=True)
    (root / "empty" / "deep" / "er" / "menu.txt").write_bytes("un café noir\n".encode("cp1252"))
    assert session.grep("café").text == f"empty/deep/er/menu.txt\n1\tun café noir\nlogs/notes.txt\n1\tle café\n\n{note}"


def test_a_legacy_file_moved_or_removed_is_searched_where_it_is(
    session: Session, root: Path, settle: Callable[[Path], None]
) -> None:
    (root / "old").mkdir()
    (root / "old" / "menu.txt").write_bytes("un café\n".encode("cp1252"))
    (root / "gone.txt").write_bytes("le café\n".encode("cp1252"))
    settle(root)
    assert session.grep("café").text == "gone.txt\n1\tle café\nold/menu.txt\n1\tun café"
    (root / "new").mkdir()
    os.rename(root / "old" / "menu.txt", root / "new" / "menu.txt")
    os.unlink(root / "gone.txt")
    assert session.grep("café").text == "new/menu.txt\n1\tun café"


def test_a_file_edited_or_written_by_leanread_is_searched_as_it_is_now(
    session: Session, root: Path, settle: Callable[[Path], None]
) -> None:
    (root / "gbk.txt").write_bytes("第一行\n旧的 目标\n".encode("gbk"))
    (root / "plain.txt").write_text("first\n")
    settle(root)
    assert session.grep("目标").text == "gbk.txt\n2\t旧的 目标"
    assert not session.edit("gbk.txt", "旧的 目标", "新的 目标").is_error
    assert session.grep("目标").text == "gbk.txt\n2\t新的 目标"
    session.read("gbk.txt")
    assert not session.write("gbk.txt", "目标 一\n目标 二\n").is_error
    assert (root / "gbk.txt").read_bytes() == "目标 一\n目标 二\n".encode("gbk")
    assert session.grep("目标").text == "gbk.txt\n1\t目标 一\n2\t目标 二"


def test_legacy_files_are_found_in_every_root(tmp_path: Path, settle: Callable[[Path], None]) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "a.txt").write_text("关键字 one\n")
    (second / "g.txt").write_bytes("关键字 two\n".encode("gbk"))
    settle(tmp_path)
    session = Session([first, second], ledger=MemoryLedger())
    expected = f"a.txt\n1\t关键字 one\n{second / 'g.txt'}\n1\t关键字 two"
    assert session.grep("关键字").text == expected
    assert session.grep("关键字").text == expected


def test_what_a_typed_search_left_out_stays_true(session: Session, root: Path, settle: Callable[[Path], None]) -> None:
    (root / ".gitignore").write_text("generated/*.py\n")
    (root / "generated").mkdir()
    (root / "generated" / "client.py").write_text("TOKEN = 1\n")
    (root / "app.py").write_text("import generated\n")
    settle(root)
    note = "left out by .gitignore (include_ignored=true searches them).)"
    assert session.grep("TOKEN", type="py").text == (
        "(Not searched: generated/client.py, left out by .gitignore (include_ignored=true searches it).)\n"
        f"(No matches in the workspace; {NO_MATCH}"
    )
    (root / "generated" / "server.py").write_text("TOKEN = 2\n")
    assert session.grep("TOKEN", type="py").text == (
        f"(Not searched: generated/client.py, generated/server.py, {note}\n(No matches in the workspace; {NO_MATCH}"
    )


# --- the walk, and a file's bytes as ripgrep reads them -----------------------------------------


def _listed(found: walk.Walk, root: Path) -> list[str]:
    return sorted(os.path.relpath(path, root) for path in found.files)


def test_the_walk_lists_again_only_the_folders_that_moved(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "RACY_NS", 0)
    for folder in ("a", "b", "c/d"):
        (root / folder).mkdir(parents=True)
        (root / folder / "f.txt").write_text("x\n")
    _age(root)
    options = RgOptions()
    first = walk.walked(str(root), options)
    listed: list[str] = []
    real_list = walk.list_files

    def counting(path: str, *args: object, **kwargs: object) -> list[str]:
        listed.append(os.path.relpath(path, root))
        return real_list(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(walk, "list_files", counting)
    assert walk.refreshed(first, str(root), options) == first
    (root / "c" / "d" / "g.txt").write_text("y\n")
    (root / "c" / "e").mkdir()
    (root / "c" / "e" / "h.txt").write_text("z\n")
    second = walk.refreshed(first, str(root), options)
    assert sorted(listed) == ["c", "c/d", "c/e"]  # one level each, the new folder whole
    assert _listed(second, root) == ["a/f.txt", "b/f.txt", "c/d/f.txt", "c/d/g.txt", "c/e/h.txt"]
    assert sorted(os.path.relpath(path, root) for path in second.folders) == [".", "a", "b", "c", "c/d", "c/e"]
    listed.clear()
    (root / ".gitignore").write_text("b/\n")  # a new ignore file: the root walked again
    third = walk.refreshed(second, str(root), options)
    assert listed == [".", "."]
    assert _listed(third, root) == [".gitignore", "a/f.txt", "c/d/f.txt", "c/d/g.txt", "c/e/h.txt"]


def test_a_walk_below_a_folder_stats_only_there(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "RACY_NS", 0)
    for folder in ("a", "b"):
        (root / folder).mkdir()
        (root / folder / "f.txt").write_text("x\n")
    _age(root)
    first = walk.walked(str(root), RgOptions())
    os.rename(root / "b" / "f.txt", root / "b" / "old.txt")
    (root / "b" / "f.txt").write_text("changed\n")  # its folder moved
    below_a = walk.refreshed(first, str(root), RgOptions(), below=str(root / "a"))
    assert below_a == first
    whole = walk.refreshed(below_a, str(root), RgOptions())
    assert whole.files[str(root / "b" / "f.txt")] != first.files[str(root / "b" / "f.txt")]
    assert _listed(whole, root) == ["a/f.txt", "b/f.txt", "b/old.txt"]


def test_a_refresh_stats_files_only_in_folders_that_moved_or_written_by_leanread(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walk, "RACY_NS", 0)
    for folder in ("a", "b", "c"):
        (root / folder).mkdir()
        (root / folder / "f.txt").write_text("x\n")
    _age(root)
    first = walk.walked(str(root), RgOptions())
    path = {folder: str(root / folder / "f.txt") for folder in ("a", "b", "c")}
    for folder in ("a", "b"):  # in place, its folder as it was
        with open(path[folder], "a") as handle:
            handle.write("appended\n")
    (root / "c" / "g.txt").write_text("new\n")  # its folder moved
    with open(path["c"], "a") as handle:
        handle.write("appended\n")
    walk.note_written(path["b"])  # as edit and write tell it
    second = walk.refreshed(first, str(root), RgOptions())
    assert second.files[path["a"]] == first.files[path["a"]]  # unseen until every file is stat'ed
    assert second.files[path["b"]] == walk.stamps([path["b"]], time.time_ns())[path["b"]] != first.files[path["b"]]
    assert second.files[path["c"]] == walk.stamps([path["c"]], time.time_ns())[path["c"]] != first.files[path["c"]]
    assert _listed(second, root) == ["a/f.txt", "b/f.txt", "c/f.txt", "c/g.txt"]
    assert second.stated == first.stated
    assert walk.refreshed(second, str(root), RgOptions()) == second  # each write is taken in once
    monkeypatch.setattr(walk, "FULL_STAT_NS", 0)
    third = walk.refreshed(second, str(root), RgOptions())
    assert third.files[path["a"]] == walk.stamps([path["a"]], time.time_ns())[path["a"]] != first.files[path["a"]]
    assert third.stated > second.stated


def test_a_version_too_recent_to_tell_a_change_is_none(root: Path) -> None:
    (root / "new.txt").write_text("x\n")
    since = time.time_ns()
    assert walk.stamps([str(root / "new.txt"), str(root / "missing")], since) == {
        str(root / "new.txt"): None,
        str(root / "missing"): None,
    }
    st = os.lstat(root / "new.txt")
    later = since + walk.RACY_NS + 1
    assert walk.stamps([str(root / "new.txt")], later) == {
        str(root / "new.txt"): (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    }


@pytest.mark.parametrize(
    ("data", "flaw"),
    [
        (b"plain ascii\n", None),
        ("utf-8 关键字 €\n".encode(), None),
        ("gbk 关键字\n".encode("gbk"), "not-utf-8"),
        ("€ cp1252\n".encode("cp1252"), "not-utf-8"),
        ("\ufeffutf-16 with a byte-order mark\n".encode("utf-16"), "nul"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "nul"),
        (b"", None),
    ],
)
def test_utf8_flaw_is_what_keeps_ripgrep_from_reading_utf8(root: Path, data: bytes, flaw: str | None) -> None:
    (root / "f").write_bytes(data)
    assert utf8_flaw(str(root / "f")) == flaw


@pytest.mark.parametrize(
    ("data", "flaw"),
    [
        ("é".encode() * 5, None),  # a character cut by the chunk's end is whole in the next
        ("é".encode()[:1] + b"xy", "not-utf-8"),
        (b"ab" + "é".encode()[:1], "not-utf-8"),  # cut at the file's end
        (b"\xffb\x00", "nul"),  # a NUL anywhere in the chunk comes first, as in ripgrep's buffer
        (b"\xffbc\x00", "not-utf-8"),
        (b"abc\x00\xff", "nul"),
    ],
)
def test_utf8_flaw_reads_chunk_by_chunk(
    root: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, flaw: str | None
) -> None:
    monkeypatch.setattr("leanread.files.search_files.FLAW_CHUNK", 3)
    (root / "f").write_bytes(data)
    assert utf8_flaw(str(root / "f")) == flaw


def test_utf8_flaw_never_opens_a_fifo_or_follows_a_link(root: Path) -> None:
    os.mkfifo(root / "pipe")
    (root / "gbk.txt").write_bytes("关键字\n".encode("gbk"))
    (root / "link").symlink_to("gbk.txt")
    assert [utf8_flaw(str(root / name)) for name in ("pipe", "link", "gbk.txt", "missing")] == [
        None,
        None,
        "not-utf-8",
        None,
    ]


def test_a_decoded_copy_is_kept_only_for_a_version_that_tells_a_change(
    root: Path, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "gbk.txt").write_bytes("关键字\n".encode("gbk"))
    st = os.lstat(root / "gbk.txt")
    key = (str(root / "gbk.txt"), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    assert session.grep("关键字").text == "gbk.txt\n1\t关键字"
    assert mirror.MIRROR.lookup(key) == (False, None)  # changed just now: judged again next time
    monkeypatch.setattr("leanread.files.fileversion.RACY_NS", 0)
    assert session.grep("关键字").text == "gbk.txt\n1\t关键字"
    known, copy = mirror.MIRROR.lookup(key)
    assert known
    assert copy is not None
    assert Path(copy).read_text(encoding="utf-8") == "关键字\n"


def test_a_file_too_recent_to_trust_is_sniffed_again_by_each_grep(
    session: Session, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed within ``RACY_NS`` has no version: each grep sniffs it again, even when
    nothing else in the walk moved (its folder trusted, its stat the same "no version")."""
    monkeypatch.setattr(walk, "RACY_NS", 200_000_000)
    (root / "c.txt").write_text("old ascii\n")
    time.sleep(0.3)
    assert session.grep("ascii").text == "c.txt\n1\told ascii"
    (root / "x.txt").write_text("other\n")  # the folder moves, then is trusted again
    time.sleep(0.3)
    with open(root / "c.txt", "r+b") as handle:  # in place: the folder does not move
        handle.write(b"plain ascii\n")
    assert session.grep("plain").text == "c.txt\n1\tplain ascii"
    with open(root / "c.txt", "r+b") as handle:
        handle.write("三 就地 c\n".encode("gbk"))
        handle.truncate()
    assert session.grep("就地").text == "c.txt\n1\t三 就地 c"
