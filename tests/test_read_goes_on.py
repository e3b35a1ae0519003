"""A ``read`` without a path goes on after the last window of the file the session read last (the
README's promise), through the library, the MCP server and the CLI, over every store: after a
window of lines, a slice of a long line, a symbol, an outline; at the end of the file it says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from leanread import Limits, MemoryLedger, Session
from leanread.ledger.resume import next_window_of
from leanread.ledger.store import LedgerStore
from leanread.mcp.server import build_server

LINES = [f"line {n}" for n in range(1, 51)]


def _frame(path: str, body: list[str], footer: str) -> str:
    return (
        f"<path>{path}</path>\n<type>file</type>\n<content>\n"
        + "".join(f"{line}\n" for line in body)
        + (f"\n{footer}\n</content>")
    )


@pytest.fixture
def notes(root: Path) -> Path:
    (root / "notes.txt").write_text("".join(f"{line}\n" for line in LINES))
    return root / "notes.txt"


def test_a_read_without_a_path_goes_on_after_the_last_window(store: LedgerStore, root: Path, notes: Path) -> None:
    session = Session([root], ledger=store)
    session.read("notes.txt", limit=10)
    assert session.read(limit=5).text == _frame(
        "notes.txt", LINES[10:15], "(Showing lines 11-15 of 50. Use offset=16 to continue.)"
    )
    assert session.read().text == _frame("notes.txt", LINES[15:], "(End of file - total 50 lines)")
    resumed = Session([root], ledger=store, id=session.id)  # the place is in the ledger, not the process
    assert resumed.read().text == (
        "The last read of notes.txt ended at its last line (50), so a read without a path has nothing to go on "
        "with; pass offset (1 to 50) to read notes.txt again, or a path to read another file."
    )
    with notes.open("a") as log:  # the file grew: going on shows what was added
        log.write("line 51\nline 52\n")
    assert resumed.read().text == _frame("notes.txt", ["line 51", "line 52"], "(End of file - total 52 lines)")


def test_after_a_window_of_another_file_it_goes_on_with_that_one(session: Session, root: Path, notes: Path) -> None:
    (root / "other.txt").write_text("".join(f"other {n}\n" for n in range(1, 21)))
    session.read("notes.txt", limit=10)
    session.read("other.txt", offset=5, limit=3)
    assert session.read(limit=2).text == _frame(
        "other.txt", ["other 8", "other 9"], "(Showing lines 8-9 of 20. Use offset=10 to continue.)"
    )


def test_the_window_given_with_no_path_is_taken_as_given(session: Session, notes: Path) -> None:
    session.read("notes.txt", limit=10)
    assert session.read(offset=3, limit=2).text == _frame(
        "notes.txt", ["line 3", "line 4"], "(Showing lines 3-4 of 50. Use offset=5 to continue.)"
    )
    assert session.read(limit=1).text == _frame(
        "notes.txt", ["line 5"], "(Showing lines 5-5 of 50. Use offset=6 to continue.)"
    )


def test_after_an_outline_it_reads_the_text_from_line_1(session: Session, root: Path) -> None:
    body = "".join(f"def f{i}(a, b):\n" + "".join(f"    x{n} = a * {n}\n" for n in range(12)) + "\n" for i in range(20))
    (root / "big.py").write_text(body)
    assert session.read("big.py").metadata["type"] == "outline"
    going_on = session.read(limit=3)
    assert going_on.text == _frame(
        "big.py",
        ["def f0(a, b):", "    x0 = a * 0", "    x1 = a * 1"],
        "(Showing lines 1-3 of 280. Use offset=4 to continue.)",
    )
    assert session.read(mode="outline").metadata["type"] == "outline"  # the outline when asked for


def test_after_a_symbol_it_goes_on_after_the_definition(session: Session, root: Path) -> None:
    (root / "mod.py").write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    assert session.read("mod.py", symbol="a").metadata["last_line"] == 2
    assert session.read(limit=3).text == _frame(
        "mod.py", ["", "", "def b():"], "(Showing lines 3-5 of 6. Use offset=6 to continue.)"
    )


def test_after_a_slice_of_a_long_line_it_reads_the_rest_of_that_line(root: Path) -> None:
    (root / "min.js").write_text("a" * 2000 + "b" * 3000 + "\nlast\n")
    first = Session([root], ledger=MemoryLedger(), limits=Limits(max_bytes=1500))
    sliced = first.read("min.js", offset=1, char_offset=2001)
    assert (sliced.metadata["char_offset"], sliced.metadata["last_char"]) == (2001, 3500)
    rest = first.read()
    assert (rest.metadata["char_offset"], rest.metadata["last_char"], rest.metadata["line_chars"]) == (3501, 5000, 5000)
    assert rest.text.split("\n")[3] == "b" * 1500
    assert first.read().text == _frame("min.js", ["last"], "(End of file - total 2 lines)")


def test_an_image_is_shown_again(session: Session, root: Path) -> None:
    from leanread.bench.documents import png_bytes

    pytest.importorskip("PIL")
    (root / "shot.png").write_bytes(png_bytes(30, 20))
    session.read("shot.png")
    assert session.read().text == (
        "<path>shot.png</path>\n<type>image</type>\n<content>\n(Image unchanged since you read it in r1, still in "
        "your context. Use fresh=true to see it again.)\n</content>"
    )


def test_where_each_kind_of_result_goes_on() -> None:
    assert next_window_of({"type": "file", "offset": 11, "last_line": 15}) == (16, 1)
    assert next_window_of({"type": "pdf", "document": True, "offset": 1, "last_line": 10}) == (11, 1)
    assert next_window_of(
        {"type": "file", "offset": 4, "char_offset": 2001, "last_char": 2500, "line_chars": 9000}
    ) == (
        4,
        2501,
    )
    assert next_window_of(
        {"type": "file", "offset": 4, "char_offset": 2001, "last_char": 9000, "line_chars": 9000}
    ) == (
        5,
        1,
    )
    assert next_window_of({"type": "outline", "total_lines": 900}) == (1, 1)
    assert next_window_of({"type": "image", "document": True}) is None


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 120), first=st.integers(1, 40), pages=st.lists(st.integers(1, 30), min_size=1, max_size=12))
def test_going_on_from_any_window_shows_every_line_once_in_order(
    tmp_path_factory: pytest.TempPathFactory, count: int, first: int, pages: list[int]
) -> None:
    folder = tmp_path_factory.mktemp("ws")
    lines = [f"row {n} {'x' * (n % 7)}" for n in range(1, count + 1)]
    (folder / "f.txt").write_text("".join(f"{line}\n" for line in lines))
    session = Session([folder], ledger=MemoryLedger())
    window = min(first, count)
    shown = session.read("f.txt", limit=window)
    seen = shown.metadata["last_line"]
    for page in pages:
        result = session.read(limit=page)
        if seen == count:
            assert result.is_error and result.text.startswith("The last read of f.txt ended at its last line")
            break
        assert (result.metadata["offset"], result.metadata["last_line"]) == (seen + 1, min(seen + page, count))
        body = result.text.split("<content>\n", 1)[1].rsplit("\n\n(", 1)[0].split("\n")
        assert body == lines[seen : result.metadata["last_line"]]
        seen = result.metadata["last_line"]


@pytest.mark.anyio
async def test_over_mcp_a_read_without_a_path_goes_on(root: Path, notes: Path) -> None:
    async with Client(build_server([root], ledger=MemoryLedger())) as client:
        await client.call_tool("read", {"path": "notes.txt", "limit": 10})
        going_on = await client.call_tool("read", {"limit": "3"})
        end = await client.call_tool("read", {"offset": 48})
        nothing = await client.call_tool("read", {})
    texts = ["".join(getattr(b, "text", "") for b in r.content) for r in (going_on, end, nothing)]
    assert texts == [
        _frame("notes.txt", LINES[10:13], "(Showing lines 11-13 of 50. Use offset=14 to continue.)"),
        _frame("notes.txt", LINES[47:], "(End of file - total 50 lines)"),
        "The last read of notes.txt ended at its last line (50), so a read without a path has nothing to go on with; "
        "pass offset (1 to 50) to read notes.txt again, or a path to read another file.",
    ]
    assert [bool(r.is_error) for r in (going_on, end, nothing)] == [False, False, True]


def test_the_cli_goes_on_across_processes_of_one_session(root: Path, notes: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        base = [sys.executable, "-m", "leanread", "read", *args, "--root", str(root), "--session", "conv-9"]
        return subprocess.run(base, capture_output=True, text=True, timeout=60, env=dict(os.environ))

    assert cli("notes.txt", "--limit", "10").returncode == 0
    going_on = cli("--limit", "2")
    assert (going_on.returncode, going_on.stderr) == (0, "")
    assert (
        going_on.stdout
        == _frame("notes.txt", ["line 11", "line 12"], "(Showing lines 11-12 of 50. Use offset=13 to continue.)") + "\n"
    )
