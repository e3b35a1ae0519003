"""Nothing skipped in silence: what ignore files and the deny list leave out of grep and ls is said
(and can be included), files read decodes are searched decoded, and a glob or type that selects no
file says so. Real folders, the real ripgrep, exact outputs."""

from __future__ import annotations

import os
import random
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread import Limits, MemoryLedger, Session
from leanread.bench.documents import png_bytes
from leanread.tools.grep.selection import nearest
from leanread.tools.leftout import LeftOut, left_out_note
from leanread.view.counts import plural

NO_MATCH = "gitignored, binary and deny-listed files are not searched.)"


def _generated(root: Path) -> None:
    """A folder whose Python files a .gitignore rule leaves out, beside a file it keeps."""
    (root / ".gitignore").write_text("generated/*.py\n")
    (root / "generated").mkdir()
    (root / "generated" / "client.py").write_text("def fetch_token():\n    return TOKEN\n")
    (root / "generated" / "notes.txt").write_text("regenerate with make\n")
    (root / "app.py").write_text("import generated\n")


# --- a folder the model names ------------------------------------------------------------------


def test_a_named_folder_says_what_its_gitignore_left_out(session: Session, root: Path) -> None:
    _generated(root)
    assert session.grep("fetch_token", path="generated").text == (
        "(Not searched: generated/client.py, left out by .gitignore (include_ignored=true searches it).)\n"
        f"(No matches in generated; {NO_MATCH}"
    )
    assert session.ls("generated").text == (
        "generated:\nnotes.txt\n\n"
        "(Not listed: generated/client.py, left out by .gitignore (include_ignored=true lists it).)"
    )
    found = session.grep("fetch_token", path="generated", include_ignored=True)
    assert found.text == "generated/client.py\n1\tdef fetch_token():"
    assert session.ls("generated", include_ignored=True).text == "generated:\nclient.py\nnotes.txt"
    named = session.grep("fetch_token", path="generated/client.py")  # a file named is searched, as ripgrep does
    assert named.text == "generated/client.py\n1\tdef fetch_token():"


def test_a_named_file_without_a_match_gives_no_reason_of_a_folders_search(session: Session, root: Path) -> None:
    _generated(root)  # a file named is searched even when gitignored or binary; a deny-listed one is refused
    (root / "logo.png").write_bytes(png_bytes(8, 8, "navy"))
    assert session.grep("absent", path="generated/client.py").text == "(No matches in generated/client.py.)"
    assert session.grep("absent", path="app.py").text == "(No matches in app.py.)"
    assert session.grep("absent", path="app.py", glob="*.py").text == "(No matches in app.py.)"
    assert session.grep("absent", path="app.py", include_ignored=True).text == "(No matches in app.py.)"
    assert session.grep("IHDR", path="logo.png").text == "(1 binary file skipped: logo.png.)\n(No matches in logo.png.)"
    assert session.grep("absent", path="generated").text.endswith(f"(No matches in generated; {NO_MATCH}")


def test_read_ls_and_grep_agree_on_what_a_folder_holds(session: Session, root: Path) -> None:
    _generated(root)
    (root / "generated" / ".env").write_text("TOKEN=fetch_token\n")
    listed = session.read("generated").text.split("\n")[3:-3]
    assert listed == [".env", "client.py", "notes.txt"]
    tree = session.ls("generated", include_ignored=True).text.split("\n")
    assert tree == ["generated:", "client.py", "notes.txt", "", "(Not listed: 1 file on the deny list.)"]
    plain = session.ls("generated").text.split("\n")
    assert plain[-1] == (
        "(Not listed: generated/client.py, left out by .gitignore (include_ignored=true lists it); 1 file on the "
        "deny list.)"
    )


def test_each_kind_of_ignore_file_is_named(session: Session, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("needle = 1\n")
    (root / "src" / ".ignore").write_text("*.log\n")
    (root / "src" / "run.log").write_text("needle in a log\n")
    (root / ".rgignore").write_text("fixtures/\n")
    (root / "fixtures").mkdir()
    (root / "fixtures" / "big.json").write_text('{"needle": 1}\n')
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".git" / "info" / "exclude").write_text("scratch.txt\n")
    (root / "scratch.txt").write_text("needle\n")
    result = session.grep("needle")
    assert result.text == (
        "src/main.py\n1\tneedle = 1\n\n"
        "(Not searched: fixtures/, scratch.txt, src/run.log, left out by .git/info/exclude, .ignore and .rgignore "
        "(include_ignored=true searches them).)"
    )
    again = session.grep("needle", include_ignored=True)
    assert [m["path"] for m in again.metadata["matches"]] == [
        "fixtures/big.json",
        "scratch.txt",
        "src/main.py",
        "src/run.log",
    ]


