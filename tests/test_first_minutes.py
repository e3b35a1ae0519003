"""What a newcomer meets in the first five minutes: the CLI's help, its errors and the small
refusals that name the next step (issue 20)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from leanread import Session

COMMANDS = ["read", "grep", "ls", "serve", "demo", "bench"]


def _leanread(*args: str, cwd: Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "leanread", *args], cwd=cwd, capture_output=True, text=True, timeout=60, env=env
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_help_reads_well_at_80_columns(command: str, tmp_path: Path) -> None:
    done = _leanread(command, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    # option descriptions start by column 34 (click's 30-column name cap, its gap and indent), so a
    # wrapped description keeps at least 46 columns a line
    descriptions = [line for line in lines if line.startswith("  --")]
    assert descriptions, done.stdout
    for line in descriptions:
        name, _, text = line[2:].partition("  ")
        assert len(name) > 30 or text.strip() == "" or line.index(text.strip()) <= 34, line


def test_read_help_wraps_a_description_in_full_lines(tmp_path: Path) -> None:
    out = _leanread("read", "--help", cwd=tmp_path).stdout
    assert (
        "  --match-id <str>           A grep match id (m4, from the result's metadata):\n"
        "                             the lines around that match, instead of path and\n"
        "                             offset.\n"
    ) in out


def test_match_id_without_session_names_the_flag(tmp_path: Path) -> None:
    done = _leanread("read", "--match-id", "m1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "--match-id needs --session: match ids live in a ledger session, so run "
        "`leanread grep PATTERN --session NAME`, then `leanread read --match-id m1 --session NAME`.\n"
    )


def test_char_offset_without_offset_says_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abcdef\n")
    result = Session([tmp_path]).read("a.txt", char_offset=3)
    assert result.is_error
    assert result.text == "char_offset needs offset: pass offset=N too to read line N from that character on."


def test_a_relative_path_is_looked_for_in_every_root(tmp_path: Path) -> None:
    roots = [tmp_path / name for name in ("a", "b", "c")]
    for root in roots:
        root.mkdir()
    (roots[0] / "only_a.txt").write_text("A\n")
    (roots[1] / "only_b.txt").write_text("B\n")
    (roots[1] / "both.txt").write_text("B\n")
    (roots[2] / "both.txt").write_text("C\n")
    (roots[0] / "first.txt").write_text("first\n")
    (roots[2] / "first.txt").write_text("third\n")
    session = Session(roots)
    assert session.read("only_a.txt").text.startswith("<path>only_a.txt</path>")
    assert session.read("first.txt").text.startswith("<path>first.txt</path>")  # the first root wins
    found = session.read("only_b.txt")
    assert found.text.startswith(f"<path>{roots[1] / 'only_b.txt'}</path>")
    both = session.read("both.txt")
    assert both.is_error and both.text == (
        f"both.txt is not in the first workspace root but is in 2 others ({roots[1] / 'both.txt'}, "
        f"{roots[2] / 'both.txt'}); pass the absolute path of the one you mean."
    )
    missing = session.read("nothing.txt")
    assert missing.text == (
        "File not found: nothing.txt. Check the spelling, or list its folder to see what exists. "
        f"(Looked in every workspace root: {', '.join(str(r) for r in roots)}.)"
    )
    assert session.edit("only_b.txt", "B", "BB").is_error is False  # the grant of that read holds
    assert (roots[1] / "only_b.txt").read_text() == "BB\n"


def test_counts_agree_with_their_noun_and_use_plain_digits(tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("only\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("x\n")
    (tmp_path / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 12001)))
    session = Session([tmp_path])
    assert session.read("one.txt").text.endswith("(End of file - total 1 line)\n</content>")
    assert session.read("d").text.endswith("(End of directory - total 1 entry; ls shows the tree below it)\n</content>")
    page = session.read("big.txt", offset=11999, mode="full")
    assert page.text.endswith("(End of file - total 12000 lines)\n</content>")
    found = session.grep("^row 1", path="big.txt", max_results=1)
    assert "(Showing matches 1-1 of 3112 in 1 file." in found.text  # 1, 10-19, …, 10000-12000
    assert session.grep("^only$").text == "one.txt\n1\tonly"  # a whole result needs no count


def test_plain_digits_cost_fewer_tokens_than_grouped_ones() -> None:
    from leanread.tokens import count_tokens
    from leanread.view.counts import plural

    assert [plural(n, noun) for n, noun in [(1, "line"), (2, "line"), (1, "match"), (3, "match"), (5, "entry")]] == [
        "1 line", "2 lines", "1 match", "3 matches", "5 entries"
    ]  # fmt: skip
    for n in (1234, 400000, 20000000):
        assert count_tokens(f"(End of file - total {n} lines)") < count_tokens(f"(End of file - total {n:,} lines)")


def test_a_session_takes_a_ledger_named_as_the_cli_names_it(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    session = Session([tmp_path], ledger="memory")
    assert session.read("a.txt").text.endswith("(End of file - total 1 line)\n</content>")
    assert session.read("a.txt").metadata["mode"] in ("full", "stub")


def test_grep_searches_every_root_and_ls_names_the_others(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    (first / "src").mkdir(parents=True)
    (second / "src").mkdir(parents=True)
    (first / "src" / "x.py").write_text("onlyA = 1\n")
    (second / "src" / "y.py").write_text("onlyB = 2\n")
    session = Session([first, second], ledger="memory")
    found = session.grep("only[AB]")
    assert found.text == f"src/x.py\n1\tonlyA = 1\n{second / 'src' / 'y.py'}\n1\tonlyB = 2"  # by realpath: a/, b/
    assert session.ls().text == (
        f".:\nsrc/\n  x.py\n\n(The workspace has 1 other root too: {second}; ls one by its path.)"
    )


def test_a_bug_inside_a_tool_is_one_sentence_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from leanread.tools import grep as grep_tool

    (tmp_path / "a.txt").write_text("x\n")

    def broken(*args: object) -> object:
        raise KeyError("lost")

    monkeypatch.setattr(grep_tool, "run", broken)  # stands for any bug a hostile input may find
    session = Session([tmp_path], ledger="memory")
    result = session.grep("x")
    expected = "leanread failed on this grep call (KeyError); try it again, or narrow it."
    assert (result.is_error, result.text) == (True, expected)
    assert result.metadata["internal_error"] == "KeyError: 'lost'"
    assert session.read("a.txt").is_error is False  # the session goes on
