"""`ls`: a compact tree from the real `rg --files`, with the noise left out; through MCP and the CLI."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from conftest import text_of
from mcp import Client

from leanread import Limits, MemoryLedger, Session
from leanread.mcp.server import build_server
from leanread.tools import description

T = TypeVar("T")

FILES = [
    "src/pkg/a.py",
    "src/pkg/b.py",
    "src/pkg/deep/c.py",
    "src/main.py",
    "docs/index.md",
    "README.md",
    "node_modules/x/index.js",
    "src/__pycache__/a.cpython-311.pyc",
    ".venv/pyvenv.cfg",
    ".venv/lib/site.py",
    "env2/pyvenv.cfg",
    "env2/bin/activate",
    "build/out.txt",
    ".github/workflows/ci.yml",
    ".env",
    "secrets/.env.local",
    "app.log",
    ".git/config",
]


@pytest.fixture
def repo(root: Path) -> Path:
    for name in FILES:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "empty").mkdir()
    return root


def _tree(body: list[str], footer: str = "", where: str = ".") -> str:
    """An ls result: ``where:``, the rows, then a blank line and the note (none when ``footer`` is
    empty); only the note when there is no row."""
    if not body:
        return footer
    return "\n".join([f"{where}:", *body, *(["", footer] if footer else [])])


#: The note of a listing of the repo's root: what its .gitignore and the deny list left out.
LEFT_OUT = (
    "(Not listed: app.log, build/, left out by .gitignore (include_ignored=true lists them); 2 files on the deny list.)"
)


def test_default_tree_leaves_out_the_noise(session: Session, repo: Path) -> None:
    result = session.ls()
    assert result.text == _tree(
        [
            ".github/workflows/",
            "  ci.yml",
            "docs/",
            "  index.md",
            "src/",
            "  pkg/ (3 files)",
            "  main.py",
            ".gitignore",
            "README.md",
        ],
        LEFT_OUT,
    )
    meta = result.metadata
    assert (meta["folders"], meta["files"], meta["collapsed"], meta["truncated"], meta["depth"]) == (6, 8, 1, None, 2)


def test_depth_one_and_a_deep_subfolder(session: Session, repo: Path) -> None:
    assert session.ls(depth=1).text == _tree(
        [".github/workflows/", "docs/", "src/", ".gitignore", "README.md"], LEFT_OUT
    )
    assert session.ls("src", depth=5).text == _tree(
        ["pkg/", "  deep/", "    c.py", "  a.py", "  b.py", "main.py"], "", where="src"
    )


def test_entry_cap_collapses_folders_level_by_level(session: Session, repo: Path) -> None:
    assert session.ls(depth=3, max_entries=8).text == _tree(
        [".github/workflows/", "  ci.yml", "docs/", "  index.md", "src/ (4 files)", ".gitignore", "README.md"],
        "(A folder shown with a file count is collapsed to keep the listing to 8 entries: ls it, or pass a larger "
        f"max_entries.)\n{LEFT_OUT}",
    )
    (repo / "docs" / "api").mkdir()
    (repo / "docs" / "api" / "ref.md").write_text("x\n")
    assert session.ls(depth=2, max_entries=8).text == _tree(
        [
            ".github/workflows/",
            "  ci.yml",
            "docs/",
            "  api/ (1 file)",
            "  index.md",
            "src/ (4 files)",
            ".gitignore",
            "README.md",
        ],
        "(A folder shown with a file count is collapsed, by the depth or to keep the listing to 8 entries: ls it, "
        f"or pass a larger depth or max_entries.)\n{LEFT_OUT}",
    )
    cut = session.ls(max_entries=4)
    assert cut.text == _tree(
        [".github/workflows/ (1 file)", "docs/ (2 files)", "src/ (4 files)", ".gitignore"],
        "(Showing 4 of 5 entries of .; 7 folders, 9 files below it. Read . for a paged listing of every entry, "
        f"ls a subfolder, or pass a larger max_entries.)\n{LEFT_OUT}",
    )
    assert cut.metadata["truncated"] == "limit"


def test_an_explicit_virtualenv_or_ignored_folder_is_listed(session: Session, repo: Path) -> None:
    assert session.ls(".venv").text == _tree(["lib/", "  site.py", "pyvenv.cfg"], "", ".venv")
    listed = session.ls("node_modules", depth=1).text
    assert listed == _tree(["x/"], "", "node_modules")


def test_refusals_and_empty_folders(session: Session, repo: Path) -> None:
    assert session.ls("README.md").text == "README.md is a file, not a folder; read it, or ls the folder it is in."
    assert session.ls(depth=0).text == "depth must be 1 or more (got 0); depth=1 lists the folder's own entries."
    assert session.ls(max_entries=0).text == "max_entries must be 1 or more (got 0)."
    assert session.ls("secrets").is_error is False
    assert session.ls("empty").text == _tree(
        [],
        "(No files in empty; .gitignored paths, .git, node_modules, __pycache__, virtualenvs and secrets on the "
        "deny list are left out.)",
        "empty",
    )
    assert session.ls(".env").text.startswith(".env is on leanread's deny list")
    assert session.ls("../").text.startswith("../ resolves outside the workspace (")


#: The note of a listing of the repo's root whose glob leaves out what .gitignore and the deny list
#: would have left out besides the build folder.
BUILD_LEFT_OUT = "(Not listed: build/, left out by .gitignore (include_ignored=true lists it).)"


def test_a_glob_lists_the_files_it_matches_at_any_depth(session: Session, repo: Path) -> None:
    # the virtualenv's site.py matches too, yet stays out: its pyvenv.cfg is found by looking, not listed
    assert session.ls(glob="*.py").text == _tree(
        ["src/", "  pkg/", "    deep/", "      c.py", "    a.py", "    b.py", "  main.py"], BUILD_LEFT_OUT
    )
    assert session.ls("src", glob="pkg/**").text == _tree(
        ["pkg/", "  deep/", "    c.py", "  a.py", "  b.py"], "", "src"
    )
    # what ignore files left out that the glob matches is said; secrets on the deny list are not
    assert session.ls(glob="!*.py", depth=1).text == _tree(
        [".github/workflows/", "docs/", ".gitignore", "README.md"],
        "(Not listed: app.log, build/, left out by .gitignore (include_ignored=true lists them).)",
    )
    assert session.ls(glob="*.rs").text == _tree(
        [],
        "(No files in . match *.rs; .gitignored paths, .git, node_modules, __pycache__, virtualenvs and secrets "
        f"on the deny list are left out.)\n{BUILD_LEFT_OUT}",
    )
    assert session.ls(glob="[").text == (
        "glob '[' is not a valid glob (unclosed character class; missing ']'); use a pattern such as *.py or "
        "src/**/*.ts."
    )


def test_a_glob_lists_regular_files_only_and_only_narrows(session: Session, linked: Path) -> None:
    assert session.ls(glob="*.md").text == _tree(["AGENTS.md"])  # ripgrep's glob picks files, not links
    assert session.ls(glob="./packages/**").text == _tree(["packages/app/", "  main.ts"])
    (linked / ".gitignore").write_text("ignored.md\n")
    (linked / "ignored.md").write_text("x\n")
    (linked / "node_modules" / "pkg").mkdir(parents=True)
    (linked / "node_modules" / "pkg" / "index.md").write_text("x\n")
    left_out = "(Not listed: ignored.md, left out by .gitignore (include_ignored=true lists it).)"
    assert session.ls(glob="*.md").text == _tree(["AGENTS.md"], left_out)  # the glob does not override ignores
    everything = session.ls(glob="*").text.split("\n")
    assert not [row for row in everything if "node_modules" in row or ".git/" in row or "ignored.md" in row[:12]]


def test_a_capped_glob_listing_says_how_to_see_more(session: Session, root: Path) -> None:
    for n in range(120):
        (root / f"d{n:03}").mkdir()
        (root / f"d{n:03}" / "test_x.py").write_text("x\n")
    assert session.ls(glob="test_*.py").text.endswith(
        "(Showing 100 of 120 entries of .; 120 folders, 120 files below it. Pass a larger max_entries, or narrow "
        "the glob or the path.)"
    )
    assert len(session.ls(glob="test_*.py", max_entries=500).text.split("\n")) == 1 + 240


@pytest.mark.anyio
async def test_ls_over_mcp(repo: Path) -> None:
    async with Client(build_server([repo], ledger=MemoryLedger())) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        listed = await client.call_tool("ls", {"path": "src", "depth": 1})
        bad = await client.call_tool("ls", {"depth": 1.5})
    ls = tools["ls"]
    assert ls.description == description("ls", Limits(), depth=2, max_entries=100)
    assert list(ls.input_schema["properties"]) == ["path", "depth", "glob"]
    assert "required" not in ls.input_schema
    assert ls.annotations is not None and ls.annotations.read_only_hint is True
    assert text_of(listed) == _tree(["pkg/", "main.py"], "", "src")
    assert listed.meta["leanread"]["files"] == 4
    assert (
        text_of(bad) == "Invalid arguments for ls: depth must be a whole number (got 1.5); see the tool's input schema."
    )


def test_ls_cli(repo: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "ls", "src", "--depth", "1", "--root", str(repo)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == _tree(["pkg/", "main.py"], "", "src") + "\n"


@pytest.fixture
def linked(root: Path) -> Path:
    """A monorepo with links: a file link, a folder link, a dangling one, one out of the
    workspace, a loop, a link to a secret, and names no row may be split or coloured by."""
    (root / "AGENTS.md").write_text("rules\n")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    (root / "libs" / "shared").mkdir(parents=True)
    (root / "libs" / "shared" / "util.ts").write_text("x\n")
    (root / "packages" / "app").mkdir(parents=True)
    (root / "packages" / "app" / "main.ts").write_text("x\n")
    (root / "packages" / "app" / "shared").symlink_to("../../libs/shared")
    (root / "gone").symlink_to("old.txt")
    (root / "outside").symlink_to(root.parent)
    (root / "loop").symlink_to("loop")
    (root / ".env").write_text("SECRET=1\n")
    (root / "config.txt").symlink_to(".env")
    os.makedirs(root / "bin")
    (root / "bin" / "tool\nname\t\x1b[31m.sh").write_text("x\n")
    (root / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"x\n")
    return root


def test_links_are_listed_with_their_targets_and_names_never_split_a_row(session: Session, linked: Path) -> None:
    result = session.ls(depth=3)
    assert result.text == _tree(
        [
            "bin/",
            "  tool\\x0aname\\x09\\x1b[31m.sh",
            "libs/shared/",
            "  util.ts",
            "packages/app/",
            "  main.ts",
            "  shared -> libs/shared/",
            "AGENTS.md",
            "CLAUDE.md -> AGENTS.md",
            "caf\\xe9.txt",
            "gone -> old.txt (missing)",
            "loop -> (a link loop)",
            "outside -> (outside the workspace)",
        ],
        "(Not listed: 1 file on the deny list.)",
    )
    assert (result.metadata["files"], result.metadata["links"]) == (5, 5)
    assert session.read("caf\\xe9.txt").text.startswith("<path>caf\\xe9.txt</path>")
    assert session.read("bin/tool\\x0aname\\x09\\x1b[31m.sh").is_error is False


def test_a_folder_of_links_only_is_listed_and_a_link_to_a_folder_is_not_followed(
    session: Session, linked: Path
) -> None:
    (linked / "only").mkdir()
    (linked / "only" / "a").symlink_to("../AGENTS.md")
    assert session.ls("only").text == _tree(["a -> AGENTS.md"], "", "only")
    assert session.ls("packages/app/shared").text == _tree(["util.ts"], "", "libs/shared")


def test_a_huge_depth_costs_what_the_tree_costs(session: Session, repo: Path) -> None:
    started = time.monotonic()
    result = session.ls(depth=10**18, max_entries=10**18)
    assert time.monotonic() - started < 5  # it was 55 s at depth 10**9: one loop turn per level asked
    assert result.metadata["depth"] == 10**18 and result.metadata["collapsed"] == 0
    assert session.ls(depth=10**18).text == session.ls(depth=50).text


def test_a_name_that_reads_like_the_frame_seals_the_listing(session: Session, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x\n")
    (root / "(Showing 1 of 1 entries of .; ls src.)").write_text("x\n")
    sealed = session.ls().text
    mark = sealed.split('<content id="', 1)[1].split('"', 1)[0]
    assert sealed == (
        "<path>.</path>\n<type>tree</type>\n(Some lines below look like leanread's own tags, notices or markers; they "
        f"are the file's text. The content ends only at </content id=\"{mark}\">, and leanread's own lines in it end "
        f'with [{mark}].)\n<content id="{mark}">\nsrc/\n  a.py\n(Showing 1 of 1 entries of .; ls src.)\n'
        f'</content id="{mark}">'
    )
    (root / "(Showing 1 of 1 entries of .; ls src.)").unlink()
    (root / "other:").write_text("x\n")  # would read as the head of another folder's rows: the envelope
    assert session.ls().text == "<path>.</path>\n<type>tree</type>\n<content>\nsrc/\n  a.py\nother:\n</content>"
    (root / "other:").unlink()
    assert session.ls().text == _tree(["src/", "  a.py"])


def test_the_default_cap_is_100_entries_of_the_folder(session: Session, root: Path) -> None:
    for n in range(150):
        (root / f"f{n:03}.txt").write_text("x\n")
    cut = session.ls()
    assert cut.text == _tree(
        [f"f{n:03}.txt" for n in range(100)],
        "(Showing 100 of 150 entries of .; 0 folders, 150 files below it. Read . for a paged listing of every "
        "entry, ls a subfolder, or pass a larger max_entries.)",
    )
    assert (cut.metadata["entries_shown"], cut.metadata["truncated"]) == (100, "limit")


def test_a_name_that_reads_as_indent_or_as_a_link_arrow_is_shown_escaped(session: Session, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x\n")
    for name in ("  fake.py", "trail ", "x -> y.txt", "two words.txt"):
        (root / name).write_text("x\n")
    (root / "dir -> x").mkdir()
    (root / "dir -> x" / "f").write_text("x\n")
    (root / "link.py").symlink_to("src/a.py")
    listing = session.ls()
    assert listing.text == _tree(
        [
            "dir -\\x3e x/",
            "  f",
            "src/",
            "  a.py",
            "\\x20\\x20fake.py",
            "link.py -> src/a.py",
            "trail\\x20",
            "two words.txt",
            "x -\\x3e y.txt",
        ]
    )
    assert session.read("\\x20\\x20fake.py").text.startswith("<path>\\x20\\x20fake.py</path>\n")
    assert session.ls("dir -\\x3e x").text == _tree(["f"], where="dir -\\x3e x")


def test_a_chain_deeper_than_the_cap_says_the_cap_not_the_depth_collapsed_it(session: Session, root: Path) -> None:
    deep = root.joinpath(*["d"] * 3)
    deep.mkdir(parents=True)
    for level in range(1, 4):
        (root.joinpath(*["d"] * level) / "f.txt").write_text("x\n")
    assert session.ls(depth=100, max_entries=3).text == _tree(
        ["d/", "  d/ (2 files)", "  f.txt"],
        "(A folder shown with a file count is collapsed to keep the listing to 3 entries: ls it, or pass a larger "
        "max_entries.)",
    )
    assert session.ls(depth=100, max_entries=6).text == _tree(
        ["d/", "  d/", "    d/", "      f.txt", "    f.txt", "  f.txt"]
    )


def test_a_chain_of_lone_folders_is_one_row_and_one_level(session: Session, root: Path) -> None:
    for name in (
        "src/main/java/com/example/app/App.java",
        "src/main/java/com/example/app/util/Strings.java",
        "src/test/java/com/example/app/AppTest.java",
        "pom.xml",
    ):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    assert session.ls().text == _tree(
        ["src/", "  main/java/com/example/app/ (2 files)", "  test/java/com/example/app/ (1 file)", "pom.xml"]
    )
    assert session.ls("src/main", depth=2).text == _tree(
        ["java/com/example/app/", "  util/ (1 file)", "  App.java"], where="src/main"
    )
    assert session.ls("src/test/java/com/example", depth=1).text == _tree(["app/"], where="src/test/java/com/example")
    listing = session.ls(depth=1)
    assert listing.text == _tree(["src/", "pom.xml"])
    assert (listing.metadata["folders"], listing.metadata["files"]) == (12, 4)


def test_a_link_or_a_file_beside_a_folder_ends_its_chain(session: Session, root: Path) -> None:
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "a" / "b" / "c" / "x.txt").write_text("x\n")
    (root / "a" / "b" / "note.md").symlink_to("c/x.txt")
    (root / "d" / "e" / "f").mkdir(parents=True)
    (root / "d" / "e" / "f" / "y.txt").write_text("x\n")
    (root / "d" / "e" / "z.txt").write_text("x\n")
    (root / "g" / "h").mkdir(parents=True)
    (root / "g" / "h" / "w.txt").write_text("x\n")
    (root / "g" / "skipped.log").write_text("x\n")  # left out by .gitignore: not beside h in the tree
    (root / ".gitignore").write_text("*.log\n")
    assert session.ls(depth=3).text == _tree(
        [
            "a/b/",
            "  c/",
            "    x.txt",
            "  note.md -> a/b/c/x.txt",
            "d/e/",
            "  f/",
            "    y.txt",
            "  z.txt",
            "g/h/",
            "  w.txt",
            ".gitignore",
        ],
        "(Not listed: g/skipped.log, left out by .gitignore (include_ignored=true lists it).)",
    )


def test_a_flat_listing_shows_folders_as_ls_does(session: Session, repo: Path) -> None:
    assert session.ls("src", depth=1).text == _tree(["pkg/", "main.py"], where="src")
    assert session.ls(depth=1, max_entries=2).text == _tree(
        [".github/workflows/", "docs/"],
        "(Showing 2 of 5 entries of .; 6 folders, 8 files below it. Read . for a paged listing of every entry, "
        f"ls a subfolder, or pass a larger max_entries.)\n{LEFT_OUT}",
    )
    assert session.ls("src", depth=2).text == _tree(
        ["pkg/", "  deep/ (1 file)", "  a.py", "  b.py", "main.py"], where="src"
    )


# --- FIFOs, sockets and devices ----------------------------------------------------------------

FIFO = " (a FIFO (named pipe); read does not open it)"
SOCKET = " (a socket; read does not open it)"
DEVICE = " (a character device; read does not open it)"


def _bounded(call: Callable[[], T], seconds: float = 20.0) -> T:
    """``call()`` on a thread; fails instead of hanging when it opens a FIFO (no writer: it blocks)."""
    box: list[T] = []
    thread = threading.Thread(target=lambda: box.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the tool opened a FIFO"
    return box[0]


@pytest.fixture
def specials(root: Path) -> Iterator[Path]:
    """A folder ``d`` of a file, a FIFO, a Unix socket, a link to a device outside the workspace,
    a link to the FIFO, and (as root) a character device of its own."""
    d = root / "d"
    d.mkdir()
    (d / "a.txt").write_text("x\n")
    os.mkfifo(d / "pipe")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(d / "sock"))
    (d / "zero_link").symlink_to("/dev/zero")
    (d / "to_pipe").symlink_to("pipe")
    if os.geteuid() == 0:
        os.mknod(d / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    yield root
    listener.close()


def _device(rows: list[str], indent: str = "") -> list[str]:
    """``rows`` with the device row in its place when the test could make one (as root)."""
    return sorted([*rows, f"{indent}null{DEVICE}"]) if os.geteuid() == 0 else rows


def test_fifos_sockets_and_devices_are_rows_that_say_read_does_not_open_them(session: Session, specials: Path) -> None:
    result = _bounded(lambda: session.ls("d"))
    rows = ["a.txt", f"pipe{FIFO}", f"sock{SOCKET}", f"to_pipe -> d/pipe{FIFO}", "zero_link -> (outside the workspace)"]
    assert result.text == _tree(_device(rows), where="d")
    counts = {key: result.metadata[key] for key in ("files", "links", "special_files", "entries_shown")}
    special = 3 if os.geteuid() == 0 else 2
    assert counts == {"files": 1, "links": 2, "special_files": special, "entries_shown": 3 + special}
    refused = "d/pipe is a FIFO (named pipe), not a regular file; leanread does not open it."
    assert session.read("d/pipe").text == refused


def test_a_whole_tree_and_a_cut_listing_count_them(session: Session, specials: Path) -> None:
    (specials / "b.txt").write_text("x\n")
    rows = ["  a.txt", f"  pipe{FIFO}", f"  sock{SOCKET}", f"  to_pipe -> d/pipe{FIFO}"]
    rows.append("  zero_link -> (outside the workspace)")
    assert _bounded(lambda: session.ls()).text == _tree(["d/", *_device(rows, "  "), "b.txt"])
    cut = _bounded(lambda: session.ls("d", max_entries=2))
    special = "3 special files" if os.geteuid() == 0 else "2 special files"
    assert cut.text == _tree(
        ["a.txt", "null" + DEVICE if os.geteuid() == 0 else f"pipe{FIFO}"],
        f"(Showing 2 of {5 + (os.geteuid() == 0)} entries of d; 0 folders, 1 file, 2 links, {special} below it. "
        "Read d for a paged listing of every entry, ls a subfolder, or pass a larger max_entries.)",
        "d",
    )


def test_a_folder_with_a_fifo_beside_its_one_subfolder_is_no_chain(session: Session, root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "x.txt").write_text("x\n")
    os.mkfifo(root / "a" / "run.fifo")
    assert _bounded(lambda: session.ls()).text == _tree(["a/", "  b/ (1 file)", f"  run.fifo{FIFO}"])


def test_a_device_reached_through_a_link_says_what_it_is(root: Path) -> None:
    (root / "zero").symlink_to("/dev/zero")
    (root / "a.txt").write_text("x\n")
    session = Session([root, "/dev"], ledger=MemoryLedger())
    listing = _bounded(lambda: session.ls(".")).text
    assert listing.split("\n")[:3] == [".:", "a.txt", f"zero -> /dev/zero{DEVICE}"]
    assert session.read("zero").text == "zero is a character device, not a regular file; leanread does not open it."


def test_a_special_file_on_the_deny_list_is_only_counted(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    os.mkfifo(root / ".env")
    assert _bounded(lambda: session.ls()).text == _tree(["a.txt"], "(Not listed: 1 file on the deny list.)")


def test_read_of_a_folder_says_which_entries_it_does_not_open(session: Session, specials: Path) -> None:
    names = ["a.txt", f"pipe{FIFO}", f"sock{SOCKET}", "to_pipe", "zero_link"]
    listed = _device(names)
    assert _bounded(lambda: session.read("d")).text == (
        "<path>d</path>\n<type>directory</type>\n<content>\n"
        + "".join(f"{name}\n" for name in listed)
        + f"\n(End of directory - total {len(listed)} entries; ls shows the tree below it)\n</content>"
    )


def test_a_name_that_reads_as_a_special_row_is_shown_escaped(session: Session, root: Path) -> None:
    (root / "x (a socket; read does not open it)").write_text("plain\n")
    os.mkfifo(root / "p")
    assert session.ls().text == _tree([f"p{FIFO}", "x \\x28a socket; read does not open it)"])
    assert session.read("x \\x28a socket; read does not open it)").text.startswith(
        "<path>x \\x28a socket; read does not open it)</path>\n"
    )
