"""The attack catalogue: paths an agent (or a file it read) might use to get out of the
workspace, hang a tool, or see a secret's bytes, each tried on a real file system against every
tool that takes a path (read, grep path=, ls, edit, write), with the exact refusal."""

from __future__ import annotations

import os
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from leanread import MemoryLedger, Session
from leanread.errors import PathChanged
from leanread.files.safeopen import make_folders
from leanread.files.workspace import Workspace, read_regular_file
from leanread.files.writeback import atomic_write
from leanread.result import ToolResult

Tool = Callable[[Session, str], ToolResult]
T = TypeVar("T")

TOOLS: dict[str, Tool] = {
    "read": lambda s, p: s.read(p),
    "grep": lambda s, p: s.grep("alpha", path=p),
    "ls": lambda s, p: s.ls(p),
    "edit": lambda s, p: s.edit(p, "alpha", "ALPHA"),
    "write": lambda s, p: s.write(p, "new\n"),
}

def denied(subject: str, pattern: str = ".env") -> str:
    return (
        f"{subject} on leanread's deny list (it matches {pattern}, a name kept for secrets); "
        "ask the user for the value you need instead."
    )


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """(workspace root, a folder outside it holding secret.txt); HOME is the outside folder."""
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("alpha outside secret\n")
    (root / "a.txt").write_text("alpha\n")
    (root / "sub" / "b.txt").write_text("alpha beta\n")
    monkeypatch.setenv("HOME", str(outside))
    yield root, outside


def session_for(root: Path) -> Session:
    return Session([root], ledger=MemoryLedger())


def outside_message(path: str, root: Path) -> str:
    return f"{path} resolves outside the workspace ({root}); use a path inside it."


def refused_by_every_tool(root: Path, path: str, expected: str) -> None:
    session = session_for(root)
    before = {p: p.read_bytes() for p in root.parent.rglob("*") if p.is_file() and not p.is_symlink()}
    for name, tool in TOOLS.items():
        result = tool(session, path)
        assert (name, result.is_error, result.text) == (name, True, expected)
    after = {p: p.read_bytes() for p in root.parent.rglob("*") if p.is_file() and not p.is_symlink()}
    assert after == before  # nothing was written anywhere


@pytest.mark.parametrize(
    "path",
    [
        "..",
        "../",
        "../outside/secret.txt",
        "./../outside/secret.txt",
        "sub/../../outside/secret.txt",
        "sub/../..",
        "sub/./../../outside",
        "a.txt/../../outside/secret.txt",
        "sub/" + "../" * 40 + "etc/passwd",
        "/etc/passwd",
        "/",
        "~",
        "~/secret.txt",
        "~root/.bashrc",
        "/proc/self/root/etc/passwd",
        "/proc/self/cwd/../secret.txt",
        "/proc/self/environ",
        "/proc/self/fd/0",
        "/dev/null",
        "/dev/zero",
    ],
)
def test_escapes_are_refused_by_every_tool(tree: tuple[Path, Path], path: str) -> None:
    root, _ = tree
    refused_by_every_tool(root, path, outside_message(path, root))


