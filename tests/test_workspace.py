"""workspace: roots, escapes through `..` and links, special files refused from stat alone."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

import pytest

from leanread import MemoryLedger, Session
from leanread.config.settings import Policy
from leanread.errors import Denied, FileMissing, NotAFile, OutsideWorkspace, PathError
from leanread.files.workspace import Resolved, Workspace, read_regular_file


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace root, outside it."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret\n")
    return folder


def test_default_root_is_cwd(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    assert Workspace().roots == (os.path.realpath(root),)


def test_root_must_be_a_directory(root: Path) -> None:
    (root / "f.txt").write_text("x")
    with pytest.raises(PathError) as info:
        Workspace([root / "f.txt"])
    assert str(info.value) == (f"Workspace root {root / 'f.txt'} is not a directory; pass an existing folder.")
    with pytest.raises(PathError):
        Workspace([root / "nope"])


def test_resolve_relative_and_absolute(root: Path) -> None:
    (root / "src").mkdir()
    target = root / "src" / "app.py"
    target.write_bytes(b"print(1)\n")
    ws = Workspace([root])
    rel = ws.resolve("src/app.py")
    st = target.stat()
    assert rel == Resolved(
        real=os.path.realpath(target),
        display="src/app.py",
        size=9,
        mtime_ns=st.st_mtime_ns,
        is_dir=False,
        ino=st.st_ino,
        ctime_ns=st.st_ctime_ns,
        dev=st.st_dev,
    )
    assert ws.resolve(str(target)) == rel
    assert ws.resolve("./src/../src/app.py") == rel


def test_resolve_root_itself_is_a_directory(root: Path) -> None:
    res = Workspace([root]).resolve(".")
    assert (res.display, res.is_dir) == (".", True)


def test_second_root_displays_absolute(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "o.txt").write_text("o\n")
    ws = Workspace([root, other])
    res = ws.resolve(str(other / "o.txt"))
    assert res.display == os.path.realpath(other / "o.txt")
    # a relative path missing in the first root is looked for in the others (issue 20)
    assert ws.resolve("o.txt").display == os.path.realpath(other / "o.txt")


def test_dotdot_escape_refused(root: Path, outside: Path) -> None:
    ws = Workspace([root])
    with pytest.raises(OutsideWorkspace) as info:
        ws.resolve("../outside/secret.txt")
    assert str(info.value) == (
        f"../outside/secret.txt resolves outside the workspace ({os.path.realpath(root)}); use a path inside it."
    )


def test_missing_file_outside_is_outside_not_missing(root: Path, outside: Path) -> None:
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve("../outside/nothing-here.txt")


def test_absolute_path_outside_refused(root: Path, outside: Path) -> None:
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve(str(outside / "secret.txt"))


def test_sibling_with_common_prefix_is_outside(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws2").mkdir()
    (tmp_path / "ws2" / "x.txt").write_text("x\n")
    with pytest.raises(OutsideWorkspace):
        Workspace([tmp_path / "ws"]).resolve("../ws2/x.txt")


def test_tilde_expands_and_is_checked(root: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(outside))
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve("~/secret.txt")


def test_symlink_to_etc_passwd_refused(root: Path) -> None:
    os.symlink("/etc/passwd", root / "passwd")
    with pytest.raises(OutsideWorkspace) as info:
        Workspace([root]).resolve("passwd")
    assert str(info.value) == (
        f"passwd resolves outside the workspace ({os.path.realpath(root)}); use a path inside it."
    )


def test_symlinked_parent_directory_escape_refused(root: Path, outside: Path) -> None:
    os.symlink(outside, root / "linkdir")
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve("linkdir/secret.txt")


def test_dangling_symlink_pointing_outside_refused(root: Path, outside: Path) -> None:
    os.symlink(outside / "ghost.txt", root / "ghost")
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve("ghost")


def test_dangling_symlink_inside_says_so(root: Path) -> None:
    os.symlink("missing-target", root / "dangling")
    os.symlink(root / "gone.txt", root / "absolute")
    (root / "docs").mkdir()
    os.symlink("../nowhere/x.md", root / "docs" / "notes.md")
    ws = Workspace([root])
    tail = "which does not exist; fix the link or read its target's real path."
    for path, target in [
        ("dangling", "missing-target"),
        ("dangling/", "missing-target"),
        ("absolute", "gone.txt"),
        ("docs/notes.md", "nowhere/x.md"),
        ("./docs/../docs/notes.md", "nowhere/x.md"),
    ]:
        with pytest.raises(FileMissing) as info:
            ws.resolve(path)
        assert str(info.value) == f"{path} is a symbolic link to {target}, {tail}"


def test_dangling_link_to_a_link_names_the_final_target(root: Path) -> None:
    os.symlink("second", root / "first")
    os.symlink("sub/missing.txt", root / "second")
    with pytest.raises(FileMissing) as info:
        Workspace([root]).resolve("first")
    assert str(info.value) == (
        "first is a symbolic link to sub/missing.txt, which does not exist; "
        "fix the link or read its target's real path."
    )


def test_dangling_folder_link_on_the_way_says_so(root: Path) -> None:
    os.symlink("old-build", root / "build")
    with pytest.raises(FileMissing) as info:
        Workspace([root]).resolve("build/out/app.js")
    assert str(info.value) == (
        "build/out/app.js is inside build, a symbolic link to old-build, which does not exist; "
        "fix the link or read its target's real path."
    )


def test_missing_file_next_to_a_dangling_link_keeps_the_suggestions(root: Path) -> None:
    os.symlink("missing-target", root / "dangling")
    (root / "readme.md").write_text("r\n")
    with pytest.raises(FileMissing) as info:
        Workspace([root]).resolve("readme.mx")
    assert str(info.value) == "File not found: readme.mx. Did you mean readme.md?"


@pytest.mark.parametrize("path", ["a.txt/", "a.txt/.", "a.txt//", "a.txt/./", "./a.txt/"])
def test_trailing_slash_on_a_file_refused(root: Path, path: str) -> None:
    (root / "a.txt").write_text("a\n")
    with pytest.raises(PathError) as info:
        Workspace([root]).resolve(path)
    assert str(info.value) == f"{path} is a file, not a folder; drop the trailing slash."


def test_trailing_slash_on_a_link_to_a_file_refused(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    os.symlink("a.txt", root / "alias")
    with pytest.raises(PathError) as info:
        Workspace([root]).resolve("alias/")
    assert str(info.value) == "alias/ is a file, not a folder; drop the trailing slash."


@pytest.mark.parametrize("path", ["a.txt/..", "a.txt/../sub", "a.txt/x", "sub/../a.txt/../sub"])
def test_a_file_used_as_a_folder_refused(root: Path, path: str) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "sub").mkdir()
    with pytest.raises(PathError) as info:
        Workspace([root]).resolve(path)
    file = "sub/../a.txt" if path.startswith("sub/") else "a.txt"
    assert str(info.value) == f"{path} goes on past {file}, which is a file, not a folder; fix the path."


def test_trailing_slash_on_a_folder_is_fine(root: Path) -> None:
    (root / "sub").mkdir()
    ws = Workspace([root])
    for path in ["sub/", "sub/.", "sub//", "./sub/./", "sub/../sub/"]:
        res = ws.resolve(path)
        assert (res.display, res.is_dir) == ("sub", True)


def test_file_used_as_a_folder_outside_is_outside(root: Path, outside: Path) -> None:
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve("../outside/secret.txt/")
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve("../outside/secret.txt/x")


def test_symlink_inside_resolves_to_target(root: Path) -> None:
    (root / "real.txt").write_text("r\n")
    os.symlink("real.txt", root / "alias.txt")
    res = Workspace([root]).resolve("alias.txt")
    assert (res.display, res.real) == ("real.txt", os.path.realpath(root / "real.txt"))


def test_symlink_loop(root: Path) -> None:
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    with pytest.raises(PathError) as info:
        Workspace([root]).resolve("a")
    assert str(info.value) == "a is a symbolic-link loop; read the file it was meant to point to."


def test_missing_file(root: Path) -> None:
    with pytest.raises(FileMissing) as info:
        Workspace([root]).resolve("src/nope.py")
    assert str(info.value) == (
        "File not found: src/nope.py. Check the spelling, or list its folder to see what exists."
    )


@pytest.mark.parametrize("path", ["", "a\x00b"])
def test_empty_or_nul_path(root: Path, path: str) -> None:
    with pytest.raises(PathError) as info:
        Workspace([root]).resolve(path)
    assert str(info.value) == ("The path is empty or contains a NUL byte; pass a file path such as src/app.py.")


def test_fifo_refused_from_stat(root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(NotAFile) as info:
        Workspace([root]).resolve("pipe")
    assert str(info.value) == "pipe is a FIFO (named pipe), not a regular file; leanread does not open it."


def test_char_device_refused() -> None:
    with pytest.raises(NotAFile) as info:
        Workspace(["/dev"]).resolve("null")
    assert str(info.value) == ("null is a character device, not a regular file; leanread does not open it.")


def test_symlink_to_dev_null_is_outside(root: Path) -> None:
    os.symlink("/dev/null", root / "null")
    with pytest.raises(OutsideWorkspace):
        Workspace([root]).resolve("null")


def test_socket_refused() -> None:
    # AF_UNIX paths are short; use a short temporary folder rather than tmp_path.
    with tempfile.TemporaryDirectory(prefix="lr") as folder:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(os.path.join(folder, "s.sock"))
            with pytest.raises(NotAFile) as info:
                Workspace([folder]).resolve("s.sock")
        finally:
            sock.close()
    assert str(info.value) == "s.sock is a socket, not a regular file; leanread does not open it."


def test_resolved_carries_inode_and_ctime_of_the_same_stat(root: Path) -> None:
    (root / "f.txt").write_text("one\n")
    ws = Workspace([root])
    before = ws.resolve("f.txt")
    replacement = root / "f.tmp"
    replacement.write_text("two\n")  # same size
    os.utime(replacement, ns=(before.mtime_ns, before.mtime_ns))
    os.replace(replacement, root / "f.txt")
    after = ws.resolve("f.txt")
    assert (after.size, after.mtime_ns) == (before.size, before.mtime_ns)
    assert after.ino != before.ino
    st = os.stat(root / "f.txt")
    assert (after.ino, after.ctime_ns) == (st.st_ino, st.st_ctime_ns)


def test_read_regular_file_returns_bytes(root: Path) -> None:
    (root / "a.bin").write_bytes(b"\x00\x01abc")
    ws = Workspace([root])
    assert read_regular_file(ws.resolve("a.bin")) == b"\x00\x01abc"


def test_read_regular_file_refuses_directory(root: Path) -> None:
    (root / "sub").mkdir()
    with pytest.raises(NotAFile) as info:
        read_regular_file(Workspace([root]).resolve("sub"))
    assert str(info.value) == "sub is a directory; read a file inside it."


def test_read_regular_file_refuses_file_swapped_for_fifo(root: Path) -> None:
    (root / "f").write_text("was a file\n")
    resolved = Workspace([root]).resolve("f")
    os.unlink(root / "f")
    os.mkfifo(root / "f")  # swapped after the check: must not block on open
    with pytest.raises(NotAFile) as info:
        read_regular_file(resolved)
    assert str(info.value) == "f is no longer a regular file; read it again once it is."


def test_read_regular_file_vanished(root: Path) -> None:
    (root / "f").write_text("x")
    resolved = Workspace([root]).resolve("f")
    os.unlink(root / "f")
    with pytest.raises(FileMissing) as info:
        read_regular_file(resolved)
    assert str(info.value) == "f disappeared while leanread was opening it; list its folder to see what exists."


def test_empty_roots_are_left_out_and_said_on_stderr(
    root: Path, outside: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(outside)  # an empty root must not become this folder
    ws = Workspace(["", root, " "])
    assert ws.roots == (os.path.realpath(root),)
    assert capsys.readouterr().err == (
        f"leanread: left out 2 empty workspace roots (an unset variable in the configuration?); the roots are {root}.\n"
    )
    with pytest.raises(OutsideWorkspace):
        ws.resolve(str(outside / "secret.txt"))
    with pytest.raises(FileMissing):
        ws.resolve("secret.txt")
    session = Session(["", root], ledger=MemoryLedger())
    assert session.workspace.roots == (os.path.realpath(root),)
    assert capsys.readouterr().err == (
        f"leanread: left out an empty workspace root (an unset variable in the configuration?); the roots are {root}.\n"
    )
    assert session.read("secret.txt").text.startswith("File not found: secret.txt.")


@pytest.mark.parametrize("roots", [[""], ["", "  "], ["\t"]])
def test_only_empty_roots_are_refused(roots: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PathError) as info:
        Workspace(roots)
    assert str(info.value) == (
        "Every workspace root given is empty (an unset variable in the configuration?); pass an existing folder."
    )
    assert capsys.readouterr().err == ""


def test_a_root_deleted_while_the_server_runs_is_named_and_never_made_again(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("x\n")
    session = Session([root], ledger=MemoryLedger())
    session.read("a.txt")
    (root / "a.txt").unlink()
    root.rmdir()

    def gone(path: str) -> str:
        return (
            f"The workspace root {root} no longer exists (deleted or moved), so {path} cannot be served; ask the "
            "user to restore it or restart leanread with a root that exists."
        )

    answers = [
        session.write("new.txt", "y\n"),
        session.edit("a.txt", "x", "y"),
        session.read("a.txt"),
        session.ls(),
        session.grep("x"),
    ]
    assert [(a.is_error, a.text) for a in answers] == [
        (True, gone("new.txt")),
        (True, gone("a.txt")),
        (True, gone("a.txt")),
        (True, gone(".")),
        (True, gone(".")),
    ]
    assert not root.exists()


def test_a_missing_files_suggestions_are_made_only_when_its_message_is_read(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"out-{i}.txt").write_text("x\n")
    made: list[str] = []

    def message() -> str:
        made.append("made")
        return "File not found: out-9.txt. Did you mean out-0.txt?"

    missing = FileMissing(message)
    assert made == []  # write of a new file catches it without reading it
    assert str(missing) == str(missing) == "File not found: out-9.txt. Did you mean out-0.txt?"
    assert made == ["made"]
    with pytest.raises(FileMissing) as caught:
        Workspace([tmp_path]).resolve("out-9.txt")
    assert str(caught.value) == "File not found: out-9.txt. Did you mean out-2.txt, out-1.txt, out-0.txt?"


def test_what_the_deny_list_said_of_a_path_is_not_kept_past_a_new_policy(root: Path) -> None:
    (root / "notes.txt").write_text("n\n")
    workspace = Workspace([root])
    for _ in range(2):  # the second answer is the kept one
        assert not workspace.is_denied("notes.txt")
        assert workspace.resolve("notes.txt").display == "notes.txt"
    workspace.policy = Policy(deny=("notes.*",))
    assert workspace.is_denied("notes.txt")
    with pytest.raises(Denied):
        workspace.resolve("notes.txt")