def test_a_folder_ignoring_all_it_holds_is_named_once(session: Session, root: Path) -> None:
    (root / "main.py").write_text("needle\n")
    cache = root / ".tool-cache"
    (cache / "v1").mkdir(parents=True)
    (cache / ".gitignore").write_text("*\n")
    (cache / "v1" / "a.txt").write_text("needle\n")
    (cache / "b.txt").write_text("needle\n")
    assert session.grep("needle").text == (
        "main.py\n1\tneedle\n\n(Not searched: .tool-cache/, left out by .gitignore (include_ignored=true searches it).)"
    )


# --- a whole tree ------------------------------------------------------------------------------


def test_a_whole_tree_counts_past_the_names_it_shows(session: Session, root: Path) -> None:
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    for i in range(7):
        (root / f"run{i}.log").write_text("needle\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("needle\n")
    (root / "main.py").write_text("needle\n")
    (root / ".env").write_text("needle\n")
    (root / ".aws").mkdir()
    (root / ".aws" / "credentials").write_text("needle\n")
    assert session.grep("needle").text == (
        "main.py\n1\tneedle\n\n"
        "(Not searched: build/, run0.log, run1.log, run2.log, run3.log and 3 more, left out by .gitignore "
        "(include_ignored=true searches them); 1 file and 1 folder on the deny list.)"
    )
    assert session.ls().text == (
        ".:\n.gitignore\nmain.py\n\n"
        "(Not listed: build/, run0.log, run1.log, run2.log, run3.log and 3 more, left out by .gitignore "
        "(include_ignored=true lists them); 1 file and 1 folder on the deny list.)"
    )
    deny_only = session.grep("needle", include_ignored=True)
    assert deny_only.text.endswith("\n\n(Not searched: 1 file and 1 folder on the deny list.)")
    assert ".env" not in {m["path"] for m in deny_only.metadata["matches"]}


def test_a_type_counts_only_the_files_it_would_take(session: Session, root: Path) -> None:
    (root / ".gitignore").write_text("gen_*\n")
    (root / "gen_api.py").write_text("needle\n")
    (root / "gen_notes.txt").write_text("needle\n")
    (root / ".env").write_text("needle\n")
    (root / "app.py").write_text("needle\n")
    assert session.grep("needle", type="py").text == (
        "app.py\n1\tneedle\n\n(Not searched: gen_api.py, left out by .gitignore (include_ignored=true searches it).)"
    )


def test_files_only_and_binary_notes_keep_their_places(session: Session, root: Path) -> None:
    (root / ".gitignore").write_text("old/\n")
    (root / "old").mkdir()
    (root / "old" / "a.txt").write_text("needle\n")
    (root / "blob.bin").write_bytes(b"needle\x00\x01\x02")
    (root / "a.txt").write_text("needle\n")
    assert session.grep("needle", files_only=True).text == (
        "a.txt (1 match)\n\n(1 binary file skipped: blob.bin.)\n"
        "(Not searched: old/, left out by .gitignore (include_ignored=true searches it).)"
    )


NAMES = st.lists(st.from_regex(r"[a-z]{1,6}\.(py|txt|md)", fullmatch=True), min_size=1, max_size=6, unique=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=NAMES)
def test_nothing_left_out_adds_no_line(tmp_path_factory: pytest.TempPathFactory, names: list[str]) -> None:
    root = tmp_path_factory.mktemp("plain")
    for name in names:
        (root / name).write_text(f"needle in {name}\n")
    session = Session([root], ledger=MemoryLedger())
    rows = [row for name in sorted(names) for row in (name, f"1\tneedle in {name}")]
    assert session.grep("needle").text == "\n".join(rows)
    assert session.ls().text == "\n".join([".:", *sorted(names)])
    assert session.grep("absent").text == f"(No matches in the workspace; {NO_MATCH}"


# --- text in other encodings ---------------------------------------------------------------------


def _encoded(root: Path) -> None:
    (root / "gbk.txt").write_bytes("第一行\n第二行\n中文搜索 目标\n".encode("gbk"))
    (root / "cp1252.txt").write_bytes("first\nle café – naïve “quoted” €5\n".encode("cp1252"))
    (root / "sjis.txt").write_bytes("一行目\n表示 のテキスト\n".encode("shift_jis"))
    (root / "u16le.txt").write_bytes("alpha\nbeta\ngamma target\n".encode("utf-16-le"))
    (root / "u16be.txt").write_bytes("one\nbeta target two\n".encode("utf-16-be"))
    (root / "u32.txt").write_bytes("\ufeffzero\nthe target here\n".encode("utf-32"))


@pytest.mark.parametrize(
    ("pattern", "rows", "columns"),
    [
        ("目标", ["gbk.txt", "3\t中文搜索 目标"], [6]),
        ("café", ["cp1252.txt", "2\tle café – naïve “quoted” €5"], [4]),
        ("caf\\w –", ["cp1252.txt", "2\tle café – naïve “quoted” €5"], [4]),
        ("€\\d", ["cp1252.txt", "2\tle café – naïve “quoted” €5"], [26]),
        ("テキスト", ["sjis.txt", "2\t表示 のテキスト"], [5]),
        ("target", ["u16be.txt", "2\tbeta target two", "u16le.txt", "3\tgamma target", "u32.txt", "2\tthe target here"],
         [6, 7, 5]),
    ],
)  # fmt: skip
def test_legacy_and_utf16_text_is_searched_as_read_decodes_it(
    session: Session, root: Path, pattern: str, rows: list[str], columns: list[int]
) -> None:
    _encoded(root)
    result = session.grep(pattern)
    assert result.text == "\n".join(rows)
    assert [m["column"] for m in result.metadata["matches"]] == columns


def test_a_second_byte_that_looks_like_ascii_is_no_match(session: Session, root: Path) -> None:
    _encoded(root)  # 表 is 0x95 0x5C in Shift-JIS: the raw bytes hold a backslash
    assert session.grep("\\\\").text == f"(No matches in the workspace; {NO_MATCH}"
    assert session.grep("表示", case_insensitive=True).text == "sjis.txt\n2\t表示 のテキスト"


def test_decoded_hits_follow_glob_type_path_and_files_only(session: Session, root: Path) -> None:
    _encoded(root)
    (root / "src").mkdir()
    (root / "src" / "legacy.py").write_bytes("# café\nNAME = 'café'\n".encode("cp1252"))
    assert session.grep("café", glob="*.py").text == "src/legacy.py\n1\t# café\n2\tNAME = 'café'"
    assert session.grep("café", type="py", path="src").text == "src/legacy.py\n1\t# café\n2\tNAME = 'café'"
    assert session.grep("café", glob="src/*.py").text == "src/legacy.py\n1\t# café\n2\tNAME = 'café'"
    assert session.grep("café", glob="{src,lib}/**").text == "src/legacy.py\n1\t# café\n2\tNAME = 'café'"
    assert session.grep("café", glob="!*.py").text == "cp1252.txt\n2\tle café – naïve “quoted” €5"
    assert session.grep("café", files_only=True).text == "cp1252.txt (1 match)\nsrc/legacy.py (2 matches)"
    assert session.grep("café", path="src/legacy.py", context=1).text == "src/legacy.py\n1\t# café\n2\tNAME = 'café'"


def test_edit_works_on_the_lines_a_decoded_grep_showed(session: Session, root: Path) -> None:
    _encoded(root)
    session.grep("目标")
    assert not session.edit("gbk.txt", "中文搜索 目标", "中文搜索 新目标").is_error
    assert (root / "gbk.txt").read_bytes() == "第一行\n第二行\n中文搜索 新目标\n".encode("gbk")
    assert session.grep("新目标").text == "gbk.txt\n3\t中文搜索 新目标"


def test_a_file_that_turns_legacy_after_the_census_is_judged_by_its_hits(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("nothing here\n")
    assert session.grep("needle").text == f"(No matches in the workspace; {NO_MATCH}"
    (root / "late.txt").write_bytes("表示\nneedle\n".encode("shift_jis"))  # 表's second byte is a backslash
    assert session.grep("\\\\|needle").text == "late.txt\n2\tneedle"


def test_a_legacy_file_too_big_to_decode_whole_is_named(root: Path) -> None:
    (root / "big.txt").write_bytes(("needle café\n" * 40).encode("cp1252"))
    session = Session([root], ledger=MemoryLedger(), limits=Limits(index_bytes=256))
    result = session.grep("café")
    assert result.text == (
        "(big.txt (cp1252, 480 bytes) is over 256 bytes, so grep searched its bytes, not its decoded text; read it "
        "by offset.)\n"
        f"(No matches in the workspace; {NO_MATCH}"
    )


def test_a_big_legacy_file_is_named_in_the_encoding_read_gives_it(root: Path) -> None:
    """The note names the encoding ``read`` reads the file in, judged as read judges a big file
    (from the complete lines of its head): the head cut mid-character read as cp1256 before."""
    pick = random.Random(1)
    hanzi = [chr(code) for code in range(0x4E00, 0x4E00 + 3000)]
    most = pick.randint(3, 40)
    words = ("".join(pick.choice(hanzi) for _ in range(pick.randint(1, most))) for _ in range(2000))
    (root / "big.txt").write_bytes("".join(f"{w}{' ok' if pick.random() < 0.3 else ''}\n" for w in words).encode("gbk"))
    session = Session([root], ledger=MemoryLedger(), limits=Limits(index_bytes=20_000))
    read = session.read("big.txt", offset=1, limit=1)
    assert read.metadata["encoding"] == "gb18030"
    assert session.grep("ok", max_results=1).text.splitlines()[3] == (
        "(big.txt (gb18030, 27829 bytes) is over 20000 bytes, so grep searched its bytes, not its decoded text; "
        "read it by offset.)"
    )  # named once, though judged twice (by the census, and for its lines that are not UTF-8)


# --- a glob or type that selects nothing -------------------------------------------------------


def _python_tree(root: Path) -> None:
    (root / "pkg").mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (root / "pkg" / name).write_text("x = 1\n")
    (root / "docs").mkdir()
    (root / "docs" / "index.rst").write_text("x\n")
    (root / "README.md").write_text("x\n")


def test_a_glob_that_selects_no_file_says_so_with_the_nearest_names(session: Session, root: Path) -> None:
    _python_tree(root)
    assert session.grep("fn main", glob="*.rs").text == (
        "(No file in the workspace matches glob '*.rs'; there are *.rst (1 file), *.py (3 files), *.md (1 file).)"
    )
    assert session.grep("x", glob="src/**/*.ts").text == (
        "(No file in the workspace matches glob 'src/**/*.ts'; there are *.rst (1 file), *.py (3 files), "
        "*.md (1 file).)"
    )
    assert session.grep("x", glob="READMEE.md", files_only=True).text == (
        "(No file in the workspace matches glob 'READMEE.md'; there are README.md, *.py (3 files), *.md (1 file), "
        "*.rst (1 file).)"
    )
    assert session.grep("fn main", glob="*.py", path="pkg").text == f"(No matches in pkg; {NO_MATCH}"


def test_a_type_that_selects_no_file_says_so(session: Session, root: Path) -> None:
    _python_tree(root)
    assert session.grep("fn main", type="rust").text == (
        "(No file of type rust (*.rs) in the workspace; there are *.rst (1 file), *.py (3 files), *.md (1 file).)"
    )
    (root / "empty").mkdir()
    assert session.grep("x", type="py", path="empty").text == (
        "(No file of type py (*.py, *.pyi) in empty; it has no files grep searches.)"
    )


FILE_NAMES = st.lists(
    st.from_regex(r"([a-z]{1,4}/)?[a-z]{1,5}(\.[a-z]{1,3})?", fullmatch=True), min_size=1, max_size=12
)


@given(wanted=st.from_regex(r"\*\.[a-z]{1,4}", fullmatch=True), files=FILE_NAMES)
def test_every_suggestion_names_files_there_are(wanted: str, files: list[str]) -> None:
    stems = [os.path.splitext(f.rsplit("/", 1)[-1]) for f in files]
    counts = Counter(f"*{ext}" for stem, ext in stems if stem and ext)
    suggested = nearest([wanted], files)
    assert len(suggested) == min(4, len(counts)) or any(" (" not in item for item in suggested)
    for item in suggested:
        glob, _, count = item.partition(" (")
        if count:
            assert count == plural(counts[glob], "file") + ")"
        else:
            assert item in files


def test_the_note_names_each_family_in_one_line() -> None:
    assert left_out_note(LeftOut(), "grep") is None
    assert left_out_note(LeftOut(("dist/",), 1, (".gitignore",)), "ls") == (
        "(Not listed: dist/, left out by .gitignore (include_ignored=true lists it).)"
    )
    assert left_out_note(LeftOut(denied_folders=2), "grep") == "(Not searched: 2 folders on the deny list.)"
    assert left_out_note(LeftOut(("a/", "b", "c", "d", "e"), 9, (".ignore", ".rgignore"), 1, 1), "grep") == (
        "(Not searched: a/, b, c, d, e and 4 more, left out by .ignore and .rgignore (include_ignored=true searches "
        "them); 1 file and 1 folder on the deny list.)"
    )


def test_a_glob_that_brings_an_ignored_folder_back_is_not_said_to_leave_it_out(session: Session, root: Path) -> None:
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("needle = 1\n")
    (root / "app.py").write_text("needle = 2\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("needle\n")
    plain = session.grep("needle").text
    assert plain == (
        "app.py\n1\tneedle = 2\n\n(Not searched: build/, left out by .gitignore (include_ignored=true searches it).)"
    )
    # ripgrep's glob overrides ignore files, so '*' searches build/ (never .git); the note follows
    assert session.grep("needle", glob="*").text == "app.py\n1\tneedle = 2\nbuild/gen.py\n1\tneedle = 1"