def test_absolute_paths_outside_are_refused_by_every_tool(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    for path in (str(outside / "secret.txt"), str(outside), f"{root}/../outside/secret.txt", f"{root}x/a.txt"):
        refused_by_every_tool(root, path, outside_message(path, root))


def test_dot_dot_that_stays_inside_is_served(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    result = session_for(root).read("sub/../sub/./b.txt")
    assert result.text == (
        "<path>sub/b.txt</path>\n<type>file</type>\n<content>\nalpha beta\n\n(End of file - total 1 line)\n</content>"
    )


def test_proc_self_root_to_a_file_inside_is_that_file(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    session = session_for(root)
    result = session.read(f"/proc/self/root{root}/a.txt")
    assert (
        result.text
        == "<path>a.txt</path>\n<type>file</type>\n<content>\nalpha\n\n(End of file - total 1 line)\n</content>"
    )
    (root / "proc").symlink_to("/proc/self/root")
    refused_by_every_tool(root, "proc/etc/passwd", outside_message("proc/etc/passwd", root))


@pytest.mark.parametrize("path", ["a\x00b", "\x00", "sub/\x00/b.txt", "\x00/../a.txt"])
def test_nul_bytes_are_refused_by_every_tool(tree: tuple[Path, Path], path: str) -> None:
    root, _ = tree
    refused_by_every_tool(root, path, "The path is empty or contains a NUL byte; pass a file path such as src/app.py.")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a" * 65536, "The path is 65536 bytes long, over the limit of 4096; pass a shorter path."),
        ("x/" * 30000, "The path is 60000 bytes long, over the limit of 4096; pass a shorter path."),
        ("é" * 2049, "The path is 4098 bytes long, over the limit of 4096; pass a shorter path."),
        (
            "sub/" + "n" * 300 + ".txt",
            "A name in the path is 304 bytes long, over the limit of 255 for one file or folder name; fix the path.",
        ),
    ],
)
def test_overlong_paths_are_refused_without_being_echoed(tree: tuple[Path, Path], path: str, expected: str) -> None:
    root, _ = tree
    refused_by_every_tool(root, path, expected)


def test_symlink_loops_are_refused_by_every_tool(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    (root / "self").symlink_to("self")
    (root / "sub" / "up").symlink_to("..")  # a loop through folders is only a cycle, never followed by walks
    for path in ("loop1", "loop2/x.txt", "self", "self/a.txt"):
        refused_by_every_tool(root, path, f"{path} is a symbolic-link loop; read the file it was meant to point to.")
    assert session_for(root).ls(".").text == (  # links are listed, never followed
        ".:\nsub/\n  b.txt\n  up -> ./\na.txt\nloop1 -> (a link loop)\nloop2 -> (a link loop)\nself -> (a link loop)"
    )


def test_a_long_symlink_chain_inside_is_followed_and_one_leading_out_is_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (root / "c0").symlink_to("a.txt")
    for i in range(1, 60):  # more links than the kernel follows in one open (40)
        (root / f"c{i}").symlink_to(f"c{i - 1}")
    session = session_for(root)
    assert session.read("c59").text == (
        "<path>a.txt</path>\n<type>file</type>\n<content>\nalpha\n\n(End of file - total 1 line)\n</content>"
    )
    (root / "o0").symlink_to(outside / "secret.txt")
    for i in range(1, 10):
        (root / f"o{i}").symlink_to(f"o{i - 1}")
    (root / "sub" / "out").symlink_to(outside)
    for path in ("o9", "sub/out/secret.txt", "sub/out"):
        refused_by_every_tool(root, path, outside_message(path, root))


# --- a parent folder swapped for a link between the check and the open ---------------------------


def swap_for_link(folder: Path, target: Path) -> None:
    """Replace ``folder`` by a symbolic link to ``target`` (a real rename and symlink)."""
    folder.rename(folder.with_name(folder.name + ".old"))
    folder.symlink_to(target, target_is_directory=True)


def test_read_refuses_a_parent_swapped_after_the_check(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (outside / "b.txt").write_text("outside bytes\n")
    resolved = Workspace([root]).resolve("sub/b.txt")
    swap_for_link(root / "sub", outside)
    with pytest.raises(PathChanged) as info:
        read_regular_file(resolved)
    assert str(info.value) == (
        "sub/b.txt changed while leanread was opening it (it or a folder on its path was replaced), "
        "so it was not read; read it again."
    )


def test_read_refuses_the_file_swapped_for_a_link_or_another_file(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    ws = Workspace([root])
    resolved = ws.resolve("a.txt")
    os.link(root / "a.txt", root / "held.txt")  # the checked file lives on: its inode number is not reused
    (root / "a.txt").unlink()
    (root / "a.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(PathChanged):
        read_regular_file(resolved)
    (root / "a.txt").unlink()
    (root / "a.txt").write_text("another file\n")
    with pytest.raises(PathChanged):
        read_regular_file(resolved)
    assert read_regular_file(ws.resolve("a.txt")) == b"another file\n"


def after_resolve(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None], on_call: int = 1) -> None:
    """Run ``action`` (a real file-system change) right after the ``on_call``-th ``resolve``
    returns or raises: the moment between a tool's check of a path and its open."""
    original = Workspace.resolve
    calls = [0]

    def resolve_then_act(self: Workspace, path: str) -> object:
        try:
            return original(self, path)
        finally:  # also after a refusal: a new file's path is resolved by catching FileMissing
            calls[0] += 1
            if calls[0] == on_call:
                action()

    monkeypatch.setattr(Workspace, "resolve", resolve_then_act)


@pytest.mark.parametrize("tool", ["read", "edit"])
def test_tools_refuse_a_parent_swapped_after_the_check(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    root, outside = tree
    (outside / "b.txt").write_text("alpha outside bytes\n")
    session = session_for(root)
    if tool == "edit":
        session.read("sub/b.txt")
    after_resolve(monkeypatch, lambda: swap_for_link(root / "sub", outside))
    result = TOOLS[tool](session, "sub/b.txt")
    swapped = {  # edit looks at the path again under the file's lock, and finds it leads outside now
        "read": "sub/b.txt changed while leanread was opening it (it or a folder on its path was replaced), "
        "so it was not read; read it again.",
        "edit": f"sub/b.txt resolves outside the workspace ({root}); use a path inside it.",
    }
    assert (result.is_error, result.text) == (True, swapped[tool])
    assert (outside / "b.txt").read_text() == "alpha outside bytes\n"
    assert (root / "sub.old" / "b.txt").read_text() == "alpha beta\n"


@pytest.mark.parametrize("path", ["sub/b.txt", "sub"])
def test_grep_never_shows_bytes_reached_through_a_parent_swapped_after_the_check(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """ripgrep opens files itself and may follow the swapped link; leanread then reads each file
    it reports without following links, so the outside bytes are left out, never shown."""
    root, outside = tree
    (outside / "b.txt").write_text("alpha outside bytes\n")
    session = session_for(root)
    after_resolve(monkeypatch, lambda: swap_for_link(root / "sub", outside))
    result = session.grep("alpha", path=path)
    assert "(sub/b.txt changed during the search and was left out; search again.)" in result.text
    assert "outside" not in result.text


def test_write_refuses_a_parent_swapped_after_the_check(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = tree
    session = session_for(root)
    after_resolve(monkeypatch, lambda: swap_for_link(root / "sub", outside), on_call=2)
    result = session.write("sub/new.txt", "planted\n")  # the second look at the path sees the link
    assert (result.is_error, result.text) == (True, "sub/new.txt resolves outside the workspace; write inside it.")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_atomic_write_refuses_a_parent_swapped_for_a_link(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    real = os.path.realpath(root / "sub" / "b.txt")
    swap_for_link(root / "sub", outside)
    with pytest.raises(PathChanged):
        atomic_write(real, b"planted\n", display="sub/b.txt")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    (root / "sub").unlink()
    (root / "sub").symlink_to("sub.old")  # even a link that stays inside is not followed: it was checked as a folder
    with pytest.raises(PathChanged):
        atomic_write(real, b"planted\n", display="sub/b.txt")
    assert (root / "sub.old" / "b.txt").read_text() == "alpha beta\n"


def test_write_does_not_create_folders_through_a_swapped_link(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = tree
    session = session_for(root)
    after_resolve(monkeypatch, lambda: swap_for_link(root / "sub", outside), on_call=2)
    result = session.write("sub/deep/new.txt", "planted\n")
    assert (result.is_error, result.text) == (True, "sub/deep/new.txt resolves outside the workspace; write inside it.")
    real = os.path.join(os.path.realpath(root), "sub", "deep")
    with pytest.raises(PathChanged) as info:  # the last moment: between that look and the mkdir
        make_folders(real, "sub/deep/new.txt")
    assert str(info.value) == (
        "sub/deep/new.txt changed while leanread was opening it (it or a folder on its path was replaced), "
        "so nothing was written; read it again and retry."
    )
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


# --- hard links -------------------------------------------------------------------------------------


def test_hard_link_to_a_file_outside_is_a_file_inside(tree: tuple[Path, Path]) -> None:
    """Decision: a hard link is a real file inside the root, served like any other (its other
    names cannot be found cheaply); a write replaces the name inside only."""
    root, outside = tree
    os.link(outside / "secret.txt", root / "hard.txt")
    session = session_for(root)
    assert session.read("hard.txt").text == (
        "<path>hard.txt</path>\n<type>file</type>\n<content>\nalpha outside secret\n\n"
        "(End of file - total 1 line)\n</content>"
    )
    assert session.edit("hard.txt", "alpha", "ALPHA").is_error is False
    assert (root / "hard.txt").read_text() == "ALPHA outside secret\n"
    assert (outside / "secret.txt").read_text() == "alpha outside secret\n"  # the rename left the other name alone
    assert (root / "hard.txt").stat().st_nlink == 1


def test_the_deny_list_cannot_be_bypassed_by_a_hard_link_name(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    os.link(outside / "secret.txt", root / ".env")
    refused_by_every_tool(root, ".env", denied(".env is"))
    session = session_for(root)
    assert "outside secret" not in session.grep("outside").text
    assert ".env" not in session.ls(".").text


# --- FIFOs, sockets and devices in folders that grep and ls walk ---------------------------------


def bounded(call: Callable[[], T], seconds: float = 20.0) -> T:
    """``call()`` on a thread; fails the test instead of hanging when it does not return in time."""
    box: list[T] = []
    thread = threading.Thread(target=lambda: box.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the tool blocked on a special file"
    return box[0]


@pytest.fixture
def specials(tree: tuple[Path, Path]) -> Iterator[Path]:
    root, _ = tree
    sub = root / "sub"
    os.mkfifo(sub / "fifo")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sub / "sock"))
    (sub / "zlink").symlink_to("/dev/zero")
    (sub / "flink").symlink_to("fifo")
    if os.geteuid() == 0:
        os.mknod(sub / "zero", 0o666 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
    yield root
    listener.close()


def test_grep_and_ls_walk_past_fifos_sockets_and_devices(specials: Path) -> None:
    session = session_for(specials)
    grep = bounded(lambda: session.grep("alpha"))
    assert grep.text == (
        "a.txt\n1\talpha\nsub/b.txt\n1\talpha beta"
    )
    in_sub = bounded(lambda: session.grep(".", path="sub", glob="*"))
    assert in_sub.text == (
        "sub/b.txt\n1\talpha beta"
    )
    ls = bounded(lambda: session.ls("."))
    fifo = " (a FIFO (named pipe); read does not open it)"
    device = ["  zero (a character device; read does not open it)"] if os.geteuid() == 0 else []
    rows = ["  b.txt", f"  fifo{fifo}", f"  flink -> sub/fifo{fifo}", "  sock (a socket; read does not open it)"]
    assert ls.text == "\n".join([".:", "sub/", *rows, *device, "  zlink -> (outside the workspace)", "a.txt"])


def test_special_files_are_refused_by_every_tool_without_opening_them(specials: Path) -> None:
    cases = [("sub/fifo", "a FIFO (named pipe)"), ("sub/flink", "a FIFO (named pipe)"), ("sub/sock", "a socket")]
    if os.geteuid() == 0:
        cases.append(("sub/zero", "a character device"))
    for path, kind in cases:
        expected = f"{path} is {kind}, not a regular file; leanread does not open it."
        bounded(lambda p=path, e=expected: refused_by_every_tool(specials, p, e))
    refused_by_every_tool(specials, "sub/zlink", outside_message("sub/zlink", specials))


def test_a_fifo_swapped_in_after_the_check_does_not_block(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = tree

    def swap() -> None:
        (root / "a.txt").unlink()
        os.mkfifo(root / "a.txt")

    session = session_for(root)
    after_resolve(monkeypatch, swap)
    result = bounded(lambda: session.read("a.txt"))
    assert (result.is_error, result.text) == (True, "a.txt is no longer a regular file; read it again once it is.")


# --- the deny list on every tool: no grep, outline, ls, match id or diff shows a secret's bytes ----


SECRET = "hunter2"


@pytest.fixture
def secrets(tree: tuple[Path, Path]) -> Path:
    root, _ = tree
    (root / ".env").write_text(f"alpha={SECRET}\n")
    (root / "sub" / ".env.local").write_text(f"alpha={SECRET}\n")
    (root / "key.pem").write_text("".join(f"def alpha_{i}(): return '{SECRET}'\n" for i in range(400)))
    (root / "certs.key").mkdir()
    (root / "certs.key" / "inner.txt").write_text(f"alpha {SECRET}\n")
    (root / "notes.txt").symlink_to(".env")
    (root / "keys").symlink_to("certs.key")
    return root


def test_no_tool_shows_a_denied_file(secrets: Path) -> None:
    root = secrets
    refused_by_every_tool(root, ".env", denied(".env is"))
    refused_by_every_tool(root, "sub/.env.local", denied("sub/.env.local is", ".env.*"))
    refused_by_every_tool(root, "key.pem", denied("key.pem is", "*.pem"))  # the outline of a big file too
    refused_by_every_tool(root, "notes.txt", denied("notes.txt resolves to .env, which is"))
    inside_key = denied("certs.key/inner.txt is inside certs.key, which is", "*.key")
    refused_by_every_tool(root, "certs.key/inner.txt", inside_key)
    refused_by_every_tool(root, "keys/inner.txt", denied("keys/inner.txt is inside certs.key, which is", "*.key"))
    session = session_for(root)
    texts = [
        session.grep(SECRET).text,
        session.grep(SECRET, glob="*").text,
        session.grep(SECRET, path="sub").text,
        session.grep("alpha", context=5).text,
        session.ls(".").text,
        session.ls(".", depth=5).text,
    ]
    assert all(SECRET not in text for text in texts)
    assert session.grep(SECRET).text == (
        "(Not searched: 3 files and 1 folder on the deny list.)\n"
        "(No matches in the workspace; gitignored, binary and deny-listed files are not searched.)"
    )


def test_a_match_id_or_diff_never_shows_a_file_that_became_a_secret(secrets: Path) -> None:
    root = secrets
    session = session_for(root)
    assert session.grep("alpha", path="a.txt").text == "a.txt\n1\talpha"
    assert session.read("a.txt").is_error is False
    (root / "a.txt").unlink()
    (root / "a.txt").symlink_to(".env")  # same name, now the secret: no match window, no diff
    by_id = session.read(match_id="m1")
    again = session.read("a.txt")
    assert (by_id.is_error, again.is_error) == (True, True)
    assert SECRET not in by_id.text + again.text
    assert again.text == denied("a.txt resolves to .env, which is")


@pytest.mark.parametrize(("name", "pattern"), [(".netrc", ".netrc"), ("id_ecdsa", "id_ecdsa*")])
def test_credential_files_are_denied_by_every_tool(tree: tuple[Path, Path], name: str, pattern: str) -> None:
    root, _ = tree
    (root / name).write_text(f"alpha {SECRET}\n")
    refused_by_every_tool(root, name, denied(f"{name} is", pattern))


def test_a_file_with_a_few_nul_bytes_is_searched(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    (root / "nul.txt").write_bytes(b"alpha\x00one\nalpha two\n")
    assert "nul.txt" in session_for(root).grep("alpha two").text


# --- over MCP, with the SDK client against the real server ---------------------------------------


def test_refusals_over_mcp(tree: tuple[Path, Path]) -> None:
    import anyio
    from mcp import Client

    from leanread.mcp.server import build_server

    root, outside = tree
    (root / ".env").write_text(f"alpha={SECRET}\n")
    (root / "out").symlink_to(outside)
    (root / "loop").symlink_to("loop")
    os.mkfifo(root / "sub" / "fifo")
    calls = [
        ("read", {"path": "../outside/secret.txt"}, outside_message("../outside/secret.txt", root)),
        ("grep", {"pattern": "alpha", "path": "out"}, outside_message("out", root)),
        ("ls", {"path": "/proc/self/root/etc"}, outside_message("/proc/self/root/etc", root)),
        ("edit", {"path": ".env", "old_string": "alpha", "new_string": "x"}, denied(".env is")),
        (
            "write",
            {"path": "loop", "content": "x"},
            "loop is a symbolic-link loop; read the file it was meant to point to.",
        ),
        ("read", {"path": "a" * 65536}, "The path is 65536 bytes long, over the limit of 4096; pass a shorter path."),
        (
            "read",
            {"path": "sub/fifo"},
            "sub/fifo is a FIFO (named pipe), not a regular file; leanread does not open it.",
        ),
    ]

    async def run() -> list[tuple[bool, str]]:
        async with Client(build_server([root])) as client:
            results = [await client.call_tool(name, arguments) for name, arguments, _ in calls]
            grep = await client.call_tool("grep", {"pattern": SECRET})
        texts = [(bool(r.is_error), "".join(getattr(b, "text", "") for b in r.content)) for r in results]
        return [*texts, (bool(grep.is_error), "".join(getattr(b, "text", "") for b in grep.content))]

    answers = anyio.run(run)
    assert answers[:-1] == [(True, expected) for _, _, expected in calls]
    assert SECRET not in answers[-1][1]
